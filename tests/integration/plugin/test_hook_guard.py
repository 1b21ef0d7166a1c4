"""Every hook of the plugin that runs plugin code turns an unexpected exception into one fatal
message naming the plugin, the hook and the cause: never pytest's INTERNALERROR traceback.

Each run breaks one plugin internal that the hook calls (from the project's conftest, in a
fresh process) and raises an error whose message holds the API key of the environment: the
message shows the cause with the key redacted, the run exits with the fatal code, and the
traceback appears only when asked for (``--tb=long``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

KEY = "sk-ant-guard-test-0123456789"

BOOM = """
import os

def boom(*args, **kwargs):
    raise RuntimeError("boom with " + os.environ["ANTHROPIC_API_KEY"])
"""

# hook -> conftest lines that make a plugin internal used by that hook raise
BREAKS = {
    "pytest_configure": "import rag_eval_pytest.pytest_support.notices as m\nm.issue = boom\n",
    "pytest_report_header": (
        "import rag_eval_pytest.pytest_support.dry_run as m\nm.header_line = boom\n"
    ),
    "pytest_generate_tests": (
        "from rag_eval_pytest.data.dataset import LoadedCase\n"
        "def pytest_collection(session):\n"
        "    LoadedCase.critical = property(boom)\n"
    ),
    "pytest_make_collect_report": (
        "import rag_eval_pytest.engine.zero_code as m\nm.dataset_collectors = boom\n"
    ),
    "pytest_collection_finish": (
        "import rag_eval_pytest.pytest_support.dry_run as m\nm.cost_line = boom\n"
    ),
    "pytest_collection_modifyitems": (
        "from rag_eval_pytest.engine.engine import Engine\nEngine.plan = boom\n"
    ),
    "pytest_runtest_makereport": (
        "from rag_eval_pytest.engine.case import ResultRecorder\nResultRecorder.properties = boom\n"
    ),
    "pytest_runtest_logreport": (
        "from rag_eval_pytest.reporting.aggregator import Aggregator\n"
        "Aggregator.add_report = boom\n"
    ),
    "pytest_sessionfinish": (
        "from rag_eval_pytest.reporting.aggregator import Aggregator\nAggregator.finish = boom\n"
    ),
    "pytest_terminal_summary": (
        "import rag_eval_pytest.reporting.terminal as m\nm.summary_lines = boom\n"
    ),
    "pytest_unconfigure": (
        "from rag_eval_pytest.engine.engine import Engine\nEngine.close = boom\n"
    ),
}


def broken_run(
    pytester: pytest.Pytester, rag_app: str, hook: str, *args: str
) -> tuple[pytest.RunResult, str]:
    pytester.makeconftest(BOOM + BREAKS[hook])
    pytester.makepyfile(
        test_rag="from rag_eval_pytest import assert_retrieval\n"
        "def test_retrieval(rag_case):\n    assert_retrieval(rag_case, recall=1.0)\n"
    )
    result = pytester.runpytest_subprocess(
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


@pytest.mark.parametrize("hook", list(BREAKS))
def test_an_error_in_a_hook_is_one_fatal_message(
    pytester: pytest.Pytester, project: str, hook: str
) -> None:
    result, output = broken_run(pytester, project, hook)
    assert "INTERNALERROR" not in output, output
    assert result.ret == 3, output
    message = f"rag-eval: internal error in {hook}: RuntimeError: boom with [REDACTED]"
    assert output.count(message) >= 1, output
    assert "please report it" in output
    assert KEY not in output
    assert "Traceback" not in output, output


def test_the_traceback_is_shown_with_tb_long_and_redacted(
    pytester: pytest.Pytester, project: str
) -> None:
    result, output = broken_run(pytester, project, "pytest_report_header", "--tb=long")
    assert result.ret == 3
    assert "Traceback (most recent call last)" in output
    assert 'raise RuntimeError("boom with "' in output
    assert KEY not in output and "INTERNALERROR" not in output
