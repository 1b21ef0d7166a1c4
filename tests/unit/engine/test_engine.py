"""The engine of one process, as the ``rag_case`` fixture and the cases use it: the RAG system
asked once per case whatever the number of tests, a failing one failing the test at setup
with its masked error, thresholds filled in (the metric's, or the calibration's), results
recorded for the reports, a conversation measured turn by turn, the work ahead told what
the tests do, a case's response let go after its last planned test, and the clients closed
at the end."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from rag_eval_pytest.adapters.base import RAGAdapter
from rag_eval_pytest.data.response import RAGResponse
from rag_eval_pytest.engine.ahead import LookaheadScheduler, NoAhead, WindowScheduler
from rag_eval_pytest.engine.case import RECORDER_KEY, CaseTest
from rag_eval_pytest.engine.engine import Engine
from rag_eval_pytest.engine.requests import PlannedMetric
from rag_eval_pytest.redaction import MASK
from tests.unit.engine.fakes import (
    SentenceJudge,
    TestItem,
    engine_over,
    eval_session,
    loaded,
    rag_system,
    take_case,
)

POLICY = "Refunds are paid within 30 days."
SHIPPING = "We ship worldwide."
REFUND = loaded("refund", question="Refunds?", expected_contexts=["policy.md", "terms.md"])
ANSWERS = {"Refunds?": (POLICY, [{"text": POLICY, "source": "policy.md"}])}


def test_a_case_is_asked_of_the_rag_system_once_however_many_tests_take_it() -> None:
    rag = rag_system(ANSWERS)
    with engine_over(REFUND) as engine:
        first, end_first = take_case(
            engine, TestItem("t.py::test_a[refund]", case="refund", rag_adapter=rag)
        )
        end_first()
        second, _ = take_case(
            engine, TestItem("t.py::test_b[refund]", case="refund", rag_adapter=rag)
        )
        assert first.answer == second.answer == POLICY
        assert rag.asked == [("Refunds?", None)]  # type: ignore[attr-defined]
        assert engine.adapter_description is not None
        assert engine.adapter_description.startswith("callable")


def test_a_recorded_answer_is_used_without_asking_for_a_rag_system() -> None:
    recorded = loaded("rec", question="Refunds?", answer=POLICY, contexts=[POLICY])
    with engine_over(recorded) as engine:
        item = TestItem(case="rec")
        case, _ = take_case(engine, item)
        assert case.answer == POLICY
        assert [c.text for c in case.contexts or []] == [POLICY]
        assert item._request.asked == []  # no rag_adapter fixture was needed


def test_a_failing_rag_system_fails_the_test_at_setup_with_its_masked_error() -> None:
    secret = "sk-live-0123456789abcdef"

    def broken(question: str) -> Any:
        raise RuntimeError(f"the key {secret} was refused")

    with engine_over(REFUND) as engine:
        engine.session.redactor.add(secret)
        item = TestItem(case="refund", rag_adapter=broken)
        with pytest.raises(pytest.fail.Exception) as failed:
            take_case(engine, item)
        message = str(failed.value)
        assert message.startswith("refund: ")
        assert "was refused" in message and MASK in message and secret not in message
        assert item.stash[RECORDER_KEY].error == message.removeprefix("refund: ")


def test_a_threshold_not_given_is_the_metrics_default_and_the_result_is_recorded() -> None:
    with engine_over(REFUND) as engine:
        item = TestItem(case="refund", rag_adapter=rag_system(ANSWERS))
        case, _ = take_case(engine, item)
        (result,) = case.evaluate_many([("retrieval_recall", None, {})])
        # One of the two expected documents was retrieved: 0.5, under the default 0.8.
        assert (result.score, result.threshold, result.status) == (0.5, 0.8, "failed")
        assert item.stash[RECORDER_KEY].results == [result]


def test_a_calibrated_threshold_replaces_the_metrics_default() -> None:
    calibration = {"metrics": {"retrieval_recall": {"best_threshold": 0.4}}}
    engine = Engine(eval_session(REFUND, calibration=calibration))
    try:
        case, _ = take_case(engine, TestItem(case="refund", rag_adapter=rag_system(ANSWERS)))
        (result,) = case.evaluate_many([("retrieval_recall", None, {})])
        assert (result.score, result.threshold, result.status) == (0.5, 0.4, "passed")
        # A threshold the test gives still wins over the calibrated one.
        (given,) = case.evaluate_many([("retrieval_recall", 0.6, {})])
        assert (given.threshold, given.status) == (0.6, "failed")
    finally:
        engine.close()


def test_a_judged_metric_is_measured_once_per_case_for_all_its_tests() -> None:
    judge = SentenceJudge()
    answers = {"Refunds?": (f"{POLICY} {SHIPPING}", [POLICY])}
    rag = rag_system(answers)
    with engine_over(REFUND) as engine:
        scores = []
        for nodeid in ("t.py::test_a[refund]", "t.py::test_b[refund]"):
            item = TestItem(nodeid, case="refund", rag_adapter=rag, rag_judge=judge)
            case, end = take_case(engine, item)
            (result,) = case.evaluate_many([("faithfulness", 0.9, {})])
            scores.append(result.score)
            assert item.stash[RECORDER_KEY].judge == "sentences (fake)"
            end()
        # The second of the two sentences is not in the context: 0.5, asked once.
        assert scores == [0.5, 0.5]
        assert judge.calls == 1


CONVERSATION = loaded(
    "chat",
    turns=[{"question": "Refunds?"}, {"question": "And shipping?"}],
)
CHAT = {
    "Refunds?": (POLICY, [POLICY]),
    "And shipping?": (f"{SHIPPING} It is free.", [SHIPPING]),
}


def test_a_conversation_is_asked_turn_by_turn_and_measured_on_each_turn() -> None:
    rag = rag_system(CHAT)
    judge = SentenceJudge()
    with engine_over(CONVERSATION) as engine:
        item = TestItem(case="chat", rag_adapter=rag, rag_judge=judge)
        case, _ = take_case(engine, item)
        assert case.answer == f"{SHIPPING} It is free."  # the last turn's
        assert rag.asked == [  # type: ignore[attr-defined]
            ("Refunds?", []),
            (
                "And shipping?",
                [
                    {"role": "user", "content": "Refunds?"},
                    {"role": "assistant", "content": POLICY},
                ],
            ),
        ]
        (lowest,) = case.evaluate_many([("faithfulness", 0.9, {})])
        (mean,) = case.evaluate_many([("faithfulness", 0.7, {"aggregate": "mean"})])
        # Turn 1 is fully supported, turn 2 half: the lowest turn decides, or their mean.
        assert (lowest.score, lowest.status, lowest.details["turn"]) == (0.5, "failed", 2)
        assert (mean.score, mean.status) == (0.75, "passed")
        recorder = item.stash[RECORDER_KEY]
        assert [r.score for r in recorder.turn_results[1]] == [1.0, 1.0]
        assert [r.score for r in recorder.turn_results[2]] == [0.5, 0.5]
        assert judge.calls == 2  # once per turn: the mean reads the same measurements


def test_a_turns_own_evaluation_is_measured_on_that_turn_only() -> None:
    with engine_over(CONVERSATION) as engine:
        item = TestItem(case="chat", rag_adapter=rag_system(CHAT), rag_judge=SentenceJudge())
        case, _ = take_case(engine, item)
        (first,) = case.turns[0].evaluate_many([("faithfulness", 0.9, {})])
        assert (first.case, first.score, first.status) == ("chat/turn-1", 1.0, "passed")
        recorder = item.stash[RECORDER_KEY]
        assert list(recorder.turn_results) == [1]
        assert recorder.results == []  # no result of the whole conversation was asked


class Recording(NoAhead):
    """Nothing ahead, but what the engine tells the work ahead is written down."""

    def __init__(self) -> None:
        self.told: list[tuple[str, Any]] = []

    def before_test(self, test: CaseTest, following: pytest.Item | None) -> None:
        self.told.append(("before", (test.loaded.key, following)))

    def learn(self, test: CaseTest, requests: list[PlannedMetric]) -> None:
        self.told.append(("learn", requests))

    def finished(self, case: str) -> bool:
        self.told.append(("finished", case))
        return False

    def stop(self) -> None:
        self.told.append(("stop", None))


def test_the_work_ahead_learns_each_new_request_and_stops_when_the_run_must() -> None:
    with engine_over(REFUND) as engine:
        ahead = engine.ahead = Recording()
        following = TestItem("t.py::test_b[refund]")
        engine.following = following  # type: ignore[assignment]
        item = TestItem(case="refund", rag_adapter=rag_system(ANSWERS))
        case, end = take_case(engine, item)
        case.evaluate_many([("retrieval_recall", None, {})])
        case.evaluate_many([("retrieval_recall", None, {}), ("retrieval_precision", 0.5, {})])
        item.session.shouldfail = "a critical case failed"
        end()
        assert ahead.told == [
            ("before", ("refund", following)),
            ("learn", [("retrieval_recall", {})]),
            ("learn", [("retrieval_precision", {})]),  # what it knew is not told again
            ("stop", None),
            ("finished", "refund"),
        ]
        assert engine.following is None  # told once, to the test that starts next


def planned_items(*keys: str) -> list[TestItem]:
    return [TestItem(f"t.py::test_{n}[{key}]", case=key) for n, key in enumerate(keys)]


def test_a_planned_cases_response_is_let_go_after_its_last_test() -> None:
    other = loaded("other", index=1, question="Shipping?")
    answers: dict[str, tuple[str, list[Any]]] = {**ANSWERS, "Shipping?": (SHIPPING, [SHIPPING])}
    rag = rag_system(answers)
    with engine_over(REFUND, other) as engine:
        items = planned_items("refund", "refund", "other")
        engine.plan(items)  # type: ignore[arg-type]
        assert isinstance(engine.ahead, WindowScheduler)
        for item in items[:2]:
            item._request.fixtures["rag_adapter"] = rag
            _, end = take_case(engine, item)
            end()
            engine.session.loop.run(asyncio.sleep(0))  # what the loop was handed, done
            if item is items[0]:
                assert engine.queries.asked("refund")  # its second test will read it
        assert not engine.queries.asked("refund")
        assert [q for q, _ in rag.asked].count("Refunds?") == 1  # type: ignore[attr-defined]


def test_on_a_worker_a_cases_response_stays_for_the_run() -> None:
    with engine_over(REFUND) as engine:
        (item,) = planned_items("refund")
        engine.plan([item], lookahead=True)  # type: ignore[list-item]
        assert isinstance(engine.ahead, LookaheadScheduler)
        item._request.fixtures["rag_adapter"] = rag_system(ANSWERS)
        _, end = take_case(engine, item)
        end()
        engine.session.loop.run(asyncio.sleep(0))
        # A worker runs only some of the tests it collected: another may read it.
        assert engine.queries.asked("refund")


class ClosingSystem(RAGAdapter):
    def __init__(self) -> None:
        self.closed = 0

    async def aquery(self, question: str) -> RAGResponse:
        return RAGResponse(answer=POLICY, contexts=[])

    async def aclose(self) -> None:
        self.closed += 1


class ClosingJudge(SentenceJudge):
    def __init__(self) -> None:
        super().__init__()
        self.closed = 0

    async def aclose(self) -> None:
        self.closed += 1


def test_closing_closes_the_rag_systems_and_the_judges_clients_once() -> None:
    system, judge = ClosingSystem(), ClosingJudge()
    engine = Engine(eval_session(REFUND))
    case, _ = take_case(engine, TestItem(case="refund", rag_adapter=system, rag_judge=judge))
    case.evaluate_many([("faithfulness", None, {})])
    engine.close()
    assert (system.closed, judge.closed) == (1, 1)
