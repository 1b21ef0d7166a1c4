"""A dataset written as text: JSON, JSONL or YAML by the file's suffix.

Used by ``rag-eval convert`` and ``rag-eval generate``: strict JSON (no ``NaN``), the cases'
text as it is (no ``\\u`` escapes), the same document the same text.
"""

from __future__ import annotations

import json
from typing import Any

SUFFIXES = (".json", ".jsonl", ".yaml", ".yml")


def unknown_suffix(suffix: str) -> str:
    """The message for an output file of a type no dataset is written as."""
    return f"unknown file type {suffix or '(none)'!r} (use .json, .jsonl, .yaml or .yml)"


def dataset_text(document: dict[str, Any], suffix: str) -> str:
    """``{"metadata": ..., "test_cases": [...]}`` as the text of a ``suffix`` file (JSONL:
    one case a line, without the metadata)."""
    if suffix == ".jsonl":
        return "".join(
            json.dumps(c, ensure_ascii=False, allow_nan=False) + "\n"
            for c in document["test_cases"]
        )
    if suffix in (".yaml", ".yml"):
        import yaml

        return str(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
