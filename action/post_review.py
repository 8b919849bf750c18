"""Posts the review on a pull request (GitHub) or merge request (GitLab), or edits the
comment that holds the last one.

    python3 post_review.py github OWNER/REPO NUMBER REVIEW.md
    python3 post_review.py gitlab PROJECT_ID MR_IID REVIEW.md

The comment is found by the marker the review begins with (`<!-- override-guard review
-->`), among all the request's comments, not by being the last one: a discussion under
it stays below it, and another tool's comment is never overwritten. A comment with the
marker that the token may not edit (another author's, quoting it) is left alone, and a
new one is posted when none can be edited. GitHub: the REST API at $GITHUB_API_URL with
$GITHUB_TOKEN. GitLab: the API at $CI_API_V4_URL with $GITLAB_TOKEN, a project or group
access token with the `api` scope (a job's own token may not write notes). Python's
standard library only, so it runs on any runner.
"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

MARKER = "<!-- override-guard review -->"


class Forge:
    """Where a request's comments are, and how to ask for them."""

    def __init__(self, kind, project, number):
        if kind == "github":
            self.api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
            self.auth = ("Authorization", "Bearer " + os.environ["GITHUB_TOKEN"])
            self.list = f"/repos/{project}/issues/{number}/comments"
            self.one = f"/repos/{project}/issues/comments/{{id}}"
            self.edit = "PATCH"
        elif kind == "gitlab":
            self.api = os.environ.get("CI_API_V4_URL", "https://gitlab.com/api/v4").rstrip("/")
            self.auth = ("PRIVATE-TOKEN", os.environ["GITLAB_TOKEN"])
            project = urllib.parse.quote(project, safe="")
            self.list = f"/projects/{project}/merge_requests/{number}/notes"
            self.one = self.list + "/{id}"
            self.edit = "PUT"
        else:
            sys.exit(f"post_review.py: github or gitlab, not {kind!r}")

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps({"body": body}).encode()
        req = urllib.request.Request(self.api + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        req.add_header(*self.auth)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=30) as res:
            return json.load(res)

    def comments(self):
        page = 1
        while True:
            batch = self.call("GET", f"{self.list}?per_page=100&page={page}")
            yield from batch
            if len(batch) < 100:
                return
            page += 1


def main(kind, project, number, path):
    forge = Forge(kind, project, number)
    with open(path, encoding="utf-8") as f:
        body = f.read()
    if not body.startswith(MARKER):
        body = MARKER + "\n" + body
    ours = [c for c in forge.comments() if (c.get("body") or "").startswith(MARKER)]
    for c in reversed(ours):
        try:
            forge.call(forge.edit, forge.one.format(id=c["id"]), body)
            print(f"edited comment {c['id']}")
            return
        except urllib.error.HTTPError as e:
            if e.code not in (403, 404):
                raise
    made = forge.call("POST", forge.list, body)
    print(f"posted comment {made['id']}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
