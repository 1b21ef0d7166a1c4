"""The published JSON schema of eval_report.json is met by the reports of real runs and of a
merge (that it is the one generated from the report's models: tests/unit/reporting/
test_schema.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import case, read_report
from tests.integration.metrics.test_judged_runs import JUDGE_CONFTEST
from tests.integration.plugin.test_shards import merge
from tests.json_schema import validate

PUBLISHED = Path(__file__).resolve().parents[3] / "docs" / "eval_report.schema.json"

# The judged-runs suite's judge and RAG system, with a question that makes the system fail.
CONFTEST = JUDGE_CONFTEST.replace(
    'if "refund" in question:',
    'if "crash" in question:\n            raise RuntimeError("the RAG system is down")\n'
    '        if "refund" in question:',
)

TESTS = """
import pytest
from rag_eval_pytest import assert_faithful, assert_retrieval

def test_faithful(rag_case):
    assert_faithful(rag_case, 0.9)

def test_retrieval(rag_case):
    assert_retrieval(rag_case, 1.0)

@pytest.mark.rag_critical
def test_marked_critical():
    assert False, "a critical test without a case"
"""

CASES = [
    case(
        "refund",
        "What is the refund policy?",
        "Refunds are available within 30 days of purchase.",
        expected_contexts=["policy.md"],
        critical=True,
        tags=["billing"],
    ),
    case("unknown", "Where is the moon base?", "There is no moon base.", tags=["space"]),
    case("down", "Will it crash?", "No."),
]

CONFIG = "thresholds:\n  composite: 0.9\n  faithfulness: 0.8\n"


def published() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    return schema


def test_reports_of_real_runs_and_of_a_merge_validate_against_the_published_schema(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_dataset(CASES)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_rag=TESTS)
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    schema = published()
    for _ in range(2):  # the second run's report has a trend
        result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
        assert result.ret == 2, result.stdout.str()
        report = read_report(pytester)
        assert validate(report, schema) == []
    # What the run exercised: every part of the schema that can be empty is not.
    cases = {c["key"]: c for c in report["cases"]}
    assert cases["refund"]["metrics"]["faithfulness"]["evidence"]
    assert cases["refund"]["metrics"]["faithfulness"]["usage"]["judge_calls"] >= 0
    assert cases["unknown"]["metrics"]["retrieval_recall"]["status"] == "not_judged"
    assert cases["down"]["status"] == "error" and cases["down"]["error"]
    assert report["summary"]["critical"]["tests"] == [
        {"nodeid": "test_rag.py::test_marked_critical", "outcome": "failed"}
    ]
    assert report["trend"]["points"] and report["run"]["selection"]["fingerprint"]

    done = merge(capsys, "results/eval_report.json", "--output-dir", "merged")
    assert done.returncode == 2, done.stderr
    assert validate(read_report(pytester, "merged"), schema) == []

    # The schema is strict: a renamed or missing key is found.
    report["summary"]["composite"]["value"] = report["summary"]["composite"].pop("score")
    del report["cases"][0]["metrics"]["faithfulness"]["status"]
    assert validate(report, schema) == [
        "$.summary.composite: no 'score'",
        "$.summary.composite: unexpected 'value'",
        "$.cases[0].metrics.faithfulness: no 'status'",
    ]
    # And bounded: a score above 1, a negative count, true for an exit code.
    bad = read_report(pytester)
    bad["summary"]["composite"]["score"] = 5
    bad["summary"]["counts"]["failed"] = -1
    bad["run"]["exit_code"] = True
    bad["cases"][0]["metrics"]["faithfulness"]["score"] = 1.5
    assert validate(bad, schema) == [
        "$.run.exit_code: True is not of type integer",
        "$.summary.composite.score: matches no option ($.summary.composite.score: 5 is greater "
        "than 1; $.summary.composite.score: 5 is not of type null)",
        "$.summary.counts.failed: -1 is less than 0",
        "$.cases[0].metrics.faithfulness.score: 1.5 is greater than 1",
    ]
