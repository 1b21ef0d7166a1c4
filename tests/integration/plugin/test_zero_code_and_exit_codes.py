"""Zero-code mode and every exit code, through real pytest runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import word_judge
from tests.helpers import case, read_report

CONFIG = """
metrics:
  retrieval_recall: 1.0
"""
# The exit-code tests check retrieval only: no judge is involved.
RETRIEVAL_ONLY = """
metrics:
  retrieval_precision: null
  retrieval_recall: null
"""


def retrieval_only(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", **{"eval-config": RETRIEVAL_ONLY})


def test_zero_code_collects_one_item_per_case(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-target", rag_app, "-v", "-p", "no:randomly"
    )
    result.stdout.fnmatch_lines(
        [
            "dataset.json::tc_001 PASSED*",
            "dataset.json::tc_002 PASSED*",
            "dataset.json::tc_003 FAILED*",
            "*tc_003 retrieval_recall 0.00 < 1.00*",
        ]
    )
    assert result.ret == 1


def test_zero_code_items_honour_k_and_conftest_adapter(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    retrieval_only(pytester)
    write_dataset(
        [
            case("keep", "q", expected_contexts=["a.md"]),
            case("drop", "q", expected_contexts=["a.md"]),
        ]
    )
    pytester.makeconftest("""
import pytest
@pytest.fixture(scope="session")
def rag_adapter():
    return lambda q: ("answer", [{"text": "t", "source": "a.md"}])
""")
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-k", "keep")
    result.assert_outcomes(passed=1, deselected=1)


REFUND = "Full refund within 30 days of purchase."
# The layout docs/ci.md describes: pytest's configuration at the root, the evaluation in
# tests/rag/, whose conftest.py wires the RAG system and the judge; each call leaves a line.
RAG_CONFTEST = f"""
import pathlib
import pytest
from tests.word_judge import word_judge

def note(name):
    with pathlib.Path(name).open("a") as log:
        log.write("call\\n")

@pytest.fixture(scope="session")
def rag_adapter():
    def answer(question):
        note("adapter_calls.txt")
        return {REFUND!r}, [{{"text": {REFUND!r}, "source": "policy.md"}}]
    return answer

@pytest.fixture(scope="session")
def rag_judge():
    def judge(prompt):
        note("judge_calls.txt")
        return word_judge(prompt)
    return judge
"""


def calls(pytester: pytest.Pytester, name: str) -> int:
    log = pytester.path / name
    return len(log.read_text().splitlines()) if log.exists() else 0


def rag_folder(pytester: pytest.Pytester, dataset: str) -> None:
    """tests/rag/conftest.py as above, the dataset at ``dataset``, the ini at the root."""
    assert word_judge.CONFTEST  # imported here first, so the inner run shares the module
    pytester.makeini("[pytest]\n")
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.5\n"})
    (pytester.path / "tests" / "rag").mkdir(parents=True)
    (pytester.path / "tests" / "rag" / "conftest.py").write_text(RAG_CONFTEST)
    path = pytester.path / dataset
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([case("refund", "What is the refund policy?", REFUND)]))


def test_zero_code_tests_use_the_adapter_and_judge_of_the_conftest_beside_the_dataset(
    pytester: pytest.Pytester,
) -> None:
    # Both used to be ignored: "no RAG adapter configured" (exit 3) though the header said
    # "adapter rag_adapter fixture", and the judge replaced by the local one (0 calls).
    rag_folder(pytester, "tests/rag/dataset.json")
    result = pytester.runpytest("tests/rag", "--rag-dataset", "tests/rag/dataset.json")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*adapter rag_adapter fixture*"])
    assert calls(pytester, "adapter_calls.txt") == 1
    assert calls(pytester, "judge_calls.txt") > 0
    assert read_report(pytester)["run"]["judge"].startswith("custom")
    assert "cannot see" not in result.stdout.str()


def test_a_judge_the_zero_code_tests_cannot_see_is_named_in_a_warning(
    pytester: pytest.Pytester, rag_app: str
) -> None:
    # The dataset in data/: tests/rag/conftest.py does not apply to a test file there.
    rag_folder(pytester, "data/qa.json")
    result = pytester.runpytest("--rag-dataset", "data/qa.json", "--rag-target", rag_app)
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*data/qa.json cannot see the rag_adapter fixture of tests/rag/conftest.py*",
            "*RagEvalWarning: the zero-code tests of data/qa.json cannot see the rag_judge "
            "fixture of tests/rag/conftest.py (a conftest applies to its own folder and the "
            "folders below it): they do not use it*",
        ]
    )
    assert calls(pytester, "judge_calls.txt") == 0 and calls(pytester, "adapter_calls.txt") == 0


def test_zero_code_is_off_when_a_test_takes_rag_case(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    result.assert_outcomes(passed=3)


def test_exit_0_when_everything_passes(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    retrieval_only(pytester)
    write_dataset([case("ok", "refund policy?", expected_contexts=["policy.md"])])
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["rag-eval: exit 0: all tests passed and all thresholds met"])


def test_exit_1_on_unmet_run_threshold_even_when_tests_pass(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import evaluate
def test_x(rag_case):
    evaluate(rag_case, "retrieval_recall")
"""
    )
    result = pytester.runpytest(
        "--rag-dataset",
        "dataset.json",
        "--rag-target",
        rag_app,
        "--rag-fail-under",
        "retrieval_recall=0.9",
    )
    result.assert_outcomes(passed=3)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["rag-eval: exit 1: retrieval_recall 0.67 < 0.90"])
    assert read_report(pytester)["summary"]["metrics"]["retrieval_recall"]["status"] == "FAIL"


