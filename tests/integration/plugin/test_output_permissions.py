"""The output folder as an artifact: files another user can read, nothing else left in it."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import case

CONFIG = "metrics:\n  retrieval_recall: null\n"


@pytest.fixture
def umask() -> Iterator[Callable[[int], None]]:
    previous = os.umask(0o022)
    os.umask(previous)

    def set_umask(value: int) -> None:
        os.umask(value)

    yield set_umask
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o027, 0o640)])
def test_reports_get_the_mode_the_umask_gives_and_no_lock_file_is_left(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    umask: Callable[[int], None],
    mask: int,
    expected: int,
) -> None:
    write_dataset([case("hit", "refund policy?", expected_contexts=["policy.md"])])
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    umask(mask)
    result = pytester.runpytest_subprocess("--rag-dataset=dataset.json", f"--rag-target={rag_app}")
    assert result.ret == 0, result.stdout.str()
    out = pytester.path / "results"
    modes = {str(p.relative_to(out)): mode(p) for p in out.rglob("*")}
    kept = next(p for p in modes if p.startswith("baselines/"))  # the cases kept for the next run
    assert modes == {
        "eval_report.json": expected,
        "eval_report.md": expected,
        "eval_report.html": expected,
        "eval_summary.md": expected,
        "results.jsonl": expected,
        "baselines": 0o777 & ~mask,
        kept: expected,
    }
