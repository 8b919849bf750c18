"""Posts an override-guard comment (`--format markdown`), or edits the one that holds the
last of them:

    python3 post_review.py github OWNER/REPO NUMBER REVIEW.md            a pull request
    python3 post_review.py github-commit OWNER/REPO SHA REVIEW.md        a commit (a push)
    python3 post_review.py gitlab PROJECT_ID MR_IID REVIEW.md            a merge request
    python3 post_review.py gitlab-commit PROJECT_ID SHA REVIEW.md        a commit (a push)
    python3 post_review.py bitbucket WORKSPACE/REPO PR_ID REVIEW.md      a pull request
    python3 post_review.py bitbucket-commit WORKSPACE/REPO SHA REVIEW.md a commit (a push)
    python3 post_review.py bitbucket-server PROJECT/REPO PR_ID REVIEW.md a pull request

The comment is found by the marker the review begins with (`<!-- override-guard review
-->`, or `[//]: # (override-guard review)` in Bitbucket's flavour), among all the
comments, not by being the last one: a discussion under it stays below it, and another
tool's comment is never overwritten. A comment with the marker that the token may not
edit (another author's, quoting it) is left alone, and a new one is posted when none can
be edited.

GitHub: the REST API at $GITHUB_API_URL with $GITHUB_TOKEN. GitLab: the API at
$CI_API_V4_URL with $GITLAB_TOKEN, a project or group access token with the `api` scope
(a job's own token may not write notes). Bitbucket Cloud: the API at $BITBUCKET_API_URL
(https://api.bitbucket.org/2.0 by default) with $BITBUCKET_TOKEN, a repository access
token with the `pullrequest:write` scope (for a commit's comments, one that may write to
the repository). Bitbucket Data Center: the server at
$BITBUCKET_SERVER_URL with $BITBUCKET_TOKEN, an HTTP access token that may write to the
repository. A refusal (a bad token, a missing permission, a comment over the host's
limit) exits 1 with the host's own words. Python's standard library only, so it runs on
any runner.
"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

MARKERS = ("<!-- override-guard review -->", "[//]: # (override-guard review)")


def env(name, default=None):
    """A setting from the environment, or a clear exit when it is needed and not there."""
    value = os.environ.get(name) or default
    if not value:
        sys.exit(f"post_review.py: {name} is not set")
    return value.rstrip("/")


class Host:
    """One host's comments: how to list them (each as its id, its text, and what an edit
    needs), edit one, and post one. `api` and `auth` are set by each host."""

    marker = MARKERS[0]

    def call(self, method, url, payload=None):
        data = None if payload is None else json.dumps(payload).encode()
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Accept", "application/json")
        req.add_header(*self.auth)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=30) as res:
            return json.load(res)

    def numbered_pages(self, path):
        """The items of `path`, asked for 100 a page until a page is not full."""
        page = 1
        while True:
            batch = self.call("GET", f"{self.api}{path}?per_page=100&page={page}")
            yield from batch
            if len(batch) < 100:
                return
            page += 1


class GitHub(Host):
    def __init__(self, project, number, commit):
        self.api = env("GITHUB_API_URL", "https://api.github.com")
        self.auth = ("Authorization", "Bearer " + env("GITHUB_TOKEN"))
        where = "commits" if commit else "issues"
        self.list = f"/repos/{project}/{where}/{number}/comments"
        self.one = f"/repos/{project}/{'comments' if commit else 'issues/comments'}/{{}}"

    def comments(self):
        for c in self.numbered_pages(self.list):
            yield c["id"], c.get("body") or "", c

    def edit(self, c, body):
        self.call("PATCH", self.api + self.one.format(c["id"]), {"body": body})

    def post(self, body):
        return self.call("POST", self.api + self.list, {"body": body})["id"]


class GitLab(Host):
    def __init__(self, project, number, commit):
        self.api = env("CI_API_V4_URL", "https://gitlab.com/api/v4")
        self.auth = ("PRIVATE-TOKEN", env("GITLAB_TOKEN"))
        project = urllib.parse.quote(project, safe="")
        # A commit's notes are in discussions: only there can they be edited.
        self.commit = commit
        if commit:
            self.list = f"/projects/{project}/repository/commits/{number}/discussions"
        else:
            self.list = f"/projects/{project}/merge_requests/{number}/notes"

    def comments(self):
        for c in self.numbered_pages(self.list):
            if self.commit:
                for n in c.get("notes", []):
                    yield n["id"], n.get("body") or "", f"{self.list}/{c['id']}/notes/{n['id']}"
            else:
                yield c["id"], c.get("body") or "", f"{self.list}/{c['id']}"

    def edit(self, at, body):
        self.call("PUT", self.api + at, {"body": body})

    def post(self, body):
        made = self.call("POST", self.api + self.list, {"body": body})
        return made["notes"][0]["id"] if self.commit else made["id"]


class Bitbucket(Host):
    marker = MARKERS[1]

    def __init__(self, project, number, commit):
        self.api = env("BITBUCKET_API_URL", "https://api.bitbucket.org/2.0")
        self.auth = ("Authorization", "Bearer " + env("BITBUCKET_TOKEN"))
        where = "commit" if commit else "pullrequests"
        self.list = f"/repositories/{project}/{where}/{number}/comments"

    def comments(self):
        # Each page names the next one.
        url = f"{self.api}{self.list}?pagelen=100"
        while url:
            batch = self.call("GET", url)
            for c in batch.get("values", []):
                if not c.get("deleted"):
                    yield c["id"], (c.get("content") or {}).get("raw") or "", c
            url = batch.get("next")

    def edit(self, c, body):
        self.call("PUT", f"{self.api}{self.list}/{c['id']}", {"content": {"raw": body}})

    def post(self, body):
        return self.call("POST", self.api + self.list, {"content": {"raw": body}})["id"]


class BitbucketServer(Host):
    """Bitbucket Data Center: a pull request's comments are read from its activities,
    and an edit names the version it replaces."""

    marker = MARKERS[1]

    def __init__(self, project, number, commit):
        key, _, repo = project.partition("/")
        self.api = env("BITBUCKET_SERVER_URL") + "/rest/api/1.0"
        self.auth = ("Authorization", "Bearer " + env("BITBUCKET_TOKEN"))
        self.pr = f"/projects/{key}/repos/{repo}/pull-requests/{number}"

    def comments(self):
        start = 0
        while start is not None:
            batch = self.call("GET", f"{self.api}{self.pr}/activities?start={start}&limit=100")
            for a in batch.get("values", []):
                c = a.get("comment") if a.get("action") == "COMMENTED" else None
                if c:
                    yield c["id"], c.get("text") or "", c
            start = None if batch.get("isLastPage", True) else batch.get("nextPageStart")

    def edit(self, c, body):
        url = f"{self.api}{self.pr}/comments/{c['id']}"
        self.call("PUT", url, {"text": body, "version": c.get("version", 0)})

    def post(self, body):
        return self.call("POST", f"{self.api}{self.pr}/comments", {"text": body})["id"]


HOSTS = {
    "github": (GitHub, False),
    "github-commit": (GitHub, True),
    "gitlab": (GitLab, False),
    "gitlab-commit": (GitLab, True),
    "bitbucket": (Bitbucket, False),
    "bitbucket-commit": (Bitbucket, True),
    "bitbucket-server": (BitbucketServer, False),
}


def main(kind, project, number, path):
    if kind not in HOSTS:
        sys.exit(f"post_review.py: one of {', '.join(HOSTS)}, not {kind!r}")
    make, commit = HOSTS[kind]
    host = make(project, number, commit)
    with open(path, encoding="utf-8") as f:
        body = f.read()
    if not body.startswith(MARKERS):
        body = host.marker + "\n" + body
    ours = [(i, c) for i, text, c in host.comments() if text.startswith(MARKERS)]
    for i, c in reversed(ours):
        try:
            host.edit(c, body)
            print(f"edited comment {i}")
            return
        except urllib.error.HTTPError as e:
            if e.code not in (403, 404):
                raise
    print(f"posted comment {host.post(body)}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    try:
        main(*sys.argv[1:])
    except urllib.error.HTTPError as e:
        # The host's own words (a bad token, a missing permission, a comment too long).
        said = e.read().decode("utf-8", "replace").strip()[:500]
        sys.exit(f"post_review.py: {e.code} {e.reason} from {e.geturl()}: {said}")
    except urllib.error.URLError as e:
        sys.exit(f"post_review.py: no answer from the API: {e.reason}")
    except OSError as e:
        sys.exit(f"post_review.py: {e.filename or sys.argv[4]}: {e.strerror or e}")
