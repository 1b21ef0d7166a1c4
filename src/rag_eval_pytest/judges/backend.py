"""A backend: the call to a model, and what it says of itself.

A backend (:class:`~.llm.LLMJudge` and its subclasses: :class:`~.anthropic.AnthropicJudge`,
:class:`~.openai.OpenAIJudge`, :class:`~.callable.CallableJudge`) sends one rendered prompt
and returns a :class:`Reply`, or raises :class:`TransientError` (worth a retry),
:class:`RequestFailed`, or :class:`AuthenticationFailed` (a refused key). Everything a run
does around that call (the disk cache, the limiter, retries, the deadline, votes, redaction)
is one runtime's (:class:`~.runtime.JudgeRuntime`), configured once
(:class:`~.run_config.RunConfig`); what the backend was built with for it is :class:`Given`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

if TYPE_CHECKING:
    from ..runtime.retry import RetryPolicy
    from .base import Question
    from .cache import JudgeCache
    from .cost import Prices
    from .prompt import Mode, RenderedPrompt


class TransientError(Exception):
    """A failure worth retrying (timeout, connection, 408/409/429/5xx/overloaded);
    ``timed_out`` when the judge gave no answer within its timeout."""

    def __init__(
        self, message: str, retry_after: float | None = None, *, timed_out: bool = False
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.timed_out = timed_out


class RequestFailed(Exception):
    """A failure that a retry will not fix (bad key, unknown model, bad request)."""


class AuthenticationFailed(RequestFailed):
    """The judge's key was refused (401, 403): no request of this run can succeed, so the
    judge stops at once and answers every later question with this error, sending nothing."""


@dataclass(frozen=True)
class Reply:
    """One reply of a backend: structured ``data`` (a tool call, a JSON response format) or
    ``text``; ``refusal`` when the backend says the model refused."""

    text: str = ""
    data: dict[str, Any] | None = None
    refusal: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0

    def to_record(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "data": self.data,
            "refusal": self.refusal,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Reply | None:
        try:
            data = record["data"]
            refusal = record["refusal"]
            reply = cls(
                text=str(record["text"]),
                data=data if isinstance(data, dict) else None,
                refusal=str(refusal) if refusal is not None else None,
                input_tokens=int(record["input_tokens"]),
                output_tokens=int(record["output_tokens"]),
            )
        except (KeyError, TypeError, ValueError):
            return None
        return reply


@dataclass(frozen=True)
class Given:
    """The runtime settings a backend was built with, its constructor's keyword arguments:
    each one given wins over the run's setting (``judge.passes``, ``judge.cache``, the price
    table, ``judge.max_context_tokens``, ``judge.timeout``, ``judge.retry``); ``None``
    leaves it to the run. ``cache=False``: no disk cache, whatever the run says."""

    passes: int | None = None
    cache: JudgeCache | Literal[False] | None = None
    prices: Prices | None = None
    max_context_tokens: int | None = None
    timeout: float | None = None
    retry: RetryPolicy | None = None


class Backend(Protocol):
    """What a judge's runtime asks of its backend (:class:`~.llm.LLMJudge` is one)."""

    kind: ClassVar[str]
    mode: ClassVar[Mode]
    model: str
    deterministic: bool
    given: Given
    timeout: float

    async def _complete(self, prompt: RenderedPrompt, question_name: str) -> Reply: ...

    def for_run(self, timeout: float) -> Backend: ...

    def describe(self) -> str: ...

    def identity(self) -> dict[str, str] | None: ...

    def fingerprint(self) -> str | None: ...

    def supports(self, question: type[Question[Any, Any]]) -> bool: ...

    def secrets(self) -> list[str]: ...

    async def embed(self, texts: list[str]) -> list[list[float]]: ...

    async def aclose(self) -> None: ...


def endpoint(url: str) -> str:
    """A server's URL as part of a judge's identity: scheme, host, port and path, without
    credentials, query or fragment (the identity is persisted, credentials never are)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # not a number: the request fails and says so; here it is a name
        port = ""
    return f"{parts.scheme}://{host}{port}{parts.path.rstrip('/')}"
