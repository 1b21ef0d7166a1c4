"""One gate option: ``--rag-fail-under METRIC=SCORE`` (repeatable, a bare score is the
composite; ini ``rag_fail_under`` as lines). The per-metric flags are gone (pytest's own
unknown-option error); an ini key that was removed is fatal, naming what replaces it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

TESTS = "from rag_eval_pytest import evaluate\n\n" + (
    "def test_recall(rag_case):\n    evaluate(rag_case, 'retrieval_recall')\n"
)


@pytest.fixture
def project(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> pytest.Pytester:
    write_dataset(  # recall 0.5: the app finds the refund policy, not the shipping one
        [
            case("refund", "refund policy?", expected_contexts=["policy.md"]),
            case("abroad", "deliver abroad?", expected_contexts=["shipping.md"]),
        ]
    )
    pytester.makepyfile(test_rag=TESTS)
    return pytester


def run(pytester: pytest.Pytester, rag_app: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--rag-dataset=dataset.json", f"--rag-target={rag_app}", "-p", "no:randomly", *args
    )


def test_a_metric_gate_by_its_name_beside_the_composite(
    project: pytest.Pytester, rag_app: str
) -> None:
    result = run(project, rag_app, "--rag-fail-under", "retrieval_recall=0.9",
                 "--rag-fail-under", "0.1")  # fmt: skip
    assert result.ret == 1
    # Retrieval carries no composite weight: the bare score's composite gate is unmet too.
    result.stdout.fnmatch_lines(
        ["rag-eval: exit 1: composite gate 0.10 not met: it could not be scored; "
         "retrieval_recall 0.50 < 0.90"]
    )  # fmt: skip
    assert read_report(project)["summary"]["metrics"]["retrieval_recall"]["threshold"] == 0.9


def test_gates_as_lines_of_the_ini_key(project: pytest.Pytester, rag_app: str) -> None:
    project.makeini("[pytest]\nrag_fail_under =\n    retrieval-recall=0.4\n")
    assert run(project, rag_app).ret == 0  # the metric's name with dashes, as typed
    project.makeini("[pytest]\nrag_fail_under =\n    retrieval_recall=0.6\n")
    result = run(project, rag_app)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["rag-eval: exit 1: retrieval_recall 0.50 < 0.60"])


def test_a_per_metric_flag_is_an_unknown_option(project: pytest.Pytester, rag_app: str) -> None:
    result = run(project, rag_app, "--rag-fail-under-retrieval-recall=0.9")
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # as any unknown --rag-* flag
    result.stderr.fnmatch_lines(["*unrecognized arguments: --rag-fail-under-retrieval-recall*"])


REMOVED_INI = [
    ("rag_fail_under_retrieval_recall = 0.9", "rag_fail_under_retrieval_recall in tox.ini: "
     "this key was removed: use rag_fail_under = retrieval_recall=SCORE"),
    ("rag_device = cuda", "rag_device in tox.ini: this key was removed: use judge.local.device "
     "in the config file (eval-config.yaml, or [tool.rag_eval] in pyproject.toml)"),
    ("rag_flaky = quarantine", "rag_flaky in tox.ini: this key was removed: use "
     "regression.flaky in the config file"),
]  # fmt: skip


@pytest.mark.parametrize("dataset", [True, False], ids=["dataset", "no-dataset"])
@pytest.mark.parametrize(("ini", "message"), REMOVED_INI, ids=lambda v: v.split(" ")[0])
def test_a_removed_ini_key_is_fatal_naming_its_replacement(
    project: pytest.Pytester, rag_app: str, dataset: bool, ini: str, message: str
) -> None:
    # It used to be read as a gate or a setting; without a word it would be gone.
    project.makeini(f"[pytest]\n{ini}\n")
    result = run(project, rag_app) if dataset else project.runpytest("-p", "no:randomly")
    assert result.ret == 3
    (line,) = result.stderr.str().strip().splitlines()
    assert line.startswith(f"Exit: rag-eval: {message}")
    assert not (project.path / "results").exists()


def test_a_removed_ini_key_given_with_o_is_named_so(project: pytest.Pytester, rag_app: str) -> None:
    result = run(project, rag_app, "-o", "rag_regression_alpha=0.01")
    assert result.ret == 3
    result.stderr.fnmatch_lines(
        ["Exit: rag-eval: -o rag_regression_alpha: this key was removed: use regression.alpha *"]
    )


def test_help_shows_at_most_22_rag_flags(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    assert result.ret == 0
    flags = re.findall(r"^  (--rag-[a-z-]+)", result.stdout.str(), re.M)  # not their help
    assert "--rag-fail-under" in flags and "--rag-dataset" in flags
    assert not any(flag.startswith("--rag-fail-under-") for flag in flags)
    assert len(set(flags)) == len(flags) <= 22, flags


@pytest.mark.parametrize(
    ("gate", "message"),
    [
        ("nosuch=0.8", "--rag-fail-under nosuch: "),
        ("faithfulness=2", "--rag-fail-under faithfulness: 2 is not between 0 and 1"),
    ],
)
def test_a_bad_gate_is_fatal_naming_it(
    project: pytest.Pytester, rag_app: str, gate: str, message: str
) -> None:
    result = run(project, rag_app, "--rag-fail-under", gate)
    assert result.ret == 3
    assert message in result.stderr.str() + result.stdout.str()
