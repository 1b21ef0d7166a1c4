"""The local judge's word tables: the TOML files of its ``word_tables`` folder (number words,
units, opposites, the words of claims, times and days, relevance and retention), each read
once and checked as it is read (:mod:`~rag_eval_pytest.text.lexicon`). The tables the metrics
share with the judge (stopwords, negations, demonyms, spellings, months, days) are
``text/word_tables``'."""

from __future__ import annotations

from ...text.lexicon import WordTable, word_table

PACKAGE = "rag_eval_pytest.judges.local"


def table(name: str) -> WordTable:
    """The judge's table ``name`` (``word_tables/<name>.toml``), read once per process."""
    return word_table(PACKAGE, name)
