"""The live progress line while the cases are evaluated ahead of the tests: shown on a
terminal (a real pseudo-terminal here), erased before pytest writes again, and quiet under
``-q`` and when the output is not a terminal."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case

SLOW_APP = """
import time

def answer(question):
    time.sleep(0.3)
    return "Refunds within 30 days.", [{"text": "Refunds within 30 days.", "source": "doc.md"}]
"""

STATUS = re.compile(r"\x1b7  (rag-eval: (\d+)/12 cases evaluated[^\x1b]*)\x1b8\x1b\[K")


@pytest.fixture
def slow_suite(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> list[str]:
    write_dataset([case(f"c{i:02d}", f"q {i}?", expected_contexts=["doc.md"]) for i in range(12)])
    pytester.makepyfile(slow_app=SLOW_APP)
    pytester.makefile(
        ".yaml", **{"eval-config": "metrics:\n  retrieval_recall: 1.0\nconcurrency:\n  limit: 2\n"}
    )
    return [
        sys.executable, "-m", "pytest", "--rag-dataset=dataset.json",
        "--rag-target=slow_app.py:answer", "-p", "no:cacheprovider", "-p", "no:randomly",
    ]  # fmt: skip


def run_on_a_terminal(cwd: Path, command: list[str]) -> tuple[int, str]:
    """Run ``command`` with its output on a pseudo-terminal, as in an interactive shell."""
    primary, secondary = pty.openpty()
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
    process = subprocess.Popen(command, cwd=cwd, stdout=secondary, stderr=secondary, env=env)
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(primary)
    return process.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")


def test_a_terminal_shows_cases_done_while_tests_wait_and_pytest_output_stays_intact(
    pytester: pytest.Pytester, slow_suite: list[str]
) -> None:
    code, output = run_on_a_terminal(pytester.path, slow_suite)
    assert code == 0, output
    shown = STATUS.findall(output)
    assert shown, output
    done = [int(n) for _, n in shown]
    assert done == sorted(done) and 0 < done[-1] <= 12 and len(set(done)) > 1, shown
    # Every status is erased where it was written: without them, pytest's line of dots is
    # whole, and no status text is left anywhere else.
    plain = re.sub(r"\x1b\[[0-9;]*m", "", STATUS.sub("", output))  # colours aside
    assert "\x1b7" not in plain and "\x1b8" not in plain
    assert "cases evaluated" not in plain
    assert re.search(r"dataset\.json \.{12} +\[100%\]", plain), plain


def test_quiet_under_q_and_when_not_a_terminal(
    pytester: pytest.Pytester, slow_suite: list[str]
) -> None:
    code, output = run_on_a_terminal(pytester.path, [*slow_suite, "-q"])
    assert code == 0, output
    assert "cases evaluated" not in output
    piped = subprocess.run(slow_suite, cwd=pytester.path, capture_output=True, text=True)
    assert piped.returncode == 0, piped.stdout
    assert "12 passed" in piped.stdout
    assert "cases evaluated" not in piped.stdout + piped.stderr
    assert "\x1b7" not in piped.stdout
