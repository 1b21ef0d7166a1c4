"""AnthropicJudge without the SDK or a server: the request it builds, how it reads a Messages
reply, what each SDK error becomes (retry, stop, or a failure and its wording), its secrets,
and the error of a missing extra.

Importing the real ``anthropic`` SDK takes seconds, so a stand-in module takes its place
here, with the SDK's exception hierarchy (``APITimeoutError`` is an ``APIConnectionError``;
both, and ``APIStatusError``, are ``APIError``s). The real SDK against a loopback server is
tests/integration/judges/test_anthropic.py."""

from __future__ import annotations

import asyncio
import sys
from types import ModuleType, SimpleNamespace
from typing import Any, ClassVar

import pytest

from rag_eval_pytest.judges.anthropic import (
    DEFAULT_MODEL,
    NOT_A_MESSAGE,
    TOOL_NAME,
    AnthropicJudge,
    _error_detail,
    _reply,
)
from rag_eval_pytest.judges.llm import AuthenticationFailed, Reply, RequestFailed, TransientError
from rag_eval_pytest.judges.questions import StatementsInput, StatementSupport
from tests.unit.judges.fakes import PROMPT

KEY = "sk-ant-test-0123456789abcdef"


class AnthropicError(Exception):
    pass


class APIError(AnthropicError):
    def __init__(self, message: str, body: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.body = body


class APIConnectionError(APIError):
    pass


class APITimeoutError(APIConnectionError):
    pass


class APIStatusError(APIError):
    def __init__(self, status: int, body: object, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"Error code: {status}", body)
        self.status_code = status
        self.response = SimpleNamespace(headers=headers or {})


def error_body(message: str, kind: str | None = None) -> dict[str, Any]:
    return {"type": "error", "error": {"message": message, **({"type": kind} if kind else {})}}


def message(*blocks: Any, stop: str = "tool_use", usage: Any = None) -> SimpleNamespace:
    return SimpleNamespace(
        content=list(blocks),
        stop_reason=stop,
        usage=usage or SimpleNamespace(input_tokens=120, output_tokens=30),
    )


def tool(data: dict[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(type="tool_use", input=data)


def text(words: str) -> SimpleNamespace:
    return SimpleNamespace(type="text", text=words)


class Client:
    """``AsyncAnthropic``: plays its replies (an exception is raised) and records requests."""

    made: ClassVar[list[Client]] = []

    def __init__(self, **settings: Any) -> None:
        self.settings = settings
        self.requests: list[dict[str, Any]] = []
        self.replies: list[Any] = []
        self.closed = False
        self.messages = SimpleNamespace(create=self.create)
        Client.made.append(self)

    async def create(self, **request: Any) -> Any:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    async def close(self) -> None:
        self.closed = True


@pytest.fixture(autouse=True)
def sdk(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    module = ModuleType("anthropic")
    for name, value in {
        "AnthropicError": AnthropicError,
        "APIError": APIError,
        "APIConnectionError": APIConnectionError,
        "APITimeoutError": APITimeoutError,
        "APIStatusError": APIStatusError,
        "AsyncAnthropic": Client,
    }.items():
        setattr(module, name, value)
    monkeypatch.setitem(sys.modules, "anthropic", module)
    monkeypatch.setattr(Client, "made", [])
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    return module


def judge(*replies: Any, **settings: Any) -> AnthropicJudge:
    made = AnthropicJudge(api_key=KEY, **settings)
    client = made.client()
    client.replies.extend(replies)
    return made


def complete(made: AnthropicJudge) -> Reply:
    return asyncio.run(made._complete(PROMPT, "statement_support"))


def sent(made: AnthropicJudge) -> list[dict[str, Any]]:
    return made.client().requests


# ----------------------------------------------------------------- the request


def test_the_request_forces_the_answer_tool_at_temperature_0() -> None:
    made = judge(message(tool({"statements": []})), max_tokens=1000)
    complete(made)
    (request,) = sent(made)
    assert request == {
        "model": DEFAULT_MODEL,
        "max_tokens": 1000,
        "system": "You are a judge.",
        "messages": [{"role": "user", "content": "<data>the answer</data>"}],
        "tools": [
            {
                "name": TOOL_NAME,
                "description": "Record the answer to the statement_support task.",
                "input_schema": {"type": "object", "required": ["statements"]},
            }
        ],
        "tool_choice": {"type": "tool", "name": TOOL_NAME},
        "extra_body": {"temperature": 0.0},
    }


def test_a_judge_without_a_temperature_sends_none() -> None:
    made = judge(message(tool({})), temperature=None)
    complete(made)
    assert sent(made)[0]["extra_body"] is None


def test_the_client_is_made_once_without_the_sdks_own_retries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    made = AnthropicJudge(base_url="https://proxy.example/anthropic", timeout=12.5)
    assert made.client() is made.client()
    assert [c.settings for c in Client.made] == [
        {
            "api_key": KEY,
            "base_url": "https://proxy.example/anthropic",
            "timeout": 12.5,
            "max_retries": 0,
        }
    ]


def test_closing_closes_the_client_and_a_later_request_makes_a_new_one() -> None:
    made = judge()
    first = made.client()
    asyncio.run(made.aclose())
    assert first.closed
    assert made.client() is not first
    asyncio.run(AnthropicJudge(api_key=KEY).aclose())  # never used: nothing to close


def test_without_the_sdk_a_request_fails_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(RequestFailed) as failed:
        complete(AnthropicJudge(api_key=KEY))
    assert str(failed.value) == (
        "the anthropic judge needs the anthropic SDK: pip install 'rag-eval-pytest[anthropic]'"
    )


def test_without_the_sdk_a_question_is_not_judged_and_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)
    inputs = StatementsInput(question="q?", answer="a.", contexts=["c."])
    outcome = asyncio.run(AnthropicJudge(api_key=KEY).ask(StatementSupport(), inputs))
    assert not outcome.judged
    assert outcome.reason == (
        "the judge request failed: the anthropic judge needs the anthropic SDK: "
        "pip install 'rag-eval-pytest[anthropic]'"
    )


# ----------------------------------------------------------------- the reply


def test_the_answer_is_the_first_tool_calls_arguments_beside_the_text() -> None:
    reply = _reply(
        message(text("Checking."), tool({"verdict": 1}), tool({"verdict": 0}), text("Done."))
    )
    assert reply == Reply(
        text="Checking.\nDone.", data={"verdict": 1}, input_tokens=120, output_tokens=30
    )


def test_a_refusal_is_read_as_one_with_its_words_or_the_stop_reason() -> None:
    assert _reply(message(text("I can't help."), stop="refusal")).refusal == "I can't help."
    assert _reply(message(stop="refusal")).refusal == (
        "the model stopped with stop_reason 'refusal'"
    )
    assert _reply(message(text("fine"), stop="end_turn")).refusal is None


def test_missing_token_counts_are_zero() -> None:
    usage = SimpleNamespace(input_tokens=None, output_tokens=None)
    reply = _reply(message(tool({}), usage=usage))
    assert (reply.input_tokens, reply.output_tokens) == (0, 0)


@pytest.mark.parametrize(
    "body",
    [
        "<html>Sign in to the proxy</html>",  # the SDK hands back a non-JSON body as text
        SimpleNamespace(content=None, stop_reason=None, usage=None),
        message(SimpleNamespace(kind="no type")),
    ],
)
def test_a_reply_that_is_not_a_message_fails_saying_so(body: Any) -> None:
    with pytest.raises(RequestFailed, match="not a Messages API response"):
        complete(judge(body))


def test_a_body_the_sdk_cannot_decode_fails_saying_so() -> None:
    with pytest.raises(RequestFailed) as failed:
        complete(judge(ValueError("Expecting value: line 1 column 1")))
    assert str(failed.value) == NOT_A_MESSAGE


# ----------------------------------------------------------------- errors


def test_a_timeout_is_retried_as_one() -> None:
    with pytest.raises(TransientError) as failed:
        complete(judge(APITimeoutError("Request timed out."), timeout=7))
    assert str(failed.value) == "timed out after 7 s" and failed.value.timed_out


def test_a_connection_error_is_retried() -> None:
    with pytest.raises(TransientError) as failed:
        complete(judge(APIConnectionError("Connection refused")))
    assert str(failed.value) == "connection error: Connection refused"
    assert not failed.value.timed_out


@pytest.mark.parametrize(
    ("status", "body", "headers", "raised", "words", "retry_after"),
    [
        (
            429,
            error_body("rate limited", "rate_limit_error"),
            {"retry-after": "3"},
            TransientError,
            "HTTP 429: rate limited (rate_limit_error)",
            3.0,
        ),
        (529, error_body("Overloaded"), {}, TransientError, "HTTP 529: Overloaded", None),
        (
            401,
            error_body("invalid x-api-key", "authentication_error"),
            {},
            AuthenticationFailed,
            "HTTP 401: invalid x-api-key (authentication_error) (check ANTHROPIC_API_KEY)",
            None,
        ),
        (
            403,
            None,
            {},
            AuthenticationFailed,
            "HTTP 403: Error code: 403 (check ANTHROPIC_API_KEY)",
            None,
        ),
        (
            404,
            error_body("model: claude-x", "not_found_error"),
            {},
            RequestFailed,
            "HTTP 404: model: claude-x (not_found_error)",
            None,
        ),
    ],
)
def test_what_an_http_error_becomes(
    status: int,
    body: object,
    headers: dict[str, str],
    raised: type[Exception],
    words: str,
    retry_after: float | None,
) -> None:
    with pytest.raises(raised) as failed:
        complete(judge(APIStatusError(status, body, headers)))
    assert type(failed.value) is raised
    assert str(failed.value) == words
    if raised is TransientError:
        assert failed.value.retry_after == retry_after


def test_a_model_that_refuses_a_temperature_is_asked_again_without_one_from_then_on() -> None:
    refused = APIStatusError(
        400, error_body("temperature is not supported for this model", "invalid_request_error")
    )
    made = judge(refused, message(tool({"ok": True})), message(tool({"ok": True})))
    assert complete(made).data == {"ok": True}
    complete(made)
    assert [r["extra_body"] for r in sent(made)] == [{"temperature": 0.0}, None, None]
    assert made.temperature is None


def test_a_400_naming_temperature_without_one_sent_is_a_failure() -> None:
    refused = APIStatusError(400, error_body("temperature: bad"))
    with pytest.raises(RequestFailed, match=r"^HTTP 400: temperature: bad$"):
        complete(judge(refused, temperature=None))


def test_any_other_sdk_error_is_a_failure_named_by_its_class() -> None:
    with pytest.raises(RequestFailed) as failed:
        complete(judge(AnthropicError("could not resolve authentication method")))
    assert str(failed.value) == "AnthropicError: could not resolve authentication method"


def test_the_error_detail_is_the_bodys_message_and_type() -> None:
    assert _error_detail(error_body("bad", "invalid_request_error")) == (
        "bad (invalid_request_error)"
    )
    assert _error_detail(error_body("bad")) == "bad"
    assert _error_detail({"error": "plain text"}) == ""
    assert _error_detail("<html>") == ""


# ----------------------------------------------------------------- identity and secrets


def test_the_server_is_part_of_the_answers_settings_without_its_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert AnthropicJudge(api_key=KEY).answer_settings() == {}
    given = AnthropicJudge(api_key=KEY, base_url="https://user:pa55word-x@gw.example:8443/v1/?k=1")
    assert given.answer_settings() == {"base_url": "https://gw.example:8443/v1"}
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://env.example/anthropic/")
    assert AnthropicJudge(api_key=KEY).answer_settings() == {
        "base_url": "https://env.example/anthropic"
    }


def test_the_key_and_the_urls_credentials_are_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://gw.example/v1?api_key=gw-key-0123456789")
    secrets = AnthropicJudge().secrets()
    assert KEY in secrets and "gw-key-0123456789" in secrets
    assert AnthropicJudge(api_key="").secrets() == ["gw-key-0123456789"]
