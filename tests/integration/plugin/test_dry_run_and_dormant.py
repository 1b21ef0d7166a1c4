"""The dry run, the dormant plugin, and disabling the plugin."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case


def test_dry_run_lists_cases_critical_first_and_calls_nothing(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [case("late", "second?"), case("first", "critical?", critical=True, tags=["core"])]
    )
    pytester.makeconftest("""
import pytest
@pytest.fixture(scope="session")
def rag_adapter():
    raise AssertionError("the dry run must not build the adapter")
""")
    pytester.makepyfile(test_rag="def test_x(rag_case): raise AssertionError('ran')\n")
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-dry-run", "--rag-fail-under", "0.8"
    )
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "rag-eval dry run: dataset and configuration are valid; nothing was called.",
            "*selected: 2 cases (1 critical)",
            "  first ?critical; tags core?: critical?",
            "  late: second?",
            "*metrics (zero-code mode): faithfulness (default threshold), answer_relevance*",
            "run thresholds: composite >= 0.80",
            "RAG queries: 2*",
        ]
    )
    assert not (pytester.path / "results").exists()


def test_dry_run_shows_a_conversation_as_its_turns(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    # It used to show the first question alone: "fees: What does a personal account cost?".
    write_dataset(
        [
            {
                "id": "fees",
                "tags": ["billing"],
                "turns": [
                    {"question": "What does a personal account cost?"},
                    {"question": "And for business accounts?"},
                    {"question": "Is there a discount?", "answer": "No.", "contexts": ["No."]},
                ],
            },
            case("single", "Do you ship abroad?"),
        ]
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-dry-run")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "  fees ?conversation of 3 turns; tags billing?:",
            "    turn 1: What does a personal account cost?",
            "    turn 2: And for business accounts?",
            "    turn 3 ?pre-recorded answer?: Is there a discount?",
            "  single: Do you ship abroad?",
            "*RAG queries: 3",  # two turns asked, one recorded, and the single case
        ]
    )


def test_dry_run_estimates_judge_calls_tokens_and_cost(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_dataset([case("a", "first?"), case("b", "second?")])
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dry-run-never-used")
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-dry-run")
    assert result.ret == 0
    # 2 cases x 4 judge-based default metrics x 1 vote (passes: auto; a verdict near its
    # threshold gets more, which no estimate knows before the scores).
    result.stdout.fnmatch_lines(
        ["judge anthropic (claude-*), zero-code metrics, estimated: 8 judge calls, ~* tokens, ~$*"]
    )
    assert "sk-ant-dry-run-never-used" not in result.stdout.str()


def test_the_cost_estimate_is_for_what_the_run_asks(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_dataset([case("alpha", "first?"), case("beta", "second?"), case("gamma", "third?")])
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-estimate-never-used")
    zero_code = pytester.runpytest(
        "--rag-dataset=dataset.json", "--collect-only", "-k", "alpha or beta"
    )
    # The zero-code tests selected: 2 cases x 4 judge-based default metrics x 1 vote.
    zero_code.stdout.fnmatch_lines(
        ["rag-eval: judge cost estimate for the 2 zero-code tests: 8 judge calls, *~$*"]
    )
    zero_code.stdout.no_fnmatch_line("*est. ~$*")  # not in the header, before it is known

    # Tests that take rag_case choose their metrics: no zero-code estimate passed off as theirs.
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    suite = pytester.runpytest("--rag-dataset=dataset.json", "--collect-only")
    suite.stdout.fnmatch_lines(["rag-eval: judge cost not estimated: the tests that take rag_c*"])
    assert "$" not in suite.stdout.str()
    assert "sk-ant-estimate-never-used" not in suite.stdout.str() + zero_code.stdout.str()


def test_without_dataset_the_plugin_is_dormant(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_plain="def test_ok(): pass\n", test_case="def test_needs(rag_case): pass\n"
    )
    result = pytester.runpytest("-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED*rag_case needs a dataset: run pytest with --rag-data*"])
    result.stdout.no_fnmatch_line("*rag-eval:*")
    assert not (pytester.path / "results").exists()


def test_plugin_can_be_disabled(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset()
    pytester.makepyfile(test_plain="def test_ok(): pass\n")
    result = pytester.runpytest("-p", "no:rag_eval", "--rag-dataset", "dataset.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unrecognized arguments: --rag-dataset*"])


def test_strict_markers_accept_rag_critical(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_m="""
import pytest
@pytest.mark.rag_critical
def test_marked(): pass
"""
    )
    pytester.runpytest("--strict-markers").assert_outcomes(passed=1)


DORMANT_CHECK = """
import sys, pytest
code = pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]])
print("MODULES", sorted(sys.modules))
"""

HEAVY = (
    "torch",
    "sentence_transformers",
    "anthropic",
    "httpx",
    "pydantic",
    "yaml",
    "langchain_core",
    "llama_index",
    "numpy",
    "jinja2",
    "markupsafe",
    "snowballstemmer",
)


def _modules(pytester: pytest.Pytester, *args: str) -> set[str]:
    script = pytester.path / "check.py"
    out = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        cwd=pytester.path,
        check=True,
    ).stdout
    line = next(line for line in out.splitlines() if line.startswith("MODULES "))
    return set(ast.literal_eval(line.removeprefix("MODULES ")))


def test_dormant_run_imports_nothing_heavy(pytester: pytest.Pytester) -> None:
    test_file = pytester.makepyfile(test_plain="def test_ok(): pass\n")
    pytester.makepyfile(check=DORMANT_CHECK)
    with_plugin = _modules(pytester, str(test_file))
    without = _modules(pytester, str(test_file), "-p", "no:rag_eval")
    added = {m.split(".")[0] for m in with_plugin - without}
    assert not added & set(HEAVY), added
    ours = sorted(m for m in with_plugin if m.startswith("rag_eval_pytest"))
    # The entry module, the option table, the metric registry, and what waits for a case
    # made in code: the running test and the dormant run's object.
    assert ours == sorted(
        [
            "rag_eval_pytest",
            "rag_eval_pytest.errors",
            "rag_eval_pytest.plugin",
            "rag_eval_pytest.pytest_support",
            "rag_eval_pytest.pytest_support.guard",
            "rag_eval_pytest.pytest_support.aggregation",
            "rag_eval_pytest.pytest_support.inline",
            "rag_eval_pytest.pytest_support.startup",
            "rag_eval_pytest.engine",
            "rag_eval_pytest.engine.running",
            "rag_eval_pytest.metrics",
            "rag_eval_pytest.metrics.registry",
            "rag_eval_pytest.config",
            "rag_eval_pytest.config.options",
        ]
    )
