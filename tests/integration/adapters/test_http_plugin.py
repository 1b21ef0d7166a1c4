"""The HTTP adapter through real pytest runs: CLI and config selection, auth precedence,
``${ENV}`` interpolation, errors and exit code 3, and no header value in any output."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import case, read_report

from .server import Fault, FaultServer, Request, closed_port_url

PLANTED = "Bearer planted-7f3a9c"

PATHS = """
http:
  response:
    answer: data.answer
    contexts: data.documents[*].text
    sources: data.documents[*].metadata.source
  retry:
    max_attempts: 2
    base_delay: 0.01
metrics:
  retrieval_recall: 1.0
"""


def echoing_answer(request: Request) -> dict[str, Any]:
    """A careless RAG service: it repeats the caller's Authorization header in its answer."""
    auth = request.headers.get("authorization", "none")
    return {
        "data": {
            "answer": f"refund within 30 days (caller {auth})",
            "documents": [
                {"text": "Full refund within 30 days.", "metadata": {"source": "policy.md"}}
            ],
        }
    }


def all_outputs(pytester: pytest.Pytester, result: pytest.RunResult) -> str:
    results = pytester.path / "results"
    files = [results / n for n in ("eval_report.json", "eval_report.md", "results.jsonl")]
    assert all(f.is_file() for f in files), [str(f) for f in files if not f.is_file()]
    texts = [f.read_text(encoding="utf-8") for f in files]
    return "\n".join([*texts, result.stdout.str(), result.stderr.str()])


@pytest.mark.parametrize("processes", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_http_run_passes_fails_errors_and_never_prints_the_header(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    server: FaultServer,
    processes: list[str],
) -> None:
    write_dataset(
        [
            case("tc_ok", "refund?", expected_contexts=["policy.md"]),
            case("tc_low", "refund again?", expected_contexts=["other.md"]),
            case("tc_err", "denied?", expected_contexts=["policy.md"]),
        ]
    )
    pytester.makefile(".yaml", **{"eval-config": PATHS})

    def route(request: Request) -> Fault:
        if request.json()["question"] == "denied?":  # a 400 whose body repeats the token
            return Fault(400, lambda r: {"error": f"rejected {r.headers['authorization']}"})
        return Fault(body=echoing_answer)

    server.route = route
    result = pytester.runpytest(
        "--rag-dataset",
        "dataset.json",
        "--rag-adapter",
        "http",
        "--rag-endpoint",
        server.url,
        "--rag-header",
        f"Authorization: {PLANTED}",
        "-v",
        *processes,
    )
    result.assert_outcomes(passed=1, failed=1, errors=1)
    assert result.ret == 1
    assert {r.headers["authorization"] for r in server.requests} == {PLANTED}
    assert server.attempts == 3  # the 400 is not retried
    report = read_report(pytester)
    by_id = {c["id"]: c for c in report["cases"]}
    assert by_id["tc_err"]["status"] == "error"
    assert "HTTP 400 (not retried)" in by_id["tc_err"]["error"]
    assert by_id["tc_ok"]["sources"] == ["policy.md"]
    assert by_id["tc_ok"]["answer"].startswith("refund within 30 days")
    outputs = all_outputs(pytester, result)
    assert "[REDACTED]" in outputs  # the echoed header was there to leak, and was masked
    assert "planted-7f3a9c" not in outputs


def test_every_case_unreachable_exits_3(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset()
    pytester.makefile(".yaml", **{"eval-config": PATHS})
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-endpoint", closed_port_url()
    )
    assert result.ret == 3
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "*unreachable after 2 attempts: connection failed; connection failed*",
            "*exit 3*fatal: the RAG system failed for every case (3)*",
        ]
    )
    report = read_report(pytester)
    assert report["summary"]["counts"]["errors"] == 3
    assert report["run"]["exit_code"] == 3


