"""A value an option does not accept ends the run with the fatal code and one line naming
where it came from, whether it was given on the command line or in the ini file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

BAD_VALUES = [
    ("fail-under", "2", "2 is not between 0 and 1"),
    ("fail-under-faithfulness", "high", "'high' is not a number"),
    ("judge-passes", "0", "0 must be 1 or more"),
    ("concurrency", "many", "'many' is not a whole number"),
    ("timeout", "-1", "-1 must be greater than 0"),
    ("slow-threshold", "0", "0 must be greater than 0"),
    ("shard", "4/3", "'4/3' is not a shard"),
    ("device", "gpu", "'gpu' is not one of cpu, cuda, auto"),
    ("adapter", "grpc", "'grpc' is not one of callable, http, langchain, llamaindex"),
    ("target", "no_colon", "'no_colon' is not of the form module:attribute"),
    ("endpoint", "ftp://x", "not an http:// or https:// URL (its scheme is 'ftp')"),
    ("judge", "two words", "'two words' is not a judge"),
    ("tags", ",", "',' names no tag"),
]
IDS = [name for name, _, _ in BAD_VALUES]


@pytest.mark.parametrize("where", ["command line", "ini file"])
@pytest.mark.parametrize(("name", "value", "message"), BAD_VALUES, ids=IDS)
def test_a_bad_value_is_fatal_and_names_the_flag_or_ini_key(
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
        source = f"ini option {key}"
        pytester.makeini(f"[pytest]\n{key} = {value}\n")
        result = pytester.runpytest("--rag-dataset", "dataset.json")
    assert result.ret == 3, result.stderr.str()
    stderr = result.stderr.str()
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Exit: rag-eval: {source}: {message}"), stderr
    output = stderr + result.stdout.str()
    assert "usage:" not in output
    assert "Traceback" not in output and "INTERNALERROR" not in output
    result.stdout.no_fnmatch_line("*collected*")


def test_a_bad_value_in_the_config_file_exits_with_the_same_code(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset()
    pytester.makefile(".yaml", **{"eval-config": "thresholds:\n  composite: 2\n"})
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    assert result.ret == 3
    result.stderr.fnmatch_lines(
        ["Exit: rag-eval: Invalid configuration *eval-config.yaml: key 'thresholds.composite'*"]
    )


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
