"""Ranking metrics (hit rate@k, MRR, nDCG@k) in real pytest runs: assertions with ``k``,
zero-code ``metrics:`` entries with parameters, graded ``expected_contexts``, the reports."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report


def recorded(id: str, ranking: list[str], expected: object) -> dict[str, object]:
    """A case with a pre-recorded answer whose contexts come from ``ranking``, in order."""
    contexts = [{"text": f"text of {name}", "source": name} for name in ranking]
    return case(id, "q?", answer="a", contexts=contexts, expected_contexts=expected)


# The expected document at rank 1, 2, 3 and 4: reciprocal ranks 1, 1/2, 1/3 and, with k=3, 0.
MRR_CASES = [
    recorded("rank1", ["policy.md", "x.md", "y.md", "z.md"], ["policy.md"]),
    recorded("rank2", ["x.md", "policy.md", "y.md", "z.md"], ["policy.md"]),
    recorded("rank3", ["x.md", "y.md", "policy.md", "z.md"], ["policy.md"]),
    recorded("rank4", ["x.md", "y.md", "z.md", "policy.md"], ["policy.md"]),
]


def test_assert_metric_with_k_passes_and_fails_by_rank(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(MRR_CASES)
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_metric

def test_mrr(rag_case):
    assert_metric(rag_case, "retrieval_mrr", 0.5, k=3)
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly", "-v")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*test_mrr?rank1? PASSED*",
            "*test_mrr?rank2? PASSED*",
            "*test_mrr?rank3? FAILED*",
            "*test_mrr?rank4? FAILED*",
        ]
    )
    failures = [line.split(": ", 1)[-1] for line in result.outlines if line.startswith("E ")]
    assert "rank3 retrieval_mrr 0.33 < 0.50" in failures
    assert "rank4 retrieval_mrr 0.00 < 0.50" in failures
    result.stdout.fnmatch_lines(
        [
            "*first expected document policy.md at rank 3: reciprocal rank 1/3 "
            "(among the first 3 of 4 retrieved)*",
            "*no expected document among the first 3 of 4 retrieved*",
        ]
    )
    report = read_report(pytester)
    scores = {c["key"]: c["metrics"]["retrieval_mrr"]["score"] for c in report["cases"]}
    assert scores == pytest.approx({"rank1": 1.0, "rank2": 0.5, "rank3": 1 / 3, "rank4": 0.0})
    # The run's mean of the reciprocal ranks is the MRR: (1 + 1/2 + 1/3 + 0) / 4.
    mrr = report["summary"]["metrics"]["retrieval_mrr"]
    assert mrr["mean"] == pytest.approx(11 / 24, abs=1e-4)  # the report keeps 4 decimals
    assert (mrr["passed"], mrr["failed"]) == (2, 2)


# Wikipedia's "Discounted cumulative gain" example: D1..D6 retrieved with grades 3, 2, 3, 0,
# 1, 2, and two relevant documents not retrieved (D7: 3, D8: 2): nDCG@6 = 6.861 / 8.740 = 0.785.
GRADED = {"D1": 3, "D2": 2, "D3": 3, "D4": 0, "D5": 1, "D6": 2, "D7": 3, "D8": 2}
ZERO_CODE_CONFIG = """
metrics:
  retrieval_hit_rate: {k: 1}
  retrieval_mrr: {threshold: 0.5, k: 3}
  retrieval_ndcg: {threshold: 0.78, k: 6}
  retrieval_recall: 0.7
