"""A fake LLM judge on 127.0.0.1 that answers like a competent judge and counts its work.

Endpoints (stdlib only, one thread per connection):

* ``POST /v1/messages`` (Anthropic Messages API): a forced tool call (``tool_choice`` by
  name, else the first tool) is answered with a ``tool_use`` block whose ``input`` is an
  instance of the tool's ``input_schema``; without tools, JSON text (an instance of the schema
  embedded in the prompt, if any).
* ``POST /v1/chat/completions`` (OpenAI): ``response_format: json_schema`` or a schema
  embedded in the prompt gives JSON text; ``tools`` + ``tool_choice`` give a tool call.
* ``GET /stats``: requests, estimated input and output tokens, per question, re-asks
  (prompts that carry the plugin's corrective "previous reply ... was rejected" text),
  duplicates (the same request body twice), the peak number served at once
  (``peak_in_flight``, at most ``slots``) and offered at once, queued ones included
  (``peak_offered``), and the span from the first request in to the last answer out.
  ``POST /reset`` clears them.

Schema instances (what a competent judge would return on a good case):

* arrays have ``array_len`` items (2), except arrays of objects keyed by an integer
  ``index``: one item per item of the data section they refer to (the ``items="N"``
  attribute of the prompt's ``<data section=...>`` tag), with indexes 0..N-1, so the
  plugin's "one verdict per item" checks pass; and arrays of strings when the prompt's
  parameters ask for a ``count`` (questions are built from the ANSWER section's sentences,
  so they resemble the question the answer answers);
* verdict-like fields are positive (``"supported"``, ``"yes"``, ``true``), ``noncommittal``
  and other negative flags ``false``; numbers 1 within the schema's minimum and maximum;
  strings ``"<field> <n>"``.

Tokens are estimated as the peer bench does: ceil(chars/4) of the system text plus the
message text, plus ceil(chars/4) of the JSON of the tool definitions or response schema
(input); ceil(chars/4) of the returned JSON (output).

Every request waits ``latency`` seconds inside a semaphore of ``slots`` (a rate-limited
provider); extra requests queue.

    python benchmarks/fake_judge_server.py [--port 0] [--latency-ms 300] [--slots 8]
        [--array-len 2] [--log-file requests.jsonl]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REASK_MARK = "Your previous reply to this task was rejected"
_SECTION = re.compile(r'<data section="([^"]+)"[^>]*?\bitems="(\d+)"')
_COUNT = re.compile(r"^- count: (\d+)\s*$", re.MULTILINE)
_QUESTION = re.compile(r"the ([\w:+]+) task")
_TASK = re.compile(r"task_\d+")
_ANSWER = re.compile(r'<data section="ANSWER" id="(\w+)">\n(.*?)\n</data id="\1">', re.DOTALL)

POSITIVE_NAMES = {
    "verdict",
    "attributed",
    "relevant",
    "useful",
    "supported",
    "faithful",
    "correct",
    "same_information",
    "entailed",
    "grounded",
    "pass",
    "passed",
    "decision",
    "label",
}
NEGATIVE_NAMES = {
    "noncommittal",
    "contradiction",
    "contradicts",
    "hallucinated",
    "irrelevant",
    "toxic",
    "biased",
    "refused",
    "evasive",
}
POSITIVE_VALUES = ("supported", "yes", "Yes", "true", "relevant", "useful", "attributed", "1")


def tokens(text: str) -> int:
    """The peer bench's estimate: ceil(chars / 4)."""
    return math.ceil(len(text) / 4)


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") else word


def _norm(text: str) -> str:
    return re.sub(r"[^a-z ]+", " ", text.lower().replace("-", " "))


