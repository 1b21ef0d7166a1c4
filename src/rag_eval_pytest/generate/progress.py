"""What a generation with an LLM judge has spent (requests, tokens, cost, against
``--max-cost``) and the progress line a terminal shows meanwhile."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..judges.base import Usage


@dataclass
class Spend:
    """Requests, tokens and cost so far; the ``--max-cost`` cap."""

    cap: float | None
    batch: int = 16
    """Requests sent at once (the judge's concurrency)."""
    calls: int = 0
    cached: int = 0
    tokens: int = 0
    cost: float = 0.0
    capped: bool = False

    def add(self, usage: Usage) -> None:
        self.calls += usage.judge_calls
        self.cached += usage.cache_hits
        self.tokens += usage.input_tokens + usage.output_tokens
        self.cost += usage.cost_usd

    def allows(self) -> bool:
        if self.cap is not None and self.cost >= self.cap:
            self.capped = True
        return not self.capped


class Progress:
    """A progress line on a terminal (stderr): questions written and checked, requests,
    cost; nothing when stderr is not a terminal."""

    def __init__(self, planned: int) -> None:
        self.planned = planned
        self.counts = {"written": 0, "checked": 0}
        self.shown = sys.stderr.isatty()

    def written(self, spend: Spend) -> None:
        self._step("written", spend)

    def checked(self, spend: Spend) -> None:
        self._step("checked", spend)

    def _step(self, what: str, spend: Spend) -> None:
        self.counts[what] += 1
        if self.shown:
            sys.stderr.write(
                f"\rrag-eval generate: {self.counts['written']}/{self.planned} written, "
                f"{self.counts['checked']} checked, {spend.calls} requests, ${spend.cost:.4f}\x1b[K"
            )
            sys.stderr.flush()

    def done(self) -> None:
        if self.shown and any(self.counts.values()):
            sys.stderr.write("\n")
