"""The dataset warnings (RagEvalWarning) under the user's warning filters: shown by default,
silenced by an ignore filter, printed in the header (not raised) under a blanket
``filterwarnings = error``, and fatal only when a filter names RagEvalWarning as an error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import DEFAULT_CASES

OLD = {"name": "t", "created": "2020-01-01"}
PASSING = DEFAULT_CASES[:2]  # tc_003's question misses in the tiny app


def run(pytester: pytest.Pytester, rag_app: str, *args: str) -> pytest.RunResult:
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: 1.0\n"})
    return pytester.runpytest("--rag-dataset=dataset.json", f"--rag-target={rag_app}", *args)


def output(result: pytest.RunResult) -> str:
    text = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in text, text
    return text


@pytest.mark.parametrize(
    ("cases", "metadata", "warning"),
    [
        (PASSING, OLD, "dataset is * days old"),
        (
            [{k: v for k, v in c.items() if k != "expected_contexts"} for c in PASSING],
            None,
            "2 of 2 cases have no 'expected_contexts'",
        ),
    ],
    ids=["old-dataset", "no-expected-contexts"],
)
def test_a_strict_suite_completes_with_its_normal_exit_code_and_shows_the_warning(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    cases: list[dict[str, object]],
    metadata: dict[str, str] | None,
    warning: str,
) -> None:
    pytester.makeini("[pytest]\nfilterwarnings =\n    error\n")
    write_dataset(cases, metadata=metadata)
    result = run(pytester, rag_app)
    output(result)
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"rag-eval: warning: *{warning}*RagEvalWarning*"])


def test_the_warning_is_in_the_warnings_summary_by_default(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset(PASSING, metadata=OLD)
    result = run(pytester, rag_app)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*warnings summary*", "*RagEvalWarning: *dataset is * days old*"])


def test_an_ignore_filter_silences_it_even_under_a_blanket_error(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    pytester.makeini(
        "[pytest]\nfilterwarnings =\n    error\n    ignore::rag_eval_pytest.RagEvalWarning\n"
    )
    write_dataset(PASSING, metadata=OLD)
    result = run(pytester, rag_app)
    assert result.ret == 0
    text = output(result)
    assert "RagEvalWarning" not in text and "warnings summary" not in text, text


def test_a_filter_naming_it_as_an_error_makes_it_fatal_with_one_message(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset(PASSING, metadata=OLD)
    result = run(pytester, rag_app, "-W", "error::rag_eval_pytest.RagEvalWarning")
    assert result.ret == 3
    text = output(result)
    assert "Traceback" not in text
    result.stderr.fnmatch_lines(
        ["*rag-eval: *dataset is * days old*a warnings filter makes RagEvalWarning an error*"]
    )
    result.stdout.no_fnmatch_line("*collected*")


JUDGED_TEST = """
from rag_eval_pytest import evaluate

def test_judged(rag_case):
    evaluate(rag_case, "retrieval_recall")
    evaluate(rag_case, "faithfulness")
"""

NAMED_JUDGE = """
import json, pytest

def judge(prompt):
    return json.dumps({"statements": [
        {"statement": "x", "verdict": "supported", "reason": "in the contexts"}
    ]})

@pytest.fixture(scope="session")
def rag_judge():
    return judge
"""


@pytest.mark.parametrize("deprecations", ["always", "error"])
def test_the_plugin_uses_no_api_that_pytest_10_removes(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    deprecations: str,
) -> None:
    """A test function taking cases with a judged metric, learned from its first case and
    judged ahead for the others: pytest's deprecation warnings are never triggered, and as
    errors change nothing."""
    write_dataset(PASSING)
    pytester.makepyfile(test_judged=JUDGED_TEST)
    pytester.makeconftest(NAMED_JUDGE)
    pytester.makefile(
        ".yaml", **{"eval-config": "metrics:\n  retrieval_recall: null\n  faithfulness: null\n"}
    )
    args = (
        "--rag-dataset=dataset.json",
        f"--rag-target={rag_app}",
        "--rag-judge-passes=1",
        "-W",
        f"{deprecations}::pytest.PytestDeprecationWarning",
    )
    result = pytester.runpytest_subprocess(*args)
    text = output(result)
    assert "PytestRemovedIn" not in text and "PytestDeprecationWarning" not in text, text
    assert result.ret == 0, text
    result.assert_outcomes(passed=2)


def test_a_judge_fixture_that_fails_is_not_requested_again_during_teardown(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    """A user's rag_judge fixture that raises fails each judged test with its error; the
    plugin never asks pytest for the fixture again once the test is over (which pytest 10
    turns from a deprecation warning into an error)."""
    write_dataset(PASSING)
    pytester.makepyfile(test_judged=JUDGED_TEST)
    pytester.makeconftest(
        """
import pytest

@pytest.fixture(scope="session")
def rag_judge():
    raise RuntimeError("judge server not configured")
"""
    )
    result = pytester.runpytest(
        "--rag-dataset=dataset.json",
        f"--rag-target={rag_app}",
        "-W",
        "always::pytest.PytestDeprecationWarning",
    )
    text = output(result)
    assert "PytestRemovedIn" not in text and "during teardown" not in text, text
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*RuntimeError: judge server not configured*"])
