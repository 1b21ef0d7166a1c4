"""What a test asks for brings its companion: asking for answer similarity measures answer
correctness beside it (and the other way round), once, and each result shows its
companion's score and reason in ``details.beside``."""

from __future__ import annotations

from rag_eval_pytest.engine.requests import attach_companions, with_companions
from rag_eval_pytest.metrics.base import MetricResult
from rag_eval_pytest.metrics.faithfulness import Faithfulness


def result(metric: str, score: float | None, reason: str = "r") -> MetricResult:
    status = "not_judged" if score is None else "passed"
    return MetricResult(
        case="c1", metric=metric, score=score, reason=reason, threshold=None, status=status
    )


def test_a_metric_with_a_companion_brings_it_after_the_requests() -> None:
    requests = [("answer_similarity", 0.8, {}), ("faithfulness", None, {})]
    assert with_companions(requests) == [*requests, ("answer_correctness", None, {})]


def test_a_companion_already_asked_for_is_not_added_twice() -> None:
    requests = [("answer_similarity", None, {}), ("answer_correctness", 0.9, {})]
    assert with_companions(requests) == requests


def test_metrics_without_companions_or_unknown_or_given_as_objects_add_nothing() -> None:
    requests = [("retrieval_recall", None, {}), ("no_such_metric", None, {})]
    assert with_companions(requests) == requests
    instance = [(Faithfulness(), None, {})]
    assert with_companions(instance) == instance  # type: ignore[arg-type]


def test_each_result_carries_its_companions_score_and_reason() -> None:
    similarity = result("answer_similarity", 0.9, "cosine 0.90")
    correctness = result("answer_correctness", 0.5, "1 matching, 1 missing")
    faith = result("faithfulness", 1.0)
    out = attach_companions([similarity, faith], [correctness])
    assert out[0].details["beside"] == {
        "metric": "answer_correctness",
        "score": 0.5,
        "reason": "1 matching, 1 missing",
    }
    assert "beside" not in out[1].details
    assert "beside" not in similarity.details  # the original result is left as it was


def test_a_not_judged_companion_is_shown_with_no_score() -> None:
    out = attach_companions(
        [result("answer_correctness", 0.7)], [result("answer_similarity", None, "no model")]
    )
    assert out[0].details["beside"] == {
        "metric": "answer_similarity",
        "score": None,
        "reason": "no model",
    }
