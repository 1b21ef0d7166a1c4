"""What judging costs: a model's price by the longest entry its name starts with, the cost of
recorded tokens, and the estimate a dry run prints."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.cost import PRICES, Estimate, cost_usd, estimate, price_for


def test_an_exact_model_name_has_its_price() -> None:
    assert price_for("gpt-4o") == (2.5, 10.0)


def test_a_dated_model_uses_the_longest_entry_it_starts_with() -> None:
    # Both "gpt-4o" and "gpt-4o-mini" are prefixes: the mini's price, not the big model's.
    assert price_for("gpt-4o-mini-2024-07-18") == PRICES["gpt-4o-mini"]
    assert price_for("claude-sonnet-4-5-20250929") == PRICES["claude-sonnet-4-5"]
    assert price_for("claude-opus-4-1-20250805") == PRICES["claude-opus-4-1"]


def test_an_unknown_model_has_no_price_and_costs_nothing() -> None:
    assert price_for("my-llm") is None
    assert cost_usd("my-llm", 1_000_000, 1_000_000) == 0.0


def test_overrides_replace_and_extend_the_table() -> None:
    overrides = {"gpt-4o": (1.0, 2.0), "my-llm": (0.5, 0.5)}
    assert price_for("gpt-4o-2024-08-06", overrides) == (1.0, 2.0)
    assert price_for("my-llm-v2", overrides) == (0.5, 0.5)
    assert price_for("gpt-4o") == (2.5, 10.0)  # the table itself is untouched


def test_cost_is_per_million_tokens_input_and_output() -> None:
    # claude-haiku-4-5: $1 in, $5 out per million tokens.
    assert cost_usd("claude-haiku-4-5", 2_000, 400) == pytest.approx((2_000 * 1 + 400 * 5) / 1e6)
    assert cost_usd("claude-haiku-4-5", 1_000_000, 0) == pytest.approx(1.0)


def test_an_estimate_counts_calls_tokens_and_cost() -> None:
    # Two prompts on gpt-4o ($2.5 / $10): 4,000 tokens in, 2 x 400 out.
    result = estimate("gpt-4o", [1_000, 3_000])
    assert (result.calls, result.input_tokens, result.output_tokens) == (2, 4_000, 800)
    assert result.cost_usd == pytest.approx((4_000 * 2.5 + 800 * 10) / 1e6)  # $0.018
    assert result.describe() == "2 judge calls, ~4800 tokens, ~$0.0180"


def test_an_estimate_for_an_unknown_model_says_so() -> None:
    result = estimate("my-llm", [100], output_tokens_per_call=50)
    assert result == Estimate(calls=1, input_tokens=100, output_tokens=50, cost_usd=None)
    assert result.describe() == "1 judge calls, ~150 tokens, cost unknown"


def test_an_estimate_of_nothing_is_zero() -> None:
    assert estimate("gpt-4o", []).describe() == "0 judge calls, ~0 tokens, ~$0.0000"