class Synth:
    """Builds an instance of a JSON schema for one prompt."""

    def __init__(self, prompt: str, array_len: int = 2) -> None:
        self.prompt = prompt
        self.array_len = array_len
        self.sections = {label: int(n) for label, n in _SECTION.findall(prompt)}
        count = _COUNT.search(prompt)
        self.count = int(count.group(1)) if count else None
        self.serial = 0
        answer = _ANSWER.search(prompt)
        self.answer_sentences = (
            [s for s in re.split(r"(?<=[.!?])\s+", answer.group(2).strip()) if s] if answer else []
        )

    def items_for(self, array_name: str, index_schema: dict[str, Any]) -> int:
        """How many items the array indexed by ``index_schema`` must have: the size of the
        data section its description (or the array's name) refers to."""
        if not self.sections:
            return self.array_len
        words = _norm(f"{index_schema.get('description', '')} {array_name}")
        best: tuple[int, str] | None = None
        for label in self.sections:
            key = " ".join(_singular(w) for w in _norm(label).split())
            found = key and key in " ".join(_singular(w) for w in words.split())
            if found and (best is None or len(key) > best[0]):
                best = (len(key), label)
        if best is not None:
            return self.sections[best[1]]
        if len(self.sections) == 1:
            return next(iter(self.sections.values()))
        return self.array_len

    def instance(self, schema: Any, name: str = "", root: Any = None) -> Any:
        root = schema if root is None else root
        if not isinstance(schema, dict):
            return self._string(name)
        if "$ref" in schema:
            target: Any = root
            for part in str(schema["$ref"]).lstrip("#/").split("/"):
                target = target.get(part, {}) if isinstance(target, dict) else {}
            return self.instance(
                {**target, **{k: v for k, v in schema.items() if k != "$ref"}}, name, root
            )
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            enum = schema["enum"]
            if name.lower() not in NEGATIVE_NAMES:
                for value in POSITIVE_VALUES:
                    if value in enum:
                        return value
            return enum[0]
        for key in ("anyOf", "oneOf"):
            if schema.get(key):
                options = [o for o in schema[key] if o.get("type") != "null"] or schema[key]
                return self.instance(options[0], name, root)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((t for t in kind if t != "null"), "null")
        if kind is None:
            kind = "object" if "properties" in schema else "array" if "items" in schema else ""
        if kind == "object":
            properties = schema.get("properties") or {}
            if properties and all(_TASK.fullmatch(key) for key in properties):
                return self._tasks(properties, root)
            return {key: self.instance(sub, key, root) for key, sub in properties.items()}
        if kind == "array":
            return self._array(schema, name, root)
        if kind == "boolean":
            return name.lower() not in NEGATIVE_NAMES
        if kind in ("integer", "number"):
            value: float = 0 if name.lower() in NEGATIVE_NAMES else 1
            low = schema.get("minimum", schema.get("exclusiveMinimum"))
            high = schema.get("maximum", schema.get("exclusiveMaximum"))
            if isinstance(low, (int, float)) and value < low:
                value = low
            if isinstance(high, (int, float)) and value > high:
                value = high
            return int(value) if kind == "integer" else float(value)
        if kind == "null":
            return None
        if name.lower() in POSITIVE_NAMES:
            return "yes"
        return self._string(name)

    def _array(self, schema: dict[str, Any], name: str, root: Any) -> list[Any]:
        items = schema.get("items") or {"type": "string"}
        index = (items.get("properties") or {}).get("index") if isinstance(items, dict) else None
        if isinstance(index, dict) and index.get("type") == "integer":
            n = self.items_for(name, index)
            out = []
            for i in range(n):
                item = self.instance(items, _singular(name), root)
                item["index"] = i
                out.append(item)
            return out
        n = self.array_len
        strings = isinstance(items, dict) and items.get("type") == "string"
        if self.count is not None and strings:
            n = self.count
        if isinstance(schema.get("minItems"), int):
            n = max(n, schema["minItems"])
        if isinstance(schema.get("maxItems"), int):
            n = min(n, schema["maxItems"])
        if strings and name == "questions" and self.answer_sentences:
            # Questions the answer answers: what a judge writes, close to the user's question.
            return [self._question(i) for i in range(n)]
        return [self.instance(items, _singular(name), root) for _ in range(n)]

    def _tasks(self, properties: dict[str, Any], root: Any) -> dict[str, Any]:
        """A bundle's answer: each task's from its own sections (``TASK K ...``) and its own
        parameters (``- task K count: N``), as if it had been asked alone."""
        answers = {}
        for key, sub in properties.items():
            k = key.split("_")[1]
            prompt = re.sub(
                rf'<data section="TASK {k} ([^"]+)"', r'<data section="\1"', self.prompt
            )
            prompt = re.sub(r'<data section="TASK \d+ [^"]+"[^>]*>', "", prompt)
            prompt = prompt.replace(f"- task {k} count:", "- count:")
            scoped = Synth(prompt, self.array_len)
            answers[key] = scoped.instance(sub, key, root)
        return answers

    def _question(self, i: int) -> str:
        sentence = self.answer_sentences[i % len(self.answer_sentences)].rstrip(".!?")
        return f"What is true about this: {sentence}?"

    def _string(self, name: str) -> str:
        self.serial += 1
        return f"{name or 'text'} {self.serial}"