def test_rag_timeout_bounds_each_attempt(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], server: FaultServer
) -> None:
    write_dataset([case("slow", "refund?", expected_contexts=["policy.md"])])
    pytester.makefile(".yaml", **{"eval-config": PATHS})
    server.default = Fault(body=echoing_answer, delay=3.0)
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-endpoint", server.url, "--rag-timeout", "0.2"
    )
    assert result.ret == 3
    result.stdout.fnmatch_lines(["*timeout after 0.2 s; timeout after 0.2 s*"])
    assert server.attempts == 2


def test_slow_answers_are_flagged(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], server: FaultServer
) -> None:
    write_dataset([case("slow", "refund?", expected_contexts=["policy.md"])])
    pytester.makefile(".yaml", **{"eval-config": PATHS})
    server.default = Fault(body=echoing_answer, delay=0.3)
    result = pytester.runpytest(
        "--rag-dataset",
        "dataset.json",
        "--rag-endpoint",
        server.url,
        "--rag-slow-threshold",
        "0.1",
    )
    assert result.ret == 0
    report = read_report(pytester)
    assert report["cases"][0]["slow"] is True
    assert report["summary"]["latency"]["slow"] == 1


def test_config_headers_with_env_win_over_cli_and_env_header(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    server: FaultServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_dataset([case("tc", "refund?", expected_contexts=["policy.md"])])
    config = PATHS.replace(
        "http:\n",
        f'http:\n  endpoint: "{server.url}"\n'
        '  headers:\n    Authorization: "Bearer ${RAG_API_TOKEN}"\n'
        '    X-Tenant: "${TENANT_NAME:-acme}"\n',
    )
    pytester.makefile(".yaml", **{"eval-config": config})
    monkeypatch.setenv("RAG_API_TOKEN", "tok-from-env-5521")
    monkeypatch.setenv("RAG_AUTH_HEADER", "Authorization: Bearer env-header-loses")
    result = pytester.runpytest(
        "--rag-dataset",
        "dataset.json",
        "--rag-header",
        "Authorization: Bearer cli-header-loses",
        "--rag-header",
        "X-Trace: cli-trace-3344",
    )
    assert result.ret == 0, result.stdout.str()
    sent = server.requests[0].headers
    assert sent["authorization"] == "Bearer tok-from-env-5521"
    assert sent["x-tenant"] == "acme"
    assert sent["x-trace"] == "cli-trace-3344"
    outputs = all_outputs(pytester, result)
    for value in ("tok-from-env-5521", "cli-trace-3344", "env-header-loses", "cli-header-loses"):
        assert value not in outputs
    assert "Bearer" not in json.dumps(read_report(pytester)["run"])


def test_env_auth_header_is_used_when_nothing_else_is(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    server: FaultServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_dataset([case("tc", "refund?", expected_contexts=["policy.md"])])
    pytester.makefile(".yaml", **{"eval-config": PATHS})
    monkeypatch.setenv("RAG_AUTH_HEADER", "X-Api-Key: env-key-8812")
    server.default = Fault(body=echoing_answer)
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-endpoint", server.url)
    assert result.ret == 0
    assert server.requests[0].headers["x-api-key"] == "env-key-8812"
    assert "env-key-8812" not in all_outputs(pytester, result)


def test_malformed_header_flag_is_fatal_and_does_not_echo_it(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset()
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-header", "Bearer no-colon-secret-42"
    )
    assert result.ret == 3
    result.stderr.fnmatch_lines(['*rag-eval: --rag-header: expected "Name: value"*'])
    assert "no-colon-secret-42" not in result.stderr.str() + result.stdout.str()


def test_unknown_http_key_is_named(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset()
    pytester.makefile(".yaml", **{"eval-config": "http:\n  retry:\n    tries: 3\n"})
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    assert result.ret == 3
    result.stderr.fnmatch_lines(["*unknown key 'http.retry.tries'*"])


def test_http_adapter_without_endpoint_says_how_to_set_it(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset([case("tc", "q?")])
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-adapter", "http")
    result.stdout.fnmatch_lines(["*the http adapter needs an endpoint: --rag-endpoint URL*"])
    assert result.ret == 3


CONVERSATION = {
    "id": "fees",
    "turns": [{"question": "What does a personal account cost?"}, {"question": "And business?"}],
}


@pytest.mark.parametrize(
    ("config", "named"),
    [
        (PATHS.replace("http:\n", 'http:\n  body:\n    query: "{question}"\n', 1), "http.body in "),
        (PATHS, 'http.body (default {"question": "{question}"})'),
    ],
    ids=["configured-body", "default-body"],
)
def test_a_body_without_the_history_is_a_config_error_when_conversations_run(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    server: FaultServer,
    config: str,
    named: str,
) -> None:
    # Every turn of every conversation would fail ("3 tests failed", exit 1): the template
    # is refused before any test, naming its setting and the placeholders it needs.
    write_dataset([CONVERSATION, case("tc", "refund?", expected_contexts=["policy.md"])])
    pytester.makefile(".yaml", **{"eval-config": config})
    server.route = lambda request: Fault(body=echoing_answer)
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-endpoint", server.url)
    assert result.ret == 3, result.stdout.str()
    stderr = result.stderr.str()
    assert named in stderr and "sends no history" in stderr, stderr
    assert '"{history}"' in stderr and '"{messages}"' in stderr and "(fees)" in stderr
    assert server.requests == []
    result.stdout.no_fnmatch_line("*collected*")


def test_a_body_without_the_history_runs_recorded_conversations_and_single_cases(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], server: FaultServer
) -> None:
    recorded = {"id": "old", "turns": [{"question": "q?", "answer": "a", "contexts": ["a"]}]}
    write_dataset([recorded, case("tc", "q?", expected_contexts=["policy.md"])])
    pytester.makefile(".yaml", **{"eval-config": PATHS})
    server.route = lambda request: Fault(body=echoing_answer)
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-endpoint", server.url)
    assert result.ret == 0, result.stdout.str()


def test_a_conversation_over_http_sends_each_turn_with_its_history(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], server: FaultServer
) -> None:
    # The turns go in order, each request holding the earlier turns (the live first answer
    # among them) under the template's {messages}, and the follow-up retrieves what only the
    # history makes it ask for.
    write_dataset(
        [
            {
                "id": "fees",
                "turns": [
                    {"question": "What does a personal account cost?", "ground_truth": "5 EUR."},
                    {
                        "question": "And a business account?",
                        "ground_truth": "12 EUR.",
                        "expected_contexts": ["business.md"],
                    },
                ],
            }
        ]
    )
    body = 'http:\n  body:\n    messages: "{messages}"\n    channel: web\n'
    pytester.makefile(".yaml", **{"eval-config": PATHS.replace("http:\n", body, 1)})
    seen: list[Any] = []

    def answer(request: Request) -> dict[str, Any]:
        messages = request.json()["messages"]
        seen.append(messages)
        asked = " ".join(m["content"] for m in messages if m["role"] == "user")
        source = "business.md" if "business" in asked else "personal.md"
        return {
            "data": {
                "answer": f"Read {source}.",
                "documents": [{"text": f"See {source}.", "metadata": {"source": source}}],
            }
        }

    server.route = lambda request: Fault(body=answer)
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-adapter", "http",
        "--rag-endpoint", server.url, "-p", "no:randomly",
    )  # fmt: skip
    assert result.ret == 0, result.stdout.str()
    assert seen == [
        [{"role": "user", "content": "What does a personal account cost?"}],
        [
            {"role": "user", "content": "What does a personal account cost?"},
            {"role": "assistant", "content": "Read personal.md."},
            {"role": "user", "content": "And a business account?"},
        ],
    ]
    (conversation,) = read_report(pytester)["cases"]
    assert [t["metrics"]["retrieval_recall"]["score"] for t in conversation["turns"]] == [
        None,
        1.0,
    ]