def test_exit_2_when_a_critical_case_fails(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    retrieval_only(pytester)
    write_dataset(
        [
            case("crit", "deliver abroad?", critical=True, expected_contexts=["x.md"]),
            case("fine", "refund policy?", expected_contexts=["policy.md"]),
        ]
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    assert result.ret == 2
    result.stdout.fnmatch_lines(["rag-eval: exit 2: critical case crit failed"])
    report = read_report(pytester)
    assert report["run"]["exit_code"] == 2 and report["run"]["pytest_exit"] == 1
    assert report["summary"]["critical"] == {
        "total": 1,
        "passed": 0,
        "failed": ["crit"],
        "tests": [],
    }


def test_rag_critical_marker_on_a_plain_test_counts(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    retrieval_only(pytester)
    write_dataset([case("fine", "refund policy?", expected_contexts=["policy.md"])])
    pytester.makepyfile(
        test_x="""
import pytest
@pytest.mark.rag_critical
def test_smoke():
    assert False, "the index is empty"
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    assert result.ret == 2
    result.stdout.fnmatch_lines(["rag-eval: exit 2: critical case test_x.py::test_smoke failed"])


def test_exit_codes_are_configurable(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    retrieval_only(pytester)
    write_dataset([case("crit", "deliver abroad?", critical=True, expected_contexts=["x.md"])])
    pytester.makeini("[pytest]\nrag_critical_exit_code = 10\n")
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    assert result.ret == 10


def test_exit_3_when_the_rag_system_fails_for_every_case(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset([case("a", "q1"), case("b", "q2")])
    pytester.makeconftest("""
import pytest
@pytest.fixture(scope="session")
def rag_adapter():
    def down(question):
        raise ConnectionError("connection refused")
    return down
""")
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    result.assert_outcomes(errors=2)
    assert result.ret == 3
    result.stdout.fnmatch_lines(
        [
            "*a: callable *down raised ConnectionError: connection refused*",
            "rag-eval: exit 3: fatal: the RAG system failed for every case (2)",
        ]
    )
    report = read_report(pytester)
    assert [c["status"] for c in report["cases"]] == ["error", "error"]


@pytest.mark.parametrize("processes", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_errors_are_counted_as_errors_not_as_failed_tests(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], processes: list[str]
) -> None:
    # pytest says "1 failed, 2 errors": the exit line says the same, not "3 tests failed".
    retrieval_only(pytester)
    write_dataset(
        [
            case("up", "refund?", expected_contexts=["policy.md"]),
            case("miss", "refund again?", expected_contexts=["other.md"]),
            case("down1", "outage?"),
            case("down2", "outage again?"),
        ]
    )
    pytester.makeconftest("""
import pytest
@pytest.fixture(scope="session")
def rag_adapter():
    def answer(question):
        if "outage" in question:
            raise ConnectionError("connection refused")
        return "Full refund within 30 days.", [{"text": "Full refund.", "source": "policy.md"}]
    return answer
""")
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly", *processes)
    result.assert_outcomes(passed=1, failed=1, errors=2)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["rag-eval: exit 1: 1 test failed, 2 errors"])
    assert read_report(pytester)["run"]["exit_reason"] == "1 test failed, 2 errors"


def test_a_collection_error_is_fatal_not_the_critical_code(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset([case("crit", "deliver abroad?", critical=True, expected_contexts=["x.md"])])
    pytester.makepyfile(test_broken="import nonexistent_module_xyz\n")
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    # pytest's own 2 (interrupted) would read as "a critical case failed": it becomes fatal.
    assert result.ret == 3
    result.stdout.fnmatch_lines(
        ["rag-eval: exit 3: fatal: pytest: interrupted: 1 error during collection"]
    )


def test_pytest_codes_that_do_not_collide_are_kept(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset([case("crit", "deliver abroad?", critical=True, expected_contexts=["x.md"])])
    pytester.makeini("[pytest]\nrag_critical_exit_code = 10\n")
    pytester.makepyfile(test_broken="import nonexistent_module_xyz\n")
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    assert result.ret == pytest.ExitCode.INTERRUPTED  # 2 no longer means "critical"
    result.stdout.fnmatch_lines(
        ["rag-eval: exit 2: pytest: interrupted: 1 error during collection*"]
    )


@pytest.mark.parametrize(
    ("ini", "code", "message"),
    [
        ("rag_critical_exit_code = 3", 4, "exit_codes.critical and exit_codes.fatal must differ"),
        ("rag_fatal_exit_code = 2", 3, "exit_codes.critical and exit_codes.fatal must differ"),
        ("rag_critical_exit_code = 1", 3, "exit_codes.critical cannot be 1"),
    ],
)
def test_exit_codes_that_would_mean_two_things_are_rejected(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    ini: str,
    code: int,
    message: str,
) -> None:
    write_dataset([case("crit", "deliver abroad?", expected_contexts=["x.md"])])
    pytester.makeini(f"[pytest]\n{ini}\n")
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    assert result.ret == code  # the fatal code, never the critical one
    assert message in result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
