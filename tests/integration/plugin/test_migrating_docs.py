"""docs/migrating.md, row by row: each row of its DeepEval and RAGAS tables runs its "here"
form in a real pytest run and gets what the page says, and so does the worked example. A row
the page gains without an entry in :data:`ROWS` fails :func:`test_every_row_of_the_page_is_run`.

The judge is :class:`~tests.word_judge.WordJudge` over :func:`~tests.word_judge.three_way`:
word overlap, three-way statement verdicts (a claim saying "never" of what the contexts say is
contradicted, one they do not mention is not mentioned), word-count embeddings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest import load_report
from rag_eval_pytest.cli import main
from tests import word_judge
from tests.helpers import read_report

PAGE = Path(__file__).parents[3] / "docs" / "migrating.md"

Q = "Within how many days are refunds available?"
POLICY = "Refunds are available within 30 days of purchase."
MARS = "Shipping is free to Mars."
DENIAL = "Refunds are never available."
GT = "Refunds are available within 30 days."

CONFTEST = """
import pytest
from tests.word_judge import WordJudge, three_way

@pytest.fixture(scope="session")
def rag_judge():
    return WordJudge(three_way, model="word-judge")
"""
PRELUDE = f"""
import pytest
from rag_eval_pytest import (
    assert_context_precision, assert_context_recall, assert_context_relevance, assert_correct,
    assert_criteria, assert_faithful, assert_rag, assert_relevant, assert_retrieval,
    assert_similar, evaluate, make_case,
)
Q, POLICY, MARS, DENIAL, GT = {Q!r}, {POLICY!r}, {MARS!r}, {DENIAL!r}, {GT!r}
"""
OUTCOME = re.compile(r"^\S+?::(\S+) (PASSED|FAILED|SKIPPED|ERROR)\b", re.M)


def run(
    pytester: pytest.Pytester, code: str, *args: str, conftest: str = CONFTEST
) -> tuple[pytest.RunResult, dict[str, Any]]:
    """A run of ``code`` (after :data:`PRELUDE`) as ``test_row.py``, and its report."""
    pytester.makeconftest(conftest)
    pytester.makepyfile(test_row=PRELUDE + code)
    return runs(pytester, *args), read_report(pytester)


def runs(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:randomly", "-v", "-rs", "--rag-judge-passes", "1", *args)


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    """Each test's outcome, by its name (``test_x``, ``TestX::test_y``, ``test_x[key]``)."""
    return dict(OUTCOME.findall(result.stdout.str()))


