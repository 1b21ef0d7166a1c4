"""The plan of a generation, before anything is asked: ``--dry-run`` prints it and
``--max-cost`` is checked against it.

Documents, chunks, the cases planned by kind, and for an LLM judge the requests (one to write
each case, one to check it; a second round for cases dropped is not counted), the tokens of
their prompts (rendered from the very chunks the seed picks) and their cost at the judge's
price. Cache hits are not foreseen: a cached generation costs less than its plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .request import Inputs, Request

OUTPUT_TOKENS_PER_REQUEST = 250
"""The reply of a writing or checking request: a question, a ground truth, verdicts."""
_TYPICAL_QUESTION = "x" * 90
_TYPICAL_TRUTH = "x" * 200


@dataclass(frozen=True)
class Plan:
    documents: int
    chunks: int
    kinds: dict[str, int]
    judge: str
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = 0.0
    """USD; ``None`` when the judge's price is unknown."""

    def lines(self) -> list[str]:
        planned = sum(self.kinds.values())
        kinds = ", ".join(f"{n} {kind}" for kind, n in self.kinds.items()) or "none"
        cost = (
            "unknown (no price for the model: set judge.prices)"
            if self.cost is None
            else (f"~${self.cost:.4f}")
        )
        lines = [
            f"documents: {self.documents}",
            f"chunks: {self.chunks}",
            f"questions planned: {planned} ({kinds})",
            f"judge: {self.judge}",
        ]
        if self.offline:
            lines.append("requests: none (offline: no judge is asked), cost: $0")
        else:
            lines += [
                f"requests: {self.requests} (estimated: more when dropped cases are made up "
                "for, fewer from the cache)",
                f"tokens: ~{self.input_tokens + self.output_tokens}",
                f"cost: {cost}",
            ]
        return [*lines, "dry run: nothing asked, nothing written"]

    @property
    def offline(self) -> bool:
        return self.requests == 0 and self.cost == 0.0


def plan(request: Request, inputs: Inputs, env: Mapping[str, str]) -> Plan:
    if inputs.offline:
        from .extractive import candidates
        from .request import OFFLINE_JUDGE

        found = sum(len(candidates(chunk)) for chunk in inputs.chunks)
        kinds = {"extractive": min(request.count, found)}
        return Plan(len(inputs.documents), len(inputs.chunks), kinds, OFFLINE_JUDGE)
    return _llm_plan(request, inputs, env)


def _llm_plan(request: Request, inputs: Inputs, env: Mapping[str, str]) -> Plan:
    from ..judges.cost import estimate
    from ..judges.factory import judge_label
    from ..judges.prompt import estimate_tokens, render
    from ..judges.questions import GeneratedCheck, GeneratedCheckInput
    from .llm import assign, generation_settings, planned

    settings = generation_settings(inputs.settings.judge, env)
    wanted = planned(request, inputs.types)
    tokens: list[int] = []
    for assignment in assign(inputs.chunks, wanted, request.seed):
        question, asked = assignment.writing()
        tokens.append(estimate_tokens(render(question, asked, mode="json").text))
        turns = getattr(asked, "turns", 1)
        check = GeneratedCheckInput(
            questions=[_TYPICAL_QUESTION] * turns,
            ground_truths=[_TYPICAL_TRUTH] * turns,
            chunks=list(asked.chunks),
        )
        tokens.append(estimate_tokens(render(GeneratedCheck(), check, mode="json").text))
    label = judge_label(settings, env)
    model = label.split("(", 1)[1].rstrip(")") if "(" in label else settings.kind
    cost = estimate(
        model,
        tokens,
        output_tokens_per_call=OUTPUT_TOKENS_PER_REQUEST,
        overrides=settings.price_table(),
    )
    return Plan(
        len(inputs.documents),
        len(inputs.chunks),
        dict(wanted),
        label,
        cost.calls,
        cost.input_tokens,
        cost.output_tokens,
        cost.cost_usd,
    )


def check_cost(request: Request, found: Plan) -> None:
    """Refuse, before any request, a generation whose plan costs more than ``--max-cost``."""
    if request.max_cost is None:
        return
    if found.cost is None:
        raise ConfigError(
            f"--max-cost: the price of the judge's model is unknown ({found.judge}): set "
            "judge.prices in the config; nothing asked"
        )
    if found.cost > request.max_cost:
        raise ConfigError(
            f"the estimated cost ~${found.cost:.4f} ({found.requests} requests) is over "
            f"--max-cost ${request.max_cost:g}: lower --count or raise --max-cost; nothing "
            "asked"
        )
