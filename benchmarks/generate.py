"""``rag-eval generate``: how good and how costly the generated test sets are.

Offline (the extractive generator, no model, no key), on a public documentation set every
Python ships: the topics of the Python Language Reference that ``help()`` shows
(``pydoc_data.topics``, PSF licence), one plain-text document per topic:

* the share of generated questions whose source chunk a plain BM25 retriever (written here,
  over the same chunks, k1 = 1.5, b = 0.75) ranks in its top 3, and whose source document
  it ranks in its top 3;
* the duplicate rate: questions identical to another, and pairs of questions sharing most
  of their content words (Jaccard at least 0.5, looser than the generator's own 0.8);
* the time per 100 documents (reading, chunking, generating, writing).

With an LLM judge, against a fake Messages API on 127.0.0.1 that writes a question about
the sentence each request focuses on and accepts it: requests and tokens per generated case,
and the requests of a second run (read from the cache).

    python benchmarks/generate.py [--count 200] [--llm-count 20]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from rag_eval_pytest.generate.chunking import chunk_documents
from rag_eval_pytest.generate.command import run
from rag_eval_pytest.generate.documents import read_documents
from rag_eval_pytest.generate.request import Request
from rag_eval_pytest.text.words import content_words

ROOT = Path(__file__).resolve().parents[1]
WORD = re.compile(r"[a-z0-9]+")


# --------------------------------------------------------------------------- BM25


class BM25:
    def __init__(self, texts: list[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.docs = [WORD.findall(t.lower()) for t in texts]
        self.k1, self.b = k1, b
        self.average = sum(map(len, self.docs)) / len(self.docs)
        self.freq: dict[str, int] = {}
        for words in self.docs:
            for word in set(words):
                self.freq[word] = self.freq.get(word, 0) + 1

    def score(self, query: list[str], index: int) -> float:
        words = self.docs[index]
        total = 0.0
        for word in set(query):
            tf = words.count(word)
            if tf:
                n = self.freq[word]
                idf = math.log(1 + (len(self.docs) - n + 0.5) / (n + 0.5))
                norm = 1 - self.b + self.b * len(words) / self.average
                total += idf * tf * (self.k1 + 1) / (tf + self.k1 * norm)
        return total

    def top(self, question: str, k: int = 3) -> list[int]:
        query = WORD.findall(question.lower())
        return sorted(range(len(self.docs)), key=lambda i: -self.score(query, i))[:k]


# --------------------------------------------------------------------------- offline


def _write_topics(folder: Path) -> Path:
    """The Language Reference's topics as plain-text documents under ``folder``."""
    from pydoc_data.topics import topics

    folder.mkdir()
    for name, text in topics.items():
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    return folder


