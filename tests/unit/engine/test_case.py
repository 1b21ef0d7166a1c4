"""The ``rag_case`` a test receives and what its test records: the case's fields, the RAG
system's response, a threshold checked before anything is measured, a conversation's turns
as cases of their own, the test's judge resolved once (one that cannot be built stops the
run with a masked message), and the recorder's scores, payload and failure cause for the
reports."""

from __future__ import annotations

import pytest

from rag_eval_pytest.data.response import RAGResponse
from rag_eval_pytest.engine.case import INLINE_INDEX, RECORDER_KEY, CaseTest, ResultRecorder
from rag_eval_pytest.engine.judging import JudgeRegistry
from rag_eval_pytest.errors import ConfigError
from rag_eval_pytest.metrics.base import MetricResult
from rag_eval_pytest.redaction import MASK, Redactor
from tests.unit.engine.fakes import (
    SentenceJudge,
    TestItem,
    engine_over,
    eval_session,
    loaded,
    take_case,
)

POLICY = "Refunds are paid within 30 days."
REFUND = loaded(
    "refund",
    question="Refunds?",
    ground_truth="Within 30 days.",
    expected_contexts=["policy.md"],
    answer=POLICY,
    contexts=[{"text": POLICY, "source": "policy.md"}],
    critical=True,
    tags=["billing"],
)
CHAT = loaded(
    "chat",
    turns=[
        {"question": "Refunds?", "answer": POLICY, "contexts": [POLICY]},
        {"question": "And shipping?", "answer": "Free shipping.", "contexts": ["Free shipping."]},
    ],
)


def result(metric: str, score: float | None, threshold: float | None = 0.7) -> MetricResult:
    status = "not_judged" if score is None else "passed"
    if score is not None and threshold is not None and score < threshold:
        status = "failed"
    return MetricResult(
        case="refund", metric=metric, score=score, threshold=threshold, status=status
    )


# --------------------------------------------------------------------------- the recorder


def test_the_junit_properties_name_the_case_each_score_and_each_threshold_given() -> None:
    recorder = ResultRecorder(REFUND)
    recorder.record(result("faithfulness", 2 / 3))
    recorder.record(result("answer_relevance", None, threshold=None))
    assert recorder.properties() == [
        ("rag_case", "refund"),
        ("rag_faithfulness", 0.6667),
        ("rag_faithfulness_threshold", 0.7),
        ("rag_answer_relevance", "not judged"),
    ]


def test_every_tests_junit_properties_share_their_names() -> None:
    """pytest keeps each test's report, and its properties, to the end of the run: each
    test's own copy of the names weighed about 300 bytes, 15 MB over 50,000 tests."""
    names = []
    for _ in range(2):
        recorder = ResultRecorder(REFUND)
        recorder.record(result("faithfulness", 0.9))
        names.append([name for name, _ in recorder.properties()])
    assert all(a is b for a, b in zip(*names, strict=True))


def test_a_failed_tests_cause_is_decided_from_its_own_results() -> None:
    recorder = ResultRecorder(REFUND)
    recorder.response = RAGResponse(answer="No idea.", contexts=[{"text": "x", "source": "faq.md"}])
    recorder.record(result("retrieval_recall", 0.0))
    # The case expects policy.md and the system returned only faq.md: a retrieval miss.
    assert recorder.cause_properties("failed") == [("rag_failure_cause", "retrieval_miss")]
    assert recorder.cause_properties("passed") == []


def test_a_conversations_payload_has_each_turns_results_and_its_slowest_turns_latency() -> None:
    recorder = ResultRecorder(CHAT)
    first, second = CHAT.turns
    recorder.turns = [
        (first, RAGResponse(answer=POLICY, contexts=[], latency=0.25), ()),
        (second, RAGResponse(answer="Free shipping.", contexts=[], latency=1.5), ()),
    ]
    recorder.record_turn(2, [result("faithfulness", 0.5)])
    recorder.judge_identity = "abc passes=1"
    payload = recorder.payload()
    assert payload["latency"] == 1.5  # each turn is one call: the slowest decides
    assert payload["judge_identity"] == "abc passes=1"
    turns = payload["turns"]
    assert [t["key"] for t in turns] == ["chat/turn-1", "chat/turn-2"]
    assert [t["answer"] for t in turns] == [POLICY, "Free shipping."]
    assert turns[0]["metrics"] == []
    assert [m["score"] for m in turns[1]["metrics"]] == [0.5]


# --------------------------------------------------------------------------- the test


def case_test(item: TestItem, index: int = 0, redactor: Redactor | None = None) -> CaseTest:
    session = eval_session(REFUND)
    moved = loaded("refund", index=index, question="Refunds?")
    return CaseTest(
        item,  # type: ignore[arg-type]
        moved,
        JudgeRegistry(session),
        redactor or session.redactor,
        item._request.getfixturevalue,
    )


def test_a_case_made_in_code_is_told_apart_by_its_index() -> None:
    assert case_test(TestItem(), index=INLINE_INDEX).inline
    assert not case_test(TestItem(), index=3).inline


def test_a_case_made_in_code_has_no_rag_system_to_ask() -> None:
    session = eval_session(REFUND)
    test = CaseTest(TestItem(), REFUND, JudgeRegistry(session), session.redactor, None)  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match="a case made in code has its answer"):
        test.adapter()


