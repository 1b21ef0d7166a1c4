"""The OpenAI-compatible judge: ``POST {base_url}/chat/completions`` over httpx.

Works with OpenAI and with the servers that speak its protocol (vLLM, Ollama, LiteLLM, ...).
The request asks for a JSON-schema ``response_format``; a server that rejects it (HTTP 400
naming ``response_format``) is asked again once without, and from then on the judge relies
on the JSON-in-text instructions that every prompt carries anyway. Base URL and key come from
the arguments (config ``judge.base_url`` / ``judge.api_key``), else ``OPENAI_BASE_URL`` /
``OPENAI_API_KEY``. httpx is imported with the first request.
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

    import httpx

    from .prompt import Mode, RenderedPrompt

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIJudge(LLMJudge):
    kind: ClassVar[str] = "openai"
    mode: ClassVar[Mode] = "json"
    """The schema travels in the prompt too, for servers without response formats."""

    def __init__(
        self,
        *,
        model: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        response_format: bool = True,
        max_tokens: int | None = 4096,
        **kwargs: Any,
    ) -> None:
        super().__init__(model=model or DEFAULT_MODEL, **kwargs)
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip(
            "/"
        )
        self.response_format = response_format
        self.max_tokens = max_tokens
        self._client: httpx.AsyncClient | None = None
        self._secrets.append(self.api_key or "")
        self._secrets.extend(url_secrets(self.base_url))

    def answer_settings(self) -> dict[str, str]:
        """The server, when not OpenAI's: another server may answer differently under the same
        model name."""
        if self.base_url == DEFAULT_BASE_URL:
            return {}
        return {"base_url": endpoint(self.base_url)}

    def describe(self) -> str:
        if self.base_url == DEFAULT_BASE_URL:
            return f"openai ({self.model})"
        from urllib.parse import urlsplit

        host = urlsplit(self.base_url).hostname or "?"
        return f"openai ({self.model} at {host})"

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            headers = {"content-type": "application/json"}
            if self.api_key:
                headers["authorization"] = f"Bearer {self.api_key}"
            self._client = httpx.AsyncClient(headers=headers, timeout=self.timeout)
        return self._client

    def _body(self, prompt: RenderedPrompt, question_name: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ],
        }
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.response_format:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": question_name, "schema": prompt.schema, "strict": False},
            }
        return body

    async def _complete(self, prompt: RenderedPrompt, question_name: str) -> Reply:
        response = await self._post(prompt, question_name)
        status = response.status_code
        if status < 400:
            return _completion_reply(response)
        detail = _error_detail(response)
        if self._refuses_response_format(status, detail):
            return await self._complete(prompt, question_name)
        raise _status_error(status, detail, response.headers)

    async def _post(self, prompt: RenderedPrompt, question_name: str) -> httpx.Response:
        """The request, with a timeout or a lost connection as a transient failure."""
        import httpx

        url = f"{self.base_url}/chat/completions"
        try:
            return await self.client().post(url, json=self._body(prompt, question_name))
        except httpx.TimeoutException:
            raise TransientError(f"timed out after {self.timeout:g} s", timed_out=True) from None
        except httpx.TransportError as exc:
            raise TransientError(f"connection error: {type(exc).__name__}") from None

    def _refuses_response_format(self, status: int, detail: str) -> bool:
        """Whether the server rejected the response format; if so, the judge asks it for JSON
        in text only from now on."""
        if status == 400 and self.response_format and "response_format" in detail:
            self.response_format = False
            return True
        return False

    def _detach(self) -> None:
        self._client = None  # a run's copy makes its own, closed at the run's end

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _error_detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])[:300]
    if isinstance(error, str):
        return error[:300]
    return str(body)[:200]


def _status_error(status: int, detail: str, headers: Mapping[str, str]) -> Exception:
    """The failure an HTTP error status stands for: worth a retry, a key refused, or final."""
    if is_transient_status(status):
        return TransientError(f"HTTP {status}: {detail}", retry_after(headers))
    if status in (401, 403):
        return AuthenticationFailed(f"HTTP {status}: {detail} (check the judge's API key)")
    return RequestFailed(f"HTTP {status}: {detail}")


def _completion_reply(response: httpx.Response) -> Reply:
    try:
        data = response.json()
        choice = data["choices"][0]
        message = choice["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise RequestFailed("the server's reply is not a chat completion") from None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not isinstance(content, str | None):
        raise RequestFailed("the server's reply is not a chat completion")
    usage = data.get("usage")
    return Reply(
        text=content or "",
        refusal=_refusal(choice, message),
        input_tokens=_token_count(usage, "prompt_tokens"),
        output_tokens=_token_count(usage, "completion_tokens"),
    )


def _token_count(usage: object, key: str) -> int:
    """A count of the reply's ``usage``; 0 where the server gives none a number can say."""
    count = usage.get(key) if isinstance(usage, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else 0


def _refusal(choice: dict[str, Any], message: dict[str, Any]) -> str | None:
    """The model's refusal, or the server's content filter stopping the reply."""
    refusal = message.get("refusal") or None
    if refusal is not None:
        return str(refusal)
    if choice.get("finish_reason") == "content_filter":
        return "the reply was stopped by the server's content filter"
    return None
