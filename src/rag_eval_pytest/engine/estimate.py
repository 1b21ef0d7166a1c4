"""The pre-run estimate of judge work: calls, tokens and cost, from prompt sizes.

Renders the prompt each judge-based metric would send for each case (pre-recorded answers
and contexts as they are; a typical size where the RAG system has not answered yet) and
prices it with :mod:`..judges.cost`. A conversation counts each of its turns (each is
measured as a case of its own, with the user's earlier messages). With N passes it counts
the passes of an agreeing vote (``N // 2 + 1``); disagreements cost more, cache hits less.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..judges.cost import Estimate, estimate
from ..judges.factory import judge_label, resolve_kind
from ..judges.prompt import estimate_tokens, render
from ..metrics.registry import METRIC_NAMES, get_metric, requirements

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping

    from ..data.dataset import Case, LoadedCase
    from ..judges.settings import JudgeSettings

TYPICAL_ANSWER = "x" * 600
TYPICAL_CONTEXTS = ["x" * 800] * 4


def _prompts(
    metric: str, question: str, truth: str, answer: str, contexts: list[str], earlier: list[str]
) -> Any:
    """The prompts of the judge questions ``metric`` asks for such a case (its own list)."""
    asked = get_metric(metric).judge_questions(question, truth, answer, contexts, earlier=earlier)
    return [render(q, inputs, mode="json") for q, inputs in asked]


def _asked(cases: Iterable[LoadedCase]) -> Iterator[tuple[Case, list[str]]]:
    """What the judge is asked about: each single question, and each turn of a conversation
    (a turn is measured as a case of its own), with the user's earlier messages."""
    for loaded in cases:
        turns = loaded.case.turns
        if turns is None:
            yield loaded.case, []
            continue
        for number in range(1, len(turns) + 1):
            earlier = [turn.question for turn in turns[: number - 1]]
            yield loaded.case.turn_case(number), earlier


def _judged(metric: str) -> bool:
    """A built-in metric that asks the judge (a custom one is never estimated)."""
    return metric in METRIC_NAMES and "judge" in requirements(metric)


def estimate_run(
    settings: JudgeSettings,
    cases: Iterable[LoadedCase],
    metrics: Iterable[str],
    env: Mapping[str, str],
) -> Estimate | None:
    """The estimate for ``metrics`` on ``cases``; ``None`` when none of them needs a judge."""
    judged = [m for m in metrics if _judged(m)]
    if not judged:
        return None
    priced = _priced_judge(settings, env)
    if priced is None:
        return None
    settings, kind = priced
    model = _model_name(settings, env, kind)
    tokens = _prompt_tokens(cases, judged, _agreeing_passes(settings.fixed_passes))
    if kind == "local":
        return Estimate(len(tokens), 0, 0, 0.0)
    return estimate(model, tokens, overrides=settings.price_table())


def _priced_judge(
    settings: JudgeSettings, env: Mapping[str, str]
) -> tuple[JudgeSettings, str] | None:
    """The judge whose calls are priced, and its kind: a cascade's LLM tier, at most what
    it would cost alone (``None`` when that tier cannot be built)."""
    kind = resolve_kind(settings, env)
    if kind != "cascade":
        return settings, kind
    from ..errors import ConfigError
    from ..judges.factory import cascade_tier

    try:
        tier = cascade_tier(settings, env)
    except ConfigError:
        return None
    return tier, resolve_kind(tier, env)


def _model_name(settings: JudgeSettings, env: Mapping[str, str], kind: str) -> str:
    """The judge's model, as its label names it; its kind when the label names none."""
    label = judge_label(settings, env)
    return label.split("(", 1)[1].rstrip(")") if "(" in label else kind


def _agreeing_passes(votes: int) -> int:
    """The passes of an agreeing vote; under ``passes: auto``, one for most questions."""
    return 1 if votes == 1 else votes // 2 + 1


def _prompt_tokens(cases: Iterable[LoadedCase], judged: list[str], passes: int) -> list[int]:
    """The tokens of each judge call the metrics ``judged`` make on the cases."""
    tokens: list[int] = []
    for asked, earlier in _asked(cases):
        tokens.extend(_case_tokens(asked, earlier, judged, passes))
    return tokens


def _case_tokens(asked: Case, earlier: list[str], judged: list[str], passes: int) -> list[int]:
    answer, contexts = _as_judged(asked)
    tokens: list[int] = []
    for metric in judged:
        if asked.ground_truth is None and "ground_truth" in requirements(metric):
            continue  # not judged: no judge call
        truth = asked.ground_truth or ""
        for prompt in _prompts(metric, asked.question, truth, answer, contexts, earlier):
            tokens.extend([estimate_tokens(prompt.text)] * passes)
    return tokens


def _as_judged(asked: Case) -> tuple[str, list[str]]:
    """The case's answer and contexts when recorded; a typical size where the RAG system
    has not answered yet."""
    answer = asked.answer if asked.answer is not None else TYPICAL_ANSWER
    contexts = [c.text for c in asked.contexts] if asked.contexts is not None else TYPICAL_CONTEXTS
    return answer, contexts
