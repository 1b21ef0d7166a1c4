"""Markdown tables read as one sentence per row, each value named by its column."""

from __future__ import annotations

from rag_eval_pytest.text.tables import tables_as_sentences

PRICES = (
    "Prices:\n\n| Plan | Price |\n|:---|---:|\n| Basic | $10/month |\n| Pro | $25/month |\n\n"
    "Cancel anytime."
)


def test_each_row_is_a_sentence_that_names_its_values_by_column() -> None:
    assert tables_as_sentences(PRICES)[0] == (
        "Prices:\n\nPlan: Basic; Price: $10/month.\nPlan: Pro; Price: $25/month.\n\nCancel anytime."
    )


def test_rows_without_the_outer_pipes_and_empty_cells() -> None:
    table = "Day | Opens | Closes\n--- | --- | ---\nSaturday | 9:00 |\nSunday | closed | closed"
    assert tables_as_sentences(table)[0] == (
        "Day: Saturday; Opens: 9:00.\nDay: Sunday; Opens: closed; Closes: closed."
    )


def test_text_without_a_table_is_left_as_it_is() -> None:
    for text in ("a | b", "x\n---\ny", "| a | b |\nno rule here", "plain text"):
        assert tables_as_sentences(text) == (text, frozenset())
