"""One retry policy for the HTTP adapter and every judge, through real pytest runs against
loopback fakes: ``max_attempts`` counts the first try in ``http.retry`` and ``judge.retry``
alike, a judge built in a ``rag_judge`` fixture follows ``judge.retry`` too, and the
``judge.max_retries`` of earlier releases is still read (one attempt more) with a warning
naming the key that replaces it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import case, read_report
from tests.integration.reliability.test_judge_false_green import RepeatingServer
from tests.integration.reliability.test_judge_faults_plugin import FAST, run
from tests.servers.fake_llm import anthropic_error

FAITHFULNESS = "metrics:\n  faithfulness: null\n"


@pytest.fixture
def outage(monkeypatch: pytest.MonkeyPatch) -> Iterator[RepeatingServer]:
    """A judge answering every request with a quick 500."""
    yield from serving(monkeypatch, RepeatingServer(anthropic_error(500, "api_error", FAST)))


def serving(monkeypatch: pytest.MonkeyPatch, server: RepeatingServer) -> Iterator[RepeatingServer]:
    """``server`` as the run's Anthropic judge, stopped afterwards."""
    server.start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-retry-policy-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    yield server
    server.stop()


def one_case(write_dataset: Callable[..., Path]) -> None:
    write_dataset([case("a", "Question?", "truth", answer="Answer.", contexts=["ctx"])])


def reason(pytester: pytest.Pytester) -> str:
    return str(read_report(pytester)["cases"][0]["metrics"]["faithfulness"]["reason"])


def test_judge_max_attempts_counts_the_first_try(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], outage: RepeatingServer
) -> None:
    one_case(write_dataset)
    run(pytester, config=FAITHFULNESS + "judge:\n  retry:\n    max_attempts: 2\n")
    assert len(outage.requests) == 2
    assert "the judge request failed after 2 attempts: HTTP 500" in reason(pytester)


def test_the_old_max_retries_key_is_converted_with_a_warning_naming_the_new_key(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], outage: RepeatingServer
) -> None:
    one_case(write_dataset)
    result = run(pytester, config=FAITHFULNESS + "judge:\n  max_retries: 2\n")
    assert len(outage.requests) == 3  # the first try and 2 retries, as before
    assert "failed after 3 attempts" in reason(pytester)
    result.stdout.fnmatch_lines(
        [
            "*RagEvalWarning: judge.max_retries in *eval-config.yaml is deprecated: use "
            "judge.retry.max_attempts, which counts the first try (max_retries: 2 is "
            "max_attempts: 3)*"
        ]
    )


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        (
            "  max_retries: 1\n  retry:\n    max_attempts: 2\n",
            "judge.max_retries and judge.retry.max_attempts are both given",
        ),
        ("  max_retries: many\n", "key 'judge.max_retries': should be a whole number from 0"),
    ],
    ids=["both", "not-a-number"],
)
def test_a_bad_or_doubled_old_key_is_one_clear_fatal_message(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    outage: RepeatingServer,
    judge: str,
    message: str,
) -> None:
    one_case(write_dataset)
    result = run(pytester, config=FAITHFULNESS + "judge:\n" + judge)
    assert result.ret == 3
    output = result.stdout.str() + result.stderr.str()
    assert message in output
    assert "Traceback" not in output and "INTERNALERROR" not in output
    assert outage.requests == []


def test_a_judge_from_a_rag_judge_fixture_follows_judge_retry(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], outage: RepeatingServer
) -> None:
    one_case(write_dataset)
    pytester.makeconftest(
        f"""
        import pytest
        from rag_eval_pytest.judges.anthropic import AnthropicJudge

        @pytest.fixture(scope="session")
        def rag_judge():
            return AnthropicJudge(api_key="sk-ant-fixture", base_url={outage.url!r})
        """
    )
    run(pytester, config=FAITHFULNESS + "judge:\n  retry:\n    max_attempts: 2\n")
    assert len(outage.requests) == 2
    assert "failed after 2 attempts" in reason(pytester)
