"""HttpAdapter against a real local server: shapes, retries, backoff, faults, secrets."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

import pytest

from rag_eval_pytest.adapters.http import HttpAdapter
from rag_eval_pytest.data.response import Context, RAGResponse
from rag_eval_pytest.errors import AdapterError
from rag_eval_pytest.runtime.retry import RetryPolicy

from .conftest import SleepRecorder
from .server import Fault, FaultServer, Request, closed_port_url, ok

Make = Callable[..., HttpAdapter]


def ask(adapter: HttpAdapter, *questions: str) -> list[RAGResponse]:
    """Query on one event loop with the adapter's shared client, then close it."""

    async def go() -> list[RAGResponse]:
        try:
            return [await adapter.aquery(q) for q in questions or ("q?",)]
        finally:
            await adapter.aclose()

    return asyncio.run(go())


def ask_error(adapter: HttpAdapter, question: str = "q?") -> str:
    with pytest.raises(AdapterError) as info:
        ask(adapter, question)
    return str(info.value)


# --------------------------------------------------------------------------- success


def test_nested_paths_give_answer_contexts_and_sources(server: FaultServer, make: Make) -> None:
    (response,) = ask(make(), "What is the refund policy?")
    assert response.answer == "answer to What is the refund policy?"
    assert response.contexts == [
        Context(text="Full refund within 30 days.", source="policy.md"),
        Context(text="Ships worldwide.", source="shipping.md"),
    ]
    assert response.sources == ["policy.md", "shipping.md"]
    assert server.requests[0].json() == {"question": "What is the refund policy?"}
    assert server.requests[0].method == "POST"


def test_template_places_the_question_and_keeps_other_fields(
    server: FaultServer, make: Make
) -> None:
    template = {"query": {"text": "{question}", "prefix": "Q: {question}"}, "top_k": 3}
    ask(make(body=template), 'say "hi" {ok}')
    assert server.requests[0].json() == {
        "query": {"text": 'say "hi" {ok}', "prefix": 'Q: say "hi" {ok}'},
        "top_k": 3,
    }


def test_form_body_and_get_parameters(server: FaultServer, make: Make) -> None:
    ask(make(body_format="form", body={"question": "{question}", "k": 2}), "a b")
    assert server.requests[0].headers["content-type"] == "application/x-www-form-urlencoded"
    assert server.requests[0].body == b"question=a+b&k=2"
    (response,) = ask(make(method="GET"), "c d")
    assert server.requests[1].method == "GET"
    assert server.requests[1].query == {"question": ["c d"]}
    assert response.answer == "answer to c d"


def test_one_client_reuses_its_connection_across_questions(server: FaultServer, make: Make) -> None:
    responses = ask(make(), "one", "two", "three")
    assert [r.answer for r in responses] == ["answer to one", "answer to two", "answer to three"]
    assert len({r.client_port for r in server.requests}) == 1


def test_latency_is_measured_with_the_clock(server: FaultServer, make: Make) -> None:
    ticks = itertools.count(start=10.0, step=0.75)
    (response,) = ask(make(clock=lambda: next(ticks)))
    assert response.latency == 0.75


def test_slow_answer_within_the_timeout_succeeds_with_its_latency(
    server: FaultServer, make: Make, sleeps: SleepRecorder
) -> None:
    server.then(Fault(body=answer_for_slow, delay=0.3))
    (response,) = ask(make(timeout=5))
    assert response.answer == "slow"
    assert response.latency is not None and response.latency >= 0.3
    assert server.attempts == 1
    assert sleeps.waits == []


def answer_for_slow(request: Request) -> dict[str, Any]:
    return {"data": {"answer": "slow", "documents": []}}


def test_contexts_none_means_not_returned_and_plain_string_lists_work(
    server: FaultServer, make: Make
) -> None:
    server.then(ok({"answer": "a", "contexts": ["c1", "c2"]}), ok({"answer": "b"}))
    first, second = ask(make(answer="answer", contexts="contexts", sources=None), "q1") + ask(
        make(answer="answer", contexts=None, sources=None), "q2"
    )
    assert first.contexts == [Context(text="c1"), Context(text="c2")]
    assert second.contexts is None


