"""The Anthropic judge: Claude through the official ``anthropic`` SDK (``AsyncAnthropic``).

Structured output comes through tool use: the output model's JSON schema is the input schema
of one tool, and ``tool_choice`` forces the model to call it, so the reply is the tool call's
arguments, validated like any other reply. Temperature 0. The SDK honours
``ANTHROPIC_BASE_URL`` (config ``judge.base_url`` wins over it). The SDK's own retries are
off: the engine retries transient failures (429, 5xx, 529 overloaded, timeouts) itself,
honouring ``retry-after``, so every judge behaves alike and the counts in the reports are
real requests. The SDK is imported when the first request is made, never at start-up.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, ClassVar

from ..redaction import url_secrets
from ..runtime.retry import is_transient_status, retry_after
from .backend import (
    AuthenticationFailed,
    Reply,
    RequestFailed,
    TransientError,
    endpoint,
)
from .llm import LLMJudge

if TYPE_CHECKING:
    from collections.abc import Mapping

    from anthropic import AsyncAnthropic

    from .prompt import Mode, RenderedPrompt

DEFAULT_MODEL = "claude-sonnet-4-6"
TOOL_NAME = "record_answer"
NOT_A_MESSAGE = "the server's reply is not a Messages API response (check the judge's base_url)"
NO_SDK = "the anthropic judge needs the anthropic SDK: pip install 'rag-eval-pytest[anthropic]'"


class AnthropicJudge(LLMJudge):
    kind: ClassVar[str] = "anthropic"
    mode: ClassVar[Mode] = "tool"
    """Structured output through a forced tool call."""

    def __init__(
        self,
        *,
        model: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        max_tokens: int = 4096,
        temperature: float | None = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(model=model or DEFAULT_MODEL, **kwargs)
        self.api_key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY")
        self.base_url = base_url
        self.max_tokens = max_tokens
        self.temperature = temperature
        self._client: AsyncAnthropic | None = None
        self._secrets.append(self.api_key or "")
        self._secrets.extend(url_secrets(base_url or os.environ.get("ANTHROPIC_BASE_URL", "")))

    def answer_settings(self) -> dict[str, str]:
        """The server, when one is set (a proxy, a gateway): it may answer differently under
        the same model name."""
        base_url = self.base_url or os.environ.get("ANTHROPIC_BASE_URL")
        return {"base_url": endpoint(base_url)} if base_url else {}

    def client(self) -> AsyncAnthropic:
        if self._client is None:
            try:
                from anthropic import AsyncAnthropic
            except ImportError:
                raise RequestFailed(NO_SDK) from None
            self._client = AsyncAnthropic(
                api_key=self.api_key,
                base_url=self.base_url,
                timeout=self.timeout,
                max_retries=0,
            )
        return self._client

    async def _complete(self, prompt: RenderedPrompt, question_name: str) -> Reply:
        # A judge made in a fixture of the user's is not checked for its extra as a configured
        # one is: without the SDK, the request fails naming what to install.
        try:
            import anthropic
        except ImportError:
            raise RequestFailed(NO_SDK) from None
        try:
            message = await self._create(prompt, question_name)
        except anthropic.APIStatusError as exc:
            detail = _error_detail(exc.body) or exc.message
            if self._refuses_temperature(exc.status_code, detail):
                return await self._complete(prompt, question_name)
            raise _status_error(exc.status_code, detail, exc.response.headers) from None
        except (anthropic.AnthropicError, ValueError) as exc:
            raise self._failure(exc) from None
        return _read(message)

    async def _create(self, prompt: RenderedPrompt, question_name: str) -> Any:
        """The request, the answer's tool forced."""
        tool: Any = {
            "name": TOOL_NAME,
            "description": f"Record the answer to the {question_name} task.",
            "input_schema": prompt.schema,
        }
        # Sent as an extra body field: this SDK's typed signature has no sampling parameters.
        extra = {"temperature": self.temperature} if self.temperature is not None else None
        return await self.client().messages.create(
            model=self.model,
            max_tokens=self.max_tokens,
            system=prompt.system,
            messages=[{"role": "user", "content": prompt.user}],
            tools=[tool],
            tool_choice={"type": "tool", "name": TOOL_NAME},
            extra_body=extra,
        )

    def _refuses_temperature(self, status: int, detail: str) -> bool:
        """Whether the model takes no sampling parameters; if so, the judge asks it again
        without a temperature, from now on."""
        if status == 400 and self.temperature is not None and "temperature" in detail:
            self.temperature = None
            return True
        return False

    def _failure(self, exc: Exception) -> Exception:
        """What an SDK error other than an HTTP status, or a body it cannot decode, stands
        for."""
        import anthropic

        if isinstance(exc, anthropic.APITimeoutError):
            return TransientError(f"timed out after {self.timeout:g} s", timed_out=True)
        if isinstance(exc, anthropic.APIConnectionError):
            return TransientError(f"connection error: {exc}")
        if isinstance(exc, anthropic.AnthropicError):
            return RequestFailed(f"{type(exc).__name__}: {exc}")
        return RequestFailed(NOT_A_MESSAGE)  # a 200 whose body is not JSON (empty, a proxy's page)

    def _detach(self) -> None:
        self._client = None  # a run's copy makes its own, closed at the run's end

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def _status_error(status: int, detail: str, headers: Mapping[str, str]) -> Exception:
    """The failure an HTTP error status stands for: worth a retry, a key refused, or final."""
    if is_transient_status(status):
        return TransientError(f"HTTP {status}: {detail}", retry_after(headers))
    if status in (401, 403):  # AuthenticationError, PermissionDeniedError
        return AuthenticationFailed(f"HTTP {status}: {detail} (check ANTHROPIC_API_KEY)")
    return RequestFailed(f"HTTP {status}: {detail}")


def _read(message: Any) -> Reply:
    try:
        return _reply(message)
    except (AttributeError, TypeError, ValueError, KeyError):
        # The SDK does not validate a 200's body: HTML comes back as a string, another
        # JSON shape as a message without its fields.
        raise RequestFailed(NOT_A_MESSAGE) from None


def _reply(message: Any) -> Reply:
    text, data = _contents(message.content)
    usage = message.usage
    return Reply(
        text=text,
        data=data,
        refusal=_refusal(message.stop_reason, text),
        input_tokens=int(usage.input_tokens or 0),
        output_tokens=int(usage.output_tokens or 0),
    )


def _contents(blocks: Any) -> tuple[str, dict[str, Any] | None]:
    """The reply's text, and the first tool call's arguments."""
    texts: list[str] = []
    data: dict[str, Any] | None = None
    for block in blocks:
        if block.type == "tool_use" and data is None:
            data = dict(block.input)
        elif block.type == "text":
            texts.append(str(block.text))
    return "\n".join(texts), data


def _refusal(stop_reason: object, text: str) -> str | None:
    if stop_reason != "refusal":
        return None
    return text or "the model stopped with stop_reason 'refusal'"


def _error_detail(body: object) -> str:
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            kind = error.get("type")
            return f"{error['message']} ({kind})" if isinstance(kind, str) else error["message"]
    return ""