def test_the_tests_judge_is_resolved_once_from_its_fixture() -> None:
    judge = SentenceJudge()
    item = TestItem(rag_judge=judge)
    test = case_test(item)
    before = test.judge_resolved
    assert test.judge() is judge and test.judge() is judge
    assert (before, test.judge_resolved) == (False, True)
    assert item._request.asked == ["rag_judge"]
    assert test.judge_for_metrics() is judge
    assert test.recorder.judge == "sentences (fake)"
    assert test.recorder.judge_identity is not None


def test_a_judge_that_cannot_be_built_stops_the_run_with_one_masked_message() -> None:
    secret = "sk-live-0123456789abcdef"
    item = TestItem(rag_judge=ConfigError(f"the key {secret} was refused"))
    test = case_test(item, redactor=Redactor([secret]))
    with pytest.raises(pytest.fail.Exception) as failed:
        test.judge_for_metrics()
    assert str(failed.value) == f"refund: the key {MASK} was refused"
    assert item.session.shouldfail == f"rag-eval: the key {MASK} was refused"
    assert test.recorder.setup_error == f"the key {MASK} was refused"


def test_metrics_that_only_embed_do_without_a_judge_that_fails_or_does_not_embed() -> None:
    failing = case_test(TestItem(rag_judge=ConfigError("no key")))
    assert failing.judge_for_embeddings() is None
    assert failing.item.session.shouldfail is False  # nothing stops: no judge is needed
    plain = case_test(TestItem(rag_judge=SentenceJudge()))
    assert plain.judge_for_embeddings() is None  # the offline model embeds
    assert plain.recorder.judge is None

    class Embedding(SentenceJudge):
        async def embed(self, texts: list[str]) -> list[list[float]]:
            return [[1.0] for _ in texts]

    judge = Embedding()
    embedding = case_test(TestItem(rag_judge=judge))
    assert embedding.judge_for_embeddings() is judge
    assert embedding.recorder.judge == "sentences (fake)"


# --------------------------------------------------------------------------- the case


def test_a_case_gives_its_dataset_fields_and_its_response() -> None:
    with engine_over(REFUND) as engine:
        case, _ = take_case(engine, TestItem(case="refund"))
        assert (case.id, case.question, case.ground_truth) == (
            "refund",
            "Refunds?",
            "Within 30 days.",
        )
        assert case.critical and case.expected_contexts == ["policy.md"]
        assert repr(case) == "<RagCase refund critical=True>"
        case.tags.append("changed")
        assert case.tags == ["billing"]  # a copy: the case is not changed through it
        assert case.answer == POLICY
        assert [c.source for c in case.contexts or []] == ["policy.md"]
        assert not case.is_conversation and case.turns == []


@pytest.mark.parametrize("threshold", [1.5, -0.1, float("nan"), True, "0.8"])
def test_a_threshold_that_is_no_number_in_0_1_is_an_error_before_anything_is_measured(
    threshold: object,
) -> None:
    with engine_over(REFUND) as engine:
        item = TestItem(case="refund")
        case, _ = take_case(engine, item)
        with pytest.raises((TypeError, ValueError), match="retrieval_recall: a threshold is a"):
            case.evaluate("retrieval_recall", threshold=threshold)  # type: ignore[arg-type]
        recorder = item.stash[RECORDER_KEY]
        assert (recorder.requests, recorder.results) == ([], [])


def test_evaluate_scores_records_and_returns_the_result() -> None:
    with engine_over(REFUND) as engine:
        item = TestItem(case="refund")
        case, _ = take_case(engine, item)
        measured = case.evaluate("retrieval_recall", threshold=0.9)
        assert (measured.metric, measured.score, measured.threshold) == (
            "retrieval_recall",
            1.0,
            0.9,
        )
        assert item.stash[RECORDER_KEY].results == [measured]
        assert case.settings is engine.settings


def test_a_conversations_turns_are_cases_of_their_own_with_their_history() -> None:
    with engine_over(CHAT) as engine:
        item = TestItem(case="chat", rag_judge=SentenceJudge())
        case, _ = take_case(engine, item)
        assert case.is_conversation
        first, second = case.turns
        assert (second.id, second.question, second.answer) == (
            "chat/turn-2",
            "And shipping?",
            "Free shipping.",
        )
        assert repr(second) == "<RagCase chat/turn-2 turn 2 of chat>"
        assert not second.is_conversation
        assert first.history == []
        assert second.history == [
            {"role": "user", "content": "Refunds?"},
            {"role": "assistant", "content": POLICY},
        ]
        measured = second.evaluate("faithfulness", threshold=0.9)
        assert measured.case == "chat/turn-2"
        assert list(item.stash[RECORDER_KEY].turn_results) == [2]


def test_a_conversations_result_is_read_against_the_answer_of_the_turn_that_decides_it() -> None:
    with engine_over(CHAT) as engine:
        case, _ = take_case(engine, TestItem(case="chat"))
        decided = result("faithfulness", 0.5).model_copy(update={"details": {"turn": 1}})
        assert case.answer_of(decided) == POLICY  # turn 1's, not the last turn's
        assert case.answer_of(result("faithfulness", 0.5)) == "Free shipping."
