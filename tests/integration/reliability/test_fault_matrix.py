"""RAG-side and judge-side faults in one run: every case ends passed, failed, error or not
judged; the reports hold every result computed; the exit code is the one SPEC names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

CONFTEST = """
import json
import pytest

SUPPORTED = {"statements": [{"statement": "s", "verdict": "supported", "reason": "stated"}]}
UNSUPPORTED = {"statements": [{"statement": "s", "verdict": "unsupported", "reason": "absent"}]}

def judge(prompt):
    answer = prompt.split('section="ANSWER"', 1)[1].split("</data", 1)[0]
    if "REFUSE" in answer:
        return "I'm sorry, but I cannot help with evaluating this content."
    if "GARBAGE" in answer:
        return "verdicts: maybe?? {{{"
    if "JUDGE-DOWN" in answer:
        raise ConnectionError("judge unreachable")
    return json.dumps(UNSUPPORTED if "WRONG" in answer else SUPPORTED)

@pytest.fixture(scope="session")
def rag_judge():
    return judge

@pytest.fixture(scope="session")
def rag_adapter():
    def app(question):
        if "rag-down" in question:
            raise TimeoutError("the RAG service timed out")
        if "no-contexts" in question:
            return {"answer": "An answer.", "contexts": None}
        return {"answer": f"Answer {question}", "contexts": [{"text": "ctx", "source": "a.md"}]}
    return app
"""

CASES = [
    ("ok", "fine OK", "passed"),
    ("unsupported", "fine WRONG", "failed"),
    ("rag-error", "rag-down please", "error"),
    ("no-contexts", "no-contexts please", "skipped"),
    ("refused", "fine REFUSE", "skipped"),
    ("garbage", "fine GARBAGE", "skipped"),
    ("judge-down", "fine JUDGE-DOWN", "skipped"),
]


def test_faults_on_both_sides_end_every_case_and_keep_every_result(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset([case(key, question, "truth") for key, question, _ in CASES])
    pytester.makeconftest(CONFTEST)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: null\n"})
    result = pytester.runpytest(
        "--rag-dataset=dataset.json",
        "--rag-judge-passes=1",
        "--rag-no-cache",
        "-rA",
        "-p",
        "no:randomly",
    )
    result.assert_outcomes(passed=1, failed=1, errors=1, skipped=4)
    # Checks the judge failed to make (a refusal, garbage, an outage) are no verdict.
    assert result.ret == 3
    result.stdout.fnmatch_lines(
        [
            "rag-eval: exit 3: fatal: the judge failed on 3 of 7 cases "
            "(refused, garbage, judge-down)*"
        ]
    )
    assert "Traceback" not in result.stdout.str()
    report = read_report(pytester)
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    assert statuses == {key: status for key, _, status in CASES}
    results = {c["id"]: c["metrics"].get("faithfulness") for c in report["cases"]}
    assert results["ok"]["score"] == 1.0
    assert results["unsupported"]["score"] == 0.0
    assert results["rag-error"] is None
    assert "contexts unknown" in results["no-contexts"]["reason"]
    assert "refused" in results["refused"]["reason"]
    assert "did not validate even after a corrective re-ask" in results["garbage"]["reason"]
    assert "judge unreachable" in results["judge-down"]["reason"]
    rag_error = next(c for c in report["cases"] if c["id"] == "rag-error")
    assert "timed out" in rag_error["error"]
    assert report["summary"]["metrics"]["faithfulness"]["not_judged"] == 4
