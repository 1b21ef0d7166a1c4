"""Conversations from the dataset to the reports: turns asked in order with their history,
each turn measured, the conversation's score its worst turn's, the turn named."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import read_report

APP = """
import json, pathlib

DOCS = {
    "fees.md": "A personal account costs 5 EUR a month.",
    "business.md": "A business account costs 12 EUR a month.",
}
LOG = pathlib.Path("calls.jsonl")

def answer(question, history):
    with LOG.open("a") as log:
        log.write(json.dumps({"question": question, "history": history}) + "\\n")
    topic = " ".join([question] + [m["content"] for m in history if m["role"] == "user"])
    name = "business.md" if "business" in question.lower() else "fees.md"
    return DOCS[name], [{"text": DOCS[name], "source": name}]
"""

CONFTEST = """
import pytest
from tests.word_judge import word_judge
from app import answer

@pytest.fixture(scope="session")
def rag_judge():
    return word_judge

@pytest.fixture(scope="session")
def rag_adapter():
    return answer
"""

CONVERSATION = {
    "id": "fees",
    "tags": ["billing"],
    "turns": [
        {"question": "What does a personal account cost?", "expected_contexts": ["fees.md"]},
        {"question": "And for business accounts?", "expected_contexts": ["business.md"]},
        {
            "question": "Is there a discount?",
            "answer": "The moon is made of cheese.",
            "contexts": ["A personal account costs 5 EUR a month."],
        },
    ],
}
SINGLE = {"id": "single", "question": "What does a personal account cost?"}


@pytest.fixture
def chat_suite(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> None:
    pytester.makepyfile(app=APP)
    pytester.syspathinsert()
    pytester.makeconftest(CONFTEST)
    write_dataset([CONVERSATION, SINGLE])


def calls(pytester: pytest.Pytester) -> list[dict[str, Any]]:
    import json

    lines = (pytester.path / "calls.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_turns_are_asked_in_order_with_their_history_and_the_failing_turn_is_named(
    pytester: pytest.Pytester, chat_suite: None
) -> None:
    pytester.makepyfile(
        test_chat="""
from rag_eval_pytest import assert_faithful
def test_grounded(rag_case):
    assert_faithful(rag_case, 0.9)
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       rag_eval_pytest.RagAssertionError: fees faithfulness 0.00 < 0.90 at turn 3",
            "E         turn 3 of 3: *",
            "E         turn 3: ?unsupported? The moon is made of cheese.*",
        ]
    )
    asked = calls(pytester)
    fees = [c for c in asked if c["history"]] + [
        c for c in asked if c["question"] == "What does a personal account cost?"
    ]
    # Turn 2 was asked after turn 1, with turn 1's question and answer as its history; the
    # third turn is recorded: not asked. The single case got an empty history.
    follow_up = next(c for c in asked if c["question"] == "And for business accounts?")
    assert follow_up["history"] == [
        {"role": "user", "content": "What does a personal account cost?"},
        {"role": "assistant", "content": "A personal account costs 5 EUR a month."},
    ]
    assert not any(c["question"] == "Is there a discount?" for c in asked)
    assert len(fees) == 3 and len(asked) == 3
    report = read_report(pytester)
    case = next(c for c in report["cases"] if c["key"] == "fees")
    assert case["status"] == "failed"
    assert case["failure_cause"] == "unsupported_answer"
    faithfulness = case["metrics"]["faithfulness"]
    assert (faithfulness["score"], faithfulness["details"]["turn"]) == (0.0, 3)
    assert faithfulness["evidence"][0]["turn"] == 3
    turns = case["turns"]
    assert [t["key"] for t in turns] == ["fees/turn-1", "fees/turn-2", "fees/turn-3"]
    assert [t["status"] for t in turns] == ["passed", "passed", "failed"]
    assert [t["recorded"] for t in turns] == [False, False, True]
    assert turns[1]["answer"] == "A business account costs 12 EUR a month."
    assert report["summary"]["counts"]["cases"] == 2  # a conversation is one case


