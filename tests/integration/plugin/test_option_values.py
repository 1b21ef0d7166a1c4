"""A value an option does not accept ends the run with the fatal code and one line naming
where it came from: the flag, the ini key and its file, or the config file and its key.
The settings model validates every value once, so each source gets the same message."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

BAD_VALUES = [
    ("fail-under", "2", "2 is not between 0 and 1"),
    ("judge-passes", "0", "0 must be 1 or more"),
    ("concurrency", "many", "'many' is not a whole number"),
    ("timeout", "-1", "-1 must be greater than 0"),
    ("slow-threshold", "0", "0 must be greater than 0"),
    ("shard", "4/3", "'4/3' is not a shard"),
    ("adapter", "grpc", "'grpc' is not one of callable, http, langchain, llamaindex"),
    ("target", "no_colon", "'no_colon' is not of the form module:attribute"),
    ("endpoint", "ftp://x", "not an http:// or https:// URL (its scheme is 'ftp')"),
    ("judge", "two words", "unknown judge 'two words': use auto, anthropic, openai, local"),
    ("tags", ",", "a tag must not be blank"),
]
IDS = [name for name, _, _ in BAD_VALUES]


def assert_one_fatal_line(result: pytest.RunResult, expected: str) -> None:
    assert result.ret == 3, result.stderr.str()
    stderr = result.stderr.str()
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Exit: rag-eval: {expected}"), stderr
    output = stderr + result.stdout.str()
    assert "usage:" not in output
    assert "Traceback" not in output and "INTERNALERROR" not in output
    result.stdout.no_fnmatch_line("*collected*")


@pytest.mark.parametrize("where", ["command line", "ini file"])
@pytest.mark.parametrize(("name", "value", "message"), BAD_VALUES, ids=IDS)
def test_a_bad_value_is_fatal_and_names_the_flag_or_the_ini_key_and_file(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    where: str,
    name: str,
    value: str,
    message: str,
) -> None:
    write_dataset()
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    if where == "command line":
        source = f"--rag-{name}"
        result = pytester.runpytest("--rag-dataset", "dataset.json", source, value)
    else:
        key = "rag_" + name.replace("-", "_")
        source = f"{key} in tox.ini"
        pytester.makeini(f"[pytest]\n{key} = {value}\n")
        result = pytester.runpytest("--rag-dataset", "dataset.json")
    assert_one_fatal_line(result, f"{source}: {message}")


CONFIG_VALUES = [
    ("thresholds:\n  composite: 2\n", "thresholds.composite", "2 is not between 0 and 1"),
    ("slow_threshold: soon\n", "slow_threshold", "'soon' is not a number"),
    ("judge:\n  passes: 0\n", "judge.passes", "0 must be 1 or more"),
    ("judge:\n  passes: 2.5\n", "judge.passes", "2.5 is not a whole number"),
    (
        "judge:\n  local:\n    device: gpu\n",
        "judge.local.device",
        "'gpu' is not one of cpu, cuda, auto",
    ),
    ("target: no_colon\n", "target", "'no_colon' is not of the form module:attribute"),
    ("judge:\n  kind: two words\n", "judge.kind", "unknown judge 'two words'"),
    ("tags: [billing, ' ']\n", "tags", "a tag must not be blank"),
    ("output:\n  history: maybe\n", "output.history", "'maybe' is not true or false"),
    # Python counts a bool as 1 or 0: `deadline: true` was one second.
    ("judge:\n  deadline: true\n", "judge.deadline", "true is not a number"),
    ("thresholds:\n  composite: true\n", "thresholds.composite", "true is not a number"),
    (
        "http:\n  retry:\n    max_attempts: false\n",
        "http.retry.max_attempts",
        "false is not a number",
    ),
    # 0 found no change significant: the regression gate was off without a word.
    (
        "regression:\n  alpha: 0\n",
        "regression.alpha",
        "0 is not a significance level: it must be greater than 0 and at most 0.5",
    ),
    ("regression:\n  alpha: 0.6\n", "regression.alpha", "0.6 is not a significance level"),
]


@pytest.mark.parametrize(
    ("config", "key", "message"), CONFIG_VALUES, ids=[key for _, key, _ in CONFIG_VALUES]
)
def test_a_bad_value_in_the_config_file_names_the_file_and_key_with_the_same_words(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    config: str,
    key: str,
    message: str,
) -> None:
    write_dataset()
    path = pytester.makefile(".yaml", **{"eval-config": config})
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    assert_one_fatal_line(result, f"Invalid configuration {path}: key {key!r}: {message}")


def test_a_bad_value_from_the_environment_names_the_reference(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_dataset()
    monkeypatch.setenv("RAG_SLOW", "soon")
    path = pytester.makefile(".yaml", **{"eval-config": "slow_threshold: ${RAG_SLOW}\n"})
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    assert_one_fatal_line(
        result,
        f"Invalid configuration {path}: key 'slow_threshold' ('${{RAG_SLOW}}' from the "
        "environment): 'soon' is not a number",
    )


def test_a_bad_value_from_a_credential_variable_is_not_repeated(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_dataset()
    monkeypatch.setenv("RAG_API_TOKEN", "sk-never-shown-4711")
    pytester.makefile(".yaml", **{"eval-config": "judge:\n  passes: ${RAG_API_TOKEN}\n"})
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    assert_one_fatal_line(result, "Invalid configuration")
    result.stderr.fnmatch_lines(
        ["*key 'judge.passes' (*RAG_API_TOKEN*): the value is not a whole number"]
    )
    assert "sk-never-shown-4711" not in result.stderr.str() + result.stdout.str()


@pytest.mark.parametrize(
    ("ini", "message"),
    [
        ("rag_fatal_exit_code = x", "rag_fatal_exit_code in tox.ini: 'x' is not a whole number"),
        (
            "rag_critical_exit_code = 300",
            "rag_critical_exit_code in tox.ini: 300 must be 255 or less",
        ),
    ],
    ids=["fatal-code", "critical-code"],
)
def test_an_ini_only_key_is_validated_by_the_same_model_and_named(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], ini: str, message: str
) -> None:
    write_dataset()
    pytester.makeini(f"[pytest]\n{ini}\n")
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    assert_one_fatal_line(result, message)


def test_the_ini_file_is_named_as_it_is_found(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset()
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\nrag_fail_under = "1.5"\n')
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    assert_one_fatal_line(result, "rag_fail_under in pyproject.toml: 1.5 is not between 0 and 1")


def test_a_bad_item_of_a_repeated_flag_names_the_flag(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset()
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    result = pytester.runpytest(
        "--rag-dataset",
        "dataset.json",
        "--rag-header",
        "X-Team: search",
        "--rag-header",
        "secret-4711-without-a-name",
    )
    assert_one_fatal_line(result, '--rag-header: expected "Name: value"')
    assert "secret-4711" not in result.stderr.str() + result.stdout.str()


def test_a_flag_wins_over_the_ini_key_and_is_the_one_named(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset()
    pytester.makeini("[pytest]\nrag_judge_passes = 1\n")
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-judge-passes", "16")
    assert_one_fatal_line(result, "--rag-judge-passes: 16 must be 15 or less")


def test_good_values_from_both_sources_are_used(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset()
    pytester.makeini("[pytest]\nrag_tags = billing, account\nrag_judge_passes = 1\n")
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-tags", "billing", "--rag-dry-run"
    )
    assert result.ret == 0, result.stderr.str()
    result.stdout.fnmatch_lines(["*tc_001*"])
    result.stdout.no_fnmatch_line("*tc_002*")


@pytest.mark.parametrize("key", ["rag_report_only", "rag_no_cache", "rag_dry_run"])
@pytest.mark.parametrize("where", ["ini file", "-o"])
def test_a_flag_s_ini_key_that_is_not_true_or_false_is_fatal_and_named(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], key: str, where: str
) -> None:
    write_dataset()
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    if where == "ini file":
        pytester.makeini(f"[pytest]\n{key} = maybe\n")
        result = pytester.runpytest("--rag-dataset", "dataset.json")
        assert_one_fatal_line(result, f"{key} in tox.ini: 'maybe' is not true or false")
    else:
        result = pytester.runpytest("--rag-dataset", "dataset.json", "-o", f"{key}=maybe")
        assert_one_fatal_line(result, f"-o {key}: 'maybe' is not true or false")


def test_a_dry_run_ini_key_that_is_not_true_or_false_is_fatal_without_a_dataset(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_rag="def test_x(): pass\n")
    result = pytester.runpytest("-o", "rag_dry_run=maybe")
    assert_one_fatal_line(result, "-o rag_dry_run: 'maybe' is not true or false")
    result = pytester.runpytest("-o", "rag_dry_run=off")
    assert result.ret == 0
    result.assert_outcomes(passed=1)


def test_a_metric_gate_takes_the_metric_s_name_with_underscores_or_dashes(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset()
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    for name in ("answer_correctness", "answer-correctness"):
        gate = ("--rag-fail-under", f"{name}=0.8")
        result = pytester.runpytest("--rag-dataset", "dataset.json", *gate, "--rag-dry-run")
        assert result.ret == 0, result.stderr.str()
        result.stdout.fnmatch_lines(["run thresholds: answer_correctness >= 0.80"])
        result = pytester.runpytest("--rag-dataset", "dataset.json", gate[0], f"{name}=1.5")
        assert_one_fatal_line(result, f"--rag-fail-under {name}: 1.5 is not between 0 and 1")
