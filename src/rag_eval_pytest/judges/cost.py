"""What judging costs: a price table per model, the actual cost of recorded usage, and the
estimate before a run (``--rag-dry-run`` and the header line) from prompt sizes.

Prices are USD per million tokens (input, output), list prices at the time of writing;
config ``judge.prices`` overrides or extends them. A model is matched by the longest table
entry its name starts with (``claude-sonnet-4-5-20250929`` uses ``claude-sonnet-4-5``). An
unknown model costs nothing in the reports and the estimate says its price is unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

PRICES: dict[str, tuple[float, float]] = {
    # Anthropic
    "claude-opus-4-5": (5.0, 25.0),
    "claude-opus-4-1": (15.0, 75.0),
    "claude-opus-4": (15.0, 75.0),
    "claude-sonnet-4-6": (3.0, 15.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-3-7-sonnet": (3.0, 15.0),
    "claude-3-5-sonnet": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-3-5-haiku": (0.8, 4.0),
    "claude-3-haiku": (0.25, 1.25),
    # OpenAI
    "gpt-4o-mini": (0.15, 0.6),
    "gpt-4o": (2.5, 10.0),
    "gpt-4.1-nano": (0.1, 0.4),
    "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4.1": (2.0, 8.0),
    "gpt-5-mini": (0.25, 2.0),
    "gpt-5": (1.25, 10.0),
    "o4-mini": (1.1, 4.4),
}

Prices = Mapping[str, tuple[float, float]]


def price_for(model: str, overrides: Prices | None = None) -> tuple[float, float] | None:
    """(input, output) USD per million tokens for ``model``, or ``None`` when unknown."""
    table = {**PRICES, **(overrides or {})}
    if model in table:
        return table[model]
    matches = [name for name in table if model.startswith(name)]
    return table[max(matches, key=len)] if matches else None


def cost_usd(
    model: str, input_tokens: int, output_tokens: int, overrides: Prices | None = None
) -> float:
    """The cost of one call's tokens (0.0 for a model without a known price)."""
    price = price_for(model, overrides)
    if price is None:
        return 0.0
    return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000


@dataclass(frozen=True)
class Estimate:
    """A pre-run estimate: calls, tokens and cost (``None`` when the price is unknown)."""

    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None

    def describe(self) -> str:
        cost = f"~${self.cost_usd:.4f}" if self.cost_usd is not None else "cost unknown"
        return f"{self.calls} judge calls, ~{self.input_tokens + self.output_tokens} tokens, {cost}"


def estimate(
    model: str,
    prompt_tokens: list[int],
    *,
    output_tokens_per_call: int = 400,
    overrides: Prices | None = None,
) -> Estimate:
    """Estimate the cost of sending prompts of these token sizes, one call each."""
    inputs = sum(prompt_tokens)
    outputs = output_tokens_per_call * len(prompt_tokens)
    price = price_for(model, overrides)
    cost = None if price is None else (inputs * price[0] + outputs * price[1]) / 1_000_000
    return Estimate(len(prompt_tokens), inputs, outputs, cost)