def scores(report: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """Each case's scores by metric, by its test's name (or its key in a dataset)."""
    return {
        c["key"].split("::", 1)[-1]: {name: m["score"] for name, m in c["metrics"].items()}
        for c in report["cases"]
    }


def write_dataset(pytester: pytest.Pytester, *cases: dict[str, Any]) -> None:
    text = json.dumps({"test_cases": list(cases)})
    (pytester.path / "dataset.json").write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------- the rows


def made_in_code(pytester: pytest.Pytester) -> None:
    result, report = run(
        pytester,
        """
from rag_eval_pytest import make_case
def test_made_in_code():
    assert_faithful(make_case(question=Q, answer=POLICY, contexts=[POLICY]))
""",
    )
    assert outcomes(result) == {"test_made_in_code": "PASSED"}
    assert scores(report) == {"test_made_in_code": {"faithfulness": 1.0}}


def case_fields(pytester: pytest.Pytester) -> None:
    result, report = run(
        pytester,
        """
def test_fields():
    q, a, ctx, gt = Q, POLICY, [POLICY], GT
    case = make_case(question=q, answer=a, contexts=ctx, ground_truth=gt)
    assert (case.question, case.answer, case.ground_truth) == (Q, POLICY, GT)
    assert_context_recall(case)
""",
    )
    assert outcomes(result) == {"test_fields": "PASSED"}
    (case,) = report["cases"]
    assert (case["question"], case["answer"], case["ground_truth"]) == (Q, POLICY, GT)
    assert [c["text"] for c in case["contexts"]] == [POLICY]


FAITHFUL = """
def test_unmentioned_claim():
    case = make_case(question=Q, answer=POLICY + " " + MARS, contexts=[POLICY])
    assert_faithful(case, 0.7{mode})
def test_contradiction():
    assert_faithful(make_case(question=Q, answer=DENIAL, contexts=[POLICY]), 0.7{mode})
"""


def faithful_as_deepeval(pytester: pytest.Pytester) -> None:
    """A claim the contexts do not mention is faithful; only a contradiction is not."""
    result, report = run(pytester, FAITHFUL.format(mode=', mode="deepeval"'))
    assert outcomes(result) == {"test_unmentioned_claim": "PASSED", "test_contradiction": "FAILED"}
    assert scores(report) == {
        "test_unmentioned_claim": {"faithfulness": 1.0},
        "test_contradiction": {"faithfulness": 0.0},
    }


def faithful_as_ragas(pytester: pytest.Pytester) -> None:
    """What the contexts do not support counts against, mentioned or not."""
    result, report = run(pytester, FAITHFUL.format(mode=""))
    assert outcomes(result) == {"test_unmentioned_claim": "FAILED", "test_contradiction": "FAILED"}
    result.stdout.fnmatch_lines(["*test_unmentioned_claim faithfulness 0.50 < 0.70"])
    assert scores(report)["test_unmentioned_claim"] == {"faithfulness": 0.5}


def assert_rag_lists_every_miss(pytester: pytest.Pytester) -> None:
    result, report = run(
        pytester,
        """
def test_both_missed():
    case = make_case(question=Q, answer=DENIAL, contexts=[POLICY])
    assert_rag(case, faithfulness={"threshold": 0.7, "mode": "deepeval"}, answer_relevance=0.7)
""",
    )
    assert outcomes(result) == {"test_both_missed": "FAILED"}
    result.stdout.fnmatch_lines(
        ["*2 of 2 metrics missed: faithfulness 0.00 < 0.70, answer_relevance 0.40 < 0.70"]
    )
    assert scores(report) == {"test_both_missed": {"faithfulness": 0.0, "answer_relevance": 0.4}}


def relevance(pytester: pytest.Pytester) -> None:
    result, report = run(
        pytester,
        """
def test_on_topic():
    assert_relevant(make_case(question=Q, answer=POLICY, contexts=[POLICY]), 0.7)
def test_off_topic():
    assert_relevant(make_case(question=Q, answer=MARS, contexts=[POLICY]), 0.7)
""",
    )
    assert outcomes(result) == {"test_on_topic": "PASSED", "test_off_topic": "FAILED"}
    assert scores(report) == {
        "test_on_topic": {"answer_relevance": 0.8},
        "test_off_topic": {"answer_relevance": 0.0},
    }


def needs_ground_truth(helper: str, metric: str) -> Callable[[pytest.Pytester], None]:
    """A row whose metric ranks the contexts against the ground truth: all of it found in
    the first context passes, what the contexts miss or rank last fails, and a case without
    ``ground_truth`` is not judged (its test skipped, with the reason)."""

    def check(pytester: pytest.Pytester) -> None:
        result, report = run(
            pytester,
            f"""
def test_found_first():
    {helper}(make_case(question=Q, answer=POLICY, contexts=[POLICY, MARS], ground_truth=GT), 0.7)
def test_missed():
    {helper}(make_case(question=Q, answer=POLICY, contexts=[MARS], ground_truth=GT), 0.7)
def test_no_ground_truth():
    {helper}(make_case(question=Q, answer=POLICY, contexts=[POLICY]), 0.7)
""",
        )
        assert outcomes(result) == {
            "test_found_first": "PASSED",
            "test_missed": "FAILED",
            "test_no_ground_truth": "SKIPPED",
        }
        assert scores(report) == {
            "test_found_first": {metric: 1.0},
            "test_missed": {metric: 0.0},
            "test_no_ground_truth": {metric: None},
        }
        result.stdout.fnmatch_lines([f"*{metric} not judged: the case has no ground_truth*"])

    check.__name__ = metric
    return check


def context_relevance(pytester: pytest.Pytester) -> None:
    result, report = run(
        pytester,
        """
def test_relevant_context():
    assert_context_relevance(make_case(question=Q, answer=POLICY, contexts=[POLICY]), 0.5)
def test_irrelevant_context():
    assert_context_relevance(make_case(question=Q, answer=POLICY, contexts=[MARS]), 0.5)
""",
    )
    assert outcomes(result) == {
        "test_relevant_context": "PASSED",
        "test_irrelevant_context": "FAILED",
    }
    assert scores(report) == {
        "test_relevant_context": {"context_relevance": 1.0},
        "test_irrelevant_context": {"context_relevance": 0.0},
    }


def criteria(pytester: pytest.Pytester) -> None:
    """GEval's and AspectCritic's forms, reported under the name given."""
    result, report = run(
        pytester,
        """
def test_meets():
    case = make_case(question=Q, answer=POLICY, contexts=[POLICY])
    assert_criteria(case, "The answer must say 'refunds'.", threshold=0.5, name="Refunds")
def test_misses():
    case = make_case(question=Q, answer=MARS, contexts=[POLICY])
    assert_criteria(case, "The answer must say 'refunds'.", threshold=0.5, name="Refunds")
def test_harmless():
    case = make_case(question=Q, answer="The product is harmless.", contexts=[POLICY])
    assert_criteria(case, "The answer must call the product 'harmless'.", name="harmless")
""",
    )
    assert outcomes(result) == {
        "test_meets": "PASSED",
        "test_misses": "FAILED",
        "test_harmless": "PASSED",
    }
    result.stdout.fnmatch_lines(["*test_misses criteria: Refunds 0.00 < 0.50"])
    assert scores(report) == {
        "test_meets": {"criteria: Refunds": 1.0},
        "test_misses": {"criteria: Refunds": 0.0},
        "test_harmless": {"criteria: harmless": 1.0},
    }


def criterion_sees_everything(pytester: pytest.Pytester) -> None:
    word_judge.calls.clear()
    result, _ = run(
        pytester,
        """
def test_criterion():
    case = make_case(question=Q, answer=POLICY, contexts=[POLICY], ground_truth=GT)
    assert_criteria(case, "The answer must say 'refunds'.", name="Refunds")
""",
    )
    assert outcomes(result) == {"test_criterion": "PASSED"}
    (prompt,) = [p for p in word_judge.calls if "meets the criterion given under" in p]
    seen = word_judge.sections(prompt)
    assert (seen["QUESTION"], seen["ANSWER"], seen["GROUND_TRUTH"]) == (Q, POLICY, GT)
    assert seen["CONTEXTS"] == [POLICY]


def measure(pytester: pytest.Pytester) -> None:
    """A score and its reason, recorded, and no assertion: 0.5 below the default 0.7 passes."""
    result, report = run(
        pytester,
        """
def test_measure():
    case = make_case(question=Q, answer=POLICY + " " + MARS, contexts=[POLICY])
    result = evaluate(case, "faithfulness")
    print("MEASURED", result.score, result.reason)
    assert evaluate(case, "faithfulness").score == result.score
""",
        "-rP",
    )
    assert outcomes(result) == {"test_measure": "PASSED"}
    result.stdout.fnmatch_lines(["*MEASURED 0.5 1 of 2 statements supported by the contexts*"])
    assert scores(report) == {"test_measure": {"faithfulness": 0.5}}


def judge_model(pytester: pytest.Pytester) -> None:
    """The run's judge and model, from the options or the config file (a dry run's plan: no
    server is called)."""
    write_dataset(pytester, {"id": "refund", "question": Q})
    args = ("--rag-dataset", "dataset.json", "--rag-dry-run")
    result = runs(pytester, *args, "--rag-judge", "openai", "--rag-judge-model", "gpt-4o")
    result.stdout.fnmatch_lines(["judge openai (gpt-4o), zero-code metrics, estimated: *"])
    pytester.makefile(".yaml", **{"eval-config": "judge:\n  kind: openai\n  model: gpt-4o\n"})
    result = runs(pytester, *args)
    result.stdout.fnmatch_lines(["judge openai (gpt-4o), zero-code metrics, estimated: *"])


def judge_per_test(pytester: pytest.Pytester) -> None:
    """One case judged in a module and in a class of another: each test's metrics use its
    own judge (the module's tells a claim the contexts do not mention from a contradiction,
    the class's does not), and the run names both."""
    test = """
    case = make_case(question=Q, answer=POLICY + " " + MARS, contexts=[POLICY])
    evaluate(case, "faithfulness", mode="deepeval")
"""
    judge = "from tests.word_judge import WordJudge, three_way, word_judge\n"
    pytester.makepyfile(
        test_big=PRELUDE
        + judge
        + "@pytest.fixture(scope='module')\n"
        + "def rag_judge():\n    return WordJudge(three_way, model='gpt-4o')\n"
        + "def test_faithful():"
        + test,
        test_small=PRELUDE
        + judge
        + "class TestSmall:\n"
        + "    @pytest.fixture(scope='class')\n"
        + "    @classmethod\n"
        + "    def rag_judge(cls):\n        return WordJudge(word_judge, model='gpt-4o-mini')\n"
        + "    def test_faithful(self):"
        + test.replace("\n    ", "\n        "),
    )
    result = runs(pytester)
    assert outcomes(result) == {"test_faithful": "PASSED", "TestSmall::test_faithful": "PASSED"}
    report = read_report(pytester)
    assert report["run"]["judge"] == "custom (gpt-4o); custom (gpt-4o-mini)"
    assert scores(report) == {
        "test_faithful": {"faithfulness": 1.0},
        "TestSmall::test_faithful": {"faithfulness": 0.5},
    }


def dataset_tests(pytester: pytest.Pytester) -> None:
    write_dataset(
        pytester,
        {"id": "refund", "question": Q, "answer": POLICY, "contexts": [POLICY]},
        {"id": "denial", "question": Q, "answer": DENIAL, "contexts": [POLICY]},
    )
    result, _ = run(
        pytester,
        """
def test_x(rag_case):
    assert_faithful(rag_case, 0.7, mode="deepeval")
""",
        "--rag-dataset",
        "dataset.json",
    )
    assert outcomes(result) == {"test_x[refund]": "PASSED", "test_x[denial]": "FAILED"}


GOLDENS = {
    "deepeval": (
        "goldens.json",
        json.dumps(
            [
                {"input": Q, "actual_output": POLICY, "retrieval_context": [POLICY]},
                {"input": Q, "actual_output": MARS, "retrieval_context": [POLICY]},
            ]
        ),
    ),
    "ragas": (
        "samples.jsonl",
        "".join(
            json.dumps({"user_input": Q, "response": a, "retrieved_contexts": [POLICY]}) + "\n"
            for a in (POLICY, MARS)
        ),
    ),
}


def converted(source: str) -> Callable[[pytest.Pytester], None]:
    """Their file converted runs as a dataset, each case one test, with its recorded answer."""

    def check(pytester: pytest.Pytester) -> None:
        name, text = GOLDENS[source]
        (pytester.path / name).write_text(text, encoding="utf-8")
        assert main(["convert", "--from", source, name, "dataset.json"]) == 0
        pytester.makeconftest(CONFTEST)
        pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.7\n"})
        result = runs(pytester, "--rag-dataset", "dataset.json")
        assert sorted(outcomes(result).values()) == ["FAILED", "PASSED"]
        report = read_report(pytester)
        assert sorted(c["metrics"]["faithfulness"]["score"] for c in report["cases"]) == [0, 1]
        assert all(c["recorded"] for c in report["cases"])

    check.__name__ = f"convert_{source}"
    return check


CONVERSATIONS = {
    "deepeval": (
        "conversations.json",
        json.dumps(
            [
                {
                    "turns": [
                        {"role": "user", "content": Q},
                        {"role": "assistant", "content": POLICY, "retrievalContext": [POLICY]},
                        {"role": "user", "content": "And the shipping?"},
                        {"role": "assistant", "content": MARS, "retrievalContext": [POLICY]},
                    ]
                }
            ]
        ),
    ),
    "ragas": (
        "samples.jsonl",
        json.dumps(
            {
                "user_input": [
                    {"type": "human", "content": Q},
                    {"type": "tool", "content": POLICY},
                    {"type": "ai", "content": POLICY},
                    {"type": "human", "content": "And the shipping?"},
                    {"type": "tool", "content": POLICY},
                    {"type": "ai", "content": MARS},
                ]
            }
        )
        + "\n",
    ),
}


def converted_conversation(source: str) -> Callable[[pytest.Pytester], None]:
    """Their saved conversations converted run as cases with turns, each turn judged on its
    recorded answer, the conversation failing on its worst turn, named."""

    def check(pytester: pytest.Pytester) -> None:
        name, text = CONVERSATIONS[source]
        (pytester.path / name).write_text(text, encoding="utf-8")
        assert main(["convert", "--from", source, name, "dataset.json"]) == 0
        pytester.makeconftest(CONFTEST)
        pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.7\n"})
        result = runs(pytester, "--rag-dataset", "dataset.json")
        assert list(outcomes(result).values()) == ["FAILED"]
        result.stdout.fnmatch_lines(["*faithfulness 0.00 < 0.70 at turn 2*"])
        (conversation,) = read_report(pytester)["cases"]
        assert [t["metrics"]["faithfulness"]["score"] for t in conversation["turns"]] == [1, 0]

    check.__name__ = f"convert_{source}_conversations"
    return check


def plain_pytest(pytester: pytest.Pytester) -> None:
    """A test file runs as any pytest test file, and the run writes its reports."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        test_app=PRELUDE
        + "def test_refund():\n"
        + "    assert_faithful(make_case(question=Q, answer=POLICY, contexts=[POLICY]))\n",
        test_other="def test_other():\n    raise AssertionError('not this file')\n",
    )
    result = pytester.runpytest("test_app.py")
    assert result.ret == 0
    result.assert_outcomes(passed=1)
    assert (pytester.path / "results" / "eval_report.md").is_file()


def zero_code(pytester: pytest.Pytester) -> None:
    """Recorded answers, the metrics in the config, no test file: a score below its threshold
    is reported and fails no test. A collected test that takes ``rag_case`` runs the cases
    instead, and no zero-code test is added."""
    write_dataset(
        pytester,
        {"id": "refund", "question": Q, "answer": POLICY, "contexts": [POLICY]},
        {"id": "mars", "question": Q, "answer": POLICY + " " + MARS, "contexts": [POLICY]},
    )
    pytester.makeconftest(CONFTEST)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.8\n"})
    args = ("--rag-dataset", "dataset.json", "--rag-report-only")
    result = runs(pytester, *args)
    assert result.ret == 0
    assert outcomes(result) == {"refund": "PASSED", "mars": "PASSED"}
    report = read_report(pytester)
    assert scores(report) == {"refund": {"faithfulness": 1.0}, "mars": {"faithfulness": 0.5}}
    statuses = {c["id"]: c["metrics"]["faithfulness"]["status"] for c in report["cases"]}
    assert statuses == {"refund": "passed", "mars": "failed"}
    result.stdout.fnmatch_lines(["*report only: 1 score below per-case thresholds failed no test"])

    pytester.makepyfile(test_rag="def test_x(rag_case):\n    pass\n")
    assert outcomes(runs(pytester, *args)) == {"test_x[refund]": "PASSED", "test_x[mars]": "PASSED"}
    result = runs(pytester, *args, "--ignore", "test_rag.py")
    assert outcomes(result) == {"refund": "PASSED", "mars": "PASSED"}


def correctness(pytester: pytest.Pytester) -> None:
    result, report = run(
        pytester,
        """
def test_same_facts():
    assert_correct(make_case(question=Q, answer=POLICY, contexts=[POLICY], ground_truth=POLICY))
def test_an_extra_fact():
    case = make_case(question=Q, answer=POLICY + " " + MARS, contexts=[POLICY], ground_truth=POLICY)
    assert_correct(case)
def test_no_ground_truth():
    assert_correct(make_case(question=Q, answer=POLICY, contexts=[POLICY]))
""",
    )
    assert outcomes(result) == {
        "test_same_facts": "PASSED",
        "test_an_extra_fact": "FAILED",
        "test_no_ground_truth": "SKIPPED",
    }
    found = {name: s["answer_correctness"] for name, s in scores(report).items()}
    assert found == {
        "test_same_facts": 1.0,
        "test_an_extra_fact": pytest.approx(2 / 3, abs=1e-4),
        "test_no_ground_truth": None,
    }


def similarity(pytester: pytest.Pytester) -> None:
    """The embeddings of the offline model (the ``local`` extra): the same words in another
    order are alike, other words are not."""
    result, report = run(
        pytester,
        """
def test_same_words():
    truth = "Within 30 days of purchase, refunds are available."
    assert_similar(make_case(question=Q, answer=POLICY, contexts=[POLICY], ground_truth=truth))
def test_other_words():
    assert_similar(make_case(question=Q, answer=MARS, contexts=[POLICY], ground_truth=POLICY))
def test_no_ground_truth():
    assert_similar(make_case(question=Q, answer=POLICY, contexts=[POLICY]))
""",
    )
    assert outcomes(result) == {
        "test_same_words": "PASSED",
        "test_other_words": "FAILED",
        "test_no_ground_truth": "SKIPPED",
    }
    found = {name: s["answer_similarity"] for name, s in scores(report).items()}
    assert found["test_same_words"] > 0.85 > found["test_other_words"]
    assert found["test_no_ground_truth"] is None


def retrieval(pytester: pytest.Pytester) -> None:
    """IDs are the contexts' ``source``: one of two expected documents retrieved."""
    result, report = run(
        pytester,
        """
def retrieved():
    contexts = [{"text": POLICY, "source": "policy.md"}]
    return make_case(question=Q, answer=POLICY, contexts=contexts,
                     expected_contexts=["policy.md", "terms.md"])
def test_precision():
    assert_retrieval(retrieved(), precision=1.0)
def test_recall():
    assert_retrieval(retrieved(), recall=0.9)
""",
    )
    assert outcomes(result) == {"test_precision": "PASSED", "test_recall": "FAILED"}
    assert scores(report) == {
        "test_precision": {"retrieval_precision": 1.0},
        "test_recall": {"retrieval_recall": 0.5},
    }


def reads_the_report(pytester: pytest.Pytester) -> None:
    run(
        pytester,
        """
def test_refund():
    assert_faithful(make_case(question=Q, answer=POLICY, contexts=[POLICY]))
""",
    )
    report = load_report("results")
    (case,) = report.cases
    assert case.metrics["faithfulness"].score == 1.0
    assert report.summary.metrics["faithfulness"].mean == 1.0


def any_judge(pytester: pytest.Pytester) -> None:
    """A bare ``prompt -> text`` function judges; a provider's judge is the run's judge (a
    dry run's plan: no server is called)."""
    bare = CONFTEST.replace('WordJudge(three_way, model="word-judge")', "three_way")
    result, report = run(
        pytester,
        """
def test_refund():
    assert_faithful(make_case(question=Q, answer=POLICY, contexts=[POLICY]))
""",
        conftest=bare,
    )
    assert outcomes(result) == {"test_refund": "PASSED"}
    assert report["run"]["judge"] == "custom (three_way)"
    write_dataset(pytester, {"id": "refund", "question": Q})
    for kind, model in (("openai", "gpt-"), ("anthropic", "claude-")):
        result = runs(
            pytester, "--rag-dataset", "dataset.json", "--rag-dry-run", "--rag-judge", kind
        )
        result.stdout.fnmatch_lines([f"judge {kind} ({model}*), zero-code metrics, *"])


# --------------------------------------------------------------------------- the table

ROWS: dict[str, tuple[str, Callable[[pytest.Pytester], None]]] = {
    # DeepEval's column: (a part of the "here" column, as the page writes it; the check)
    "`from deepeval.test_case import LLMTestCase`": (
        "from rag_eval_pytest import make_case",
        made_in_code,
    ),
    "`LLMTestCase(input=q, actual_output=a, retrieval_context=ctx, expected_output=gt)`": (
        "make_case(question=q, answer=a, contexts=ctx, ground_truth=gt)",
        case_fields,
    ),
    "`assert_test(case, [FaithfulnessMetric(threshold=0.7)])`": (
        'assert_faithful(case, 0.7, mode="deepeval")',
        faithful_as_deepeval,
    ),
    "`assert_test(case, [FaithfulnessMetric(0.7), AnswerRelevancyMetric(0.7)])`": (
        'assert_rag(case, faithfulness={"threshold": 0.7, "mode": "deepeval"}, '
        "answer_relevance=0.7)",
        assert_rag_lists_every_miss,
    ),
    "`AnswerRelevancyMetric(threshold=0.7)`": ("assert_relevant(case, 0.7)", relevance),
    "`ContextualPrecisionMetric(threshold=0.7)`": (
        "assert_context_precision(case, 0.7)` (needs `ground_truth`)",
        needs_ground_truth("assert_context_precision", "context_precision"),
    ),
    "`ContextualRecallMetric(threshold=0.7)`": (
        "assert_context_recall(case, 0.7)` (needs `ground_truth`)",
        needs_ground_truth("assert_context_recall", "context_recall"),
    ),
    "`ContextualRelevancyMetric(threshold=0.5)`": (
        "assert_context_relevance(case, 0.5)",
        context_relevance,
    ),
    '`GEval(name="Refunds", criteria="...", threshold=0.5)`': (
        'assert_criteria(case, "...", threshold=0.5, name="Refunds")',
        criteria,
    ),
    "`GEval(..., evaluation_params=[LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT])`": (
        "the criterion always sees the question, the answer, the contexts and the ground truth",
        criterion_sees_everything,
    ),
    "`metric.measure(case); metric.score, metric.reason`": (
        'result = evaluate(case, "faithfulness"); result.score, result.reason',
        measure,
    ),
    '`FaithfulnessMetric(model="gpt-4o")`': (
        "--rag-judge openai --rag-judge-model gpt-4o",
        judge_model,
    ),
    '`FaithfulnessMetric(model="gpt-4o")` beside `AnswerRelevancyMetric(model="gpt-4o-mini")`': (
        "`rag_judge` fixture",
        judge_per_test,
    ),
    '`@pytest.mark.parametrize("golden", dataset.goldens)`': (
        "def test_x(rag_case):` with `pytest --rag-dataset dataset.json",
        dataset_tests,
    ),
    '`dataset.add_goldens_from_json_file("goldens.json")`': (
        "rag-eval convert --from deepeval goldens.json dataset.json",
        converted("deepeval"),
    ),
    '`ConversationalGolden(scenario=..., turns=[Turn(role="user", content=q), ...])`, '
    "`ConversationalTestCase(turns=[...])`": (
        "`rag-eval convert --from deepeval` converts a saved file of them",
        converted_conversation("deepeval"),
    ),
    "`deepeval test run test_app.py`": ("pytest test_app.py", plain_pytest),
    "`evaluate(test_cases, metrics)`": ("zero-code mode", zero_code),
    # RAGAS's column
    "`SingleTurnSample(user_input=q, response=a, retrieved_contexts=ctx, reference=gt)`": (
        "make_case(question=q, answer=a, contexts=ctx, ground_truth=gt)",
        case_fields,
    ),
    "`Faithfulness()` / `faithfulness`": ("`faithfulness` (`assert_faithful`)", faithful_as_ragas),
    "`ResponseRelevancy()` / `answer_relevancy`": (
        "`answer_relevance` (`assert_relevant`)",
        relevance,
    ),
    "`LLMContextPrecisionWithReference()` / `context_precision`": (
        "`context_precision`",
        needs_ground_truth("assert_context_precision", "context_precision"),
    ),
    "`LLMContextRecall()` / `context_recall`": (
        "`context_recall`",
        needs_ground_truth("assert_context_recall", "context_recall"),
    ),
    "`ContextRelevance()`": ("`context_relevance`", context_relevance),
    "`FactualCorrectness()` / `answer_correctness`": (
        "`answer_correctness` (`assert_correct`)",
        correctness,
    ),
    "`SemanticSimilarity()` / `answer_similarity`": (
        "`answer_similarity` (`assert_similar`)",
        similarity,
    ),
    "`IDBasedContextPrecision()` / `IDBasedContextRecall()` (`retrieved_context_ids`, "
    "`reference_context_ids`)": (
        "`retrieval_precision` / `retrieval_recall` (`assert_retrieval`), with "
        "`expected_contexts` and each context's `source`",
        retrieval,
    ),
    '`AspectCritic(name="harmless", definition="...")`': (
        'assert_criteria(case, "...", name="harmless")',
        criteria,
    ),
    "`await Faithfulness(llm=llm).single_turn_ascore(sample)`": (
        'evaluate(case, "faithfulness").score',
        measure,
    ),
    "`evaluate(dataset, metrics=[...], llm=llm)`": (
        "zero-code mode with `--rag-report-only`",
        zero_code,
    ),
    '`EvaluationDataset.from_jsonl("samples.jsonl")`': (
        "rag-eval convert --from ragas samples.jsonl dataset.json",
        converted("ragas"),
    ),
    "`MultiTurnSample(user_input=[HumanMessage(...), AIMessage(...), ...])`": (
        "`rag-eval convert --from ragas` converts a saved file of them",
        converted_conversation("ragas"),
    ),
    "`result.to_pandas()`": ('load_report("results")', reads_the_report),
    "`llm=LangchainLLMWrapper(ChatOpenAI(...))`": (
        "`--rag-judge openai`, `--rag-judge anthropic`, or a `rag_judge` fixture returning any "
        "`prompt -> text` callable",
        any_judge,
    ),
}
CHECKS = sorted({check.__name__: check for _, check in ROWS.values()}.items())


def page_rows(heading: str) -> dict[str, str]:
    """The rows of the table under ``## heading``: the left column's text -> the right's."""
    section = PAGE.read_text(encoding="utf-8").split(f"\n## {heading}\n", 1)[1].split("\n## ")[0]
    table = [line for line in section.splitlines() if line.startswith("| ")]
    assert table[0] == f"| {heading} | here |", table[0]
    rows = {}
    for line in table[1:]:
        left, right = line[2:-2].split(" | ", 1)
        rows[left] = right
    return rows


def test_every_row_of_the_page_is_run() -> None:
    rows = {**page_rows("DeepEval"), **page_rows("RAGAS")}
    assert sorted(set(rows) - set(ROWS)) == [], "rows of docs/migrating.md without a check here"
    assert sorted(set(ROWS) - set(rows)) == [], "checks here of rows no longer on the page"
    for left, (here, _) in ROWS.items():
        assert here in rows[left], f"{left}: the page no longer says {here!r}"


@pytest.mark.parametrize("check", [c for _, c in CHECKS], ids=[name for name, _ in CHECKS])
def test_a_row_does_what_the_page_says(
    pytester: pytest.Pytester, check: Callable[[pytest.Pytester], None]
) -> None:
    check(pytester)


# --------------------------------------------------------------------------- the worked example

APP = f"""
import os
POLICY = {POLICY!r}
def my_app(question):
    answers = {{
        "good": "Our refund policy: refunds are available within 30 days of purchase. " + {MARS!r},
        "bad": {DENIAL!r},
    }}
    return answers[os.environ["APP"]], [POLICY]
"""


def test_the_worked_example_runs_as_written(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's port of the DeepEval test, as written: faithfulness with DeepEval's mode
    keeps DeepEval's result (without it the unmentioned claim fails the test: 0.50), and an
    answer that misses both metrics fails once, listing both."""
    page = PAGE.read_text(encoding="utf-8")
    example = page.split("```python\n# rag-eval-pytest\n", 1)[1].split("```", 1)[0]
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(app=APP, test_refunds="from app import my_app\n" + example)
    pytester.syspathinsert()

    monkeypatch.setenv("APP", "good")
    assert outcomes(runs(pytester)) == {"test_refunds": "PASSED"}
    assert scores(read_report(pytester)) == {
        "test_refunds": {"faithfulness": 1.0, "answer_relevance": 1.0}
    }
    stricter = example.replace('{"threshold": 0.9, "mode": "deepeval"}', "0.9")
    assert stricter != example
    pytester.makepyfile(test_refunds="from app import my_app\n" + stricter)
    runs(pytester).stdout.fnmatch_lines(["*test_refunds faithfulness 0.50 < 0.90"])

    pytester.makepyfile(test_refunds="from app import my_app\n" + example)
    monkeypatch.setenv("APP", "bad")
    result = runs(pytester)
    assert outcomes(result) == {"test_refunds": "FAILED"}
    result.stdout.fnmatch_lines(
        ["*2 of 2 metrics missed: faithfulness 0.00 < 0.90, answer_relevance 0.00 < 0.70"]
    )
