"""``judge.local`` settings reach the judge the factory builds (bad values are refused when
the configuration is read: tests/unit/judges/test_settings.py)."""

from __future__ import annotations

from typing import Any

from rag_eval_pytest.judges.questions import StatementsInput, StatementSupport
from rag_eval_pytest.judges.settings import JudgeSettings

from .conftest import ask

POLICY = "Full-time employees receive 20 days paid time off annually."
ANSWER = "Full-time employees receive 20 days of paid time off every year."


def build(local_judge: Any, **local: Any) -> Any:
    from rag_eval_pytest.judges.factory import _local_judge

    judge = _local_judge(JudgeSettings(kind="local", local=local))
    assert judge.embedder is local_judge.embedder  # one model per process
    return judge


def verdict(judge: Any) -> str:
    inputs = StatementsInput(question="How much PTO?", answer=ANSWER, contexts=[POLICY])
    [statement] = ask(judge, StatementSupport(), inputs).statements
    return str(statement.verdict)


def test_the_support_thresholds_decide_the_verdict(local_judge: Any) -> None:
    assert verdict(build(local_judge)) == "supported"
    assert verdict(build(local_judge, support_threshold=1.0, ambiguous_threshold=0.0)) == (
        "not mentioned"
    )
    # Below the support threshold a claim no context contradicts is not mentioned.
    assert verdict(build(local_judge, support_threshold=1.0, ambiguous_threshold=1.0)) == (
        "not mentioned"
    )


def test_the_defaults_are_the_calibrated_thresholds(local_judge: Any) -> None:
    judge = build(local_judge)
    assert (judge.calibration.support, judge.calibration.ambiguous) == (0.39, 0.2)
    assert judge.relevance_threshold == 0.46
    # A support threshold below the default ambiguous one takes the ambiguous one down.
    lenient = build(local_judge, support_threshold=0.15)
    assert (lenient.calibration.support, lenient.calibration.ambiguous) == (0.15, 0.15)


def test_a_check_switched_off_finds_nothing(local_judge: Any) -> None:
    """``judge.local.checks: {numbers: false}``: a number the context gives as another is no
    longer a contradiction (the judge's identity says so: its answers are cached apart)."""
    wrong = StatementsInput(
        question="How much PTO?",
        answer="Full-time employees receive 25 days of paid time off every year.",
        contexts=[POLICY],
    )
    [checked] = ask(build(local_judge), StatementSupport(), wrong).statements
    assert checked.verdict == "contradicted"
    without = build(local_judge, checks={"numbers": False})
    [unchecked] = ask(without, StatementSupport(), wrong).statements
    assert unchecked.verdict != "contradicted", unchecked.reason
    assert "claims 25 days" not in unchecked.reason
    assert without.fingerprint() != build(local_judge).fingerprint()
