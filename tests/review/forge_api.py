"""A stand-in for the few endpoints of GitHub's and GitLab's APIs that
action/post_review.py calls, for its test: one request's comments in memory (pull
request 7 of o/r, merge request 7 of project o/r), each with its author; the token's
user may edit only its own. Prints its port, then serves until stdin closes; GET /state
returns the comments.

    python3 forge_api.py SEED.json
"""
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

comments = json.load(open(sys.argv[1]))
ME = "github-actions[bot]"
LIST = r"(?:/repos/o/r/issues/7/comments|/api/v4/projects/o%2Fr/merge_requests/7/notes)"
PER_PAGE_SEEN = []


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

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(n))["body"]

    def authorised(self):
        github = self.headers.get("Authorization") == "Bearer t0ken"
        gitlab = self.headers.get("PRIVATE-TOKEN") == "t0ken"
        if not (github and self.path.startswith("/repos/")) and not (gitlab and self.path.startswith("/api/v4/")):
            self.send(401, {"message": "Bad credentials"})
            return False
        return True

    def do_GET(self):
        if self.path == "/state":
            return self.send(200, comments)
        if not self.authorised():
            return
        m = re.fullmatch(LIST + r"\?per_page=(\d+)&page=(\d+)", self.path)
        if not m:
            return self.send(404, {"message": "Not Found"})
        per, page = int(m.group(1)), int(m.group(2))
        PER_PAGE_SEEN.append(per)
        self.send(200, comments[(page - 1) * per: page * per])

    def do_PATCH(self):
        self.edit(r"/repos/o/r/issues/comments/(\d+)")

    def do_PUT(self):
        self.edit(r"/api/v4/projects/o%2Fr/merge_requests/7/notes/(\d+)")

    def edit(self, route):
        if not self.authorised():
            return
        m = re.fullmatch(route, self.path)
        found = [c for c in comments if m and c["id"] == int(m.group(1))]
        if not found:
            return self.send(404, {"message": "Not Found"})
        if found[0]["user"]["login"] != ME:
            return self.send(403, {"message": "Resource not accessible by integration"})
        found[0]["body"] = self.body()
        self.send(200, found[0])

    def do_POST(self):
        if not self.authorised():
            return
        if not re.fullmatch(LIST, self.path):
            return self.send(404, {"message": "Not Found"})
        c = {"id": max([c["id"] for c in comments] + [0]) + 1, "user": {"login": ME}, "body": self.body()}
        comments.append(c)
        self.send(201, c)


server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