def test_each_turn_is_a_case_of_its_own_and_the_mean_is_an_aggregate(
    pytester: pytest.Pytester, chat_suite: None
) -> None:
    pytester.makepyfile(
        test_chat="""
import pytest
from rag_eval_pytest import assert_faithful, assert_retrieval, evaluate
def test_turns(rag_case):
    if not rag_case.is_conversation:
        assert rag_case.turns == []
        pytest.skip("one question")
    first, second, third = rag_case.turns
    assert second.id == "fees/turn-2" and second.question == "And for business accounts?"
    assert second.history[0] == {"role": "user", "content": "What does a personal account cost?"}
    assert_retrieval(second, 1.0)
    assert_faithful(second, 0.9)
    mean = evaluate(rag_case, "faithfulness", threshold=0.5, aggregate="mean")
    assert mean.score == pytest.approx(2 / 3) and mean.passed
    with pytest.raises(AssertionError, match="fees/turn-3 faithfulness 0.00 < 0.90"):
        assert_faithful(third, 0.9)
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    result.assert_outcomes(passed=1, skipped=1)


def test_a_function_without_a_history_parameter_is_one_clear_error_of_the_conversation(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    pytester.makeconftest(
        """
import pytest
@pytest.fixture(scope="session")
def rag_adapter():
    def answer(question):
        return "A personal account costs 5 EUR a month.", []
    return answer
"""
    )
    write_dataset([CONVERSATION, SINGLE])
    pytester.makepyfile(
        test_chat="""
from rag_eval_pytest import assert_retrieval
def test_x(rag_case):
    assert rag_case.answer
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*fees: turn 1: RAG callable *answer takes one question, not a conversation's history*"]
    )


def test_a_conversation_made_in_code(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST.replace("from app import answer", "answer = None"))
    pytester.makepyfile(
        test_chat="""
import pytest
from rag_eval_pytest import assert_faithful, make_conversation
def test_chat():
    chat = make_conversation(id="chat", turns=[
        {"question": "What does it cost?", "answer": "It costs 5 EUR a month.",
         "contexts": ["The account costs 5 EUR a month."]},
        {"question": "And the colour?", "answer": "It is green.", "contexts": ["No colours."]},
    ])
    assert_faithful(chat.turns[0], 0.9)
    with pytest.raises(AssertionError, match="at turn 2"):
        assert_faithful(chat, 0.9)

def test_bad_turn():
    with pytest.raises(ValueError, match="turns.1..answer"):
        make_conversation(turns=[{"question": "a", "answer": "b"}, {"question": "c"}])
"""
    )
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=2)


def test_conversations_under_xdist_report_as_without_it(
    pytester: pytest.Pytester, chat_suite: None
) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(
        test_chat="""
from rag_eval_pytest import assert_faithful, assert_retrieval
def test_grounded(rag_case):
    assert_faithful(rag_case, 0.9)
def test_retrieval(rag_case):
    assert_retrieval(rag_case, 0.5)
"""
    )
    plain = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    plain_report = read_report(pytester)
    spread = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly", "-n", "2")
    spread_report = read_report(pytester)
    assert plain.ret == spread.ret == 1

    def turns(report: dict[str, Any]) -> list[Any]:
        case = next(c for c in report["cases"] if c["key"] == "fees")
        return [
            (t["key"], t["answer"], {n: m["score"] for n, m in t["metrics"].items()})
            for t in case["turns"]
        ]

    assert turns(spread_report) == turns(plain_report)
    assert set(turns(plain_report)[0][2]) == {
        "faithfulness",
        "retrieval_precision",
        "retrieval_recall",
    }


