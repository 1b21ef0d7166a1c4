"""OpenAIJudge without a server: the body it posts, its headers, how a chat completion is
read (a refusal, the content filter, a reply that is none), what a failure becomes and its
wording, and its identity and secrets. Requests go to httpx's in-process MockTransport; the
judge against a loopback server is tests/integration/judges/test_openai.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from rag_eval_pytest.judges.llm import AuthenticationFailed, Reply, RequestFailed, TransientError
from rag_eval_pytest.judges.openai import DEFAULT_BASE_URL, OpenAIJudge, _error_detail
from tests.unit.judges.fakes import PROMPT

KEY = "sk-openai-test-abcdef0123456789"
Answer = Callable[[httpx.Request], httpx.Response]


def completion(content: str | None = '{"ok": true}', **choice: Any) -> dict[str, Any]:
    return {
        "choices": [{"message": {"content": content}, **choice}],
        "usage": {"prompt_tokens": 90, "completion_tokens": 12},
    }


def answering(*replies: Any) -> tuple[list[httpx.Request], Answer]:
    """A server that answers with ``replies`` in turn (a dict as JSON, an exception raised),
    and the requests it got."""
    got: list[httpx.Request] = []
    left = list(replies)

    def answer(request: httpx.Request) -> httpx.Response:
        got.append(request)
        reply = left.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply if isinstance(reply, httpx.Response) else httpx.Response(200, json=reply)

    return got, answer


def complete(made: OpenAIJudge, answer: Answer) -> Reply:
    async def run() -> Reply:
        made._client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
        try:
            return await made._complete(PROMPT, "statement_support")
        finally:
            await made.aclose()

    return asyncio.run(run())


@pytest.fixture(autouse=True)
def _no_server_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def judge(**settings: Any) -> OpenAIJudge:
    return OpenAIJudge(api_key=KEY, **settings)


# ----------------------------------------------------------------- the request


def test_the_body_asks_for_the_schema_at_temperature_0() -> None:
    assert judge(model="gpt-4o")._body(PROMPT, "statement_support") == {
        "model": "gpt-4o",
        "temperature": 0,
        "messages": [
            {"role": "system", "content": "You are a judge."},
            {"role": "user", "content": "<data>the answer</data>"},
        ],
        "max_tokens": 4096,
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "statement_support",
                "schema": {"type": "object", "required": ["statements"]},
                "strict": False,
            },
        },
    }


def test_a_server_without_response_formats_or_a_token_limit_gets_neither() -> None:
    body = judge(response_format=False, max_tokens=None)._body(PROMPT, "q")
    assert "response_format" not in body and "max_tokens" not in body


def test_the_request_goes_to_chat_completions_of_the_base_url() -> None:
    got, answer = answering(completion())
    complete(judge(base_url="http://127.0.0.1:9/v1/"), answer)
    (request,) = got
    assert str(request.url) == "http://127.0.0.1:9/v1/chat/completions"
    assert json.loads(request.content)["messages"][1]["content"] == "<data>the answer</data>"


def test_the_client_sends_the_key_as_a_bearer_token_and_waits_the_timeout() -> None:
    async def headers(made: OpenAIJudge) -> httpx.AsyncClient:
        client = made.client()
        assert made.client() is client
        await made.aclose()
        return client

    keyed = asyncio.run(headers(judge(timeout=12.5)))
    assert keyed.headers["authorization"] == f"Bearer {KEY}"
    assert keyed.headers["content-type"] == "application/json"
    assert keyed.timeout.read == 12.5
    assert "authorization" not in asyncio.run(headers(OpenAIJudge(api_key=""))).headers


# ----------------------------------------------------------------- the reply


def test_a_completion_gives_its_content_and_token_counts() -> None:
    _, answer = answering(completion('{"verdict": 1}'))
    assert complete(judge(), answer) == Reply(
        text='{"verdict": 1}', input_tokens=90, output_tokens=12
    )


def test_a_reply_without_content_or_usage_is_empty() -> None:
    _, answer = answering({"choices": [{"message": {"content": None}}]})
    assert complete(judge(), answer) == Reply()


def test_the_servers_refusal_is_read_as_one() -> None:
    refused = completion(None)
    refused["choices"][0]["message"]["refusal"] = "I can't evaluate this."
    _, answer = answering(refused)
    assert complete(judge(), answer).refusal == "I can't evaluate this."


def test_the_content_filter_is_a_refusal_with_its_own_words() -> None:
    _, answer = answering(completion("", finish_reason="content_filter"))
    assert complete(judge(), answer).refusal == (
        "the reply was stopped by the server's content filter"
    )


@pytest.mark.parametrize(
    "body",
    [
        httpx.Response(200, text="<html>proxy login</html>"),
        {"choices": []},
        {"id": "x"},
        {"choices": [{"text": "a completions reply"}]},
        [1, 2],
        {"choices": [{"message": "a message that is no object"}]},
        {"choices": [{"message": {"role": "assistant", "content": ["a", "list"]}}]},
    ],
)
def test_a_reply_that_is_not_a_chat_completion_fails_saying_so(body: Any) -> None:
    _, answer = answering(body)
    with pytest.raises(RequestFailed, match=r"^the server's reply is not a chat completion$"):
        complete(judge(), answer)


def test_usage_the_server_cannot_count_is_read_as_no_tokens() -> None:
    body = completion('{"verdict": "yes"}')
    body["usage"] = {"prompt_tokens": "many", "completion_tokens": -3}
    _, answer = answering(body)
    reply = complete(judge(), answer)
    assert (reply.text, reply.input_tokens, reply.output_tokens) == ('{"verdict": "yes"}', 0, 0)
    body["usage"] = "lots"
    _, answer = answering(body)
    assert complete(judge(), answer).input_tokens == 0


# ----------------------------------------------------------------- failures


def test_a_timeout_is_retried_as_one_and_a_lost_connection_is_retried() -> None:
    _, answer = answering(httpx.ReadTimeout("timed out"))
    with pytest.raises(TransientError) as timed_out:
        complete(judge(timeout=5), answer)
    assert (str(timed_out.value), timed_out.value.timed_out) == ("timed out after 5 s", True)
    _, answer = answering(httpx.ConnectError("connection refused"))
    with pytest.raises(TransientError) as lost:
        complete(judge(), answer)
    assert (str(lost.value), lost.value.timed_out) == ("connection error: ConnectError", False)


@pytest.mark.parametrize(
    ("response", "raised", "words"),
    [
        (
            httpx.Response(
                429, json={"error": {"message": "slow down"}}, headers={"retry-after": "4"}
            ),
            TransientError,
            "HTTP 429: slow down",
        ),
        (httpx.Response(503, text="upstream down"), TransientError, "HTTP 503: upstream down"),
        (
            httpx.Response(401, json={"error": {"message": "Incorrect API key"}}),
            AuthenticationFailed,
            "HTTP 401: Incorrect API key (check the judge's API key)",
        ),
        (
            httpx.Response(404, json={"error": "model 'llama9' not found"}),
            RequestFailed,
            "HTTP 404: model 'llama9' not found",
        ),
        (
            httpx.Response(400, json={"detail": "bad request"}),
            RequestFailed,
            "HTTP 400: {'detail': 'bad request'}",
        ),
    ],
)
def test_what_an_http_error_becomes(
    response: httpx.Response, raised: type[Exception], words: str
) -> None:
    _, answer = answering(response)
    with pytest.raises(raised) as failed:
        complete(judge(), answer)
    assert type(failed.value) is raised and str(failed.value) == words
    if response.status_code == 429:
        assert failed.value.retry_after == 4.0


def test_a_400_naming_response_format_after_it_was_dropped_is_a_failure() -> None:
    got, answer = answering(httpx.Response(400, json={"error": {"message": "response_format"}}))
    with pytest.raises(RequestFailed, match=r"^HTTP 400: response_format$"):
        complete(judge(response_format=False), answer)
    assert len(got) == 1  # not asked again


def test_the_error_detail_is_cut_short() -> None:
    long_message = httpx.Response(500, json={"error": {"message": "m" * 400}})
    assert _error_detail(long_message) == "m" * 300
    assert _error_detail(httpx.Response(500, text="x" * 400)) == "x" * 200
    assert _error_detail(httpx.Response(500, json={"error": "e" * 400})) == "e" * 300


# ----------------------------------------------------------------- identity and secrets


def test_openais_own_server_is_the_default_and_another_is_named() -> None:
    default = judge()
    assert default.base_url == DEFAULT_BASE_URL
    assert (default.describe(), default.answer_settings()) == ("openai (gpt-4o-mini)", {})
    local = judge(model="llama3", base_url="http://user:pa55word-x@ollama.lan:11434/v1/?x=1")
    assert local.describe() == "openai (llama3 at ollama.lan)"
    assert local.answer_settings() == {"base_url": "http://ollama.lan:11434/v1"}


def test_base_url_and_key_come_from_the_environment_unless_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://vllm.lan:8000/v1")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    from_env = OpenAIJudge()
    assert (from_env.base_url, from_env.api_key) == ("http://vllm.lan:8000/v1", KEY)
    given = OpenAIJudge(api_key="sk-other-0123456789", base_url="http://other.lan/v1")
    assert (given.base_url, given.api_key) == ("http://other.lan/v1", "sk-other-0123456789")


def test_the_key_and_the_urls_credentials_are_secrets() -> None:
    made = judge(base_url="https://proxy.lan/v1?api_key=proxy-key-0123456789")
    assert KEY in made.secrets() and "proxy-key-0123456789" in made.secrets()
    assert OpenAIJudge(api_key="", base_url="http://localhost:8000/v1").secrets() == []
