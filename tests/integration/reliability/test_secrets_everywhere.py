"""Secrets from every source the plugin takes them from (``RAG_AUTH_HEADER``, a credential in
the endpoint's query string by ``${VAR}``, ``judge.api_key: ${VAR}``, ``OPENAI_API_KEY``)
against a RAG service and an OpenAI-compatible judge that both echo what they were sent, with
DEBUG logging on: no secret reaches the terminal, the logs, any file, or any file name."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import case
from tests.integration.adapters.server import Fault, FaultServer, Request
from tests.servers.fake_llm import FakeLLMServer, LoggedRequest, Step, openai_message

ENV_HEADER = "planted-env-header-31415926"
QUERY_TOKEN = "planted-query-token-27182818"
JUDGE_KEY = "sk-planted-judge-key-16180339"
UNUSED_OPENAI_KEY = "sk-planted-openai-env-14142135"
SECRETS = (ENV_HEADER, QUERY_TOKEN, JUDGE_KEY, UNUSED_OPENAI_KEY)

SUPPORTED = json.dumps(
    {"statements": [{"statement": "s", "verdict": "supported", "reason": "stated"}]}
)


def leaky(request: Request) -> dict[str, Any]:
    """A careless service: it puts everything it received into its reply."""
    return {
        "data": {
            "answer": f"Full refund. Debug: headers={request.headers} query={request.query}",
            "documents": [{"text": "Full refund within 30 days.", "metadata": {"source": "p.md"}}],
        }
    }


def rag_route(request: Request) -> Fault:
    question = request.json()["question"]
    if "fail" in question:
        return Fault(500, lambda r: {"error": str(leaky(r))})
    if "html" in question:
        return Fault(200, str(leaky(request)).encode(), content_type="text/html")
    return Fault(body=leaky)


class LeakyJudge(FakeLLMServer):
    """An OpenAI-compatible judge that rejects one case with an error quoting the key."""

    def _next(self, request: LoggedRequest) -> Step:
        with self._lock:
            self.requests.append(request)
        user = request.body["messages"][-1]["content"]
        if "denied" in user:
            auth = request.headers.get("authorization", "")
            return Step(status=401, body={"error": {"message": f"Incorrect API key: {auth}"}})
        return openai_message(SUPPORTED)


@pytest.fixture
def servers() -> Iterator[tuple[FaultServer, LeakyJudge]]:
    rag = FaultServer()
    rag._httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]
    rag.route = rag_route
    rag.start()
    judge = LeakyJudge().start()
    try:
        yield rag, judge  # type: ignore[misc]
    finally:
        judge.stop()
        rag.stop()


def everything_written(pytester: pytest.Pytester, *results: pytest.RunResult) -> str:
    texts = [r.stdout.str() + r.stderr.str() for r in results]
    for path in pytester.path.rglob("*"):
        texts.append(str(path.relative_to(pytester.path)))  # cache keys are file names
        if path.is_file() and path.suffix not in (".py", ".pyc"):
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(texts)


def test_secrets_from_every_source_never_reach_any_output(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    servers: tuple[FaultServer, LeakyJudge],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rag, judge = servers
    write_dataset(
        [
            case("echo", "refund echo?", "Full refund.", expected_contexts=["p.md"]),
            case("fail", "refund fail?", "Full refund."),
            case("html", "refund html?", "Full refund."),
            case("denied", "refund denied?", "Full refund.", answer="Full refund.", contexts=["c"]),
        ]
    )
    monkeypatch.setenv("RAG_AUTH_HEADER", f"X-Api-Key: {ENV_HEADER}")
    monkeypatch.setenv("RAG_QUERY_TOKEN", QUERY_TOKEN)
    monkeypatch.setenv("MY_JUDGE_KEY", JUDGE_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", UNUSED_OPENAI_KEY)
    config = f"""
http:
  endpoint: "{rag.url}?token=${{RAG_QUERY_TOKEN}}"
  response:
    answer: data.answer
    contexts: data.documents[*].text
    sources: data.documents[*].metadata.source
  retry:
    max_attempts: 2
    base_delay: 0.01
judge:
  kind: openai
  model: llama3
  base_url: "{judge.url}"
  api_key: "${{MY_JUDGE_KEY}}"
metrics:
  faithfulness: null
  retrieval_recall: null
"""
    pytester.makefile(".yaml", **{"eval-config": config})
    args = (
        "--rag-dataset=dataset.json",
        "--rag-adapter=http",
        "--rag-judge-passes=1",
        "--junitxml=junit.xml",
        "--log-level=DEBUG",
        "--log-cli-level=DEBUG",
        "--log-file=debug.log",
        "--log-file-level=DEBUG",
        "-p",
        "no:randomly",
        "-rA",
        "-v",
    )
    dry = pytester.runpytest(*args, "--rag-dry-run")
    run = pytester.runpytest(*args)
    assert dry.ret == 0, dry.stdout.str()
    # The secrets were really used, and really echoed back by both services.
    assert {r.query.get("token", [""])[0] for r in rag.requests} == {QUERY_TOKEN}
    assert {r.headers.get("x-api-key") for r in rag.requests} == {ENV_HEADER}
    assert {r.headers["authorization"] for r in judge.requests} == {f"Bearer {JUDGE_KEY}"}
    report = json.loads((pytester.path / "results" / "eval_report.json").read_text())
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    # The judge refuses its key: "echo" was scored on retrieval only, so it is not passed.
    assert statuses == {"echo": "skipped", "fail": "error", "html": "error", "denied": "skipped"}
    assert (pytester.path / "debug.log").stat().st_size > 0
    text = everything_written(pytester, dry, run)
    assert "[REDACTED]" in text
    for secret in SECRETS:
        assert secret not in text, secret


@pytest.mark.parametrize("processes", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_a_key_in_the_endpoint_url_given_on_the_command_line_never_shows(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    servers: tuple[FaultServer, LeakyJudge],
    processes: list[str],
) -> None:
    # Azure Functions and many gateways take their key in the query string (?code=...).
    rag, _ = servers
    write_dataset(
        [
            case("echo", "refund echo?", "Full refund.", expected_contexts=["p.md"]),
            case("fail", "refund fail?", "Full refund.", expected_contexts=["p.md"]),
        ]
    )
    pytester.makefile(
        ".yaml",
        **{
            "eval-config": "http:\n  response:\n    answer: data.answer\n"
            "    contexts: data.documents[*].text\n    sources: data.documents[*].metadata.source\n"
            "  retry:\n    max_attempts: 1\nmetrics:\n  retrieval_recall: 1.0\n"
        },
    )
    result = pytester.runpytest(
        "--rag-dataset=dataset.json",
        f"--rag-endpoint={rag.url}?code={QUERY_TOKEN}&format=json",
        "--log-level=INFO",
        "-rA",
        *processes,
    )
    result.assert_outcomes(passed=1, errors=1)
    assert {r.query["code"][0] for r in rag.requests} == {QUERY_TOKEN}
    text = everything_written(pytester, result)
    assert "[REDACTED]" in text  # the service echoed the key back, and it was masked
    assert QUERY_TOKEN not in text
    assert "'format': ['json']" in text  # a plain parameter is not mistaken for a key