def test_a_follow_up_question_is_judged_relevant_only_with_its_history(
    pytester: pytest.Pytester, chat_suite: None, write_dataset: Callable[..., Path]
) -> None:
    pytest.importorskip("sentence_transformers")  # the question's embedding
    alone = {"id": "alone", "question": "And for business accounts?"}
    write_dataset([CONVERSATION, alone])
    pytester.makepyfile(
        test_chat="""
from rag_eval_pytest import evaluate
def test_relevant(rag_case):
    evaluate(rag_case, "answer_relevance")
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    cases = {c["key"]: c for c in read_report(pytester)["cases"]}
    follow_up = cases["fees"]["turns"][1]["metrics"]["answer_relevance"]["score"]
    without_history = cases["alone"]["metrics"]["answer_relevance"]["score"]
    # The same answer to the same words: relevant after "What does a personal account
    # cost?", much less so alone.
    assert follow_up >= 0.65 > without_history, (follow_up, without_history)


def test_the_markdown_report_shows_a_conversation_as_its_turns_the_failing_first(
    pytester: pytest.Pytester, chat_suite: None
) -> None:
    pytester.makepyfile(
        test_chat="""
from rag_eval_pytest import assert_faithful
def test_grounded(rag_case):
    assert_faithful(rag_case, 0.9)
"""
    )
    pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    markdown = (pytester.path / "results" / "eval_report.md").read_text(encoding="utf-8")
    trace = markdown[markdown.index("### FAILED: fees") :]
    turn_3 = trace.index("#### Turn 3 (FAILED): Is there a discount?")
    assert turn_3 < trace.index("#### Turn 1 (PASSED)") < trace.index("#### Turn 2 (PASSED)")
    # Each turn marks its own answer: the unsupported statement is turn 3's.
    assert '"**The moon is made of cheese.**"' in trace[turn_3 : trace.index("#### Turn 1")]


def test_zero_code_judges_each_turn_of_a_conversation_with_the_configured_aggregate(
    pytester: pytest.Pytester, chat_suite: None
) -> None:
    # No test file: one zero-code test per case, the configured metrics measured on each
    # turn. Faithfulness's turns score 1, 1 and 0: the minimum fails at 0.5, the mean
    # (2/3) passes.
    pytester.makefile(
        ".yaml",
        **{
            "eval-config": """
metrics:
  faithfulness: {threshold: 0.5, aggregate: mean}
  retrieval_recall: 1.0
"""
        },
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    report = read_report(pytester)
    case = next(c for c in report["cases"] if c["key"] == "fees")
    faithfulness = case["metrics"]["faithfulness"]
    assert faithfulness["score"] == pytest.approx(2 / 3)
    assert faithfulness["details"]["aggregate"] == "mean"
    assert [set(t["metrics"]) for t in case["turns"]] == [{"faithfulness", "retrieval_recall"}] * 3
    assert [t["metrics"]["faithfulness"]["score"] for t in case["turns"]] == [1.0, 1.0, 0.0]

    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.5\n"})
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*fees faithfulness 0.00 < 0.50 at turn 3*"])


def test_a_turn_past_the_timeout_is_an_error_naming_the_turn_and_fails_the_turns_after_it(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    pytester.makeconftest(
        """
import asyncio, pathlib
import pytest

@pytest.fixture(scope="session")
def rag_adapter():
    async def answer(question, history):
        with pathlib.Path("asked.txt").open("a") as log:
            log.write(question + "\\n")
        if len(history) == 2:  # turn 2 takes longer than --rag-timeout
            await asyncio.sleep(1)
        return "A personal account costs 5 EUR a month.", []
    return answer
"""
    )
    turns = [{"question": q} for q in ("What does it cost?", "And for business?", "Any discount?")]
    write_dataset([{"id": "slow", "turns": turns}])
    pytester.makepyfile(
        test_chat="""
def test_answers(rag_case):
    assert rag_case.answer
"""
    )
    args = ["--rag-dataset", "dataset.json", "-p", "no:randomly", "--rag-timeout=0.3"]
    result = pytester.runpytest(*args)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*slow: turn 2: callable *answer did not answer within 0.3 s (--rag-timeout)*"]
    )
    case = read_report(pytester)["cases"][0]
    assert case["status"] == "error"
    assert case["error"].startswith("turn 2: ") and "within 0.3 s" in case["error"]
    # The turn after the one that timed out is not asked: it has no history to go on.
    asked = (pytester.path / "asked.txt").read_text().splitlines()
    assert asked == ["What does it cost?", "And for business?"]
