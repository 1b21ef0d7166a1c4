"""The RAG system behind the HTTP adapter misbehaves in every way at once, one fault per case,
through a real pytest run: each case ends passed or error with the fault named, the reports
and the history line hold every result, the exit code is the one SPEC names, and the auth
header that every error body echoes back never shows."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import case, read_report
from tests.integration.adapters.server import Fault, FaultServer, Request, answer_for

TOKEN = "Bearer planted-rag-token-90817263"

CONFIG = """
http:
  response:
    answer: data.answer
    contexts: data.documents[*].text
    sources: data.documents[*].metadata.source
  retry:
    max_attempts: 3
    base_delay: 0.01
    jitter: 0
metrics:
  retrieval_recall: 1.0
"""


def echo(request: Request) -> str:
    return f"caller {request.headers.get('authorization', 'none')}"


# question -> (what the server does on each attempt, the last one repeating; the outcome)
FAULTS: dict[str, tuple[list[Fault], str, str]] = {
    "ok": ([Fault()], "passed", ""),
    "flaky": ([Fault(500, lambda r: {"error": echo(r)}), Fault()], "passed", ""),
    "rate-limited": (
        [Fault(429, lambda r: {"error": echo(r)}, headers={"Retry-After": "1"}), Fault()],
        "passed",
        "",
    ),
    "down": ([Fault(503, lambda r: {"error": echo(r)})], "error", "HTTP 503"),
    "slow": ([Fault(delay=5.0)], "error", "timeout after 1 s"),
    "reset": ([Fault(reset=True)], "error", "unreachable after 3 attempts"),
    "html": (
        [Fault(200, lambda r: {"x": 1}, content_type="text/html")],
        "error",
        "not JSON",
    ),
    "wrong-shape": ([Fault(200, lambda r: {"result": echo(r)})], "error", "'data.answer'"),
    "bad-request": ([Fault(400, lambda r: {"error": echo(r)})], "error", "HTTP 400 (not retried)"),
}


class Router:
    """Answers each question with its own script; records when each attempt arrived."""

    def __init__(self) -> None:
        self.arrivals: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Fault:
        question = request.json()["question"]
        with self._lock:
            seen = self.arrivals.setdefault(question, [])
            seen.append(time.monotonic())
            script = FAULTS[question][0]
            fault = script[min(len(seen), len(script)) - 1]
        if fault.status == 200 and not fault.body and not fault.reset:
            return Fault(body=answer_for, delay=fault.delay)
        if fault.content_type == "text/html":  # an HTML error page from a proxy
            return Fault(200, f"<html>{echo(request)}</html>".encode(), content_type="text/html")
        return fault


@pytest.fixture
def server() -> Iterator[FaultServer]:
    running = FaultServer()
    # A client that gave up on a slow answer closes its connection; the server thread's
    # report of that (a socketserver traceback on stderr) is not the plugin's output.
    running._httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]
    running.start()
    try:
        yield running
    finally:
        running.stop()


def every_output(pytester: pytest.Pytester, result: pytest.RunResult) -> str:
    texts = [result.stdout.str(), result.stderr.str()]
    for path in (pytester.path / "results").rglob("*"):
        if path.is_file():
            texts.append(path.read_text(encoding="utf-8"))
    texts.append((pytester.path / "junit.xml").read_text(encoding="utf-8"))
    return "\n".join(texts)


def test_every_rag_fault_ends_its_case_and_the_reports_keep_every_result(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], server: FaultServer
) -> None:
    write_dataset([case(q, q, expected_contexts=["policy.md"]) for q in FAULTS])
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    router = Router()
    server.route = router
    result = pytester.runpytest(
        "--rag-dataset=dataset.json",
        "--rag-adapter=http",
        f"--rag-endpoint={server.url}",
        f"--rag-header=Authorization: {TOKEN}",
        "--rag-timeout=1",
        "--junitxml=junit.xml",
        "-p",
        "no:randomly",
        "-rA",
    )
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output
    assert "INTERNALERROR" not in output
    result.assert_outcomes(passed=3, errors=6)
    assert result.ret == 1  # some cases failed to answer, not all: not fatal

    report = read_report(pytester)
    cases = {c["id"]: c for c in report["cases"]}
    assert {k: c["status"] for k, c in cases.items()} == {k: v[1] for k, v in FAULTS.items()}
    for key, (_, status, reason) in FAULTS.items():
        if status == "error":
            assert reason in cases[key]["error"], (key, cases[key]["error"])
        else:
            assert cases[key]["metrics"]["retrieval_recall"]["score"] == 1.0
    assert report["summary"]["counts"]["errors"] == 6
    # Retries as SPEC says: transient faults are retried up to 3 attempts, a 400 is not.
    attempts = {q: len(times) for q, times in router.arrivals.items()}
    assert attempts == {
        "ok": 1,
        "flaky": 2,
        "rate-limited": 2,
        "down": 3,
        "slow": 3,
        "reset": 3,
        "html": 1,
        "wrong-shape": 1,
        "bad-request": 1,
    }
    first, second = router.arrivals["rate-limited"]
    assert second - first >= 0.9  # Retry-After: 1 was honoured

    history = [
        json.loads(line)
        for line in (pytester.path / "results" / "results.jsonl").read_text().splitlines()
    ]
    assert len(history) == 1
    assert "eval_report.md" in {p.name for p in (pytester.path / "results").iterdir()}
    markdown = (pytester.path / "results" / "eval_report.md").read_text(encoding="utf-8")
    for key in ("down", "slow", "html"):
        assert key in markdown
    # Every error body repeated the auth header; none of it may leak into any output.
    text = every_output(pytester, result)
    assert "planted-rag-token-90817263" not in text
    assert "[REDACTED]" in text
