#!/usr/bin/env python3
"""Serves the built playground (web/dist) on loopback, compressed.

Standard library only. For each file the build wrote a `<name>.gz` beside (gzip -9), a client
that accepts gzip gets those bytes with `Content-Encoding: gzip`; others get the plain file.
`Vary: Accept-Encoding` keeps caches honest. Only files inside the directory are served.

    python3 scripts/serve_playground.py [--dir web/dist] [--port 8080]

`--port 0` picks a free port. The first line printed is `serving http://127.0.0.1:<port>/`.
"""
import argparse
import http.server
import os
import sys

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".wasm": "application/wasm",
    ".json": "application/json",
}


def handler_for(root):
    root = os.path.realpath(root)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self):
            self.respond(head=True)

        def do_GET(self):
            self.respond(head=False)

        def respond(self, head):
            rel = self.path.split("?", 1)[0].split("#", 1)[0].lstrip("/") or "index.html"
            path = os.path.realpath(os.path.join(root, rel))
            if not path.startswith(root + os.sep) or not os.path.isfile(path):
                self.send_error(404)
                return
            encoding = None
            accepts = self.headers.get("Accept-Encoding", "")
            if "gzip" in accepts and os.path.isfile(path + ".gz"):
                path, encoding = path + ".gz", "gzip"
            with open(path, "rb") as f:
                body = f.read()
            self.send_response(200)
            ext = os.path.splitext(rel)[1]
            self.send_header("Content-Type", TYPES.get(ext, "application/octet-stream"))
            if encoding:
                self.send_header("Content-Encoding", encoding)
            self.send_header("Vary", "Accept-Encoding")
            self.send_header("Content-Length", str(len(body)))
            # index.html must be revalidated (it names the current build); the rest may be
            # cached briefly.
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def log_message(self, fmt, *args):
            pass

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=os.path.join(os.path.dirname(__file__), "..", "web", "dist"))
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--bind", default="127.0.0.1")
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer((args.bind, args.port), handler_for(args.dir))
    print(f"serving http://{args.bind}:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
