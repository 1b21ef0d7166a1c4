"""Context precision driven by a fixed judge: a context the judge is unsure of may be useful or
not, so the score's bounds are the least and the greatest average precision over both."""

from __future__ import annotations

from rag_eval_pytest.judges.base import JudgeOutcome
from rag_eval_pytest.judges.questions import ContextVerdict, ContextVerdicts
from rag_eval_pytest.metrics.context_precision import ContextPrecision, precision_bounds
from tests.unit.metrics.fakes import FixedJudge, make_sample, measure


def usefulness(*flags: bool, unsure: tuple[int, ...] = ()) -> FixedJudge:
    value = ContextVerdicts(
        verdicts=[ContextVerdict(index=i, useful=f, reason=f"r{i}") for i, f in enumerate(flags)]
    )
    return FixedJudge({"context_usefulness": JudgeOutcome(value, unsure=unsure)})


def test_an_unsure_context_bounds_the_average_precision_both_ways() -> None:
    # Useful, unsure, not useful: 1.0 if the unsure one is not useful, 1.0 if it is; one
    # ranked after a context that is not useful lowers the precision when it is useful.
    assert precision_bounds([True, False, False], [False, True, False]) == (1.0, 1.0)
    assert precision_bounds([True, False, False], [False, False, True]) == (
        (1 + 2 / 3) / 2,
        1.0,
    )
    assert precision_bounds([False, False], [True, False]) == (0.0, 1.0)


def test_a_verdict_that_depends_on_an_unsure_context_is_marked_and_bounded() -> None:
    judge = usefulness(False, True, unsure=(0,))
    result = measure(ContextPrecision(), make_sample(contexts=["a", "b"]), judge)
    assert (result.unsure, result.bounds) == (1, (0.5, 1.0))
    assert result.score == 0.5  # the best guess: the unsure context not useful
    assert [e.verdict for e in result.evidence] == ["unsure", "useful"]
    assert result.reason == '1 of 2 contexts useful for the ground truth; 1 context unsure: "a"'


def test_a_context_the_judge_is_sure_of_leaves_no_bounds() -> None:
    result = measure(ContextPrecision(), make_sample(contexts=["a", "b"]), usefulness(True, False))
    assert (result.score, result.unsure, result.bounds) == (1.0, 0, None)
