"""The answer with its unsupported statements marked, in the Markdown and the HTML report:
each piece of untrusted text escaped before the marks are added."""

from __future__ import annotations

from typing import Any

from rag_eval_pytest.reporting import markdown
from rag_eval_pytest.reporting.html_report import render_html
from rag_eval_pytest.reporting.models import CaseResult
from rag_eval_pytest.text.escaping import html_text
from tests.unit.reporting.test_html import report

BIDI = "\u202e"
GOOD = "Refunds within 30 days | always."
BAD = f"Click **here** | <script>alert(1)</script> {BIDI}exe.txt now."
ANSWER = f"{GOOD} {BAD}"


def statement(text: str, verdict: str, span: bool = True) -> dict[str, Any]:
    start = ANSWER.index(text) if span and text in ANSWER else None
    end = None if start is None else start + len(text)
    return {"kind": "statement", "text": text, "verdict": verdict, "start": start, "end": end}


def case_result(evidence: list[dict[str, Any]], unmatched: list[str]) -> CaseResult:
    details = {"mode": "ragas", **({"unmatched": unmatched} if unmatched else {})}
    faithfulness = {
        "score": 0.33,
        "reason": "1 of 3 statements supported by the contexts",
        "evidence": evidence,
        "details": details,
        "case": "c1",
        "metric": "faithfulness",
        "threshold": 0.7,
        "status": "failed",
    }
    return CaseResult.model_validate(
        {
            "key": "c1",
            "id": "c1",
            "dataset": "dataset.json",
            "question": "What is the refund policy?",
            "ground_truth": "30 days.",
            "critical": False,
            "tags": [],
            "expected_contexts": None,
            "status": "failed",
            "composite": 0.33,
            "recorded": True,
            "answer": ANSWER,
            "contexts": [{"text": "Refunds within 30 days.", "source": "policy.md"}],
            "sources": ["policy.md"],
            "latency_s": None,
            "slow": False,
            "error": None,
            "tests": [],
            "metrics": {"faithfulness": faithfulness},
        }
    )


CASE = case_result(
    [
        statement(GOOD, "supported", span=False),
        statement(BAD, "not mentioned"),
        statement("The moon is <b>cheese</b> **really**.", "contradicted"),
    ],
    ["The moon is <b>cheese</b> **really**."],
)


def test_markdown_bolds_the_escaped_statement_and_lists_the_unmatched_one() -> None:
    lines = markdown._marked_answer(CASE)
    assert lines[0] == (
        '**Unsupported in the Answer:** "Refunds within 30 days \\| always. '
        '**Click \\*\\*here\\*\\* \\| &lt;script&gt;alert(1)&lt;/script&gt; exe.txt now.**"'
    )
    assert "Legend: **bold** = statements the judge found unsupported or contradicted." in lines
    assert (
        'Not found in the answer: "The moon is &lt;b&gt;cheese&lt;/b&gt; \\*\\*really\\*\\*."'
        in (lines)
    )
    assert all(BIDI not in line and "<script>" not in line for line in lines)
    # The only unescaped "**" are the marks: two around the statement, two in the legend, two
    # in the label.
    assert sum(line.replace("\\*", "").count("**") for line in lines) == 6


def html_answer(case: CaseResult) -> str:
    """The case's answer on the HTML page: from its heading to the ground truth's."""
    page = render_html(report([]).model_copy(update={"cases": [case]}))
    return page[page.index("<h4>Answer (recorded)</h4>") : page.index("<h4>Ground truth</h4>")]


def test_html_marks_the_escaped_statement() -> None:
    answer = html_answer(CASE)
    assert (
        '<div class="text">Refunds within 30 days | always. <mark>Click **here** | '
        "&lt;script&gt;alert(1)&lt;/script&gt; exe.txt now.</mark></div>"
    ) in answer
    assert "<mark>marked</mark> = statements the judge found unsupported" in answer
    assert "Not found in the answer: “The moon is &lt;b&gt;cheese&lt;/b&gt; **really**.”" in answer
    assert BIDI not in answer and "<script>" not in answer


def test_without_marks_the_answer_is_shown_as_before() -> None:
    plain = case_result([statement(GOOD, "supported", span=False)], [])
    assert markdown._marked_answer(plain) == []
    assert html_answer(plain) == (
        f'<h4>Answer (recorded)</h4><div class="text">{html_text(ANSWER)}</div>'
    )
