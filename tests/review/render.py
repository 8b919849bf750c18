"""Renders a Markdown comment from stdin to HTML on stdout, as a code host would:

    python3 render.py cmark-gfm [--page] < review.md > review.html
    python3 render.py cmark-gfm-safe < review.md
    python3 render.py python-markdown < review.md

cmark-gfm: the renderer GitHub's own is built on, with GitHub's extensions (tables,
autolinks, strike-through, task lists, and the tag filter that disarms raw <script>,
<style> and the like); raw HTML is let through as GitHub lets the tags it allows
(<details>, <code>). cmark-gfm-safe: the same CommonMark with raw HTML refused, as
Bitbucket Data Center refuses it. python-markdown: Python-Markdown, of the Markdown.pl
family rather than CommonMark, with its raw-HTML readers removed so that a tag is text,
as Bitbucket Cloud shows it.

--page wraps the HTML in a page styled as a pull-request comment, for a screenshot.
"""
import sys

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


def render(renderer, text):
    if renderer in ("cmark-gfm", "cmark-gfm-safe"):
        import cmarkgfm
        from cmarkgfm.cmark import Options

        options = Options.CMARK_OPT_UNSAFE if renderer == "cmark-gfm" else 0
        return cmarkgfm.github_flavored_markdown_to_html(text, options=options)
    if renderer == "python-markdown":
        import markdown

        md = markdown.Markdown(extensions=["fenced_code"])
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        return md.convert(text)
    sys.exit(f"render.py: cmark-gfm, cmark-gfm-safe or python-markdown, not {renderer!r}")


if len(sys.argv) < 2:
    sys.exit(__doc__)
html = render(sys.argv[1], sys.stdin.read())
sys.stdout.write(PAGE % html if "--page" in sys.argv[2:] else html)
