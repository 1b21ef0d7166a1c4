"""A fake judge on 127.0.0.1 with a fixed latency and a limited number of slots.

Answers the Anthropic Messages API (``POST /v1/messages``) like a competent judge: a forced
tool call whose input is a valid answer to the question asked (one verdict per item, indexes
0..n-1, read from the prompt's delimited sections). Every request waits ``latency`` seconds
inside a semaphore of ``slots`` (a rate-limited provider); extra requests queue. ``GET
/stats`` reports requests, estimated tokens (ceil(chars/4) of the system text, the messages
and the tool definitions in; of the tool input out), the peak number in flight and the span
from the first request in to the last answer out. ``POST /reset`` clears them.

Stdlib only. ``python benchmarks/fake_judge_server.py --port 8765 --latency-ms 300``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_SECTION = re.compile(r'<data section="([^"]+)" id="\w+"(?: items="(\d+)")?>')


def tokens(value: Any) -> int:
    text = value if isinstance(value, str) else json.dumps(value)
    return math.ceil(len(text) / 4)


def answer_for(schema: dict[str, Any], prompt: str) -> dict[str, Any]:
    """A valid answer for the question whose output schema is ``schema``."""
    items = {name: int(n) for name, n in _SECTION.findall(prompt) if n}
    props = schema.get("properties", {})
    if "statements" in props:
        return {
            "statements": [
                {"statement": f"statement {i + 1}", "verdict": "supported", "reason": "stated"}
                for i in range(2)
            ]
        }
    if "questions" in props:
        return {"questions": ["question 1", "question 2", "question 3"], "noncommittal": False}
    if "verdicts" in props:
        n = items.get("CONTEXTS", 1)
        return {"verdicts": [{"index": i, "useful": True, "reason": "r"} for i in range(n)]}
    if "sentences" in props:
        item_props = props["sentences"]["items"]["properties"]
        if "attributed" in item_props:
            n = items.get("GROUND TRUTH SENTENCES", 1)
            return {
                "sentences": [{"index": i, "attributed": True, "reason": "r"} for i in range(n)]
            }
        n = items.get("CONTEXT SENTENCES", 1)
        return {"sentences": [{"index": i, "relevant": True} for i in range(n)]}
    if "same_information" in props:
        return {
            "same_information": True,
            "matching_facts": ["fact 1"],
            "missing_facts": [],
            "wrong_or_extra_facts": [],
        }
    if "score" in props:
        return {"score": 0.9, "noncommittal": False, "reason": "r"}
    raise ValueError(f"unknown question schema: {sorted(props)}")


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.requests = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.in_flight = 0
        self.peak = 0
        self.first_in: float | None = None
        self.last_out: float | None = None
        self.by_tool: dict[str, int] = {}

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            span = (
                self.last_out - self.first_in
                if self.first_in is not None and self.last_out is not None
                else 0.0
            )
            return {
                "requests": self.requests,
                "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens,
                "peak_in_flight": self.peak,
                "span_s": round(span, 3),
                "by_question": dict(self.by_tool),
            }


def make_server(port: int, latency: float, slots: int) -> tuple[ThreadingHTTPServer, Stats]:
    stats = Stats()
    gate = threading.Semaphore(slots)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/stats":
                self._send(200, stats.snapshot())
            else:
                self._send(404, {"error": "not found"})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            if self.path == "/reset":
                with stats.lock:
                    stats.reset()
                self._send(200, {"ok": True})
                return
            if not self.path.endswith("/v1/messages"):
                self._send(404, {"error": "not found"})
                return
            with stats.lock:
                stats.requests += 1
                stats.first_in = stats.first_in or time.monotonic()
            tool = body["tools"][0]
            prompt = "".join(
                m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
                for m in body["messages"]
            )
            data = answer_for(tool["input_schema"], prompt)
            with gate:
                with stats.lock:
                    stats.in_flight += 1
                    stats.peak = max(stats.peak, stats.in_flight)
                time.sleep(latency)
                with stats.lock:
                    stats.in_flight -= 1
            usage_in = tokens(body.get("system", "")) + tokens(body["messages"]) + tokens(
                body["tools"]
            )
            usage_out = tokens(data)
            question = tool.get("description", "").split(" the ")[-1].split(" task")[0]
            with stats.lock:
                stats.input_tokens += usage_in
                stats.output_tokens += usage_out
                stats.by_tool[question] = stats.by_tool.get(question, 0) + 1
                stats.last_out = time.monotonic()
            self._send(
                200,
                {
                    "id": f"msg_{stats.requests}",
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model", "claude"),
                    "content": [
                        {"type": "tool_use", "id": "toolu_1", "name": tool["name"], "input": data}
                    ],
                    "stop_reason": "tool_use",
                    "stop_sequence": None,
                    "usage": {"input_tokens": usage_in, "output_tokens": usage_out},
                },
            )

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    return server, stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency-ms", type=float, default=300)
    parser.add_argument("--slots", type=int, default=8)
    options = parser.parse_args()
    server, _ = make_server(options.port, options.latency_ms / 1000, options.slots)
    print(f"fake judge on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
