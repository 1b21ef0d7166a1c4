"""``judge.base_url`` with user info (``https://user:secret@gateway/``) is treated like the RAG
endpoint: a malformed one is fatal at start without being repeated, and the password (raw,
URL-encoded, and as the ``base64(user:password)`` of the Basic header it becomes) is masked
wherever it could show: a judge error that echoes the header, DEBUG logs, ``pytest -l``."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.helpers import case
from tests.servers.fake_llm import FakeLLMServer, LoggedRequest, Step, openai_message

from .test_hostile_secret_inputs import everything

PASSWORD = "planted/judge+pw-77031"  # "/" and "+": its URL-encoded form differs
ENCODED = quote(PASSWORD, safe="")
BASIC = base64.b64encode(f"gw:{PASSWORD}".encode()).decode()
SUPPORTED = {"statements": [{"statement": "s", "verdict": "supported", "reason": "stated"}]}
TEST = """
from rag_eval_pytest import assert_faithful

def test_settings(rag_case):
    judge = rag_case.settings.judge
    assert_faithful(rag_case, threshold=1.0)
    assert judge is None  # fails, so that -l prints the settings
"""


class EchoingJudge(FakeLLMServer):
    """An OpenAI-compatible gateway that refuses the case "denied" quoting its auth header."""

    def _next(self, request: LoggedRequest) -> Step:
        with self._lock:
            self.requests.append(request)
        if "DENIED" in json.dumps(request.body):
            auth = request.headers.get("authorization", "")
            return Step(status=400, body={"error": {"message": f"bad request from {auth}"}})
        return openai_message(json.dumps(SUPPORTED))


@pytest.fixture
def judge_server() -> Iterator[EchoingJudge]:
    server = EchoingJudge().start()
    try:
        yield server
    finally:
        server.stop()


def test_user_info_in_the_judge_base_url_never_shows(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    judge_server: EchoingJudge,
) -> None:
    write_dataset(
        [
            case("ok", "Refund?", "Full refund.", answer="Full refund.", contexts=["c"]),
            case("denied", "Refund?", "Full refund.", answer="DENIED refund.", contexts=["c"]),
        ]
    )
    host = judge_server.url.removeprefix("http://")
    pytester.makefile(
        ".yaml",
        **{
            "eval-config": "metrics:\n  faithfulness: null\njudge:\n  kind: openai\n"
            f'  base_url: "http://gw:{ENCODED}@{host}/v1"\n  api_key: sk-test\n'
        },
    )
    pytester.makepyfile(test_rag=TEST)
    result = pytester.runpytest(
        "--rag-dataset=dataset.json",
        "--rag-judge-passes=1",
        "--log-level=DEBUG",
        "--log-file=debug.log",
        "--junitxml=junit.xml",
        "-l",
        "-vv",
        "-rA",
        "-p",
        "no:randomly",
    )
    assert judge_server.requests, result.stdout.str()
    assert {r.headers["authorization"] for r in judge_server.requests} == {f"Basic {BASIC}"}
    assert "JudgeSettings(" in result.stdout.str()  # -l printed the settings
    text = everything(pytester, result)
    assert "bad request from Basic [REDACTED]" in text  # the echo was there, and masked
    for secret in (PASSWORD, ENCODED, BASIC):
        assert secret not in text, secret


@pytest.mark.parametrize("where", ["config", "environment"])
def test_a_malformed_judge_base_url_is_fatal_at_start_and_never_repeated(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    write_dataset([case("a", "Refund?", "Full refund.", answer="Full refund.", contexts=["c"])])
    url = f"http://gw:{ENCODED}@127.0.0.1:99999/v1"
    config = "metrics:\n  faithfulness: null\njudge:\n  kind: openai\n  api_key: sk-test\n"
    if where == "config":
        config += f'  base_url: "{url}"\n'
    else:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
    pytester.makefile(".yaml", **{"eval-config": config})
    result = pytester.runpytest("--rag-dataset=dataset.json", "--junitxml=junit.xml")
    assert result.ret == 3, result.stdout.str()
    source = "judge.base_url" if where == "config" else "OPENAI_BASE_URL"
    assert source in result.stderr.str()
    assert "the URL's port is not a number from 1 to 65535" in result.stderr.str()
    text = everything(pytester, result)
    assert "Traceback" not in text
    for secret in (PASSWORD, ENCODED, BASIC):
        assert secret not in text, secret