def test_sync_query_works_outside_an_event_loop(server: FaultServer, make: Make) -> None:
    response = make().query("sync?")
    assert response.answer == "answer to sync?"


# --------------------------------------------------------------------------- retries


def test_429_honours_retry_after(server: FaultServer, make: Make, sleeps: SleepRecorder) -> None:
    server.then(Fault(429, b"slow down", headers={"Retry-After": "7"}))
    (response,) = ask(make(), "q?")
    assert response.answer == "answer to q?"
    assert server.attempts == 2
    assert sleeps.waits == [7.0]


def test_500s_back_off_exponentially_then_succeed(
    server: FaultServer, make: Make, sleeps: SleepRecorder
) -> None:
    server.then(Fault(500, b"boom"), Fault(503, b"busy"))
    (response,) = ask(make(), "q?")
    assert response.answer == "answer to q?"
    assert server.attempts == 3
    assert sleeps.waits == [1.0, 2.0]


def test_exhausted_retries_raise_with_the_history(
    server: FaultServer, make: Make, sleeps: SleepRecorder
) -> None:
    server.default = Fault(502, b"bad gateway")
    message = ask_error(make())
    assert server.attempts == 4
    assert sleeps.waits == [1.0, 2.0, 4.0]
    assert "unreachable after 4 attempts" in message
    assert message.count("HTTP 502") == 4


def test_jitter_adds_up_to_its_fraction(
    server: FaultServer, make: Make, sleeps: SleepRecorder
) -> None:
    server.default = Fault(500)
    ask_error(make(rand=lambda: 1.0))
    assert sleeps.waits == [1.1, 2.2, 4.4]


def test_retry_policy_from_arguments(
    server: FaultServer, make: Make, sleeps: SleepRecorder
) -> None:
    server.default = Fault(500)
    ask_error(make(retry=RetryPolicy(max_attempts=3, backoff="fixed", base_delay=0.5)))
    assert server.attempts == 3
    assert sleeps.waits == [0.5, 0.5]


@pytest.mark.parametrize("status", [408, 409, 429, 500, 529])
def test_the_transient_statuses_of_the_judges_are_retried(
    server: FaultServer, make: Make, sleeps: SleepRecorder, status: int
) -> None:
    server.then(Fault(status, b"try again"))
    (response,) = ask(make(), "q?")
    assert response.answer == "answer to q?"
    assert server.attempts == 2


def test_retry_after_ms_is_honoured(server: FaultServer, make: Make, sleeps: SleepRecorder) -> None:
    server.then(Fault(429, headers={"Retry-After-Ms": "250"}))
    ask(make())
    assert sleeps.waits == [0.25]


def test_retry_after_is_capped_by_max_delay(
    server: FaultServer, make: Make, sleeps: SleepRecorder
) -> None:
    server.then(Fault(429, headers={"Retry-After": "3600"}))
    ask(make(retry=RetryPolicy(max_delay=30)))
    assert sleeps.waits == [30.0]


def test_timeout_is_retried(server: FaultServer, make: Make, sleeps: SleepRecorder) -> None:
    server.then(Fault(body=answer_for_slow, delay=3.0))
    # The retry must answer within the timeout even on a busy machine: 1 s, not 0.2 s.
    (response,) = ask(make(timeout=1.0), "q?")
    assert response.answer == "answer to q?"
    assert server.attempts == 2
    assert sleeps.waits == [1.0]


def test_every_attempt_timing_out_is_an_error(
    server: FaultServer, make: Make, sleeps: SleepRecorder
) -> None:
    server.default = Fault(body=answer_for_slow, delay=3.0)
    message = ask_error(make(timeout=0.1, retry=RetryPolicy(max_attempts=2)))
    assert server.attempts == 2
    assert sleeps.waits == [1.0]
    assert "unreachable after 2 attempts: timeout after 0.1 s; timeout after 0.1 s" in message


def test_connection_reset_is_retried(
    server: FaultServer, make: Make, sleeps: SleepRecorder
) -> None:
    server.then(Fault(reset=True))
    (response,) = ask(make(), "q?")
    assert response.answer == "answer to q?"
    assert server.attempts == 2
    assert sleeps.waits == [1.0]