def offline(count: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder, _quiet():
        documents_folder = _write_topics(Path(folder) / "topics")
        out = Path(folder) / "generated.json"
        started = time.perf_counter()
        code = run(Request([documents_folder], out, count=count, judge="local"), env={})
        elapsed = time.perf_counter() - started
        assert code == 0, "the offline generation failed"
        cases = json.loads(out.read_text(encoding="utf-8"))["test_cases"]
        documents = read_documents([documents_folder])
    chunks = chunk_documents(documents)
    bm25 = BM25([c.full_text for c in chunks])
    chunk_hits = document_hits = 0
    for case in cases:
        (source,) = case["metadata"]["chunks"]
        top = [chunks[i] for i in bm25.top(case["question"])]
        chunk_hits += any(c.id == source for c in top)
        document_hits += any(c.document == source.split("#")[0] for c in top)
    questions = [c["question"] for c in cases]
    return {
        "documents": len(documents),
        "chunks": len(chunks),
        "cases": len(cases),
        "rules": _counts(c["metadata"]["rule"] for c in cases),
        "bm25_top3_chunk": chunk_hits / len(cases),
        "bm25_top3_document": document_hits / len(cases),
        "identical_questions": len(questions) - len(set(questions)),
        "near_duplicate_pairs": _near_pairs(questions),
        "characters": sum(d.size for d in documents),
        "seconds": elapsed,
        "seconds_per_100_documents": elapsed / len(documents) * 100,
    }


def _counts(values: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def _near_pairs(questions: list[str]) -> int:
    words = [content_words(q) for q in questions]
    pairs = 0
    for i in range(len(words)):
        for j in range(i + 1, len(words)):
            union = words[i] | words[j]
            if union and len(words[i] & words[j]) / len(union) >= 0.5:
                pairs += 1
    return pairs


# --------------------------------------------------------------------------- LLM (fake)


def _tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def _section(prompt: str, name: str) -> str:
    part = prompt.split(f'section="{name}"', 1)
    return part[1].split("</data", 1)[0].split(">", 1)[1].strip() if len(part) == 2 else ""


def _reply(prompt: str) -> dict[str, Any]:
    """What the fake judge answers: a question on the focus sentence, or all verdicts yes."""
    focus = re.sub(r"\s+", " ", _section(prompt, "FOCUS")).strip(" .")
    if "Write ONE question" in prompt:
        if '- kind: "unanswerable"' in prompt:
            return {"question": f"Is there a fee for this: {focus[:60]}?", "ground_truth": None}
        return {"question": f"What does the guide say about: {focus[:80]}?", "ground_truth": focus}
    if "Write a conversation" in prompt:
        return {
            "turns": [
                {"question": f"What about: {focus[:60]}?", "ground_truth": focus},
                {"question": "And why is that?", "ground_truth": focus},
                {"question": "Does it always hold?", "ground_truth": focus},
            ]
        }
    asked = _section(prompt, "QUESTIONS").count("<item index=")
    unanswerable = "Is there a fee for this" in prompt
    return {
        "questions": [
            {"index": i, "answerable": not unanswerable, "supported": not unanswerable,
             "reason": "r"}
            for i in range(asked)
        ]
    }  # fmt: skip


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    requests = 0
    lock = threading.Lock()

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        prompt = body["messages"][-1]["content"]
        data = _reply(prompt)
        with _Handler.lock:
            _Handler.requests += 1
        message = {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": body["model"],
            "content": [{"type": "tool_use", "id": "t", "name": "record_answer", "input": data}],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {
                "input_tokens": _tokens(body.get("system", "") + prompt)
                + _tokens(json.dumps(body.get("tools", []))),
                "output_tokens": _tokens(json.dumps(data)),
            },
        }  # fmt: skip
        payload = json.dumps(message).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@contextlib.contextmanager
def _fake_judge() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def _quiet() -> Iterator[io.StringIO]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        yield buffer


def llm(count: int) -> dict[str, Any]:
    documents = [ROOT / "examples" / "demo_rag" / "docs", ROOT / "docs" / "getting-started.md"]
    with tempfile.TemporaryDirectory() as folder, _fake_judge() as url:
        here = Path.cwd()
        os.chdir(folder)
        try:
            os.environ.update(
                {"ANTHROPIC_API_KEY": "sk-ant-benchmark-0123456789", "ANTHROPIC_BASE_URL": url}
            )
            results = []
            for name in ("first.json", "second.json"):
                before = _Handler.requests
                request = Request(
                    documents, Path(name), count=count, judge="anthropic", conversations=2
                )
                with _quiet() as printed:
                    assert run(request) == 0, "the LLM generation failed"
                cases = json.loads(Path(name).read_text(encoding="utf-8"))["test_cases"]
                tokens = re.search(r"judge: \d+ requests \(\d+ from the cache\), (\d+) tokens", (
                    printed.getvalue()
                ))  # fmt: skip
                results.append((len(cases), _Handler.requests - before, int(tokens.group(1))))
        finally:
            os.chdir(here)
    (cases, requests, tokens), (_, cached_requests, _) = results
    return {
        "cases": cases,
        "requests": requests,
        "requests_per_case": requests / cases,
        "tokens_per_case": tokens / cases,
        "second_run_requests": cached_requests,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--llm-count", type=int, default=20)
    options = parser.parse_args()
    print(json.dumps({"offline": offline(options.count), "llm": llm(options.llm_count)}, indent=2))


if __name__ == "__main__":
    main()
