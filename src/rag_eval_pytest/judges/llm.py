"""The backend of every LLM judge: the call to a model, and what the user built it with.

A backend (:class:`~.anthropic.AnthropicJudge`, :class:`~.openai.OpenAIJudge`,
:class:`~.callable.CallableJudge`, a class of the user's own) implements
:meth:`LLMJudge._complete`: send one rendered prompt, return a :class:`Reply`. Its
constructor's ``passes``, ``cache``, ``prices``, ``max_context_tokens``, ``timeout`` and
``retry`` are kept as given (:class:`~.backend.Given`); a run puts them in place of its own
settings when it builds the judge's runtime (:class:`~.runtime.JudgeRuntime`, which does
the prompting, parsing, votes, cache, limiter, retries, deadline and redaction), around a
copy of the backend: a run never changes the object the user built.

Asked directly, outside a run (``await judge.ask(...)``), a backend asks through a runtime
of its own, made from what it was given and the defaults.
"""

from __future__ import annotations

import copy
from abc import abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from ..runtime.retry import RetryPolicy
from .backend import (
    AuthenticationFailed,
    Given,
    Reply,
    RequestFailed,
    TransientError,
    endpoint,
)
from .base import I, Judge, JudgeOutcome, O, Question
from .run_config import DEFAULT_TIMEOUT, JudgeDeadline, RunConfig
from .runtime import JudgeRuntime

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import BaseModel

    from .cache import JudgeCache
    from .cost import Prices
    from .prompt import Mode, RenderedPrompt


class LLMJudge(Judge):
    """A judge that answers by prompting a language model: the backend a run's runtime
    wraps. ``passes`` (majority vote), ``cache`` (``False``: none) and the other runtime
    settings left ``None`` are the run's (a judge built in a user's ``rag_judge`` fixture
    gets the run's ``--rag-judge-passes`` and cache); given, they win over the run's."""

    kind: ClassVar[str] = "llm"
    mode: ClassVar[Mode] = "json"

    def __init__(
        self,
        *,
        model: str = "",
        passes: int | None = None,
        cache: JudgeCache | Literal[False] | None = None,
        prices: Prices | None = None,
        max_context_tokens: int | None = None,
        timeout: float | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        if passes is not None and passes < 1:
            raise ValueError("passes must be at least 1")
        self.model = model
        self.given = Given(passes, cache, prices, max_context_tokens, timeout, retry)
        self.timeout = DEFAULT_TIMEOUT if timeout is None else timeout
        """Seconds one request may take: the backend's clients are made with it."""
        self._secrets: list[str] = []
        self._alone: JudgeRuntime | None = None  # its runtime when asked outside a run

    # ------------------------------------------------------------------ the call

    @abstractmethod
    async def _complete(self, prompt: RenderedPrompt, question_name: str) -> Reply:
        """Send ``prompt`` once. Raise :class:`TransientError` or :class:`RequestFailed`."""

    def for_run(self, timeout: float) -> LLMJudge:
        """A copy of this backend for one run, whose requests time out after ``timeout``:
        what the run learns (its client, a server without response formats) stays on the
        copy, and this object is never changed by the run."""
        run = copy.copy(self)
        run.timeout = timeout
        run._secrets = list(self._secrets)
        run._alone = None
        run._detach()
        return run

    def _detach(self) -> None:
        """Drop, on a copy made for a run, what must not be shared with the original (a
        client)."""

    # ------------------------------------------------------------------ what it is

    def identity(self) -> dict[str, str] | None:
        """``kind`` and ``model``, the backend's :meth:`answer_settings`, and the class for
        a judge class of the user's own (``None`` when it is defined inside a function)."""
        identity = {"kind": self.kind, "model": self.model, **self.answer_settings()}
        cls = type(self)
        if not cls.__module__.startswith("rag_eval_pytest."):
            path = f"{cls.__module__}.{cls.__qualname__}"
            if "<locals>" in path:
                return None
            identity["class"] = path
        return identity

    def answer_settings(self) -> dict[str, str]:
        """Settings besides the model that change the answers (the server asked): part of
        the judge's fingerprint and of its cache keys. Left out when at their default, so
        a default judge keeps the cache keys of earlier releases."""
        return {}

    def secrets(self) -> list[str]:
        """Values that must never appear in an output (the API key): for the redactor."""
        return [s for s in self._secrets if s]

    # ------------------------------------------------------------------ asked directly

    async def ask(self, question: Question[I, O], inputs: I) -> JudgeOutcome[O]:
        """The answer through a runtime of this backend's own (outside a run)."""
        return await self._runtime().ask(question, inputs)

    async def ask_many(
        self, asked: Sequence[tuple[Question[Any, Any], BaseModel]]
    ) -> list[JudgeOutcome[Any]]:
        """The answers through that runtime: in one request where each gets one vote."""
        return await self._runtime().ask_many(asked)

    def _runtime(self) -> JudgeRuntime:
        if self._alone is None:
            self._alone = JudgeRuntime(self, RunConfig().under(self.given))
        return self._alone

    def stopped(self) -> str | None:
        """Why the judge stopped asking, when asked outside a run; else ``None``."""
        return self._alone.stopped() if self._alone is not None else None


__all__ = [
    "AuthenticationFailed",
    "JudgeDeadline",
    "LLMJudge",
    "Reply",
    "RequestFailed",
    "RetryPolicy",
    "TransientError",
    "endpoint",
]
