"""A scripted fake of the Anthropic Messages and OpenAI Chat Completions APIs (stdlib only).

Binds 127.0.0.1 on a free port. Tests push :class:`Step` replies in the order requests will
arrive; every request is logged (path, headers, JSON body) so a test can assert how many were
made and what they carried. A request with no scripted step left is answered by ``answer``
where a test set one (a judge that reads the request), else gets HTTP 500 with a body saying
so, which fails the test visibly instead of hanging.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable


@dataclass
class Step:
    """One scripted reply: HTTP status, JSON body, headers, and a delay before answering."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    raw: bytes | None = None
    """Sent as it is instead of ``body`` as JSON (an HTML page, an empty reply)."""
    content_type: str = "application/json"


@dataclass
class LoggedRequest:
    path: str
    headers: dict[str, str]
    body: Any


# --------------------------------------------------------------------------- Anthropic bodies


def _anthropic_message(content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": "claude-fake",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 1000, "output_tokens": 200},
    }


def anthropic_tool(data: dict[str, Any]) -> Step:
    """A forced tool call carrying ``data``."""
    block = {"type": "tool_use", "id": "toolu_1", "name": "record_answer", "input": data}
    return Step(body=_anthropic_message([block], "tool_use"))


def anthropic_text(text: str, stop_reason: str = "end_turn") -> Step:
    return Step(body=_anthropic_message([{"type": "text", "text": text}], stop_reason))


def anthropic_error(status: int, kind: str, headers: dict[str, str] | None = None) -> Step:
    body = {"type": "error", "error": {"type": kind, "message": f"fake {kind}"}}
    return Step(status=status, body=body, headers=headers or {})


# --------------------------------------------------------------------------- OpenAI bodies


def openai_message(
    content: str | None, *, refusal: str | None = None, finish_reason: str = "stop"
) -> Step:
    message = {"role": "assistant", "content": content, "refusal": refusal}
    return Step(
        body={
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": "fake",
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 800, "completion_tokens": 100, "total_tokens": 900},
        }
    )


def openai_error(status: int, message: str, headers: dict[str, str] | None = None) -> Step:
    body = {"error": {"message": message, "type": "invalid_request_error", "code": None}}
    return Step(status=status, body=body, headers=headers or {})


# --------------------------------------------------------------------------- server


class FakeLLMServer:
    """Start with :meth:`start`, stop with :meth:`stop`; ``url`` is the base URL."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.answer: Callable[[LoggedRequest], Step] | None = None
        """How to answer once the scripted steps are spent (a judge that reads the request)."""
        self.requests: list[LoggedRequest] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting
    def push(self, *steps: Step) -> None:
        with self._lock:
            self.steps.extend(steps)

    def count(self, path_suffix: str = "") -> int:
        with self._lock:
            return sum(r.path.endswith(path_suffix) for r in self.requests)

    def _next(self, request: LoggedRequest) -> Step:
        with self._lock:
            self.requests.append(request)
            if self.steps:
                return self.steps.pop(0)
        if self.answer is not None:
            return self.answer(request)
        return Step(status=500, body={"error": {"message": "no scripted response left"}})

    # -- lifecycle
    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeLLMServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                logged = LoggedRequest(
                    self.path, {k.lower(): v for k, v in self.headers.items()}, body
                )
                step = server._next(logged)
                if step.delay:
                    time.sleep(step.delay)
                payload = json.dumps(step.body).encode() if step.raw is None else step.raw
                try:
                    self.send_response(step.status)
                    self.send_header("content-type", step.content_type)
                    self.send_header("content-length", str(len(payload)))
                    for key, value in step.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:  # the client gave up (a timeout test)
                    self.close_connection = True

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                return  # a client that timed out and closed is not an error here

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
