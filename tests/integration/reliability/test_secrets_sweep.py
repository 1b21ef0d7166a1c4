"""Secrets planted wherever a user puts them, driven through every error path at once, swept
out of every output.

The places: the endpoint's user info, its ``?api_key=`` and ``?pw=``, ``--rag-header
X-Api-Key:``, a ``${VAR}`` header in the config, the judge's key (``ANTHROPIC_API_KEY``) and a
password in its base URL (``ANTHROPIC_BASE_URL``). The paths: a RAG service that echoes every
credential it receives (raw, URL-encoded, base64) in its answer, in a context, in a 500 body
and in an HTML page; a redirect to another origin; a judge that refuses a request quoting the
headers it got; ``pytest -l`` on failing tests holding the settings and the session; DEBUG
logging live, captured and to a file; a dry run; and, at start, a bad port, a bad scheme and a
header with a line break. The outputs: the terminal, eval_report.json and .md, results.jsonl,
the JUnit XML, the GitHub step summary, every file in the pytest cache (the judge's cache
included), the log file, file names, the request bodies the judge received and the headers the
other origin received. No secret shows there in any form.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.helpers import case
from tests.servers.fake_llm import FakeLLMServer, LoggedRequest, Step, anthropic_tool

from ..adapters.server import Fault, FaultServer, Request
from .test_hostile_secret_inputs import PATHS

PASSWORD = "sweep/user+pw-40961"  # "/" and "+": the URL-encoded form differs from the raw one
API_KEY_PARAM = "sweep-api-key-param-27509"
PW_PARAM = "sweep-pw-param-83117"
HEADER = "sweep-x-api-key-63029"
CONFIG_VAR = "sweep-config-var-91373"
JUDGE_KEY = "sk-ant-sweep-judge-key-10427"
JUDGE_PASSWORD = "sweep/judge+pw-55210"
SECRETS = (PASSWORD, API_KEY_PARAM, PW_PARAM, HEADER, CONFIG_VAR, JUDGE_KEY, JUDGE_PASSWORD)
USERS = {PASSWORD: "svc", JUDGE_PASSWORD: "gw"}


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def forms(secret: str) -> list[str]:
    """Raw, URL-encoded, base64, and base64 of ``user:secret`` (the Basic header's token)."""
    return [secret, quote(secret, safe=""), b64(secret), b64(f"{USERS.get(secret, 'u')}:{secret}")]


SUPPORTED = {"statements": [{"statement": "s", "verdict": "supported", "reason": "stated"}]}
CONFIG = PATHS.replace("retrieval_recall", "faithfulness").replace(
    "http:\n", "http:\n  headers:\n    X-Service-Token: ${SWEEP_SERVICE_TOKEN}\n"
)
TESTS = """
from rag_eval_pytest import assert_faithful

def test_faithful(rag_case):
    assert_faithful(rag_case)

def test_locals(rag_case):
    settings, session = rag_case.settings, rag_case._engine.session
    assert rag_case.id != "echo"
"""


def dump(request: Request) -> str:
    """Every header and parameter value the service got, raw, URL-encoded and base64."""
    values = [*request.headers.values(), *(v for vs in request.query.values() for v in vs)]
    return "Debug: " + " | ".join(f"{v} {quote(v, safe='')} {b64(v)}" for v in values)


class Services:
    """The RAG service, another origin it redirects to, and the judge."""

    def __init__(self) -> None:
        self.rag = FaultServer()
        self.elsewhere = FaultServer()
        self.judge = EchoingJudge()
        self.rag.route = self.route

    def route(self, request: Request) -> Fault:
        question = request.json()["question"]
        answer = {
            "data": {
                "answer": f"{question} {dump(request)}",
                "documents": [
                    {"text": "Full refund within 30 days."},
                    {"text": f"Trace: {dump(request)}"},
                ],
            }
        }
        if "fail" in question:
            return Fault(500, {"error": dump(request)})
        if "html" in question:
            return Fault(200, f"<html>{dump(request)}</html>".encode(), content_type="text/html")
        if "redirect" in question:
            return Fault(307, b"", headers={"Location": self.elsewhere.url})
        return Fault(200, answer)


class EchoingJudge(FakeLLMServer):
    """The Messages API; a request about the case "denied" is refused quoting its headers."""

    def _next(self, request: LoggedRequest) -> Step:
        with self._lock:
            self.requests.append(request)
        if "denied" in json.dumps(request.body):
            message = f"bad request with {request.headers}"
            return Step(400, {"type": "error", "error": {"type": "x", "message": message}})
        return anthropic_tool(SUPPORTED)


@pytest.fixture
def services() -> Iterator[Services]:
    running = Services()
    running.rag.start()
    running.elsewhere.start()
    running.judge.start()
    try:
        yield running
    finally:
        running.judge.stop()
        running.elsewhere.stop()
        running.rag.stop()


def swept(pytester: pytest.Pytester, *results: pytest.RunResult) -> str:
    """The terminal, and every file the runs wrote (and its name): reports, history, JUnit
    XML, step summary, log file, the pytest cache with the judge's cache."""
    texts = [r.stdout.str() + r.stderr.str() for r in results]
    for path in pytester.path.rglob("*"):
        texts.append(str(path.relative_to(pytester.path)))
        if path.is_file() and path.suffix not in (".py", ".pyc"):
            texts.append(path.read_bytes().decode("utf-8", errors="replace"))
    return "\n".join(texts)


def assert_no_secret(text: str, where: str) -> None:
    leaks = [(secret, form) for secret in SECRETS for form in forms(secret) if form in text]
    assert not leaks, f"{where}: {leaks}"


def test_planted_secrets_never_reach_any_output_on_any_path(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    services: Services,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_dataset(
        [
            case(name, f"Refund {name}?", "Full refund.")
            for name in ("echo", "fail", "html", "redirect", "denied")
        ]
    )
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    pytester.makepyfile(test_rag=TESTS)
    summary = pytester.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("SWEEP_SERVICE_TOKEN", CONFIG_VAR)
    monkeypatch.setenv("ANTHROPIC_API_KEY", JUDGE_KEY)
    judge_host = services.judge.url.removeprefix("http://")
    monkeypatch.setenv(
        "ANTHROPIC_BASE_URL", f"http://gw:{quote(JUDGE_PASSWORD, safe='')}@{judge_host}"
    )
    rag_host = services.rag.url.removeprefix("http://")
    args = (
        "--rag-dataset=dataset.json",
        f"--rag-endpoint=http://svc:{quote(PASSWORD, safe='')}@{rag_host}"
        f"?api_key={API_KEY_PARAM}&pw={PW_PARAM}",
        f"--rag-header=X-Api-Key: {HEADER}",
        "--rag-judge=anthropic",
        "--rag-judge-passes=1",
        "--junitxml=junit.xml",
        "--log-level=DEBUG",
        "--log-cli-level=DEBUG",
        "--log-file=debug.log",
        "-l",
        "-vv",  # whole reprs of the locals
        "-rA",
        "-p",
        "no:randomly",
    )
    dry = pytester.runpytest(*args, "--rag-dry-run")
    run = pytester.runpytest(*args)
    assert dry.ret == 0, dry.stdout.str()
    report = json.loads((pytester.path / "results" / "eval_report.json").read_text())
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    assert statuses == {
        "echo": "failed",  # test_locals fails for it
        "fail": "error",
        "html": "error",
        "redirect": "passed",
        "denied": "passed",  # its judged test is skipped, test_locals passes
    }, statuses
    # Every secret was really sent, and every path really ran.
    sent = services.rag.requests[0]
    assert sent.headers["x-api-key"] == HEADER and sent.headers["x-service-token"] == CONFIG_VAR
    assert sent.headers["authorization"] == f"Basic {b64(f'svc:{PASSWORD}')}"
    assert sent.query == {"api_key": [API_KEY_PARAM], "pw": [PW_PARAM]}
    # User info in the base URL wins over the key (Basic, not Bearer): the server sees both.
    basic = f"Basic {b64(f'gw:{JUDGE_PASSWORD}')}"
    assert services.judge.requests[0].headers["authorization"] == basic
    assert services.elsewhere.requests  # the redirect was followed
    assert summary.exists() and (pytester.path / "results" / "results.jsonl").exists()
    assert (pytester.path / "junit.xml").exists() and (pytester.path / "debug.log").exists()
    assert list((pytester.path / ".pytest_cache" / "d" / "rag_eval_judge").rglob("*.json"))
    output = swept(pytester, dry, run)
    assert "= Settings(adapter=" in output and "= EvalSession(" in output  # -l printed them
    # The echoes reached the outputs, each secret masked in its three forms.
    assert "[REDACTED] [REDACTED] [REDACTED]" in output
    assert "bad request with" in output  # the judge's refusal too
    assert_no_secret(output, "terminal and files")
    judge_bodies = json.dumps([r.body for r in services.judge.requests])
    assert "[REDACTED]" in judge_bodies
    assert_no_secret(judge_bodies, "judge request bodies")
    elsewhere = json.dumps([r.headers for r in services.elsewhere.requests])
    assert_no_secret(elsewhere, "headers sent to another origin")


@pytest.mark.parametrize(
    "bad",
    [
        f"--rag-endpoint=http://svc:{quote(PASSWORD, safe='')}@127.0.0.1:99999/q"
        f"?api_key={API_KEY_PARAM}",
        f"--rag-endpoint=htps://svc:{quote(PASSWORD, safe='')}@h/q?api_key={API_KEY_PARAM}",
        f"--rag-header=X-Api-Key: {HEADER}\nX-Injected: y",
    ],
    ids=["bad-port", "bad-scheme", "header-line-break"],
)
def test_planted_secrets_never_reach_any_output_when_the_run_stops_at_start(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    bad: str,
) -> None:
    write_dataset([case("a", "Refund?", "Full refund.")])
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(pytester.path / "step_summary.md"))
    endpoint = [] if bad.startswith("--rag-endpoint") else ["--rag-endpoint=http://127.0.0.1:9/q"]
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", bad, *endpoint, "--junitxml=junit.xml", "-l"
    )
    assert result.ret == 3, result.stdout.str()
    assert (pytester.path / "step_summary.md").exists()
    assert_no_secret(swept(pytester, result), bad.partition("=")[0])
