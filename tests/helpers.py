"""Helpers shared by the tests: a tiny RAG app, default cases, report reading."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import pkgutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

APP = """
DOCS = {
    "policy.md": "Full refund within 30 days of purchase.",
    "password.md": "Click Forgot Password on the login page to reset your password.",
    "shipping.md": "We ship worldwide within 5 business days.",
}

def answer(question):
    words = [w.strip("?.,").lower() for w in question.split() if len(w) > 3]
    hits = [(name, text) for name, text in DOCS.items() if any(w in text.lower() for w in words)]
    contexts = [{"text": text, "source": name} for name, text in hits]
    return (" ".join(text for _, text in hits) or "I don't know."), contexts
"""


def case(id: str, question: str, ground_truth: str = "gt", **extra: Any) -> dict[str, Any]:
    return {"id": id, "question": question, "ground_truth": ground_truth, **extra}


DEFAULT_CASES = [
    case(
        "tc_001",
        "What is the refund policy?",
        "Full refund within 30 days.",
        expected_contexts=["policy.md"],
        critical=True,
        tags=["billing"],
    ),
    case(
        "tc_002",
        "How do I reset my password?",
        "Click Forgot Password.",
        expected_contexts=["password.md"],
        tags=["account"],
    ),
    case(
        "tc_003",
        "Do you deliver abroad?",
        "Yes, worldwide.",
        expected_contexts=["shipping.md"],
        tags=["shipping"],
    ),
]


# One case whose answer its context supports: a judged metric passes with any sound judge.
GROUNDED_CASES = [
    case(
        "pto",
        "How many days of paid time off do employees get?",
        "20 days.",
        answer="Full-time employees receive 20 days of paid time off.",
        contexts=["Full-time employees receive 20 days paid time off annually."],
    )
]


def installed(*modules: str) -> pytest.MarkDecorator:
    """Skip unless each module is installed, without importing it: every xdist worker
    collects every test file, and a ``pytest.importorskip`` at a module's top imports the
    library in each of them (sentence-transformers alone takes 9 s of CPU here)."""

    def found(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is not None
        except ImportError:  # its parent package is missing
            return False

    missing = [name for name in modules if not found(name)]
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)}")


def read_report(pytester: pytest.Pytester, directory: str = "results") -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (pytester.path / directory / "eval_report.json").read_text(encoding="utf-8")
    )
    return data


def read_junit(path: Path) -> dict[str, ET.Element]:
    """A JUnit XML file's test cases, by their name (``test_x[case]``)."""
    return {str(t.get("name")): t for t in ET.parse(path).getroot().iter("testcase")}


def preload_plugin_modules() -> None:
    """Import every module of the plugin, before any in-process run: pytester drops the
    modules a run imported when it ends (the libraries excepted, see
    tests/integration/conftest.py), and the plugin's classes must stay one copy each."""
    import rag_eval_pytest

    for info in pkgutil.walk_packages(rag_eval_pytest.__path__, "rag_eval_pytest."):
        with contextlib.suppress(ImportError):  # an optional extra that is not installed
            importlib.import_module(info.name)
