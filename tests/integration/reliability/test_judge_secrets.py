"""A RAG service that echoes its credentials (in its answer and in a context): the texts sent
to the judge (the Anthropic Messages API, an OpenAI-compatible server, a user's callable judge)
carry no known secret in any form, and neither does the judge's disk cache."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.helpers import case
from tests.servers.fake_llm import (
    FakeLLMServer,
    LoggedRequest,
    Step,
    anthropic_tool,
    openai_message,
)

from ..adapters.server import Fault, FaultServer, Request
from .test_hostile_secret_inputs import PATHS

HEADER_KEY = "planted/judge+header-51413"  # "/" and "+": its URL-encoded form differs
PASSWORD = "planted-user-pw-62951"
BASIC = base64.b64encode(f"svc:{PASSWORD}".encode()).decode()
FORMS = (HEADER_KEY, quote(HEADER_KEY, safe=""), PASSWORD, BASIC)

SUPPORTED = {"statements": [{"statement": "s", "verdict": "supported", "reason": "stated"}]}
CONFIG = PATHS.replace("retrieval_recall", "faithfulness")
# It writes down what it was sent, and its reply quotes a secret it knows of itself: the cache
# entry of the reply is masked before it is stored.
QUOTING = {"statements": [{"statement": "s", "verdict": "supported", "reason": HEADER_KEY}]}
CALLABLE_JUDGE = f"""
import json, pathlib

def judge(prompt):
    with pathlib.Path("prompts.txt").open("a", encoding="utf-8") as sent:
        sent.write(prompt)
    return json.dumps({QUOTING!r})
