"""A custom judge: any ``prompt -> text`` callable, sync or async.

The plugin does the prompting and the parsing; the callable only talks to a model. Return it
from a ``rag_judge`` fixture (or return the bare callable, which the plugin wraps)::

    @pytest.fixture(scope="session")
    def rag_judge():
        return CallableJudge(lambda prompt: my_llm.complete(prompt), model="my-llm-v2")

The callable may also return a mapping (already-parsed JSON). ``deterministic=True`` says it
answers the same prompt the same way every time (rules, a seeded model): its verdicts are
stable, and a case it fails newly is a regression under ``--rag-fail-on-regression``.
``model`` names the model in the reports and in the cache key: change it when the callable
starts answering differently, or run with ``--rag-no-cache``. Without ``model``, a function
defined at a module's top level is known by its module and name; a lambda, a function defined
inside another (a closure), a ``functools.partial`` or a callable object has no name that
tells two of them apart, so its answers are not cached on disk (the run says so once).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import raised
from ..runtime.event_loop import raised_by_user_code
from .backend import Reply, RequestFailed, TransientError
from .llm import LLMJudge

if TYPE_CHECKING:
    from .prompt import RenderedPrompt


class CallableJudge(LLMJudge):
    kind: ClassVar[str] = "custom"

    def __init__(
        self,
        fn: Callable[[str], Any],
        *,
        model: str | None = None,
        deterministic: bool = False,
        **kwargs: Any,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"CallableJudge needs a callable, got {type(fn).__name__}")
        name = model or getattr(fn, "__qualname__", None) or type(fn).__name__
        super().__init__(model=str(name), **kwargs)
        self.fn = fn
        self.named = bool(model)
        self.deterministic = deterministic

    def identity(self) -> dict[str, str] | None:
        identity = super().identity()
        if identity is None or self.named:
            return identity
        function = stable_name(self.fn)
        return None if function is None else {**identity, "function": function}

    async def _complete(self, prompt: RenderedPrompt, question_name: str) -> Reply:
        try:
            # judge.timeout bounds the callable as it bounds an HTTP request: a call that
            # hangs is a timed-out request (retried, and three in a row stop the judge); a
            # sync one runs on a daemon thread the run never waits for.
            result = await asyncio.wait_for(self._guarded(prompt.text), self.timeout)
        except asyncio.TimeoutError:  # not TimeoutError before Python 3.11
            raise TransientError(
                f"{self.model} gave no answer within {self.timeout:g} s (judge.timeout)",
                timed_out=True,
            ) from None
        if isinstance(result, Mapping):
            return Reply(data=dict(result))
        if hasattr(result, "model_dump"):
            return Reply(data=result.model_dump())
        if not isinstance(result, str):
            raise RequestFailed(
                f"{self.model} returned {type(result).__name__}; a custom judge returns text"
            )
        return Reply(text=result)

    async def _guarded(self, text: str) -> Any:
        """The user's callable, whose failures are failed requests. Caught in the task that
        runs it (``wait_for``'s own): an exit or interrupt leaving that task would stop the
        event loop."""
        try:
            return await self._call(text)
        except BaseException as exc:
            # The user's judge failed: not judged, with the reason. Whatever its code raised,
            # an exit or interrupt (never a real Ctrl-C: that reaches only the main thread),
            # GeneratorExit, a CancelledError or a class of its own, must not leave this task
            # as itself, or it stops the event loop or passes for the run's own end. Only
            # the task's own cancellation (the run stopping, the timeout) goes on as it is.
            if not raised_by_user_code(exc):
                raise
            raise RequestFailed(raised(self.model, exc)) from exc

    async def _call(self, text: str) -> Any:
        if inspect.iscoroutinefunction(self.fn) or inspect.iscoroutinefunction(
            getattr(self.fn, "__call__", None)  # noqa: B004 - async callable objects
        ):
            return await self.fn(text)
        result = await asyncio.to_thread(self.fn, text)
        if inspect.isawaitable(result):
            result = await result
        return result


def stable_name(fn: Any) -> str | None:
    """``module.name`` of a function defined at a module's top level (the same function from
    one run to the next); ``None`` for anything that name cannot tell apart from another."""
    if not (inspect.isfunction(fn) or inspect.isbuiltin(fn)):
        return None
    qualname = getattr(fn, "__qualname__", "")
    module = getattr(fn, "__module__", None)
    if not module or not qualname or "<" in qualname:  # <lambda>, <locals>
        return None
    return f"{module}.{qualname}"
