"""rag_case parametrization, ids, critical-first order, tags, several datasets."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case

TEST_FILE = """
from rag_eval_pytest import assert_retrieval

def test_retrieval(rag_case):
    assert_retrieval(rag_case, 0.5)

def test_plain():
    pass
"""


def test_one_test_per_case_with_case_ids(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    pytester.makepyfile(test_rag=TEST_FILE)
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-target", rag_app, "-v", "-p", "no:randomly"
    )
    result.stdout.fnmatch_lines(
        [
            "*test_rag.py::test_retrieval?tc_001? PASSED*",
            "*test_rag.py::test_retrieval?tc_002? PASSED*",
            "*test_rag.py::test_retrieval?tc_003? FAILED*",
            "*test_rag.py::test_plain PASSED*",
        ]
    )
    assert result.ret == 1


def test_critical_cases_run_first_across_files_and_datasets(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset([case("a1", "refund?"), case("a2", "refund?", critical=True)], name="a.json")
    write_dataset([case("b1", "refund?"), case("b2", "refund?", critical=True)], name="b.json")
    pytester.makepyfile(
        test_one="def test_one(rag_case): pass\n",
        test_two="""
import pytest
def test_two(rag_case): pass
@pytest.mark.rag_critical
def test_marked(): pass
def test_unmarked(): pass
""",
    )
    result = pytester.runpytest(
        "--rag-dataset",
        "a.json",
        "--rag-dataset",
        "b.json",
        "--rag-target",
        rag_app,
        "-v",
        "-p",
        "no:randomly",
    )
    order = [line.split(" ")[0] for line in result.outlines if " PASSED" in line]
    critical = [
        "test_one.py::test_one[a2]",
        "test_one.py::test_one[b2]",
        "test_two.py::test_two[a2]",
        "test_two.py::test_two[b2]",
        "test_two.py::test_marked",
    ]
    assert order[:5] == critical
    assert order[5:] == [
        "test_one.py::test_one[a1]",
        "test_one.py::test_one[b1]",
        "test_two.py::test_two[a1]",
        "test_two.py::test_two[b1]",
        "test_two.py::test_unmarked",
    ]


def test_tags_select_cases_and_report_deselection(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    result = pytester.runpytest(
        "--rag-dataset",
        "dataset.json",
        "--rag-target",
        rag_app,
        "--rag-tags",
        "billing,shipping",
        "-v",
    )
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*2 of 3 cases*"])
    result.stdout.no_fnmatch_line("*test_x?tc_002?*")


def test_rag_case_exposes_case_and_response(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset([case("q1", "What is the refund policy?", "Full refund.", tags=["b"])])
    pytester.makepyfile(
        test_rag="""
def test_fields(rag_case):
    assert rag_case.id == "q1"
    assert rag_case.question == "What is the refund policy?"
    assert rag_case.ground_truth == "Full refund."
    assert rag_case.tags == ["b"] and rag_case.critical is False
    assert rag_case.answer.startswith("Full refund within 30 days")
    assert [c.source for c in rag_case.contexts] == ["policy.md"]
    assert rag_case.response.latency >= 0
"""
    )
    pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app).assert_outcomes(
        passed=1
    )


def test_each_case_is_queried_once_however_many_tests_use_it(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset([case("c1", "q1"), case("c2", "q2")])
    pytester.makeconftest("""
import pytest
CALLS = []

@pytest.fixture(scope="session")
def rag_adapter():
    def answer(question):
        CALLS.append(question)
        return "an answer", []
    return answer

def pytest_sessionfinish(session):
    print("calls:", sorted(CALLS))
""")
    pytester.makepyfile(
        test_rag="""
def test_a(rag_case): rag_case.answer
def test_b(rag_case): rag_case.answer
def test_c(rag_case): rag_case.answer
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-s")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["*calls: ?'q1', 'q2'?*"])


def test_async_rag_function(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> None:
    write_dataset([case("c1", "hello?", expected_contexts=["doc.md"])])
    pytester.makeconftest("""
import asyncio
import pytest
from rag_eval_pytest import CallableAdapter

async def answer(question):
    await asyncio.sleep(0.01)
    return {"answer": "hi", "contexts": [{"text": "hi there", "source": "doc.md"}]}

@pytest.fixture(scope="session")
def rag_adapter():
    return CallableAdapter(answer)
""")
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_retrieval
def test_r(rag_case):
    p, r = assert_retrieval(rag_case, 1.0)
    assert p.score == 1.0 and r.score == 1.0
    assert rag_case.response.latency >= 0.01
"""
    )
    pytester.runpytest("--rag-dataset", "dataset.json").assert_outcomes(passed=1)


def test_pre_recorded_answers_need_no_adapter(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [
            case(
                "c1",
                "q",
                answer="logged answer",
                contexts=[{"text": "t", "source": "a.md"}],
                expected_contexts=["a.md"],
            )
        ]
    )
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_retrieval
def test_r(rag_case):
    assert rag_case.answer == "logged answer"
    assert_retrieval(rag_case, 1.0)
"""
    )
    pytester.runpytest("--rag-dataset", "dataset.json").assert_outcomes(passed=1)


def test_no_adapter_configured_is_one_clear_error_per_case(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset([case("c1", "q")])
    pytester.makepyfile(test_rag="def test_r(rag_case): pass\n")
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*no RAG adapter configured: define a rag_adapter fixture*"])
