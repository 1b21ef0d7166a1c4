"""Hostile or careless endpoint and header values: a bad URL or header is one fatal message at
start that never repeats it; URL user info, ``?pw=`` and their encoded forms never show; a
redirect to another origin gets no credential header; ``pytest -l`` prints no credential."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest

from tests.helpers import case

from ..adapters.server import Fault, FaultServer, Request

PASSWORD = "planted/pw+31337"  # "/" and "+" make its URL-encoded form differ
PW_PARAM = "planted-pw-param-27182"
HEADER_VALUE = "planted-header-value-16180"
QUERY_KEY = "planted-query-key-14142"
BASIC = base64.b64encode(f"svc:{PASSWORD}".encode()).decode()

PATHS = """
http:
  response:
    answer: data.answer
    contexts: data.documents[*].text
  retry:
    max_attempts: 1
metrics:
  retrieval_recall: null
"""


def echo(request: Request) -> dict[str, Any]:
    """A careless service: its answer repeats every header and parameter it was sent."""
    return {
        "data": {
            "answer": f"Full refund. Debug: headers={request.headers} query={request.query}",
            "documents": [{"text": "Full refund within 30 days."}],
        }
    }


@pytest.fixture
def echo_server() -> Iterator[FaultServer]:
    server = FaultServer()
    server.route = lambda request: Fault(body=echo)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def everything(pytester: pytest.Pytester, result: pytest.RunResult) -> str:
    """The output and every file written by the run (not its inputs)."""
    texts = [result.stdout.str(), result.stderr.str()]
    for path in pytester.path.rglob("*"):
        if path.is_file() and path.suffix not in (".py", ".pyc", ".yaml"):
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(texts)


def one_case(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> None:
    """One case, a test that reads its answer, the response paths of the echo server."""
    write_dataset([case("a", "Refund?", "Full refund.")])
    pytester.makepyfile(test_rag="def test_x(rag_case):\n    assert rag_case.answer\n")
    pytester.makefile(".yaml", **{"eval-config": PATHS})


def forms(*secrets: str) -> list[str]:
    return [f for s in secrets for f in (s, quote(s, safe=""))]


@pytest.mark.parametrize(
    ("endpoint", "message"),
    [
        ("http://u:{pw}@127.0.0.1:99999/q?code={key}", "port is not a number from 1 to 65535"),
        ("http://u:{pw}@[::1/q?code={key}", "host is not a valid name or IPv6 address"),
        ("http://u:{pw}@[zz]/q?code={key}", "host is not a valid name or IPv6 address"),
        ("htps://u:{pw}@h/?code={key}", "not an http:// or https:// URL (its scheme is 'htps')"),
    ],
    ids=["bad-port", "unclosed-ipv6", "bad-ipv6", "bad-scheme"],
)
@pytest.mark.parametrize("where", ["command line", "config file"])
def test_a_bad_endpoint_is_fatal_at_start_and_never_repeated(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    endpoint: str,
    message: str,
    where: str,
) -> None:
    write_dataset([case("a", "Refund?", "Full refund.")])
    pytester.makepyfile(test_rag="def test_x(rag_case):\n    assert rag_case.answer\n")
    url = endpoint.format(pw=quote(PASSWORD, safe=""), key=QUERY_KEY)
    if where == "command line":
        args = [f"--rag-endpoint={url}"]
        source = "--rag-endpoint"
    else:
        pytester.makefile(".yaml", **{"eval-config": f'http:\n  endpoint: "{url}"\n'})
        args = []
        source = "eval-config.yaml: key 'http.endpoint'"
    result = pytester.runpytest("--rag-dataset=dataset.json", *args, "--junitxml=junit.xml")
    assert result.ret == 3, result.stdout.str()
    assert source in result.stderr.str() and message in result.stderr.str()
    text = everything(pytester, result)
    assert "Traceback" not in text and "ValueError" not in text
    for secret in forms(PASSWORD, QUERY_KEY):
        assert secret not in text


@pytest.mark.parametrize("where", ["--rag-header", "http.headers", "RAG_AUTH_HEADER"])
def test_a_header_value_with_a_line_break_is_fatal_at_start_and_never_repeated(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    echo_server: FaultServer,
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    write_dataset([case("a", "Refund?", "Full refund.")])
    pytester.makepyfile(test_rag="def test_x(rag_case):\n    assert rag_case.answer\n")
    value = f"{HEADER_VALUE}\nX-Injected: y"
    args = ["--rag-dataset=dataset.json", f"--rag-endpoint={echo_server.url}"]
    config = PATHS
    if where == "--rag-header":
        args.append(f"--rag-header=X-Api-Key: {value}")
    elif where == "http.headers":
        monkeypatch.setenv("MY_SERVICE_KEY", value)
        config = PATHS.replace("http:\n", "http:\n  headers:\n    X-Api-Key: ${MY_SERVICE_KEY}\n")
    else:
        monkeypatch.setenv("RAG_AUTH_HEADER", f"X-Api-Key: {value}")
    pytester.makefile(".yaml", **{"eval-config": config})
    result = pytester.runpytest(*args, "--junitxml=junit.xml")
    assert result.ret == 3, result.stdout.str()
    assert "line break or another control character" in result.stderr.str()
    assert where in result.stderr.str()
    assert echo_server.attempts == 0  # refused before any request
    text = everything(pytester, result)
    assert HEADER_VALUE not in text and "LocalProtocolError" not in text


def test_url_user_info_and_pw_parameter_never_show_in_any_form(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], echo_server: FaultServer
) -> None:
    one_case(pytester, write_dataset)
    host = echo_server.url.removeprefix("http://")
    url = f"http://svc:{quote(PASSWORD, safe='')}@{host}?pw={PW_PARAM}"
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", f"--rag-endpoint={url}", "--junitxml=junit.xml", "-rA"
    )
    assert result.ret == 0, result.stdout.str()
    (request,) = echo_server.requests
    assert request.headers["authorization"] == f"Basic {BASIC}"  # user info is Basic auth
    assert request.query["pw"] == [PW_PARAM]
    text = everything(pytester, result)
    assert "[REDACTED]" in text  # the echo was there, and masked
    for secret in (*forms(PASSWORD, PW_PARAM), BASIC):
        assert secret not in text, secret


def test_an_explicit_authorization_header_wins_over_url_user_info(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], echo_server: FaultServer
) -> None:
    one_case(pytester, write_dataset)
    host = echo_server.url.removeprefix("http://")
    result = pytester.runpytest(
        "--rag-dataset=dataset.json",
        f"--rag-endpoint=http://svc:{quote(PASSWORD, safe='')}@{host}",
        f"--rag-header=Authorization: Bearer {HEADER_VALUE}",
    )
    assert result.ret == 0, result.stdout.str()
    assert echo_server.requests[0].headers["authorization"] == f"Bearer {HEADER_VALUE}"
    text = everything(pytester, result)
    for secret in (*forms(PASSWORD, HEADER_VALUE), BASIC):
        assert secret not in text, secret


def test_a_redirect_to_another_origin_gets_no_credential_header(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    echo_server: FaultServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    redirector = FaultServer()
    redirector.route = lambda request: Fault(307, b"", headers={"Location": echo_server.url})
    redirector.start()
    try:
        write_dataset([case("a", "Refund?", "Full refund.")])
        pytester.makepyfile(test_rag="def test_x(rag_case):\n    assert rag_case.answer\n")
        monkeypatch.setenv("MY_SERVICE_KEY", HEADER_VALUE)
        config = PATHS.replace("http:\n", "http:\n  headers:\n    X-Api-Key: ${MY_SERVICE_KEY}\n")
        pytester.makefile(".yaml", **{"eval-config": config})
        result = pytester.runpytest(
            "--rag-dataset=dataset.json",
            f"--rag-endpoint={redirector.url}",
            "--rag-header=X-Token: planted-token-value-99",
            "--rag-header=Authorization: Bearer planted-bearer-77",
        )
    finally:
        redirector.stop()
    assert result.ret == 0, result.stdout.str()
    sent = redirector.requests[0].headers
    assert sent["x-api-key"] == HEADER_VALUE and sent["x-token"] == "planted-token-value-99"
    (followed,) = echo_server.requests  # another port: another origin
    assert not {"x-api-key", "x-token", "authorization"} & set(followed.headers)
    assert followed.headers["content-type"] == "application/json"  # plain headers still go


def test_showlocals_prints_no_credential(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], echo_server: FaultServer
) -> None:
    echo_server.route = None  # a plain answer: only the objects' reprs could show a secret
    write_dataset([case("a", "Refund?", "Full refund.")])
    pytester.makepyfile(
        test_rag="def test_x(rag_case):\n"
        "    http, session = rag_case.settings.http, rag_case._engine.session\n"
        "    assert rag_case.answer == 'no'\n"
    )
    pytester.makefile(".yaml", **{"eval-config": PATHS})
    result = pytester.runpytest(
        "--rag-dataset=dataset.json",
        f"--rag-endpoint={echo_server.url}?api_key={QUERY_KEY}",
        f"--rag-header=X-Api-Key: {HEADER_VALUE}",
        "-l",
        "-vv",  # whole reprs, not cut at 240 characters
        "--junitxml=junit.xml",
    )
    assert result.ret != 0
    text = everything(pytester, result)
    assert "HttpSettings(endpoint='http://127.0.0.1" in result.stdout.str()  # -l did print
    assert "EvalSession(" in result.stdout.str()
    for secret in (QUERY_KEY, HEADER_VALUE):
        assert secret not in text, secret


def test_a_pw_variable_in_the_config_is_a_credential(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    echo_server: FaultServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    one_case(pytester, write_dataset)
    monkeypatch.setenv("SERVICE_PW", PW_PARAM)
    config = PATHS.replace(
        "http:\n",
        'http:\n  method: GET\n  body:\n    question: "{question}"\n    pw: "${SERVICE_PW}"\n',
    )
    pytester.makefile(".yaml", **{"eval-config": config})
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", f"--rag-endpoint={echo_server.url}", "-rA"
    )
    assert result.ret == 0, result.stdout.str()
    assert echo_server.requests[0].query["pw"] == [PW_PARAM]
    text = everything(pytester, result)
    assert "[REDACTED]" in text
    assert PW_PARAM not in text


JWT = "eyJhbGciOiJIUzI1NiJ9.planted-jwt-body.c2ln"
LONG_CREDENTIALS = {"jwt": JWT, "session": "planted-session-5772", "hmac": "a1b2c3d4e5f60718"}
SHORT_CREDENTIALS = {"pin": "7c1", "sid": "q9", "pass": "zx8", "sas": "sv1"}


def quoting_the_url(request: Request) -> dict[str, Any]:
    """A careless service: its answer quotes the URL it was called with."""
    url = f"http://service{request.path}?{urlencode(request.query, doseq=True)}"
    return {"data": {"answer": f"Full refund. Debug: {url}", "documents": [{"text": url}]}}


def test_credential_query_parameters_in_a_url_are_masked_whatever_their_length(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], echo_server: FaultServer
) -> None:
    one_case(pytester, write_dataset)
    echo_server.route = lambda request: Fault(body=quoting_the_url)
    query = urlencode({**LONG_CREDENTIALS, **SHORT_CREDENTIALS, "lang": "en"})
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", f"--rag-endpoint={echo_server.url}?{query}", "-rA"
    )
    assert result.ret == 0, result.stdout.str()
    assert echo_server.requests[0].query["pin"] == ["7c1"]  # sent as given
    text = everything(pytester, result)
    assert "lang=en" in text  # the service did quote the URL; a plain parameter stays
    for name, value in {**LONG_CREDENTIALS, **SHORT_CREDENTIALS}.items():
        assert f"{name}=[REDACTED]" in text, name
        assert f"{name}={value}" not in text, name
    for value in LONG_CREDENTIALS.values():
        assert value not in text, value  # a long one is masked in any text, like a key
