"""``rag-eval generate`` end to end: a generated dataset runs as it is, the retrieval metrics
finding the chunks each case was made from with a plain RAG over the same documents; and the
LLM path against the fake Messages API on 127.0.0.1: the requests it makes, the check that
drops a case the judge rejects, the cache on a second run, the dry run and --max-cost."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag_eval_pytest.cli import main
from tests.documents import BM25_APP, DOCS, write_documents
from tests.helpers import read_report
from tests.servers.fake_llm import (
    FakeLLMServer,
    LoggedRequest,
    Step,
    anthropic_error,
    anthropic_tool,
)

CONFIG = "metrics:\n  retrieval_recall: 1.0\n  retrieval_hit_rate: 1.0\n"


@pytest.mark.parametrize("form", ["path", "chunk"])
def test_a_generated_dataset_runs_as_it_is_and_retrieval_finds_its_chunks(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    monkeypatch.chdir(pytester.path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    write_documents(pytester.path / "docs")
    argv = ["generate", "docs", "--output", "generated.json", "--count", "15"]
    assert main([*argv, "--source-format", form]) == 0
    pytester.makepyfile(app=BM25_APP)
    pytester.syspathinsert()
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    result = pytester.runpytest(
        "--rag-dataset", "generated.json", "--rag-target", "app:answer", "-p", "no:randomly"
    )
    result.assert_outcomes(passed=15)
    report = read_report(pytester)
    assert report["run"]["exit_code"] == 0
    cases = report["cases"]
    assert len(cases) == 15
    assert all(c["metrics"]["retrieval_recall"]["score"] == 1.0 for c in cases)
    assert {c["id"] for c in cases} == {
        c["id"] for c in json.loads(Path("generated.json").read_text())["test_cases"]
    }


# --------------------------------------------------------------------------- with an LLM judge

KEY = "sk-ant-generate-run-0123456789abcdef"
SHIPPING = {"shipping.txt": DOCS["shipping.txt"]}
# What the fake judge writes, by the fact of the sentence the request focuses on.
WRITTEN = {
    "ship to 40 countries": ("How many countries do you ship to?", "40 countries."),
    "Standard delivery takes": (
        "How long does standard delivery take outside the EU?",
        "10 business days.",
    ),
    "Express delivery costs": ("How much does express delivery cost?", "15 euros."),
    "before 2 pm": ("When must an order be placed to leave the same day?", "Before 2 pm."),
}
UNANSWERABLE = "Can I pick up my order at the Rotterdam warehouse?"


def prompt_of(request: LoggedRequest) -> str:
    content = request.body["messages"][-1]["content"]
    return content if isinstance(content, str) else " ".join(b["text"] for b in content)


class GeneratingServer(FakeLLMServer):
    """A fake judge that writes a question about the sentence each request focuses on,
    and checks each: it rejects the first question of a single fact it wrote (not
    answerable, it says), and finds the unanswerable one not answered by the chunks."""

    rejected: str | None = None

    def _next(self, request: LoggedRequest) -> Step:
        with self._lock:
            self.requests.append(request)
        prompt = prompt_of(request)
        if "Write ONE question" in prompt:
            if '- kind: "unanswerable"' in prompt:
                return anthropic_tool({"question": UNANSWERABLE, "ground_truth": None})
            focus = prompt.split('section="FOCUS"', 1)[1].split("</data", 1)[0]
            question, truth = next(v for k, v in WRITTEN.items() if k in focus)
            self.rejected = self.rejected or question
            return anthropic_tool({"question": question, "ground_truth": truth})
        if "Write a conversation" in prompt:
            return anthropic_tool({"turns": [
                {"question": "How many countries do you ship to?", "ground_truth": "40."},
                {"question": "And how long does delivery take there?",
                 "ground_truth": "5 business days in the EU, 10 elsewhere."},
                {"question": "What does the express option cost?", "ground_truth": "15 euros."},
            ]})  # fmt: skip
        answerable = str(self.rejected) not in prompt and UNANSWERABLE not in prompt
        asked = prompt.split('section="QUESTIONS"', 1)[1].split("</data", 1)[0]
        turns = asked.count('<item index="')
        verdicts = [
            {"index": i, "answerable": answerable, "supported": answerable, "reason": "r"}
            for i in range(turns)
        ]
        return anthropic_tool({"questions": verdicts})


@pytest.fixture
def judge_server() -> Iterator[GeneratingServer]:
    server = GeneratingServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def llm_docs(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, judge_server: GeneratingServer
) -> Path:
    monkeypatch.chdir(pytester.path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", judge_server.url)
    return write_documents(pytester.path / "docs", SHIPPING)


LLM_ARGS = ["generate", "docs", "--judge", "anthropic", "--seed", "3"]


def test_the_judge_writes_and_checks_each_case_and_a_second_run_reads_its_cache(
    llm_docs: Path, judge_server: GeneratingServer, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*LLM_ARGS, "--count", "3", "--types", "single,unanswerable"]
    assert main([*args, "--output", "first.json"]) == 0
    out = capsys.readouterr().out
    # Round 1: 3 written, 3 checked (express delivery rejected); round 2: 1 more of each.
    prompts = [prompt_of(r) for r in judge_server.requests]
    assert [p.split("\n", 1)[0] for p in prompts].count("# Task") == 8
    assert sum("Write ONE question" in p for p in prompts) == 4
    assert sum("For EACH of the QUESTIONS" in p for p in prompts) == 4
    body = judge_server.requests[0].body
    assert (body["temperature"], body["tool_choice"]["type"]) == (0, "tool")
    assert "We ship to 40 countries" in prompts[0]  # the chunk, inside its data section
    cases = json.loads(Path("first.json").read_text())["test_cases"]
    questions = {c["question"]: c for c in cases}
    assert judge_server.rejected is not None and judge_server.rejected not in questions
    assert len(cases) == 3
    assert sorted(c["tags"][0] for c in cases) == ["single", "single", "unanswerable"]
    unanswerable = questions[UNANSWERABLE]
    assert unanswerable["ground_truth"] is None and "expected_contexts" not in unanswerable
    for case in cases:
        if case["ground_truth"] is not None:
            assert case["expected_contexts"] == ["docs/shipping.txt"]
        assert case["metadata"]["chunks"] == ["docs/shipping.txt#1"]
    (generated,) = json.loads(Path("first.json").read_text())["metadata"]["generated"]
    assert generated["generator"] == "llm"
    assert generated["judge"].startswith("anthropic (claude-")
    assert generated["judge_identity"]
    assert "judge: 8 requests (0 from the cache)" in out

    # The same seed and documents: every request is read from the cache, the same file.
    assert main([*args, "--output", "second.json"]) == 0
    assert len(judge_server.requests) == 8
    assert "judge: 0 requests (8 from the cache)" in capsys.readouterr().out
    assert Path("second.json").read_bytes() == Path("first.json").read_bytes()
    outputs = [out, *(p.read_text(errors="replace") for p in Path().rglob("*") if p.is_file())]
    assert not any(KEY in text for text in outputs)


def test_conversations_lean_on_their_earlier_turns(
    llm_docs: Path, judge_server: GeneratingServer
) -> None:
    assert main([*LLM_ARGS, "--count", "0", "--conversations", "1", "--output", "c.json"]) == 0
    (case,) = json.loads(Path("c.json").read_text())["test_cases"]
    assert case["tags"] == ["conversation"]
    assert [t["question"] for t in case["turns"]][1] == "And how long does delivery take there?"
    assert all(t["expected_contexts"] == ["docs/shipping.txt"] for t in case["turns"])
    assert len(judge_server.requests) == 2  # written, then checked turn by turn in one request
    assert prompt_of(judge_server.requests[1]).count('<item index="2"') == 2  # 3rd turn, truth


def test_the_dry_run_and_max_cost_ask_nothing(
    llm_docs: Path, judge_server: GeneratingServer, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*LLM_ARGS, "--count", "10", "--output", "out.json"]
    assert main([*args, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "questions planned: 10 (2 single, 2 multi_hop, 2 comparison, 2 conditional, " in out
    assert "requests: 20 (estimated" in out
    assert re.search(r"tokens: ~\d+\ncost: ~\$0\.\d{4}\n", out), out
    assert main([*args, "--max-cost", "0.001"]) == 3
    err = capsys.readouterr().err
    assert "is over --max-cost $0.001: lower --count or raise --max-cost; nothing asked" in err
    assert judge_server.requests == []
    assert not Path("out.json").exists()


def test_a_refused_key_stops_the_generation_and_writes_nothing(
    llm_docs: Path, judge_server: GeneratingServer, capsys: pytest.CaptureFixture[str]
) -> None:
    judge_server._next = lambda request: anthropic_error(401, "authentication_error")  # type: ignore[method-assign]
    assert main([*LLM_ARGS, "--count", "4", "--output", "out.json"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("rag-eval generate: the judge stopped: judge unreachable")
    assert KEY not in err
    assert not Path("out.json").exists()


def test_max_cost_stops_sending_once_the_cost_reaches_it(
    llm_docs: Path, judge_server: GeneratingServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Replies that cost far more than the plan (20,000 prompt tokens each, $0.063 at the
    model's price): requests stop once $0.10 is spent, one at a time here."""
    answer = judge_server._next

    def costly(request: LoggedRequest) -> Step:
        step = answer(request)
        step.body["usage"] = {"input_tokens": 20_000, "output_tokens": 200}
        return step

    judge_server._next = costly  # type: ignore[method-assign]
    Path("eval-config.yaml").write_text("concurrency:\n  judge: 1\n", encoding="utf-8")
    args = [*LLM_ARGS, "--count", "2", "--types", "single", "--output", "out.json"]
    assert main([*args, "--max-cost", "0.1"]) == 3
    err = capsys.readouterr().err
    assert "--max-cost $0.1 reached after 2 requests ($0.1260) before any case was checked" in err
    assert len(judge_server.requests) == 2
    assert not Path("out.json").exists()
