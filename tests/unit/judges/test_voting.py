"""Majority vote over judge passes: it stops as soon as the majority is certain, keeps the
majority verdict (and the agreeing pass's reason), keeps the first pass's verdict on a tie,
and reports agreement, usage and every pass it could not use."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from rag_eval_pytest.judges.base import JudgeOutcome, Usage
from rag_eval_pytest.judges.questions import Equivalence, StatementVerdict, StatementVerdicts
from rag_eval_pytest.judges.voting import verdicts, vote


def same(flag: bool) -> JudgeOutcome[Any]:
    value = Equivalence(
        same_information=flag, matching_facts=[], missing_facts=[], wrong_or_extra_facts=[]
    )
    return JudgeOutcome(value, usage=Usage(judge_calls=1, input_tokens=10))


def statements(*pairs: tuple[str, str]) -> JudgeOutcome[Any]:
    items = [
        StatementVerdict(statement=f"s{i}", verdict=v, reason=r) for i, (v, r) in enumerate(pairs)
    ]  # type: ignore[arg-type]
    return JudgeOutcome(StatementVerdicts(statements=items), usage=Usage(judge_calls=1))


def failed(reason: str, stopped: str = "") -> JudgeOutcome[Any]:
    return JudgeOutcome.not_judged(reason, Usage(judge_calls=1), stopped)


class Passes:
    """Plays one outcome per pass index and records which passes ran."""

    def __init__(self, outcomes: Sequence[JudgeOutcome[Any]]) -> None:
        self.outcomes = list(outcomes)
        self.ran: list[int] = []

    async def __call__(self, index: int) -> JudgeOutcome[Any]:
        self.ran.append(index)
        return self.outcomes[index]


def run(outcomes: Sequence[JudgeOutcome[Any]], passes: int) -> tuple[JudgeOutcome[Any], list[int]]:
    played = Passes(outcomes)
    return asyncio.run(vote(played, passes)), played.ran


def test_verdicts_are_top_level_flags_and_item_fields() -> None:
    assert verdicts(same(True).value) == {("same_information",): True}
    value = statements(("supported", "a"), ("contradicted", "b")).value
    assert verdicts(value) == {
        ("statements", 0, "verdict"): "supported",
        ("statements", 1, "verdict"): "contradicted",
    }


def test_one_pass_is_asked_once_with_full_agreement() -> None:
    outcome, ran = run([same(True)], 1)
    assert ran == [0]
    assert outcome.value.same_information is True
    assert outcome.agreement == 1.0


def test_three_passes_stop_after_two_that_agree() -> None:
    outcome, ran = run([same(False), same(False), same(True)], 3)
    assert sorted(ran) == [0, 1]  # the third request is never made
    assert outcome.value.same_information is False
    assert outcome.agreement == 1.0
    assert outcome.usage.judge_calls == 2 and outcome.usage.input_tokens == 20
    assert outcome.notes == ()


def test_a_split_is_settled_by_the_third_pass_and_said() -> None:
    outcome, ran = run([same(True), same(False), same(True)], 3)
    assert sorted(ran) == [0, 1, 2]
    assert outcome.value.same_information is True
    assert outcome.agreement == pytest.approx(2 / 3, abs=1e-4)
    assert outcome.notes == (
        "judge passes disagreed on 1 of 1 verdicts; the majority verdict was kept",
    )
    assert outcome.usage.judge_calls == 3


def test_a_tie_keeps_the_first_pass_and_says_so() -> None:
    outcome, _ = run([same(False), same(True)], 2)
    assert outcome.value.same_information is False
    assert outcome.agreement == 0.5
    assert "passes tied on same_information; kept the first pass's verdict" in outcome.notes


def test_an_item_takes_the_majority_verdict_with_a_reason_that_goes_with_it() -> None:
    outcome, _ = run(
        [
            statements(("supported", "first says yes"), ("supported", "ok")),
            statements(("contradicted", "second says no"), ("supported", "ok")),
            statements(("contradicted", "third says no"), ("supported", "ok")),
        ],
        3,
    )
    first, second = outcome.value.statements
    assert first.verdict == "contradicted"
    assert first.reason == "second says no"  # never the outvoted pass's reason
    assert second.verdict == "supported"
    # One verdict agreed by 2 of 3 passes, the other by 3 of 3.
    assert outcome.agreement == pytest.approx((2 / 3 + 1) / 2, abs=1e-4)
    assert (
        "judge passes disagreed on 1 of 2 verdicts; the majority verdict was kept" in outcome.notes
    )


def test_passes_of_another_shape_are_outvoted_and_counted_as_disagreeing() -> None:
    two = statements(("supported", "r"), ("supported", "r"))
    one = statements(("supported", "r"))
    outcome, ran = run([two, one, two], 3)
    assert sorted(ran) == [0, 1, 2]
    assert len(outcome.value.statements) == 2
    assert "1 of 3 passes returned a different number of verdicts and were outvoted" in (
        outcome.notes
    )
    assert outcome.agreement == pytest.approx(2 / 3, abs=1e-4)


def test_a_failed_pass_is_noted_and_the_others_decide() -> None:
    outcome, ran = run([failed("timed out"), same(True), same(True)], 3)
    assert sorted(ran) == [0, 1, 2]
    assert outcome.value.same_information is True
    assert outcome.agreement == 1.0
    assert "pass 1 of 3 not judged: timed out" in outcome.notes


def test_when_no_pass_is_judged_the_first_reason_and_the_stop_are_kept() -> None:
    outcome, _ = run([failed("refused"), failed("key refused", stopped="HTTP 401")], 2)
    assert not outcome.judged
    assert outcome.reason == "refused"
    assert outcome.stopped == "HTTP 401"
    assert outcome.notes == (
        "pass 1 of 2 not judged: refused",
        "pass 2 of 2 not judged: key refused",
    )
    assert outcome.usage.judge_calls == 2


def share_supported(answer: StatementVerdicts) -> float:
    return sum(s.verdict == "supported" for s in answer.statements) / len(answer.statements)


def at(threshold: float, seen: list[list[float]]) -> Any:
    """A check that every possible answer is on one side of ``threshold`` (faithfulness's
    share of supported statements), recording the scores it was shown."""

    def check(answers: list[Any]) -> bool:
        scores = [share_supported(a) for a in answers]
        seen.append(sorted(scores))
        return len({score >= threshold for score in scores}) == 1

    return check


S, N, C = ("supported", "r"), ("not mentioned", "r"), ("contradicted", "r")


def test_a_third_vote_that_cannot_change_the_verdict_is_not_asked() -> None:
    # Two passes split on the last of four statements: 3/4 or 4/4 supported, a pass at 0.7
    # whichever it is.
    played = Passes([statements(S, S, S, N), statements(S, S, S, S), statements(S, S, S, N)])
    seen: list[list[float]] = []
    outcome = asyncio.run(vote(played, 3, at(0.7, seen)))
    assert played.ran == [0, 1]
    assert seen == [[0.75, 1.0]]
    assert outcome.notes[-1] == (
        "1 more vote(s) not asked: they could not change the verdict at its threshold"
    )
    assert share_supported(outcome.value) >= 0.7


def test_a_third_vote_that_can_change_the_verdict_is_asked() -> None:
    # Split on the first statement of a 3/4 answer: 2/4 (fail) or 3/4 (pass) at 0.7.
    played = Passes([statements(S, S, S, N), statements(N, S, S, N), statements(N, S, S, N)])
    outcome = asyncio.run(vote(played, 3, at(0.7, [])))
    assert played.ran == [0, 1, 2]
    assert share_supported(outcome.value) == 0.5  # the majority's verdict
    assert not any("not asked" in note for note in outcome.notes)


def test_a_failed_vote_the_verdict_depends_on_leaves_the_question_not_judged() -> None:
    # One vote for, the other two failed: they could have outvoted it.
    outcome, ran = run([same(True), failed("HTTP 529"), failed("HTTP 529", stopped="down")], 3)
    assert sorted(ran) == [0, 1, 2]
    assert not outcome.judged
    assert outcome.reason == "votes 2 and 3 of 3 failed and the verdict depends on them: HTTP 529"
    assert outcome.stopped == "down"  # a stop among the failures still ends the run
    assert outcome.usage.judge_calls == 3
    assert "pass 2 of 3 not judged: HTTP 529" in outcome.notes
    # A split the failed vote would have decided.
    outcome, _ = run([same(True), same(False), failed("refused")], 3)
    assert outcome.reason == "vote 3 of 3 failed and the verdict depends on it: refused"


def test_a_failed_vote_that_cannot_change_the_winner_is_no_failure() -> None:
    # Five votes on a three-way verdict: 2 supported, 1 not mentioned, 1 contradicted; the
    # failed fifth could at most tie "not mentioned" with "supported", which came first.
    outcome, _ = run(
        [statements(S), statements(S), statements(N), statements(C), failed("HTTP 529")], 5
    )
    assert outcome.judged and outcome.value.statements[0].verdict == "supported"
    assert "pass 5 of 5 not judged: HTTP 529" in outcome.notes


def test_a_failed_vote_that_cannot_change_the_metric_s_verdict_is_no_failure() -> None:
    # 3/4 or 4/4 supported, whatever the failed second vote said: a pass at 0.7 either way.
    played = Passes([statements(S, S, S, N), failed("HTTP 529"), statements(S, S, S, S)])
    seen: list[list[float]] = []
    outcome = asyncio.run(vote(played, 3, at(0.7, seen)))
    assert played.ran == [0, 1, 2]
    assert outcome.judged and share_supported(outcome.value) == 0.75  # the tie's first vote
    assert seen[-1] == [0.75, 1.0]
    # Had the third vote said 2/4, the failed one would have decided: not judged.
    played = Passes([statements(S, S, S, N), failed("HTTP 529"), statements(N, S, S, N)])
    outcome = asyncio.run(vote(played, 3, at(0.7, [])))
    assert not outcome.judged and outcome.reason.startswith("vote 2 of 3 failed")
