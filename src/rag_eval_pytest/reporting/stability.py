"""Whether a case's verdict on a metric hangs on the judge's noise.

A verdict is **stable** when the same answer would get it again: the metric asks no judge
(the retrieval metrics compare documents), the judge is deterministic (the local judge, a
custom judge declared so), or two or more votes were asked and all agreed. Otherwise an LLM
judge's single vote, or votes that disagreed, may go the other way next time. A case that
passed in the baseline and fails now with stable verdicts in both runs (and is not
judge-flaky) is a regression whatever the test of the mean says (:mod:`.baselines`).

Decided in the process that writes the reports, from what the case's payload says of its
judge (``judge_deterministic``, ``judge_passes``) and from each result's votes
(``details.agreement``, ``details.votes``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..metrics.base import MetricResult
    from .payload import CasePayload


def asks_a_judge(metric: str) -> bool:
    """Whether the metric reported as ``metric`` asks a judge (a metric this process does
    not know, a named check included, is taken to)."""
    from ..metrics.registry import requirements

    try:
        return "judge" in requirements(metric)
    except KeyError:
        return True


def stable_verdict(result: MetricResult, payload: CasePayload) -> bool:
    """Whether ``result``'s pass or fail would come out the same again on the same answer."""
    if not asks_a_judge(result.metric) or payload.get("judge_deterministic", False):
        return True
    details = result.details
    votes = max(payload.get("judge_passes", 1), _count(details.get("votes")))
    return votes >= 2 and details.get("agreement") == 1


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def stable_metrics(payload: CasePayload, metrics: Mapping[str, MetricResult]) -> list[str]:
    """The judged metrics of a case whose verdict is stable, sorted. A case a merged shard's
    report gave says so itself (``stable_metrics``)."""
    given = payload.get("stable_metrics")
    if given is not None:
        return sorted(name for name in given if name in metrics)
    return sorted(name for name, result in metrics.items() if _judged_stable(result, payload))


def _judged_stable(result: MetricResult, payload: CasePayload) -> bool:
    return result.status != "not_judged" and stable_verdict(result, payload)
