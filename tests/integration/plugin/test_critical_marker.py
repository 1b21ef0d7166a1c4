"""``@pytest.mark.rag_critical``: a marked test that fails exits with the critical code,
whether or not it takes ``rag_case``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

MARKED = """
import pytest

@pytest.mark.rag_critical
def test_guard(rag_case):
    assert "refund" in rag_case.question, "off-topic question"

def test_plain(rag_case):
    assert rag_case.id != "{plain_fails}"
"""


def run(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    *,
    critical_case: bool = False,
    plain_fails: str = "",
) -> pytest.RunResult:
    write_dataset(
        [
            case("refund", "refund policy?", critical=critical_case),
            case("abroad", "deliver abroad?"),
        ]
    )
    pytester.makepyfile(test_x=MARKED.replace("{plain_fails}", plain_fails))
    return pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-target", rag_app, "-p", "no:randomly"
    )


def test_a_failing_marked_test_with_a_case_exits_with_the_critical_code(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    result = run(pytester, write_dataset, rag_app)
    result.assert_outcomes(passed=3, failed=1)
    assert result.ret == 2
    result.stdout.fnmatch_lines(
        ["rag-eval: exit 2: critical case test_x.py::test_guard[[]abroad[]] failed"]
    )
    critical = read_report(pytester)["summary"]["critical"]
    assert critical["total"] == 2 and critical["passed"] == 1
    assert critical["failed"] == ["test_x.py::test_guard[abroad]"]


def test_the_critical_code_is_configurable_for_marked_tests(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    pytester.makeini("[pytest]\nrag_critical_exit_code = 10\n")
    assert run(pytester, write_dataset, rag_app).ret == 10


def test_an_unmarked_failure_of_a_case_with_a_passing_marked_test_exits_1(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset([case("refund", "refund policy?")])
    pytester.makepyfile(test_x=MARKED.replace("{plain_fails}", "refund"))
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == 1


def test_a_critical_case_is_counted_once_when_its_test_is_marked_too(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    result = run(pytester, write_dataset, rag_app, critical_case=True, plain_fails="refund")
    result.assert_outcomes(passed=2, failed=2)
    assert result.ret == 2
    critical = read_report(pytester)["summary"]["critical"]
    # The case (with both of its tests) and the marked test of the other case.
    assert critical["total"] == 2 and critical["passed"] == 0
    assert critical["failed"] == ["refund", "test_x.py::test_guard[abroad]"]
