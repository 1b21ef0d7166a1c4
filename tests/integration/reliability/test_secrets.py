"""A planted secret never reaches any output: reports, history, JUnit XML, the terminal, the
dry run, the judge cache, or an error message."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import case
from tests.servers.fake_llm import FakeLLMServer, Step, anthropic_tool

API_KEY = "sk-ant-planted-0f1e2d3c4b5a69788796a5b4"
HEADER = "Bearer planted-header-token-5566778899"
CONFIG_SECRET = "planted-config-secret-1122334455"

VERDICTS = {
    "statements": [{"statement": "Refunds within 30 days.", "verdict": "supported", "reason": "r"}]
}


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer().start()
    try:
        yield server
    finally:
        server.stop()


def every_output(pytester: pytest.Pytester, *results: pytest.RunResult) -> str:
    texts = [r.stdout.str() + r.stderr.str() for r in results]
    for path in pytester.path.rglob("*"):
        if path.is_file() and path.suffix not in (".py", ".pyc"):
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(texts)


def test_planted_secrets_appear_in_no_output(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    fake_llm: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_dataset(
        [
            case("ok", "What is the refund policy?", "Full refund within 30 days."),
            case("judge-down", "How do I reset my password?", "Click Forgot Password."),
        ]
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.url)
    monkeypatch.setenv("MY_SERVICE_TOKEN", CONFIG_SECRET)
    pytester.makefile(
        ".yaml",
        **{
            "eval-config": "metrics:\n  faithfulness: null\nhttp:\n  headers:\n"
            "    X-Service: ${MY_SERVICE_TOKEN}\n"
        },
    )
    # One case is judged; the judge rejects the other with an error that echoes the key.
    fake_llm.push(
        anthropic_tool(VERDICTS),
        Step(
            status=401,
            body={
                "type": "error",
                "error": {"type": "authentication_error", "message": f"invalid key {API_KEY}"},
            },
        ),
    )
    args = (
        "--rag-dataset=dataset.json",
        f"--rag-target={rag_app}",
        "--rag-judge=anthropic",
        "--rag-judge-passes=1",
        f"--rag-header=Authorization: {HEADER}",
        "--junitxml=junit.xml",
        "-p",
        "no:randomly",
        "-rA",
    )
    dry = pytester.runpytest(*args, "--rag-dry-run")
    run = pytester.runpytest(*args)
    assert fake_llm.count("/v1/messages") == 2  # the judge was really called
    assert (pytester.path / "results" / "eval_report.json").exists()
    assert (pytester.path / "junit.xml").exists()
    assert list((pytester.path / ".pytest_cache").rglob("*.json"))  # judge cache entries
    text = every_output(pytester, dry, run)
    for secret in (API_KEY, HEADER, "planted-header-token-5566778899", CONFIG_SECRET):
        assert secret not in text