"""


def echo(request: Request) -> dict[str, Any]:
    """A careless service: its answer and a context repeat its credentials in three forms."""
    key = request.headers["x-api-key"]
    dump = f"key={key} encoded={quote(key, safe='')} auth={request.headers['authorization']}"
    return {
        "data": {
            "answer": f"Full refund. Debug: {dump}",
            "documents": [{"text": "Full refund within 30 days."}, {"text": f"Trace: {dump}"}],
        }
    }


class JudgeServer(FakeLLMServer):
    """Answers every request as supported, in the protocol its path names."""

    def _next(self, request: LoggedRequest) -> Step:
        with self._lock:
            self.requests.append(request)
        if request.path.endswith("/chat/completions"):
            return openai_message(json.dumps(SUPPORTED))
        return anthropic_tool(SUPPORTED)


@pytest.fixture
def servers() -> Iterator[tuple[FaultServer, JudgeServer]]:
    rag = FaultServer()
    rag.route = lambda request: Fault(body=echo)
    rag.start()
    judge = JudgeServer().start()
    try:
        yield rag, judge
    finally:
        judge.stop()
        rag.stop()


@pytest.mark.parametrize("kind", ["anthropic", "openai", "callable"])
def test_secrets_echoed_by_the_service_never_reach_the_judge_or_its_cache(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    servers: tuple[FaultServer, JudgeServer],
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
) -> None:
    rag, judge = servers
    write_dataset([case("echo", "Refund?", "Full refund.")])
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    if kind == "anthropic":
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", judge.url)
        spec = "anthropic"
    elif kind == "openai":
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", judge.url)
        spec = "openai"
    else:
        pytester.makepyfile(judgemod=CALLABLE_JUDGE)
        spec = "judgemod:judge"
    host = rag.url.removeprefix("http://")
    result = pytester.runpytest(
        "--rag-dataset=dataset.json",
        f"--rag-endpoint=http://svc:{PASSWORD}@{host}",
        f"--rag-header=X-Api-Key: {HEADER_KEY}",
        f"--rag-judge={spec}",
        "--rag-judge-passes=1",
        "-p",
        "no:randomly",
    )
    assert result.ret == 0, result.stdout.str()
    assert "Debug: key=" in json.dumps(rag_answers(pytester))  # the service did echo
    if kind == "callable":
        sent = (pytester.path / "prompts.txt").read_text(encoding="utf-8")
    else:
        sent = json.dumps([r.body for r in judge.requests])
        assert judge.requests
    assert "[REDACTED]" in sent  # the echo reached the judge, masked
    entries = list((pytester.path / ".pytest_cache" / "d" / "rag_eval_judge").rglob("*.json"))
    assert entries  # the reply and the outcome were cached
    cache = "\n".join(path.read_text(encoding="utf-8") for path in entries)
    for secret in FORMS:
        assert secret not in sent, secret
        assert secret not in cache, secret


def rag_answers(pytester: pytest.Pytester) -> list[str]:
    report = json.loads((pytester.path / "results" / "eval_report.json").read_text())
    return [c.get("answer", "") for c in report["cases"]]


@pytest.mark.parametrize("sdk_debug_logs", [False, True], ids=["default", "asked"])
def test_judge_sdk_request_dumps_stay_out_of_debug_logs_unless_asked(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    servers: tuple[FaultServer, JudgeServer],
    monkeypatch: pytest.MonkeyPatch,
    sdk_debug_logs: bool,
) -> None:
    _, judge = servers
    write_dataset([case("a", "Refund?", "Full refund.", answer="Full refund.", contexts=["c"])])
    switch = "judge:\n  sdk_debug_logs: true\n" if sdk_debug_logs else ""
    pytester.makefile(".yaml", **{"eval-config": CONFIG + switch})
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", judge.url)
    result = pytester.runpytest(
        "--rag-dataset=dataset.json",
        "--rag-judge=anthropic",
        "--rag-judge-passes=1",
        "--rag-no-cache",
        "--log-level=DEBUG",
        "--log-cli-level=DEBUG",
        "--log-file=debug.log",
        "-rA",
        "-p",
        "no:randomly",
    )
    assert result.ret == 0, result.stdout.str()
    assert judge.requests
    logs = result.stdout.str() + (pytester.path / "debug.log").read_text(encoding="utf-8")
    assert "HTTP Request: POST" in logs  # httpx's INFO line passes at any setting
    dumped = "Request options" in logs or "Break the ANSWER into standalone" in logs
    assert dumped is sdk_debug_logs
    # The HTTP client's traffic records too (httpcore, or httpcore2 under newer SDKs).
    assert ("send_request_headers" in logs) is sdk_debug_logs


RECORDING_JUDGE = f"""
import json, pathlib

def judge(prompt):
    with pathlib.Path("prompts.txt").open("a", encoding="utf-8") as sent:
        sent.write(prompt)
    return json.dumps({SUPPORTED!r})
"""


def test_a_placeholder_key_is_not_masked_in_the_texts_a_judge_reads(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    strong = "sk-ant-planted-strong-31415"
    monkeypatch.setenv("OPENAI_API_KEY", "refund")  # a local server's placeholder
    monkeypatch.setenv("ANTHROPIC_API_KEY", strong)
    write_dataset(
        [
            case(
                "refund",
                "What is the refund policy?",
                "A full refund within 30 days.",
                answer="A full refund within 30 days.",
                contexts=["Refund policy: a full refund within 30 days.", f"Trace: {strong}"],
            )
        ]
    )
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.5\n"})
    pytester.makepyfile(judgemod=RECORDING_JUDGE)
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", "--rag-judge=judgemod:judge", "--rag-judge-passes=1"
    )
    output = result.stdout.str()
    assert result.ret == 0, output
    sent = (pytester.path / "prompts.txt").read_text(encoding="utf-8")
    assert "What is the refund policy?" in sent  # the judge reads the question as asked
    assert "Refund policy: a full refund within 30 days." in sent
    assert "[REDACTED] policy" not in sent
    assert strong not in sent and "Trace: [REDACTED]" in sent  # a real key is still masked
    notice = "the value of OPENAI_API_KEY is too short or too common to be a secret"
    assert output.count(notice) == 1, output
    assert "ANTHROPIC_API_KEY" not in output
