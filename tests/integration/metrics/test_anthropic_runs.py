"""The Anthropic judge inside real pytest runs: the real SDK, over HTTP, against the scripted
fake Messages API on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report
from tests.servers.fake_llm import FakeLLMServer, anthropic_tool

KEY = "sk-ant-plugin-run-0123456789abcdef"

SUPPORT = {
    "statements": [
        {
            "statement": "Refunds are given within 30 days.",
            "verdict": "supported",
            "reason": "policy.md says so",
        },
        {
            "statement": "Refunds are paid in gold.",
            "verdict": "unsupported",
            "reason": "the contexts do not mention gold",
        },
    ]
}

TEST_FILE = """
from rag_eval_pytest import assert_faithful
def test_faithful(rag_case):
    assert_faithful(rag_case, threshold=0.4)
"""


def test_anthropic_judge_scores_then_a_second_run_is_served_from_the_cache(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    fake_llm: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_dataset([case("refund", "What is the refund policy?", "Full refund within 30 days.")])
    pytester.makepyfile(test_rag=TEST_FILE)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.url)
    args = ("--rag-dataset", "dataset.json", "--rag-target", rag_app)

    # auto + a key = Anthropic, passes: auto. One vote: 0.50 is within 0.2 of the threshold
    # 0.4, so the verdict is asked again with 3 votes; the first is kept, the second agrees,
    # and the third is never asked.
    fake_llm.push(anthropic_tool(SUPPORT), anthropic_tool(SUPPORT))
    first = pytester.runpytest(*args)
    first.assert_outcomes(passed=1)
    first.stdout.fnmatch_lines(
        [
            "rag-eval: * | judge anthropic (claude-*) | output *",
            "rag-eval: judge cost not estimated: the tests that take rag_case choose *",
        ]
    )
    assert fake_llm.count("/v1/messages") == 2
    report = read_report(pytester)
    faith = report["cases"][0]["metrics"]["faithfulness"]
    assert faith["score"] == 0.5
    assert faith["details"]["agreement"] == 1.0
    assert report["summary"]["usage"]["judge_calls"] == 2
    assert report["run"]["judge"].startswith("anthropic (claude-")
    body = fake_llm.requests[0].body
    assert body["temperature"] == 0
    assert body["tool_choice"]["type"] == "tool"

    second = pytester.runpytest(*args)
    second.assert_outcomes(passed=1)
    assert fake_llm.count("/v1/messages") == 2  # nothing new reached the server
    usage = read_report(pytester)["summary"]["usage"]
    assert (usage["judge_calls"], usage["cache_hits"]) == (0, 2)
    markdown = (pytester.path / "results" / "eval_report.md").read_text()
    assert "**Judge Calls:** 0 (2 cached)" in markdown

    outputs = [first.stdout.str(), second.stdout.str(), markdown]
    outputs += [p.read_text(errors="replace") for p in pytester.path.rglob("*") if p.is_file()]
    assert not any(KEY in text for text in outputs)
