"""The judge cache is not trusted as it is: an entry edited, truncated or written before
entries had checksums is a miss, asked again and rewritten, never a verdict made up from
the damage."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import case, read_report

CONFTEST = """
import json, pytest

def judge(prompt):
    # The answer's one claim is not in its context.
    return json.dumps({"statements": [
        {"statement": "Shipping is free to Mars.", "verdict": "unsupported",
         "reason": "not in the contexts"}
    ]})

@pytest.fixture(scope="session")
def rag_judge():
    return judge
"""


def _edit(entry: Path) -> None:
    entry.write_text(entry.read_text().replace("unsupported", "supported"), encoding="utf-8")


def _truncate(entry: Path) -> None:
    entry.write_text(entry.read_text()[:40], encoding="utf-8")


def _unsigned(entry: Path) -> None:
    # An entry as written before entries had checksums, with its verdict edited too.
    data: dict[str, Any] = json.loads(entry.read_text())
    del data["checksum"]
    entry.write_text(json.dumps(data).replace("unsupported", "supported"), encoding="utf-8")


DAMAGE: dict[str, Callable[[Path], None]] = {
    "edited": _edit,
    "truncated": _truncate,
    "unsigned": _unsigned,
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_tampered_cache_entry_is_a_miss_and_is_rewritten(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], damage: str
) -> None:
    write_dataset(
        [
            case(
                "mars",
                "Where do you ship?",
                "Worldwide.",
                answer="Shipping is free to Mars.",
                contexts=["Refunds are available within 30 days."],
            )
        ]
    )
    pytester.makeconftest(CONFTEST)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.5\n"})
    args = ("--rag-dataset", "dataset.json", "--rag-judge-passes", "1")

    def run() -> tuple[str, int, int]:
        result = pytester.runpytest(*args)
        assert result.ret == 1
        report = read_report(pytester)
        usage = report["summary"]["usage"]
        status = report["cases"][0]["metrics"]["faithfulness"]["status"]
        return status, usage["judge_calls"], usage["cache_hits"]

    assert run() == ("failed", 1, 0)
    entries = sorted((pytester.path / ".pytest_cache").rglob("*.json"))
    entries = [e for e in entries if "rag_eval_judge" in e.parts]
    assert len(entries) == 2  # the request's reply and the question's outcome
    for entry in entries:
        DAMAGE[damage](entry)
    # The damage flips no verdict: the judge is asked again ...
    assert run() == ("failed", 1, 0)
    # ... and the entries are rewritten whole: the next run is served from the cache.
    assert run() == ("failed", 0, 1)
