"""A loopback stand-in for the GitHub REST API, serving fixture repositories from folders."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit


class FakeGitHub:
    """Serves `repos` (slug → folder) like api.github.com; `rate_limited` makes it answer 403."""

    def __init__(self) -> None:
        self.repos: dict[str, Path] = {}
        self.private: set[str] = set()
        self.rate_limited = False
        self.reset_at = int(time.time()) + 3600
        self.requests: list[tuple[str, dict[str, str]]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def api(self) -> str:
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}"

    def start(self) -> FakeGitHub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
                self.send_response(code)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _json(self, code: int, data: object, headers: dict[str, str] | None = None) -> None:
                self._send(
                    code,
                    json.dumps(data).encode(),
                    {"Content-Type": "application/json", **(headers or {})},
                )

            def do_GET(self) -> None:
                fake.requests.append((self.path, dict(self.headers)))
                if fake.rate_limited:
                    self._json(
                        403,
                        {"message": "API rate limit exceeded"},
                        {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(fake.reset_at)},
                    )
                    return
                parts = [unquote(p) for p in urlsplit(self.path).path.strip("/").split("/")]
                if len(parts) < 3 or parts[0] != "repos":
                    self._json(404, {"message": "Not Found"})
                    return
                slug = f"{parts[1]}/{parts[2]}"
                folder = fake.repos.get(slug)
                authed = "Authorization" in self.headers
                if folder is None or (slug in fake.private and not authed):
                    self._json(404, {"message": "Not Found"})
                    return
                rest = parts[3:]
                raw = "raw" in self.headers.get("Accept", "")
                if not rest:
                    self._json(
                        200, {"name": parts[2], "default_branch": "main", "description": "fixture"}
                    )
                elif rest == ["readme"]:
                    readme = next(
                        (p for p in folder.iterdir() if p.name.lower().startswith("readme")), None
                    )
                    if readme is None:
                        self._json(404, {"message": "Not Found"})
                    else:
                        self._send(200, readme.read_bytes())
                elif (rest[0] == "contents" and len(rest) == 1) or rest == ["contents", ""]:
                    listing = [
                        {"name": p.name, "type": "dir" if p.is_dir() else "file"}
                        for p in sorted(folder.iterdir())
                    ]
                    self._json(200, listing)
                elif rest[0] == "contents":
                    target = folder.joinpath(*rest[1:])
                    if not target.is_file():
                        self._json(404, {"message": "Not Found"})
                    elif raw:
                        self._send(200, target.read_bytes())
                    else:
                        self._json(200, {"name": target.name, "type": "file"})
                else:
                    self._json(404, {"message": "Not Found"})

        return Handler
