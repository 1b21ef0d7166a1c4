"""Documents split into chunks: at headings, then paragraphs, with ids that stay the same for
the same document, named as the user's RAG system names what it returns."""

from __future__ import annotations

from rag_eval_pytest.generate.chunking import MAX_CHARS, chunk_document
from rag_eval_pytest.generate.documents import Document, Row, html_text

MARKDOWN = """---
title: Refunds
---
# Refunds

Customers can request a full refund within 30 days of purchase.

```python
refund(order_id)  # code is not prose
```

| plan | price |
|---|---|

## Steps

1. Open the order page
2. Click "Refund".
"""


def test_headings_and_paragraphs_make_chunks_with_stable_ids() -> None:
    document = Document("docs/refunds.md", "markdown", MARKDOWN)
    chunks = chunk_document(document)
    assert [(c.id, c.heading) for c in chunks] == [
        ("docs/refunds.md#1", "Refunds"),
        ("docs/refunds.md#2", "Steps"),
    ]
    assert chunks[0].text == "Customers can request a full refund within 30 days of purchase."
    assert chunks[1].text == 'Open the order page. Click "Refund".'  # list items: sentences
    assert chunk_document(document) == chunks
    assert (chunks[1].source("path"), chunks[1].source("chunk")) == (
        "docs/refunds.md",
        "docs/refunds.md#2",
    )
    assert chunks[0].full_text.startswith("Refunds\nCustomers")


def test_a_long_section_is_split_between_sentences_and_a_text_title_is_a_heading() -> None:
    sentence = "Standard delivery takes 5 business days within the European Union. "
    text = "Shipping\n\n" + sentence * 40
    chunks = chunk_document(Document("shipping.txt", "text", text))
    assert len(chunks) > 1
    assert all(len(c.text) <= MAX_CHARS and c.heading == "Shipping" for c in chunks)
    assert all(c.text.endswith("European Union.") for c in chunks)


def test_jsonl_rows_are_chunks_as_they_are() -> None:
    rows = (Row("Webhooks retry 5 times.", "kb-1"), Row("Keys rotate yearly.", "kb-2"),
            Row("Keys expire after 90 days.", "kb-2"))  # fmt: skip
    chunks = chunk_document(Document("rows.jsonl", "jsonl", "", rows))
    assert [c.id for c in chunks] == ["kb-1", "kb-2#1", "kb-2#2"]
    assert [c.source("path") for c in chunks] == ["kb-1", "kb-2", "kb-2"]


def test_html_keeps_its_text_and_headings_not_its_scripts() -> None:
    page = (
        "<html><head><style>p {}</style></head><body><h2>Security</h2><p>Data is "
        "<b>encrypted</b>.</p><script>track()</script><p>Reports within 24&nbsp;hours.</p>"
    )
    assert html_text(page) == "## Security\n\nData is encrypted.\n\nReports within 24 hours."
