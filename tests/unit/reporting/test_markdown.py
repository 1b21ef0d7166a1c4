"""The Markdown report's trace of a conversation: its turns, the failing first, each with its
own contexts, answer, ground truth and expected documents; then the conversation's scores.
The case's own question and response (its first question, its last answer) are not shown
again as if they were one question's."""

from __future__ import annotations

from rag_eval_pytest.reporting.markdown import render_markdown
from tests.unit.reporting.test_html import case, metric, report, turn


def test_a_conversation_trace_shows_each_turns_own_data_and_then_its_scores() -> None:
    turns = [
        turn(1, "What does an account cost?", "5 EUR a month.", 1.0),
        turn(2, "And for business?", "The moon is cheese.", 0.5),
    ]
    turns[0]["ground_truth"] = "5 EUR."
    turns[1]["expected_contexts"] = ["business.md"]
    chat = case(
        "chat",
        "failed",
        question=turns[0]["question"],
        answer="The moon is cheese.",
        ground_truth=None,
        turns=turns,
        metrics={"faithfulness": metric("chat", "faithfulness", 0.5)},
    )
    text = render_markdown(report([case("ok"), chat]))
    trace = text[text.index("### FAILED: chat") :]
    second, first = trace.index("#### Turn 2 (FAILED)"), trace.index("#### Turn 1 (PASSED)")
    assert second < first
    turn_2, turn_1 = trace[second:first], trace[first : trace.index("**Scores of the")]
    assert '1. "The context of turn 2." (t2.md)' in turn_2
    assert "**Expected Contexts:** business.md" in turn_2
    assert '**Ground Truth:** "5 EUR."' in turn_1 and "(t1.md)" in turn_1
    # Not the last answer again as the case's, nor a ground truth of none.
    assert "**Generated Answer:**" not in trace.split("### ", 2)[1]
    assert "_(none)_" not in trace.split("### ", 2)[1]
    assert "- Faithfulness: 0.50 (threshold 0.70, FAILED)" in trace
