"""Renders GitHub-flavoured Markdown from stdin to HTML on stdout with cmark-gfm, the
renderer GitHub's own is built on, with GitHub's extensions: tables, autolinks,
strike-through, task lists, and the tag filter that disarms raw <script>, <style> and
the like. Raw HTML is let through as GitHub lets the tags it allows (<details>, <code>).

    python3 gfm.py [--page] < review.md > review.html

--page wraps the HTML in a page styled as a pull-request comment, for a screenshot.
"""
import sys

import cmarkgfm
from cmarkgfm.cmark import Options

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><style>
body { font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
       color: #1f2328; background: #fff; margin: 0; padding: 16px; }
.comment { border: 1px solid #d1d9e0; border-radius: 6px; max-width: 1180px; }
.head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px;
        border-radius: 6px 6px 0 0; color: #59636e; }
.body { padding: 16px; }
h2 { font-size: 1.5em; border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; margin-top: 0; }
h3 { font-size: 1.1em; margin-top: 24px; }
code { font: 12px ui-monospace, "DejaVu Sans Mono", monospace; background: #eff1f3;
       padding: .2em .4em; border-radius: 6px; }
pre { background: #f6f8fa; padding: 16px; border-radius: 6px; overflow: auto; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; text-align: left; }
tr:nth-child(2n) { background: #f6f8fa; }
a { color: #0969da; text-decoration: none; }
details summary { cursor: pointer; color: #0969da; }
</style></head><body><div class="comment"><div class="head"><b>override-guard</b>
commented</div><div class="body">
%s
</div></div></body></html>
"""

html = cmarkgfm.github_flavored_markdown_to_html(sys.stdin.read(), options=Options.CMARK_OPT_UNSAFE)
sys.stdout.write(PAGE % html if "--page" in sys.argv[1:] else html)
