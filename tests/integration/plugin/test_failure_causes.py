"""Why cases failed, through real runs: a planted fault per cause (an expected document not
retrieved, an answer with an unsupported claim, a RAG system that raises) reaches the JSON
report, the Markdown report, the step summary, the terminal and the JUnit XML, with and
without pytest-xdist (where the JUnit property is decided in the worker that ran the test)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report
from tests.integration.metrics.test_judged_runs import JUDGE_CONFTEST

# The judged runs' judge and RAG system, with a RAG system that raises and an answer from
# a document no case expects.
CONFTEST = JUDGE_CONFTEST.replace(
    'if "refund" in question:',
    'if "down" in question:\n            raise RuntimeError("the RAG system is down")\n'
    '        if "refund" in question:',
).replace(
    """return ("I don't know.", [])""",
    """return ("We ship worldwide within 5 business days.", """
    """[{"text": "We ship worldwide within 5 business days.", "source": "faq.md"}])""",
)
assert "faq.md" in CONFTEST and "is down" in CONFTEST

TESTS = """
from rag_eval_pytest import assert_rag

def test_rag(rag_case):
    assert_rag(rag_case, faithfulness=0.9, retrieval_recall=1.0)
"""

MISS = "abroad<b>|"
"""A case id with HTML and a table's delimiter: inert in the Markdown."""

CASES = [
    case("ok", "Do you deliver worldwide?", "Yes.", expected_contexts=["faq.md"]),
    case("refund", "What is the refund policy?", "30 days.", expected_contexts=["policy.md"]),
    case(MISS, "Do you deliver abroad?", "Yes.", expected_contexts=["shipping.md"]),
    case("down", "Is the service down?", "No.", critical=True),
]

EXPECTED = {
    "ok": None,
    "refund": "unsupported_answer",
    MISS: "retrieval_miss",
    "down": "rag_error",
}


@pytest.fixture
def planted(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> pytest.Pytester:
    write_dataset(CASES)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_rag=TESTS)
    return pytester


def junit_causes(path: Path) -> dict[str, str | None]:
    """Each test's ``rag_failure_cause`` property, by its case."""
    found: dict[str, str | None] = {}
    for testcase in ET.parse(path).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in testcase.iter("property")}
        found[str(props.get("rag_case"))] = props.get("rag_failure_cause")
    return found


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-judge-passes", "1", "-p", "no:randomly",
        "--junitxml=junit.xml", *args,
    )  # fmt: skip


def test_each_failing_case_has_its_cause_in_every_report(
    planted: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    step_summary = planted.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    result = run(planted)
    assert result.ret == 2, result.stdout.str()  # the RAG error is a critical case's

    report = read_report(planted)
    cases = {c["key"]: c for c in report["cases"]}
    assert {key: c["failure_cause"] for key, c in cases.items()} == EXPECTED
    assert all(c["secondary_causes"] == [] for c in cases.values())
    summary = report["summary"]
    assert summary["failure_causes"] == {
        "rag_error": 1,
        "retrieval_miss": 1,
        "unsupported_answer": 1,
    }
    assert summary["unexplained_failures"] == 0

    result.stdout.fnmatch_lines(
        ["why cases failed: 1 rag_error, 1 retrieval_miss, 1 unsupported_answer"]
    )

    markdown = (planted.path / "results" / "eval_report.md").read_text(encoding="utf-8")
    section = markdown.split("## Why cases failed: 3\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    assert rows[0] == "| Cause | Cases | Which | What it means |"
    assert rows[1:] == [
        "| rag_error | 1 | down (critical) | the RAG call failed |",
        "| retrieval_miss | 1 | abroad&lt;b&gt;\\| | none of the expected documents was "
        "retrieved |",
        "| unsupported_answer | 1 | refund | the answer claims what the retrieved contexts do "
        "not support |",
    ]
    assert "**Why it failed:** unsupported_answer (the answer claims" in markdown

    text = step_summary.read_text(encoding="utf-8")
    assert "**Why cases failed:** 1 rag_error, 1 retrieval_miss, 1 unsupported_answer" in text
    assert (planted.path / "results" / "eval_summary.md").read_text(encoding="utf-8") == text

    assert junit_causes(planted.path / "junit.xml") == EXPECTED


def test_under_xdist_the_worker_decides_the_junit_property(planted: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    result = run(planted, "-n", "2")
    assert result.ret == 2, result.stdout.str()
    assert junit_causes(planted.path / "junit.xml") == EXPECTED
    report = read_report(planted)
    assert {c["key"]: c["failure_cause"] for c in report["cases"]} == EXPECTED
