"""A real HTTP server on 127.0.0.1 for the adapter tests, with faults injected per request.

Each request takes the next :class:`Fault` from the script; once it is empty, ``route``
(a function of the request) or else ``default`` answers and is recorded with its headers, body and
client port, so tests can assert attempt counts, auth headers and connection reuse.
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Fault:
    """What the server does with one request. ``body`` may be a function of the request."""

    status: int = 200
    body: bytes | dict[str, Any] | list[Any] | Callable[[Request], dict[str, Any]] = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    reset: bool = False
    content_type: str = "application/json"


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    client_port: int

    def json(self) -> Any:
        return json.loads(self.body)


def ok(payload: dict[str, Any] | Callable[[Request], dict[str, Any]]) -> Fault:
    return Fault(200, payload)


def answer_for(request: Request) -> dict[str, Any]:
    """The default well-formed answer: echoes the question, two documents."""
    if request.headers.get("content-type") == "application/json":
        question = request.json().get("question")
    else:
        form = parse_qs(request.body.decode()) if request.body else request.query
        question = ",".join(form.get("question", []))
    return {
        "data": {
            "answer": f"answer to {question}",
            "documents": [
                {"text": "Full refund within 30 days.", "metadata": {"source": "policy.md"}},
                {"text": "Ships worldwide.", "metadata": {"source": "shipping.md"}},
            ],
        }
    }


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that went away
            super().handle_error(request, client_address)


class FaultServer:
    """Serves the script on ``url`` until :meth:`stop`."""

    def __init__(self) -> None:
        self.script: list[Fault] = []
        self.default: Fault = ok(answer_for)
        self.route: Callable[[Request], Fault] | None = None
        self.requests: list[Request] = []
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._httpd = _QuietServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/query"

    def start(self) -> FaultServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def then(self, *faults: Fault) -> FaultServer:
        self.script.extend(faults)
        return self

    @property
    def attempts(self) -> int:
        return len(self.requests)

    def _next(self, request: Request) -> Fault:
        with self._lock:
            if self.script:
                return self.script.pop(0)
        return self.route(request) if self.route is not None else self.default

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, so connection reuse is observable

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                parts = urlsplit(self.path)
                request = Request(
                    method=self.command,
                    path=parts.path,
                    query=parse_qs(parts.query),
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=self.rfile.read(length) if length else b"",
                    client_port=self.client_address[1],
                )
                with server._lock:
                    server.requests.append(request)
                fault = server._next(request)
                if fault.delay and server._stopping.wait(fault.delay):
                    return
                if fault.reset:
                    # SO_LINGER 0: close() sends RST, the client sees a reset connection.
                    self.connection.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                    )
                    self.connection.close()
                    self.close_connection = True
                    return
                body = fault.body(request) if callable(fault.body) else fault.body
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(fault.status)
                    self.send_header("Content-Type", fault.content_type)
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in fault.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            do_GET = do_POST = do_PUT = _serve

        return Handler


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/query"
