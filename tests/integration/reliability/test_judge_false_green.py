"""A judge that fails for every question never turns a run green: through real pytest runs
with ``--rag-judge anthropic`` (the real SDK) against a loopback fake of the Messages API.

A revoked key, an outage or refusals on every request make the run fatal with the judge's
error named; a refused key stops the judge after one request; a gate nothing could be scored
on is unmet; a zero-code case the judge failed on is not passed; a judge that cannot be built
stops the run with one message (under xdist too); a tag filter that selects nothing is fatal.
Cases whose own data cannot be judged (no contexts) keep ``not_judged: skip``."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import case, read_report
from tests.integration.reliability.test_judge_faults_plugin import FAST, RoutingJudgeServer, run
from tests.servers.fake_llm import (
    FakeLLMServer,
    LoggedRequest,
    Step,
    anthropic_error,
    anthropic_text,
    anthropic_tool,
)

KEY = "sk-ant-revoked-0123456789"
FAITHFULNESS = "metrics:\n  faithfulness: null\n"


class RepeatingServer(FakeLLMServer):
    """Answers every request with the same step, logging each."""

    def __init__(self, step: Step) -> None:
        super().__init__()
        self.step = step

    def _next(self, request: LoggedRequest) -> Step:
        with self._lock:
            self.requests.append(request)
        return self.step


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[FakeLLMServer], FakeLLMServer]]:
    servers: list[FakeLLMServer] = []

    def start(server: FakeLLMServer) -> FakeLLMServer:
        server.start()
        servers.append(server)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        return server

    yield start
    for server in servers:
        server.stop()


def cases(count: int = 4, **extra: object) -> list[dict[str, object]]:
    return [
        case(f"c{i}", f"Question {i}?", "truth", answer=f"Answer {i}.", contexts=["ctx"], **extra)
        for i in range(count)
    ] + [case("crit", "Critical?", "truth", answer="A.", contexts=["ctx"], critical=True)]


def test_a_revoked_key_is_fatal_after_one_request(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    serve: Callable[[FakeLLMServer], FakeLLMServer],
) -> None:
    server = serve(RepeatingServer(anthropic_error(401, "authentication_error")))
    write_dataset(cases())
    result = run(pytester, "--rag-fail-under=faithfulness=0.5", "--rag-fail-under=0.5")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 3
    result.stdout.fnmatch_lines(
        [
            "rag-eval: exit 3: fatal: judge unreachable: HTTP 401: fake authentication_error*"
            "no case could be judged on faithfulness"
        ]
    )
    # The first 401 stops the judge: no retry, no request for any other case.
    assert len(server.requests) == 1
    assert KEY not in output
    assert "INTERNALERROR" not in output and "Traceback" not in output
    report = read_report(pytester)
    assert report["run"]["exit_code"] == 3
    metric = report["cases"][0]["metrics"]["faithfulness"]
    assert (metric["status"], metric["cause"]) == ("not_judged", "judge")


@pytest.mark.parametrize(
    ("step", "error"),
    [
        # the run's fifth 500 in a row stops the judge: either reason names the 500
        (anthropic_error(500, "api_error", FAST), "HTTP 500: fake api_error"),
        (anthropic_error(529, "overloaded_error", FAST), "HTTP 529"),
        (anthropic_text("I can't help with evaluating this content.", "refusal"), "refused"),
        (anthropic_text("verdicts: maybe?? {{{"), "did not validate"),
    ],
    ids=["500", "529", "refusal", "garbage"],
)
def test_a_judge_failing_every_question_is_fatal_not_green(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    serve: Callable[[FakeLLMServer], FakeLLMServer],
    step: Step,
    error: str,
) -> None:
    serve(RepeatingServer(step))
    write_dataset(cases(2))
    result = run(pytester, config=FAITHFULNESS + "judge:\n  retry:\n    max_attempts: 2\n")
    assert result.ret == 3, result.stdout.str()
    line = result.stdout.lines[-2] if "rag-eval: exit" in result.stdout.lines[-2] else ""
    result.stdout.fnmatch_lines([f"rag-eval: exit 3: fatal: *{error}*faithfulness*"])
    assert "critical" not in line


SUPPORTED = {"statements": [{"statement": "s", "verdict": "supported", "reason": "stated"}]}


@pytest.mark.parametrize(
    "failure",
    [
        anthropic_text("verdicts: maybe?? {{{"),
        anthropic_text("I can't help with evaluating this content.", "refusal"),
    ],
    ids=["invalid", "refusal"],
)
def test_a_failed_reply_is_never_cached_so_the_next_run_asks_again(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    serve: Callable[[FakeLLMServer], FakeLLMServer],
    failure: Step,
) -> None:
    """A reply that did not validate after the corrective re-ask, or a refusal, was cached
    and replayed: every later run stayed red after the judge recovered (``judge: 0 calls,
    2 cached``), in CI until someone deleted the restored cache."""
    server = serve(RepeatingServer(failure))
    assert isinstance(server, RepeatingServer)
    write_dataset(cases(1))
    args = ["--rag-judge=anthropic", "--rag-judge-passes=1", "-p", "no:randomly"]

    def run_cached() -> pytest.RunResult:  # the judge cache on, unlike run()'s
        pytester.makefile(".yaml", **{"eval-config": FAITHFULNESS})
        return pytester.runpytest("--rag-dataset=dataset.json", *args)

    assert run_cached().ret == 3
    asked = len(server.requests)
    assert asked > 0
    entries = list((pytester.path / ".pytest_cache").rglob("*.json"))

    server.step = anthropic_tool(SUPPORTED)  # the judge recovered
    recovered = run_cached()
    assert recovered.ret == 0, recovered.stdout.str()
    recovered.assert_outcomes(passed=2)
    assert len(server.requests) == asked + 2  # asked again, once per case
    usage = read_report(pytester)["summary"]["usage"]
    assert (usage["judge_calls"], usage["cache_hits"]) == (2, 0)
    assert entries == []  # the failed run cached nothing

    # The replies that judged are cached: the next run asks nothing.
    warm = run_cached()
    assert warm.ret == 0
    assert len(server.requests) == asked + 2
    warm.stdout.fnmatch_lines(["judge: 0 calls, 2 cached*"])


def test_cases_without_contexts_keep_not_judged_skip(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    serve: Callable[[FakeLLMServer], FakeLLMServer],
) -> None:
    server = serve(RepeatingServer(anthropic_error(500, "api_error", FAST)))
    write_dataset([case("a", "Q?", "truth", answer="A.")])  # no contexts: the data's cause
    result = run(pytester)
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(skipped=1)
    assert server.requests == []
    metric = read_report(pytester)["cases"][0]["metrics"]["faithfulness"]
    assert (metric["status"], metric["cause"]) == ("not_judged", "data")

    # A gate on a metric that no case could be scored on is unmet, not "not checked".
    gated = run(pytester, "--rag-fail-under=faithfulness=0.5")
    assert gated.ret == 1
    gated.stdout.fnmatch_lines(
        ["rag-eval: exit 1: faithfulness gate 0.50 not met: it could not be scored"]
    )


def test_a_zero_code_case_the_judge_failed_on_is_not_passed(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    serve: Callable[[FakeLLMServer], FakeLLMServer],
) -> None:
    serve(RoutingJudgeServer())
    write_dataset(
        [
            case(
                m.lower(),
                f"Q {m}?",
                "t",
                answer=f"A [{m}].",
                contexts=[{"text": "ctx", "source": "ctx.md"}],
                expected_contexts=["ctx.md"],
            )
            for m in ("OK", "OUTAGE")
        ]
    )
    config = (
        "metrics:\n  faithfulness: null\n  retrieval_recall: null\n"
        "judge:\n  retry:\n    max_attempts: 2\n"
    )
    result = run(pytester, config=config)
    # Retrieval was judged for both; faithfulness only for "ok": the other is not passed.
    result.assert_outcomes(passed=1, skipped=1)
    report = read_report(pytester)
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    assert statuses == {"ok": "passed", "outage": "skipped"}
    recall = {c["id"]: c["metrics"]["retrieval_recall"]["score"] for c in report["cases"]}
    assert recall == {"ok": 1.0, "outage": 1.0}
    # A check the judge failed to make is no pass: the run gives no verdict.
    assert result.ret == 3
    result.stdout.fnmatch_lines(
        ["rag-eval: exit 3: fatal: the judge failed on 1 of 2 cases (outage)*"]
    )


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_a_judge_that_cannot_be_built_stops_the_run_with_one_message(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    workers: list[str],
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    write_dataset(cases(6))
    result = run(pytester, *workers)
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 3, output
    result.stdout.fnmatch_lines(
        ["rag-eval: exit 3: fatal: the anthropic judge needs an API key: set ANTHROPIC_API_KEY*"]
    )
    assert "Traceback" not in output and "INTERNALERROR" not in output
    assert "critical" not in result.stdout.lines[-2]
    # The run stopped at the first such test in each process, not one failure per case.
    failed = output.count("FAILED ") + output.count("] FAILED")
    assert result.parseoutcomes().get("failed", 0) <= 2, failed


def test_a_tag_filter_that_selects_nothing_is_fatal_and_names_the_tags(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset(
        [
            case("a", "Q?", tags=["security"], expected_contexts=["x.md"]),
            case("b", "Q?", tags=["api"], expected_contexts=["x.md"]),
        ]
    )
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", "--rag-target", rag_app, "--rag-tags", "secuirty"
    )
    assert result.ret == 3
    output = result.stdout.str() + result.stderr.str()
    assert "no case has any of the tags secuirty" in output
    assert "the tags in the dataset are api, security" in output


@pytest.mark.parametrize(
    ("step", "config", "stop"),
    [
        (  # retry-after is capped at 60 s: without retries nothing waits for it
            anthropic_error(429, "rate_limit_error", {"retry-after": "3600"}),
            FAITHFULNESS + "judge:\n  retry:\n    max_attempts: 1\n",
            "judge unreachable: 5 requests in a row ran out of retries",
        ),
        (  # a judge that hangs: every request times out
            Step(body={}, delay=5),
            FAITHFULNESS + "judge:\n  timeout: 1\n  retry:\n    max_attempts: 2\n",
            "judge unreachable: 3 requests in a row timed out after 1 s (judge.timeout)",
        ),
    ],
    ids=["retry-after-3600", "hung"],
)
def test_a_judge_that_stays_overloaded_or_hangs_stops_the_run_in_seconds(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    serve: Callable[[FakeLLMServer], FakeLLMServer],
    step: Step,
    config: str,
    stop: str,
) -> None:
    server = serve(RepeatingServer(step))
    write_dataset(cases(8))
    started = time.monotonic()
    result = run(pytester, config=config)
    took = time.monotonic() - started
    output = result.stdout.str()
    assert result.ret == 3, output
    assert "no case could be judged on faithfulness" in output
    reasons = [c["metrics"]["faithfulness"]["reason"] for c in read_report(pytester)["cases"]]
    assert any(stop in r for r in reasons), reasons
    assert took < 45, f"{took:.0f} s"  # minutes without the stop (one request at a time)
    assert len(server.requests) <= 2 * 9  # at most each case's attempts: nothing more


MOSTLY_DOWN_JUDGE = """
import json

def judge(prompt):
    if "[OK]" not in prompt:
        raise RuntimeError("judge backend down")
    verdict = {"statement": "s", "verdict": "supported", "reason": "stated"}
    return json.dumps({"statements": [verdict]})
"""


def test_a_custom_judge_down_for_most_cases_is_the_same_verdict_as_an_llm_outage(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """One case judged, nine not, the critical one among them: no green run."""
    write_dataset(
        [case("ok", "Question?", "truth", answer="Answer [OK].", contexts=["ctx"]), *cases(8)]
    )
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.5\n"})
    pytester.makepyfile(judging=MOSTLY_DOWN_JUDGE)
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", "--rag-judge=judging.py:judge", "-p", "no:randomly"
    )
    output = result.stdout.str()
    assert result.ret == 3, output
    result.stdout.fnmatch_lines(
        [
            "rag-eval: exit 3: fatal: the judge failed on 9 of 10 cases (*): "
            "*raised RuntimeError: judge backend down"
        ]
    )
    report = read_report(pytester)
    assert report["run"]["exit_code"] == 3
    assert report["summary"]["metrics"]["faithfulness"]["not_judged"] == 9