def embedded_schema(prompt: str) -> dict[str, Any] | None:
    """The JSON schema a prompt asks the reply to match (the plugin's JSON mode)."""
    for line in prompt.splitlines():
        line = line.strip()
        if line.startswith("{") and '"properties"' in line:
            try:
                found = json.loads(line)
            except ValueError:
                continue
            if isinstance(found, dict):
                return found
    return None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text", "")) if isinstance(block, dict) else str(block)
            for block in content
        )
    return ""


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.requests = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.reasks = 0
        self.duplicates = 0
        self.in_flight = 0
        self.peak = 0
        self.arrived = 0
        self.peak_arrived = 0
        self.first_in: float | None = None
        self.last_out: float | None = None
        self.by_question: dict[str, dict[str, int]] = {}
        self.seen: set[str] = set()

    def count(self, question: str, body: Any, usage_in: int, usage_out: int, reask: bool) -> None:
        digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        with self.lock:
            self.input_tokens += usage_in
            self.output_tokens += usage_out
            row = self.by_question.setdefault(
                question, {"requests": 0, "input_tokens": 0, "output_tokens": 0, "reasks": 0}
            )
            row["requests"] += 1
            row["input_tokens"] += usage_in
            row["output_tokens"] += usage_out
            if reask:
                self.reasks += 1
                row["reasks"] += 1
            if digest in self.seen:
                self.duplicates += 1
            self.seen.add(digest)

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
                "reasks": self.reasks,
                "duplicates": self.duplicates,
                "peak_in_flight": self.peak,
                "peak_offered": self.peak_arrived,
                "span_s": round(span, 3),
                "first_in": self.first_in,  # time.monotonic() of this process
                "last_out": self.last_out,
                "by_question": {k: v["requests"] for k, v in sorted(self.by_question.items())},
                "questions": {k: dict(v) for k, v in sorted(self.by_question.items())},
            }


def anthropic_reply(body: dict[str, Any], array_len: int) -> tuple[dict[str, Any], str, str, str]:
    """(response without usage, question name, input text for the estimate, output JSON)."""
    system = _text(body.get("system"))
    prompt = "\n".join(_text(m.get("content")) for m in body.get("messages") or [])
    text_in = (system + "\n" + prompt) if system else prompt
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    choice = body.get("tool_choice") or {}
    synth = Synth(prompt, array_len)
    if tools:
        tool = next((t for t in tools if t.get("name") == choice.get("name")), tools[0])
        data = synth.instance(tool.get("input_schema") or {})
        found = _QUESTION.search(str(tool.get("description", "")))
        question = found.group(1) if found else str(tool.get("name"))
        content = [{"type": "tool_use", "id": "toolu_fake", "name": tool["name"], "input": data}]
        extra_in = json.dumps(tools)
        stop = "tool_use"
    else:
        schema = embedded_schema(prompt) or {}
        data = synth.instance(schema)
        question = str(schema.get("title", "json"))
        content = [{"type": "text", "text": json.dumps(data)}]
        extra_in = ""
        stop = "end_turn"
    response = {
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
    }
    return response, question, text_in + extra_in, json.dumps(data)


