"""Every hook of the plugin that runs plugin code turns an unexpected exception into one fatal
message naming the plugin, the hook and the cause: never pytest's INTERNALERROR traceback.

Each run breaks one plugin internal that the hook calls (from the project's conftest; the
test puts it back) and raises an error whose message holds the API key of the environment: the
message shows the cause with the key redacted, the run exits with the fatal code, and the
traceback appears only when asked for (``--tb=long``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

KEY = "sk-ant-guard-test-0123456789"

BOOM = """
import os

def boom(*args, **kwargs):
    raise RuntimeError("boom with " + os.environ["ANTHROPIC_API_KEY"])
"""

AGGREGATOR = "rag_eval_pytest.reporting.aggregator"
# hook -> the plugin internal that hook calls (module, class or "", attribute), broken from
# the project's conftest
BROKEN = {
    "pytest_configure": ("rag_eval_pytest.pytest_support.notices", "", "issue"),
    "pytest_report_header": ("rag_eval_pytest.pytest_support.dry_run", "", "header_line"),
    "pytest_generate_tests": ("rag_eval_pytest.data.dataset", "LoadedCase", "critical"),
    "pytest_make_collect_report": ("rag_eval_pytest.engine.zero_code", "", "dataset_collectors"),
    "pytest_collection_finish": ("rag_eval_pytest.pytest_support.dry_run", "", "cost_line"),
    "pytest_collection_modifyitems": ("rag_eval_pytest.engine.engine", "Engine", "plan"),
    "pytest_runtest_makereport": ("rag_eval_pytest.engine.case", "ResultRecorder", "properties"),
    "pytest_runtest_logreport": (AGGREGATOR, "Aggregator", "add_report"),
    "pytest_sessionfinish": (AGGREGATOR, "Aggregator", "finish"),
    "pytest_terminal_summary": ("rag_eval_pytest.reporting.terminal", "", "summary_lines"),
    "pytest_unconfigure": ("rag_eval_pytest.engine.engine", "Engine", "close"),
}


def breaking(hook: str) -> str:
    """The conftest lines that make the internal of ``hook`` raise (a property of a case is
    broken once the dataset is loaded, where the parametrization reads it)."""
    module, owner, attribute = BROKEN[hook]
    target = f"importlib.import_module({module!r})" + (f".{owner}" if owner else "")
    if hook == "pytest_generate_tests":
        return (
            f"import importlib\ndef pytest_collection(session):\n"
            f"    {target}.{attribute} = property(boom)\n"
        )
    return f"import importlib\nsetattr({target}, {attribute!r}, boom)\n"


def broken_run(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    rag_app: str,
    hook: str,
    *args: str,
) -> tuple[pytest.RunResult, str]:
    """A run in this process whose conftest breaks the internal of ``hook``; the internal is
    put back when the test ends."""
    module, owner, attribute = BROKEN[hook]
    target = importlib.import_module(module)
    if owner:
        target = getattr(target, owner)
    monkeypatch.setattr(target, attribute, vars(target)[attribute])
    pytester.makeconftest(BOOM + breaking(hook))
    pytester.makepyfile(
        test_rag="from rag_eval_pytest import assert_retrieval\n"
        "def test_retrieval(rag_case):\n    assert_retrieval(rag_case, recall=1.0)\n"
    )
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", f"--rag-target={rag_app}", "-p", "no:randomly", *args
    )
    return result, result.stdout.str() + result.stderr.str()


@pytest.fixture
def project(
    write_dataset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, rag_app: str
) -> str:
    write_dataset()
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    return rag_app


@pytest.mark.parametrize("hook", list(BROKEN))
def test_an_error_in_a_hook_is_one_fatal_message(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, project: str, hook: str
) -> None:
    result, output = broken_run(pytester, monkeypatch, project, hook)
    assert "INTERNALERROR" not in output, output
    assert result.ret == 3, output
    message = f"rag-eval: internal error in {hook}: RuntimeError: boom with [REDACTED]"
    assert output.count(message) >= 1, output
    assert "please report it" in output
    assert KEY not in output
    assert "Traceback" not in output, output


def test_the_traceback_is_shown_with_tb_long_and_redacted(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, project: str
) -> None:
    result, output = broken_run(pytester, monkeypatch, project, "pytest_report_header", "--tb=long")
    assert result.ret == 3
    assert "Traceback (most recent call last)" in output
    assert 'raise RuntimeError("boom with "' in output
    assert KEY not in output and "INTERNALERROR" not in output
