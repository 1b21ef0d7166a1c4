"""One gate option: ``--rag-fail-under METRIC=SCORE`` (repeatable, a bare score is the
composite; ini ``rag_fail_under`` as lines); the per-metric flags still work for now, with a
deprecation notice naming what to write instead."""

from __future__ import annotations

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


def test_the_per_metric_flag_still_works_and_says_what_to_write(
    project: pytest.Pytester, rag_app: str
) -> None:
    result = run(project, rag_app, "--rag-fail-under-retrieval-recall=0.9")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["*--rag-fail-under-retrieval-recall is deprecated: use --rag-fail-under "
         "retrieval_recall=SCORE (rag_fail_under = retrieval_recall=SCORE)*"]
    )  # fmt: skip


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
