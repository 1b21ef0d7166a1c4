"""Bad datasets and configs end the run before any test, with one message and exit 3."""

from __future__ import annotations

import json

import pytest


def run_bad(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    return pytester.runpytest("--rag-target", "app:answer", *args)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "dataset.json: the file is empty"),
        ('{"test_cases": [', "dataset.json: invalid JSON at line 1, column 17"),
        (
            json.dumps({"test_cases": [{"id": "tc_9", "ground_truth": "g"}]}),
            "case 'tc_9' (test_cases[0]): field 'question' is required",
        ),
        (
            json.dumps(
                {
                    "test_cases": [
                        {"id": "x", "question": "q", "ground_truth": "g"},
                        {"id": "x", "question": "r", "ground_truth": "g"},
                    ]
                }
            ),
            "case 'x' (test_cases[1]): duplicate id",
        ),
        (
            json.dumps(
                {"test_cases": [{"question": "q", "ground_truth": "g", "critical": "yes!"}]}
            ),
            "field 'critical': Input should be a valid boolean",
        ),
    ],
)
def test_invalid_dataset(pytester: pytest.Pytester, content: str, message: str) -> None:
    (pytester.path / "dataset.json").write_text(content)
    result = run_bad(pytester, "--rag-dataset", "dataset.json")
    assert result.ret == 3
    stderr = result.stderr.str()
    assert stderr.startswith("Exit: rag-eval: ") and message in stderr, stderr
    assert "Traceback" not in stderr
    result.stdout.no_fnmatch_line("*collected*")


def test_missing_dataset_file(pytester: pytest.Pytester) -> None:
    result = run_bad(pytester, "--rag-dataset", "nope.json")
    assert result.ret == 3
    result.stderr.fnmatch_lines(["*rag-eval: Dataset *nope.json: file not found*"])


def test_fatal_code_is_configurable(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nrag_fatal_exit_code = 12\n")
    result = run_bad(pytester, "--rag-dataset", "nope.json")
    assert result.ret == 12


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("thresholds:\n  composit: 0.8\n", "unknown metric 'composit'"),
        ("outputs:\n  directory: x\n", "unknown key 'outputs'"),
        ("slow_threshold: soon\n", "key 'slow_threshold': 'soon' is not a number"),
        (
            "target: ${RAG_TARGET_NOT_SET}\n",
            "key 'target': environment variable RAG_TARGET_NOT_SET is not set",
        ),
        ("weights: [1, 2\n", "invalid YAML"),
    ],
)
def test_invalid_config(pytester: pytest.Pytester, config: str, message: str) -> None:
    (pytester.path / "dataset.json").write_text(
        json.dumps({"test_cases": [{"question": "q", "ground_truth": "g"}]})
    )
    pytester.makefile(".yaml", **{"eval-config": config})
    result = run_bad(pytester, "--rag-dataset", "dataset.json")
    assert result.ret == 3
    result.stderr.fnmatch_lines([f"*Invalid configuration *eval-config.yaml*{message}*"])


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("nope.yaml", "nope.yaml not found"),
        (
            "/dev/null",
            "Configuration file /dev/null is not a regular file: it is a character device",
        ),
        ("configs", "configs is not a regular file: it is a directory"),
    ],
    ids=["missing", "dev-null", "directory"],
)
def test_a_config_path_that_is_no_file_says_what_it_is(
    pytester: pytest.Pytester, path: str, message: str
) -> None:
    # /dev/null exists: "not found" sent the user looking for a file that is there.
    (pytester.path / "dataset.json").write_text(
        json.dumps({"test_cases": [{"question": "q", "ground_truth": "g"}]})
    )
    pytester.mkdir("configs")
    result = run_bad(pytester, "--rag-dataset", "dataset.json", "--rag-config", path)
    assert result.ret == 3
    stderr = result.stderr.str()
    assert message in stderr and "Traceback" not in stderr, stderr
    result.stdout.no_fnmatch_line("*collected*")


def test_pyproject_section_is_read_and_checked(pytester: pytest.Pytester) -> None:
    (pytester.path / "dataset.json").write_text(
        json.dumps({"test_cases": [{"question": "q", "ground_truth": "g"}]})
    )
    pytester.makepyprojecttoml("[tool.rag_eval]\nslow_treshold = 3\n")
    result = run_bad(pytester, "--rag-dataset", "dataset.json")
    assert result.ret == 3
    result.stderr.fnmatch_lines(["*pyproject.toml: unknown key 'slow_treshold'*"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rag-fail-under", "1.5"], "rag-eval: --rag-fail-under: 1.5 is not between 0 and 1"),
        (
            ["--rag-fail-under", "faithfulness=high"],
            "rag-eval: --rag-fail-under faithfulness: 'high' is not a number",
        ),
        (["--rag-target", "no_colon"], "--rag-target: 'no_colon' is not of the form module:"),
        (["--rag-slow-threshold", "0"], "--rag-slow-threshold: 0 must be greater than 0"),
    ],
)
def test_bad_command_line_values(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    (pytester.path / "d.json").write_text('[{"question": "q", "ground_truth": "g"}]')
    result = pytester.runpytest("--rag-dataset", "d.json", *args)
    assert result.ret == 3
    result.stderr.fnmatch_lines([f"*{message}*"])