def openai_reply(body: dict[str, Any], array_len: int) -> tuple[dict[str, Any], str, str, str]:
    messages = body.get("messages") or []
    text_in = "\n".join(_text(m.get("content")) for m in messages)
    synth = Synth(text_in, array_len)
    tools = [t.get("function", {}) for t in body.get("tools") or [] if isinstance(t, dict)]
    response_format = body.get("response_format") or {}
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if tools:
        wanted = (
            ((body.get("tool_choice") or {}) if isinstance(body.get("tool_choice"), dict) else {})
            .get("function", {})
            .get("name")
        )
        tool = next((t for t in tools if t.get("name") == wanted), tools[0])
        data = synth.instance(tool.get("parameters") or {})
        question = str(tool.get("name"))
        message["tool_calls"] = [
            {
                "id": "call_fake",
                "type": "function",
                "function": {"name": question, "arguments": json.dumps(data)},
            }
        ]
        extra_in = json.dumps(body["tools"])
        finish = "tool_calls"
    else:
        spec = response_format.get("json_schema") or {}
        schema = spec.get("schema") or embedded_schema(text_in) or {}
        data = synth.instance(schema)
        question = str(spec.get("name") or schema.get("title") or "json")
        message["content"] = json.dumps(data)
        extra_in = json.dumps(schema) if spec else ""
        finish = "stop"
    response = {
        "object": "chat.completion",
        "model": body.get("model", "gpt"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    return response, question, text_in + extra_in, json.dumps(data)


def make_server(
    port: int = 0,
    latency: float = 0.0,
    slots: int = 8,
    *,
    array_len: int = 2,
    log_file: str | None = None,
) -> tuple[ThreadingHTTPServer, Stats]:
    """A server bound to 127.0.0.1:``port`` (0: a free port); call ``serve_forever``."""
    stats = Stats()
    gate = threading.Semaphore(slots)
    log_lock = threading.Lock()

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
            if self.path.rstrip("/") == "/stats":
                self._send(200, stats.snapshot())
            else:
                self._send(404, {"error": {"type": "not_found", "message": self.path}})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = self.path.split("?")[0].rstrip("/")
            if path == "/reset":
                with stats.lock:
                    stats.reset()
                self._send(200, {"ok": True})
                return
            if path.endswith("/messages"):
                make = anthropic_reply
            elif path.endswith("/chat/completions"):
                make = openai_reply
            else:
                self._send(404, {"error": {"type": "not_found", "message": self.path}})
                return
            try:
                body = json.loads(raw or b"{}")
                response, question, text_in, text_out = make(body, array_len)
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                message = f"{type(exc).__name__}: {exc}"
                self._send(400, {"error": {"type": "invalid_request_error", "message": message}})
                return
            with stats.lock:
                stats.requests += 1
                number = stats.requests
                stats.arrived += 1
                stats.peak_arrived = max(stats.peak_arrived, stats.arrived)
                if stats.first_in is None:
                    stats.first_in = time.monotonic()
            with gate:
                with stats.lock:
                    stats.in_flight += 1
                    stats.peak = max(stats.peak, stats.in_flight)
                time.sleep(latency)
                with stats.lock:
                    stats.in_flight -= 1
                    stats.arrived -= 1
            usage_in, usage_out = tokens(text_in), tokens(text_out)
            reask = REASK_MARK in text_in
            stats.count(question, body, usage_in, usage_out, reask)
            if make is anthropic_reply:
                response["id"] = f"msg_fake{number:07d}"
                response["usage"] = {"input_tokens": usage_in, "output_tokens": usage_out}
            else:
                response["id"] = f"chatcmpl-fake{number:07d}"
                response["created"] = int(time.time())
                response["usage"] = {
                    "prompt_tokens": usage_in,
                    "completion_tokens": usage_out,
                    "total_tokens": usage_in + usage_out,
                }
            if log_file:
                line = {
                    "n": number,
                    "question": question,
                    "reask": reask,
                    "in_tok": usage_in,
                    "out_tok": usage_out,
                    "prompt": text_in,
                    "response": json.loads(text_out),
                }
                with log_lock, open(log_file, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(line) + "\n")
            with stats.lock:
                stats.last_out = time.monotonic()
            self._send(200, response)

    server = _Server(("127.0.0.1", port), Handler)
    return server, stats


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # A burst of clients (16 in flight) must queue, not be refused: the default backlog of 5
    # turns a burst into connection errors, which clients retry as extra requests.
    request_queue_size = 256


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0 (default): a free port")
    parser.add_argument("--latency-ms", type=float, default=300)
    parser.add_argument("--slots", type=int, default=8)
    parser.add_argument("--array-len", type=int, default=2)
    parser.add_argument("--log-file", default=None, help="append every request (JSON lines)")
    options = parser.parse_args()
    server, _ = make_server(
        options.port,
        options.latency_ms / 1000,
        options.slots,
        array_len=options.array_len,
        log_file=options.log_file,
    )
    print(f"fake judge on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
