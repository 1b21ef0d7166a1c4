"""A fake Anthropic Messages API that, like a rate-limited provider, answers 429 with a
``retry-after`` when more than ``limit`` requests are in flight. Answers the faithfulness
question (statements with verdicts) with a forced tool call. Binds 127.0.0.1, free port."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VERDICTS = {
    "statements": [{"statement": "The answer's claim.", "verdict": "supported", "reason": "r"}]
}


class LimitedJudge:
    def __init__(self, limit: int, latency: float = 0.1, retry_after: float = 0.05) -> None:
        self.limit, self.latency, self.retry_after = limit, latency, retry_after
        self.lock = threading.Lock()
        self.in_flight = self.peak = self.served = self.rejected = 0
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> LimitedJudge:
        judge = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, body: Any, headers: dict[str, str]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with judge.lock:
                    if judge.in_flight >= judge.limit:
                        judge.rejected += 1
                        busy = True
                    else:
                        judge.in_flight += 1
                        judge.peak = max(judge.peak, judge.in_flight)
                        busy = False
                if busy:
                    error = {"type": "rate_limit_error", "message": "slow down"}
                    self._send(
                        429,
                        {"type": "error", "error": error},
                        {"retry-after": str(judge.retry_after)},
                    )
                    return
                time.sleep(judge.latency)
                with judge.lock:
                    judge.in_flight -= 1
                    judge.served += 1
                block = {"type": "tool_use", "id": "t", "name": "record_answer", "input": VERDICTS}
                self._send(
                    200,
                    {
                        "id": "msg",
                        "type": "message",
                        "role": "assistant",
                        "model": "claude",
                        "content": [block],
                        "stop_reason": "tool_use",
                        "stop_sequence": None,
                        "usage": {"input_tokens": 100, "output_tokens": 20},
                    },
                    {},
                )

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