"""


def test_zero_code_metrics_with_parameters_and_graded_relevance(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [
            recorded("graded", ["D1", "D2", "D3", "D4", "D5", "D6"], GRADED),
            recorded("miss", ["D4", "D9"], {"D1": 2, "D4": 0}),
        ]
    )
    pytester.makefile(".yaml", **{"eval-config": ZERO_CODE_CONFIG})
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "dataset.json::graded PASSED*",
            "dataset.json::miss FAILED*",
            "*miss retrieval_hit_rate 0.00 < 1.00*",
        ]
    )
    report = read_report(pytester)
    cases = {c["key"]: c["metrics"] for c in report["cases"]}
    graded = cases["graded"]
    assert graded["retrieval_ndcg"]["score"] == pytest.approx(0.785, abs=5e-4)
    assert graded["retrieval_ndcg"]["threshold"] == 0.78
    assert graded["retrieval_ndcg"]["reason"].startswith("DCG@6 6.861 of an ideal 8.740")
    assert graded["retrieval_ndcg"]["details"]["k"] == 6
    assert graded["retrieval_hit_rate"]["score"] == 1.0
    assert graded["retrieval_mrr"]["score"] == 1.0
    # Recall reads the graded form too: D4 (grade 0) is not expected; 5 of 7 retrieved.
    assert graded["retrieval_recall"]["score"] == pytest.approx(5 / 7)
    miss = cases["miss"]
    ranking = ("retrieval_hit_rate", "retrieval_mrr", "retrieval_ndcg")
    assert [miss[m]["score"] for m in ranking] == [0.0] * 3
    assert [e["verdict"] for e in miss["retrieval_ndcg"]["evidence"]] == ["not expected"] * 2
    means = {n: m["mean"] for n, m in report["summary"]["metrics"].items()}
    assert means["retrieval_ndcg"] == pytest.approx(0.785 / 2, abs=5e-4)
    markdown = (pytester.path / "results" / "eval_report.md").read_text(encoding="utf-8")
    assert "retrieval_ndcg" in markdown and "0.79" in markdown
    result.stdout.fnmatch_lines(
        ["Retrieval Hit Rate  0.50*", "Retrieval MRR       0.50*", "Retrieval nDCG      0.39*"]
    )


def test_a_context_without_a_source_keeps_its_rank(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    contexts = [{"text": "an unnamed passage", "source": None}, {"text": "A", "source": "a.md"}]
    write_dataset([case("u", "q?", answer="a", contexts=contexts, expected_contexts=["a.md"])])
    config = (
        "metrics:\n  retrieval_hit_rate: {k: 1}\n  retrieval_mrr: 0.5\n  retrieval_ndcg: 0.5\n"
        "  retrieval_precision: 0.5\n  retrieval_recall: 1.0\n"
    )
    pytester.makefile(".yaml", **{"eval-config": config})
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    result.assert_outcomes(failed=1)  # a.md is not at rank 1
    metrics = read_report(pytester)["cases"][0]["metrics"]
    scores = {name: m["score"] for name, m in metrics.items()}
    assert scores == pytest.approx(
        {
            "retrieval_hit_rate": 0.0,
            "retrieval_mrr": 0.5,
            "retrieval_ndcg": 1 / math.log2(3),
            "retrieval_precision": 0.5,
            "retrieval_recall": 1.0,
        },
        abs=1e-4,
    )
    mrr = metrics["retrieval_mrr"]
    assert mrr["reason"] == (
        "first expected document a.md at rank 2: reciprocal rank 1/2 (among the 2 retrieved)"
    )
    assert [(e["text"], e["reason"]) for e in mrr["evidence"]] == [
        ("(no source)", "rank 1"),
        ("a.md", "rank 2"),
    ]
    assert metrics["retrieval_recall"]["evidence"][0]["reason"] == "rank 2"
    assert metrics["retrieval_precision"]["reason"] == (
        "1 of 2 retrieved contexts come from expected documents (1 without a source)"
    )


def test_case_without_expected_contexts_is_not_judged(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset([case("open", "q?", answer="a", contexts=[{"text": "t", "source": "a.md"}])])
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_ndcg: {k: 3}\n"})
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        ["*open retrieval_ndcg not judged: the case has no expected_contexts*"]
    )


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            "metrics:\n  retrieval_ndcg: {k: 0}\n",
            "*key 'metrics': metric 'retrieval_ndcg': parameter 'k' must be a whole number of "
            "at least 1*got 0*",
        ),
        (
            "metrics:\n  retrieval_mrr: {threshold: 0.5, top_k: 3}\n",
            "*key 'metrics': metric 'retrieval_mrr' got unknown parameter 'top_k' (accepted: k)*",
        ),
    ],
)
def test_bad_parameters_in_the_config_exit_3(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], config: str, message: str
) -> None:
    write_dataset(MRR_CASES)
    pytester.makefile(".yaml", **{"eval-config": config})
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    assert result.ret == 3
    result.stderr.fnmatch_lines([message])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_bad_k_in_an_assertion_fails_that_test_with_the_reason(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(MRR_CASES[:1])
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_metric

def test_mrr(rag_case):
    assert_metric(rag_case, "retrieval_mrr", 0.5, k="3")
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*ValueError: metric 'retrieval_mrr': parameter 'k' must be a whole number*got '3'"]
    )


def test_bad_grade_in_the_dataset_exits_3_naming_file_case_and_field(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    path = write_dataset([recorded("graded", ["a.md"], {"a.md": "very"})])
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    assert result.ret == 3
    result.stderr.fnmatch_lines(
        [
            f"*Invalid dataset {path} (1 problem):",
            "*case 'graded' (test_cases?0?): field 'expected_contexts': the grade of 'a.md' "
            "must be a whole number of 0 or more, got 'very'*",
        ]
    )


def test_the_dry_run_lists_the_parameters(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(MRR_CASES)
    pytester.makefile(".yaml", **{"eval-config": ZERO_CODE_CONFIG})
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-dry-run")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "metrics (zero-code mode): retrieval_hit_rate k=1 (default threshold), "
            "retrieval_mrr k=3 >= 0.50, retrieval_ndcg k=6 >= 0.78, retrieval_recall >= 0.70"
        ]
    )
