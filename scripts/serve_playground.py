#!/usr/bin/env python3
"""Serves the built playground (web/dist) on loopback, compressed.

Standard library only. For each file the build wrote a `<name>.gz` beside (gzip -9), a client
that accepts gzip gets those bytes with `Content-Encoding: gzip`; others get the plain file.
`Vary: Accept-Encoding` keeps caches honest. Only files inside the directory are served.

Caching: every answer carries validators, an `ETag` (a hash of the bytes sent, so the gzip and
the plain variant differ) and `Last-Modified` (the file's time), with `Cache-Control: no-cache`:
a browser keeps the file but asks again on each use, and a request whose `If-None-Match` (or,
without one, `If-Modified-Since`) still matches is answered `304 Not Modified` with no body.
So a reload costs a few header-only round trips instead of the 1.4 MB wasm again, and a rebuild
is seen at once (the names carry no content hash: the build keeps wasm-bindgen's names).

    python3 scripts/serve_playground.py [--dir web/dist] [--port 8080]

`--port 0` picks a free port. The first line printed is `serving http://127.0.0.1:<port>/`.
"""

import argparse
import email.utils
import hashlib
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


# (path, size, mtime) -> ETag: an unchanged file is hashed once.
ETAGS = {}


def etag_of(path, stat, cache=ETAGS):
    """The strong validator of the file at `path`: a hash of its bytes."""
    key = (path, stat.st_size, stat.st_mtime_ns)
    if key not in cache:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        cache[key] = '"' + digest.hexdigest()[:32] + '"'
    return cache[key]


def still_fresh(headers, etag, mtime):
    """Whether the client's copy is current: `If-None-Match` when sent (weak comparison, as
    RFC 9110 section 13.1.2 has it for GET), else `If-Modified-Since` against the file's
    modification time in whole seconds."""
    match = headers.get("If-None-Match")
    if match is not None:
        tags = [t.strip() for t in match.split(",")]
        return "*" in tags or etag in (t[2:] if t.startswith("W/") else t for t in tags)
    since = headers.get("If-Modified-Since")
    if since is None:
        return False
    try:
        when = email.utils.parsedate_to_datetime(since)
    except (TypeError, ValueError):
        return False
    return when is not None and int(mtime) <= when.timestamp()


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
            stat = os.stat(path)
            etag = etag_of(path, stat)
            fresh = still_fresh(self.headers, etag, stat.st_mtime)
            self.send_response(304 if fresh else 200)
            # Kept, but asked about on every use: the names stay the same across builds.
            self.send_header("Cache-Control", "no-cache")
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", email.utils.formatdate(stat.st_mtime, usegmt=True))
            self.send_header("Vary", "Accept-Encoding")
            if fresh:
                self.end_headers()
                return
            with open(path, "rb") as f:
                body = f.read()
            ext = os.path.splitext(rel)[1]
            self.send_header("Content-Type", TYPES.get(ext, "application/octet-stream"))
            if encoding:
                self.send_header("Content-Encoding", encoding)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def log_message(self, fmt, *args):
            pass

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--dir", default=os.path.join(os.path.dirname(__file__), "..", "web", "dist")
    )
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
