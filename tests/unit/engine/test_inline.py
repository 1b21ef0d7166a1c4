"""Cases made in code: ``make_case`` and ``make_conversation`` refuse each field that is not
valid in one message naming them all; the case's fields and answer are readable anywhere;
evaluated inside a test, it is recorded under the test's node id (``::<id>`` for a case with
an id, ``::case-<hash>`` for another one without), with the test's judge, and its record
reaches the test's report and JUnit properties; outside a test it says where to call it."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rag_eval_pytest.engine import running as running_module
from rag_eval_pytest.engine.assertions import RagAssertionError, assert_faithful, evaluate
from rag_eval_pytest.engine.engine import Engine
from rag_eval_pytest.engine.inline import (
    INLINE_KEY,
    inline_cause_properties,
    inline_finished,
    inline_payloads,
    inline_properties,
    make_case,
    make_conversation,
)
from rag_eval_pytest.engine.running import DORMANT_PLUGIN, RUNNER_PLUGIN, running
from rag_eval_pytest.errors import ConfigError, SetupFailed
from tests.unit.engine.fakes import SentenceJudge, TestItem, engine_over

POLICY = "Refunds are paid within 30 days."
ASIDE = "Shipping is free."
NODE = "tests/test_app.py::test_refunds"


def refund(**fields: Any) -> Any:
    return make_case(question="Refunds?", answer=f"{POLICY} {ASIDE}", contexts=[POLICY], **fields)


@pytest.fixture
def engine() -> Iterator[Engine]:
    with engine_over() as engine:
        yield engine


def item_in(engine: Engine, judge: SentenceJudge | None = None) -> TestItem:
    """A test of a process whose engine is ``engine``, with its ``rag_judge``."""
    plugins = {RUNNER_PLUGIN: SimpleNamespace(engine=engine)}
    return TestItem(NODE, plugins=plugins, rag_judge=judge or SentenceJudge())


# --------------------------------------------------------------------------- making a case


def test_a_case_made_in_code_gives_its_fields_and_answer_anywhere() -> None:
    case = make_case(
        question="Refunds?",
        answer=POLICY,
        contexts=[{"text": POLICY, "source": "policy.md"}],
        ground_truth="Within 30 days.",
        tags=["billing"],
        critical=True,
    )
    assert (case.question, case.answer, case.ground_truth) == (
        "Refunds?",
        POLICY,
        "Within 30 days.",
    )
    assert [(c.text, c.source) for c in case.contexts or []] == [(POLICY, "policy.md")]
    assert case.tags == ["billing"] and case.critical
    assert not case.is_conversation


def test_outside_a_test_a_case_is_known_by_its_id_or_its_questions_hash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(running_module, "_RUNNING", [])
    assert refund(id="refund-1").id == "refund-1"
    digest = hashlib.sha256(b"Refunds?").hexdigest()[:8]
    assert refund().id == f"case-{digest}"
    assert repr(refund(id="r")) == "<RagCase r made in code critical=False>"


def test_evaluating_outside_a_test_says_where_to_call_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(running_module, "_RUNNING", [])
    with pytest.raises(RuntimeError, match="evaluated inside a pytest test"):
        evaluate(refund(), "faithfulness")


def test_every_field_that_is_not_valid_is_named_in_one_error() -> None:
    with pytest.raises(ValueError) as refused:
        make_case(
            question="Refunds?",
            answer=None,  # type: ignore[arg-type]
            contexts="one passage",
            tags="billing",
            metadata=["not", "a", "mapping"],  # type: ignore[arg-type]
        )
    message = str(refused.value)
    assert message.startswith("make_case(): ")
    assert "field 'answer': is None (did the LLM return no content?)" in message
    assert (
        "field 'contexts': expected a list of passages, got one string; write contexts=[value]"
        in message
    )
    assert "field 'tags': expected a list of tags, got one string" in message
    assert "field 'metadata': expected a mapping, got list" in message


def test_a_context_that_is_no_passage_is_named_by_its_position() -> None:
    with pytest.raises(ValueError, match=r"field 'contexts\[1\]': "):
        make_case(question="Refunds?", answer="a", contexts=["fine", 42])


def test_a_conversation_made_in_code_answers_with_its_last_turn() -> None:
    chat = make_conversation(
        turns=[
            {"question": "Refunds?", "answer": POLICY, "contexts": [POLICY]},
            {"question": "Shipping?", "answer": ASIDE},
        ],
        id="chat",
    )
    assert chat.is_conversation
    assert chat.answer == ASIDE and chat.contexts is None
    assert [t.question for t in chat.case.turns or []] == ["Refunds?", "Shipping?"]


def test_a_conversations_turns_are_checked_field_by_field() -> None:
    with pytest.raises(ValueError) as refused:
        make_conversation(turns=[{"question": "Refunds?", "answr": POLICY}, "Shipping?"])  # type: ignore[list-item]
    message = str(refused.value)
    assert message.startswith("make_conversation(): ")
    assert "field 'turns[0].answr': unknown (allowed: answer, contexts," in message
    assert "field 'turns[0].answer': is None" in message
    assert "field 'turns[1]': expected a mapping, got str" in message


# --------------------------------------------------------------------------- in a test


def test_the_first_case_of_a_test_is_recorded_under_its_node_id(engine: Engine) -> None:
    item = item_in(engine)
    case = refund()
    with running(item):  # type: ignore[arg-type]
        measured = evaluate(case, "faithfulness", threshold=0.9)
        assert case.id == NODE
    # One of the answer's two sentences is in its context.
    assert (measured.case, measured.score, measured.status) == (NODE, 0.5, "failed")
    (payload,) = inline_payloads(item)  # type: ignore[arg-type]
    assert payload["inline"] is True
    assert (payload["key"], payload["dataset"]) == (NODE, str(Path("tests/test_app.py")))
    assert payload["judge"] == "sentences (fake)"
    assert inline_properties(item)[:2] == [("rag_case", NODE), ("rag_faithfulness", 0.5)]  # type: ignore[arg-type]


def test_other_cases_of_the_test_are_keyed_by_their_id_or_question(engine: Engine) -> None:
    item = item_in(engine)
    with running(item):  # type: ignore[arg-type]
        first, named, unnamed = (
            refund(),
            refund(id="second"),
            make_case(question="Other?", answer="a"),
        )
        for case in (first, named, unnamed):
            evaluate(case, "faithfulness")
        evaluate(refund(), "faithfulness", threshold=0.4)  # an equal case: the same record
    digest = hashlib.sha256(b"Other?").hexdigest()[:8]
    keys = [p["key"] for p in inline_payloads(item)]  # type: ignore[arg-type]
    assert keys == [NODE, f"{NODE}::second", f"{NODE}::case-{digest}"]
    assert len(inline_payloads(item)[0]["metrics"]) == 2  # type: ignore[arg-type]


def test_a_failing_case_made_in_code_fails_with_its_key_and_gives_its_cause(
    engine: Engine,
) -> None:
    item = item_in(engine)
    with running(item), pytest.raises(RagAssertionError, match=f"^{NODE} faithfulness 0.50 < 0.90"):  # type: ignore[arg-type]
        assert_faithful(refund(), 0.9)
    assert inline_cause_properties(item, "failed") == [("rag_failure_cause", "unsupported_answer")]  # type: ignore[arg-type]
    assert inline_cause_properties(item, "passed") == []  # type: ignore[arg-type]


def test_when_the_test_is_over_its_cases_are_let_go(engine: Engine) -> None:
    judge = SentenceJudge()
    item = item_in(engine, judge)
    with running(item):  # type: ignore[arg-type]
        evaluate(refund(), "faithfulness")
    inline_finished(item, engine)  # type: ignore[arg-type]
    assert INLINE_KEY not in item.stash
    assert inline_payloads(item) == []  # type: ignore[arg-type]
    engine.session.loop.run(asyncio.sleep(0))  # the release handed to the loop, done
    # The test run again (a rerun plugin) measures afresh: nothing of the first run is kept.
    again = item_in(engine, judge)
    with running(again):  # type: ignore[arg-type]
        evaluate(refund(), "faithfulness")
    assert judge.calls == 2


def test_a_test_file_outside_the_root_keeps_its_whole_path(engine: Engine) -> None:
    item = item_in(engine)
    item.path = Path("/elsewhere/test_x.py")
    with running(item):  # type: ignore[arg-type]
        evaluate(refund(), "faithfulness")
    assert inline_payloads(item)[0]["dataset"] == str(Path("/elsewhere/test_x.py"))  # type: ignore[arg-type]


class Dormant:
    def activate(self) -> Engine:
        raise ConfigError("judge.kind: no such judge")


def test_a_run_that_cannot_make_its_engine_fails_the_test_and_stops_the_run() -> None:
    item = TestItem(NODE, plugins={DORMANT_PLUGIN: Dormant()})
    with running(item), pytest.raises(SetupFailed, match=r"judge\.kind: no such judge"):  # type: ignore[arg-type]
        evaluate(refund(), "faithfulness")
    assert item.session.shouldfail == "rag-eval: judge.kind: no such judge"
