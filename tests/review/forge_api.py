"""A stand-in for the few endpoints of the hosts' APIs that action/post_review.py calls,
for its test: one list of comments in memory, each with its author, served as each API
shapes it. GitHub: pull request 7 of o/r, and its commits. GitLab: merge request 7 of
project o/r, and its commits' discussions. Bitbucket Cloud: pull request 7 of o/r, and
its commits.
Bitbucket Data Center: pull request 7 of repository r in project o, its comments among
its activities, each edit naming the version it replaces. The token's user may edit only
its own. Prints its port, then serves until stdin closes; GET /state returns the
comments.

    python3 forge_api.py SEED.json
"""
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

comments = json.load(open(sys.argv[1]))
ME = "github-actions[bot]"
PORT = [0]
BEARER = ("Authorization", "Bearer t0ken")
GITLAB = ("PRIVATE-TOKEN", "t0ken")
DC = "/rest/api/1.0/projects/o/repos/r/pull-requests/7"

# Each forge: where its comments are read, where one is posted, one comment (its id the
# match's first group), the method that edits, and the header and value that authorise.
FORGES = {
    "github": ("/repos/o/r/issues/7/comments", None, "/repos/o/r/issues/comments/(\\d+)", "PATCH", BEARER),
    "github-commit": ("/repos/o/r/commits/[0-9a-f]+/comments", None, "/repos/o/r/comments/(\\d+)", "PATCH", BEARER),
    "gitlab": ("/api/v4/projects/o%2Fr/merge_requests/7/notes", None, "/api/v4/projects/o%2Fr/merge_requests/7/notes/(\\d+)", "PUT", GITLAB),
    "gitlab-commit": ("/api/v4/projects/o%2Fr/repository/commits/[0-9a-f]+/discussions", None, "/api/v4/projects/o%2Fr/repository/commits/[0-9a-f]+/discussions/d\\d+/notes/(\\d+)", "PUT", GITLAB),
    "bitbucket": ("/2.0/repositories/o/r/pullrequests/7/comments", None, "/2.0/repositories/o/r/pullrequests/7/comments/(\\d+)", "PUT", BEARER),
    "bitbucket-commit": ("/2.0/repositories/o/r/commit/[0-9a-f]+/comments", None, "/2.0/repositories/o/r/commit/[0-9a-f]+/comments/(\\d+)", "PUT", BEARER),
    "bitbucket-server": (DC + "/activities", DC + "/comments", DC + "/comments/(\\d+)", "PUT", BEARER),
}


def shaped(forge, c):
    if forge == "gitlab-commit":
        # A commit's notes come in discussions, here one a note.
        return {"id": f"d{c['id']}", "notes": [c]}
    if forge in ("bitbucket", "bitbucket-commit"):
        return {"id": c["id"], "user": {"nickname": c["user"]["login"]}, "content": {"raw": c["body"]}, "deleted": False}
    if forge == "bitbucket-server":
        return {"id": c["id"], "version": c.get("version", 0), "author": {"name": c["user"]["login"]}, "text": c["body"]}
    return c


def activities():
    """Data Center's activities: each comment's, and an approval among them."""
    out = [{"id": 1000 + c["id"], "action": "COMMENTED", "comment": shaped("bitbucket-server", c)} for c in comments]
    out.insert(1, {"id": 999, "action": "APPROVED"})
    return out


class Api(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, code, value):
        data = json.dumps(value).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def route(self, method):
        """The forge and the match of one comment's path (None for the list), or None,
        the answer sent."""
        path = self.path.split("?")[0]
        for forge, (read, post, one, edit, (header, value)) in FORGES.items():
            m = re.fullmatch(one, path)
            listed = (method == "GET" and re.fullmatch(read, path)) or (
                method == "POST" and re.fullmatch(post or read, path)
            )
            if (m and method == edit) or listed:
                if self.headers.get(header) != value:
                    self.send(401, {"message": "Bad credentials"})
                    return None
                return forge, (m if method == edit else None)
        self.send(404, {"message": "Not Found"})
        return None

    def sent(self):
        n = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(n))

    @staticmethod
    def body(forge, sent):
        if forge in ("bitbucket", "bitbucket-commit"):
            return sent["content"]["raw"]
        if forge == "bitbucket-server":
            return sent["text"]
        return sent["body"]

    def do_GET(self):
        if self.path == "/state":
            return self.send(200, comments)
        found = self.route("GET")
        if not found:
            return
        forge, _ = found
        query = dict(p.split("=") for p in self.path.split("?", 1)[1].split("&"))
        page = int(query.get("page", 1))
        if forge in ("bitbucket", "bitbucket-commit"):
            per = int(query["pagelen"])
            batch = comments[(page - 1) * per: page * per]
            out = {"values": [shaped(forge, c) for c in batch], "pagelen": per}
            if page * per < len(comments):
                path = self.path.split("?")[0]
                out["next"] = f"http://127.0.0.1:{PORT[0]}{path}?pagelen={per}&page={page + 1}"
            return self.send(200, out)
        if forge == "bitbucket-server":
            start, limit = int(query["start"]), int(query["limit"])
            every = activities()
            out = {"values": every[start: start + limit], "start": start, "limit": limit}
            out["isLastPage"] = start + limit >= len(every)
            if not out["isLastPage"]:
                out["nextPageStart"] = start + limit
            return self.send(200, out)
        per = int(query["per_page"])
        self.send(200, [shaped(forge, c) for c in comments[(page - 1) * per: page * per]])

    def do_PATCH(self):
        self.edit("PATCH")

    def do_PUT(self):
        self.edit("PUT")

    def edit(self, method):
        found = self.route(method)
        if not found:
            return
        forge, m = found
        hit = [c for c in comments if m and c["id"] == int(m.group(1))]
        if not hit or (forge == "gitlab-commit" and f"/discussions/d{hit[0]['id']}/" not in self.path):
            return self.send(404, {"message": "Not Found"})
        if hit[0]["user"]["login"] != ME:
            return self.send(403, {"message": "Resource not accessible by integration"})
        sent = self.sent()
        if forge == "bitbucket-server":
            if sent.get("version") != hit[0].get("version", 0):
                return self.send(409, {"errors": [{"message": "You are attempting to modify a comment based on out-of-date information."}]})
            hit[0]["version"] = hit[0].get("version", 0) + 1
        hit[0]["body"] = self.body(forge, sent)
        self.send(200, hit[0] if forge == "gitlab-commit" else shaped(forge, hit[0]))

    def do_POST(self):
        found = self.route("POST")
        if not found:
            return
        forge, _ = found
        c = {"id": max([c["id"] for c in comments] + [0]) + 1, "user": {"login": ME}, "body": self.body(forge, self.sent())}
        comments.append(c)
        self.send(201, shaped(forge, c))


server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
PORT[0] = server.server_address[1]
print(PORT[0], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