def test_connection_refused_exhausts_the_retries(make: Make, sleeps: SleepRecorder) -> None:
    message = ask_error(make(endpoint=closed_port_url()))
    assert sleeps.waits == [1.0, 2.0, 4.0]
    assert message.count("connection failed") == 4


def test_client_errors_are_not_retried(
    server: FaultServer, make: Make, sleeps: SleepRecorder
) -> None:
    server.then(Fault(404, b"no such route"))
    message = ask_error(make())
    assert server.attempts == 1
    assert sleeps.waits == []
    assert "HTTP 404 (not retried): body 'no such route'" in message


# --------------------------------------------------------------------------- bad responses


def test_non_json_is_an_error_with_an_excerpt(
    server: FaultServer, make: Make, sleeps: SleepRecorder
) -> None:
    server.then(Fault(200, b"<html><body>Gateway login</body></html>", content_type="text/html"))
    message = ask_error(make())
    assert "response is not JSON (text/html): body '<html><body>Gateway login" in message
    assert server.attempts == 1
    assert sleeps.waits == []


def test_missing_path_is_named_with_the_keys_found(server: FaultServer, make: Make) -> None:
    server.then(ok({"data": {"text": "hi", "documents": []}}))
    message = ask_error(make())
    assert "response has no 'data.answer' (data.answer: missing (keys there: documents, text))" in (
        message
    )
    assert '{"data": {"text": "hi"' in message
    assert server.attempts == 1


def test_missing_field_inside_a_list_names_the_item(server: FaultServer, make: Make) -> None:
    server.then(ok({"data": {"answer": "a", "documents": [{"text": "t"}, {"body": "x"}]}}))
    message = ask_error(make(sources=None))
    assert "'data.documents[*].text' (data.documents[1].text: missing (keys there: body))" in (
        message
    )


def test_wrong_types_are_errors(server: FaultServer, make: Make) -> None:
    server.then(
        ok({"data": {"answer": ["a"], "documents": []}}),
        ok({"data": {"answer": "a", "documents": {"text": "t"}}}),
    )
    assert "'data.answer' is not a string" in ask_error(make())
    assert "data.documents: expected a list, found an object" in ask_error(make())


def test_huge_body_is_refused_without_reading_it_all(
    server: FaultServer, make: Make, sleeps: SleepRecorder
) -> None:
    server.then(Fault(200, b"x" * 3_000_000))
    message = ask_error(make(max_response_bytes=1_000_000))
    assert "exceeds the limit of 1000000 bytes" in message
    assert server.attempts == 1
    assert sleeps.waits == []


def test_large_non_json_body_gives_a_short_excerpt(server: FaultServer, make: Make) -> None:
    server.then(Fault(200, b"<p>" + b"lorem ipsum " * 50_000, content_type="text/html"))
    message = ask_error(make())
    assert "(600003 bytes)" in message
    assert len(message) < 400


# --------------------------------------------------------------------------- headers and secrets


def test_headers_reach_the_server(server: FaultServer, make: Make) -> None:
    adapter = make(
        headers={"Authorization": "Bearer cfg-token-1"},
        header_args=["X-Trace: t-123"],
        env={"RAG_AUTH_HEADER": "X-Api-Key: env-key-9"},
    )
    ask(adapter)
    sent = server.requests[0].headers
    assert sent["authorization"] == "Bearer cfg-token-1"
    assert sent["x-trace"] == "t-123"
    assert sent["x-api-key"] == "env-key-9"


def test_secrets_and_describe(make: Make) -> None:
    adapter = make(
        endpoint="http://user:pw@127.0.0.1:9/query?api_key=qs-secret",
        headers={"Authorization": "Bearer tok-abcdef", "Content-Type": "application/json"},
    )
    assert adapter.secrets() == ["Bearer tok-abcdef"]
    assert adapter.describe() == "http POST http://127.0.0.1:9/query"


def test_a_secret_echoed_by_the_server_is_masked_in_the_error(
    server: FaultServer, make: Make
) -> None:
    server.then(Fault(401, lambda r: {"error": f"bad token {r.headers['authorization']}"}))
    message = ask_error(make(headers={"Authorization": "Bearer tok-leaky-123"}))
    assert "tok-leaky-123" not in message
    assert "bad token [REDACTED]" in message


# --------------------------------------------------------------------------- pure parts
