"""Serve the demo RAG app over HTTP on 127.0.0.1: ``POST /query {"question": ...}``.

The response is ``{"data": {"answer": ..., "documents": [{"text": ..., "source": ...}]}}``,
a nested shape so that the HTTP adapter's response paths have something to do.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .app import answer


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        if self.path.rstrip("/") != "/query":
            self._send(404, {"error": "not found"})
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
            question = str(body["question"])
        except (ValueError, KeyError):
            self._send(400, {"error": "send JSON with a 'question'"})
            return
        result = answer(question)
        self._send(200, {"data": {"answer": result["answer"], "documents": result["contexts"]}})

    def _send(self, status: int, payload: object) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


def start(port: int = 0) -> ThreadingHTTPServer:
    """Start the server on 127.0.0.1 in a daemon thread; ``server.server_address`` has the port."""
    server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
