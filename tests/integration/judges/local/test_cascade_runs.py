"""The cascade judge through real pytest runs: the local judge first; only the claims it is
unsure of go to the LLM judge (here the word-overlap stand-in, counted), in the same typed
question; a criterion the local judge cannot read goes to the LLM judge whole; the result says
how many items each tier decided; the cascade is a judge identity of its own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests import word_judge
from tests.helpers import read_report
from tests.integration.judges.local.test_unsure_runs import SURE_CASE, UNSURE_CASE

CASCADE = "judge:\n  kind: cascade\n  then:\n    kind: tests.word_judge:word_judge\n    passes: 1\n"
TESTS = """
from rag_eval_pytest import assert_criteria, assert_faithful

def test_grounded(rag_case):
    assert_faithful(rag_case, 0.9)

def test_mentions_time_off(rag_case):
    assert_criteria(rag_case, "The answer must mention 'paid' time off.")
"""


@pytest.fixture
def project(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> pytest.Pytester:
    write_dataset([SURE_CASE, UNSURE_CASE])
    pytester.makepyfile(test_rag=TESTS)
    pytester.makefile(".yaml", **{"eval-config": CASCADE})
    return pytester


def test_only_the_unsure_claims_and_the_criteria_reach_the_llm_judge(
    project: pytest.Pytester,
) -> None:
    word_judge.calls.clear()
    result = project.runpytest("--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly")
    # The stand-in finds half of the unsure claim's words in the context: not supported.
    result.assert_outcomes(passed=3, failed=1)
    assert result.ret == 1, result.stdout.str()
    statement_prompts = [p for p in word_judge.calls if "standalone statements" in p]
    criterion_prompts = [p for p in word_judge.calls if "meets the criterion" in p]
    assert len(statement_prompts) == 1  # one unsure claim, in one case
    asked = word_judge.sections(statement_prompts[0])["ANSWER"]
    assert asked == "The HR portal handles requests for leave."
    assert len(criterion_prompts) == 2  # the local judge cannot read a criterion
    report = read_report(project)
    cases = {c["id"]: c for c in report["cases"]}
    leave = cases["leave"]["metrics"]["faithfulness"]
    assert leave["details"]["tiers"] == {"local": 1, "llm": 1}
    assert (leave["unsure"], leave["status"], leave["score"]) == (0, "failed", 0.5)
    assert [e["verdict"] for e in leave["evidence"]] == ["supported", "unsupported"]
    assert cases["days"]["metrics"]["faithfulness"]["details"]["tiers"] == {"local": 1}
    judge = report["run"]["judge"]
    assert judge.startswith("cascade (local (all-MiniLM-L6-v2 + rules), then custom (")


def test_a_cascade_is_another_judge_identity_than_its_tiers(project: pytest.Pytester) -> None:
    project.runpytest("--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly")
    cascade = read_report(project)["run"]["selection"]["judge_identities"]
    project.runpytest(
        "--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly", "--rag-judge=local"
    )
    local = read_report(project)["run"]["selection"]["judge_identities"]
    assert cascade and local and set(cascade).isdisjoint(local)


def test_a_cascade_without_an_llm_judge_says_what_to_set(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset([SURE_CASE])
    pytester.makepyfile(test_rag=TESTS)
    result = pytester.runpytest("--rag-dataset=dataset.json", "--rag-judge=cascade")
    assert result.ret == 3
    result.stdout.fnmatch_lines(["*the cascade judge needs an LLM judge*set judge.then*"])


def test_the_report_says_what_each_tier_decided(project: pytest.Pytester) -> None:
    result = project.runpytest("--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly")
    line = (
        "Faithfulness: the local judge decided 2 of 3 items, the LLM judge 1; "
        "1 of 2 cases never asked the LLM judge"
    )
    result.stdout.fnmatch_lines([f"cascade: {line}"])
    assert f"- {line}" in (project.path / "results" / "eval_report.md").read_text()
    tiers = read_report(project)["summary"]["metrics"]["faithfulness"]["tiers"]
    assert tiers == {"local": 2, "llm": 1, "unasked": 1}


@pytest.mark.parametrize(
    ("args", "config"),
    [(["--rag-no-cache"], CASCADE), ([], CASCADE.replace("judge:\n", "judge:\n  cache: false\n"))],
    ids=["rag-no-cache", "judge-cache-false"],
)
def test_the_llm_tier_caches_nothing_when_the_run_turns_the_cache_off(
    project: pytest.Pytester, args: list[str], config: str
) -> None:
    """The LLM tier used to cache its replies whatever the run said: a second run asked it
    nothing and replayed the first run's verdicts."""
    project.makefile(".yaml", **{"eval-config": config})
    for _ in range(2):
        word_judge.calls.clear()
        result = project.runpytest("--rag-dataset=dataset.json", "-p", "no:randomly", *args)
        result.assert_outcomes(passed=3, failed=1)
        # Asked again: the unsure claim and both criteria, as on the first run.
        assert sum("standalone statements" in p for p in word_judge.calls) == 1
        assert sum("meets the criterion" in p for p in word_judge.calls) == 2
        usage = read_report(project)["summary"]["usage"]
        assert (usage["judge_calls"], usage["cache_hits"]) == (3, 0)
    assert not list((project.path / ".pytest_cache").rglob("*.json"))


def test_a_cases_questions_for_the_llm_judge_go_in_one_request(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """Zero-code mode checks four metrics per case; what the local judge leaves undecided
    for a case (an unsure claim, a rating of a kind it does not trust) reaches the LLM judge
    in one request, each question a task of its own, and each metric gets its own answer."""
    truth = "Employees request time off through the HR portal."
    write_dataset(
        [
            {**UNSURE_CASE, "ground_truth": truth},
            {
                **UNSURE_CASE,
                "id": "leave-2",
                "question": "How does staff ask for leave?",
                "ground_truth": truth,
            },
        ]
    )
    pytester.makefile(".yaml", **{"eval-config": CASCADE})
    word_judge.calls.clear()
    result = pytester.runpytest("--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly")
    assert result.ret in (0, 1), result.stdout.str()
    assert len(word_judge.calls) == 2  # one request per case
    for prompt in word_judge.calls:
        assert "This request holds 4 tasks" in prompt  # each metric's question
        assert "(statement_support)" in prompt and "(answer_addresses_question)" in prompt
    report = read_report(pytester)
    assert report["summary"]["usage"]["judge_calls"] == 2
    for case in report["cases"]:
        metrics = case["metrics"]
        assert metrics["faithfulness"]["details"]["tiers"] == {"local": 1, "llm": 1}
        assert metrics["answer_relevance"]["details"]["tiers"] == {"llm": 1}


def test_a_second_run_reads_each_cases_request_from_the_judge_cache(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """A case's questions are asked in an order of their own, whichever the local tier
    finished first: the same request again, which the cache answers."""
    truth = "Employees request time off through the HR portal."
    write_dataset([{**UNSURE_CASE, "ground_truth": truth}])
    pytester.makefile(".yaml", **{"eval-config": CASCADE})
    asked = []
    for _ in range(2):
        word_judge.calls.clear()
        pytester.runpytest("--rag-dataset=dataset.json", "-p", "no:randomly")
        asked.append(len(word_judge.calls))
    assert asked == [1, 0]
    assert read_report(pytester)["summary"]["usage"]["cache_hits"] == 1


def test_a_test_asking_its_metrics_one_at_a_time_still_asks_each_later_case_once(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """A test module that evaluates its metrics one after another: the first test teaches
    the plugin what its function asks for, and the other cases' metrics, started ahead while
    it runs, hold their questions for the LLM judge until it ends: one request per later
    case, with both metrics' tasks. The first test's own questions used to go as it asked
    them, one request each: its first evaluation now also measures the run's configured
    metrics, whose questions ride in the same request."""
    truth = "Employees request time off through the HR portal."
    write_dataset(
        [
            {**UNSURE_CASE, "id": f"leave-{i}", "ground_truth": truth, "question": question}
            for i, question in enumerate(
                [
                    UNSURE_CASE["question"],
                    "How does staff ask for leave?",
                    "How can staff book leave?",
                ]
            )
        ]
    )
    pytester.makefile(".yaml", **{"eval-config": CASCADE})
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import evaluate

def test_one_at_a_time(rag_case):
    for metric in ("faithfulness", "answer_relevance"):
        assert evaluate(rag_case, metric).judged
"""
    )
    word_judge.calls.clear()
    result = pytester.runpytest("--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly")
    result.assert_outcomes(passed=3)
    bundles = [p for p in word_judge.calls if "This request holds 2 tasks" in p]
    assert len(bundles) == 2  # the later two cases
    assert len(word_judge.calls) == 3  # and the first test's, one request
    first = word_judge.calls[0]
    assert "(statement_support)" in first and "(answer_addresses_question)" in first
    assert read_report(pytester)["summary"]["usage"]["judge_calls"] == 3


GUESSING_TESTS = """
from rag_eval_pytest import evaluate

def test_grounded(rag_case):
    assert evaluate(rag_case, "faithfulness").judged

def test_on_topic(rag_case):
    result = evaluate(rag_case, "answer_relevance")
    assert result.judged, result.reason
    assert result.details["tiers"] == {"llm": 1}
"""


def test_a_guessed_metric_rides_in_a_request_made_anyway_and_is_paid_by_it(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """A test function that asks for faithfulness only: its first evaluation's guess
    (answer relevance) goes in the request its unsure claim makes, and that request is
    counted once, on the result the test reads; the guess is not reported."""
    write_dataset([UNSURE_CASE])
    pytester.makefile(".yaml", **{"eval-config": CASCADE})
    pytester.makepyfile(test_rag=GUESSING_TESTS.split("def test_on_topic")[0])
    word_judge.calls.clear()
    result = pytester.runpytest("--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    assert len(word_judge.calls) == 1
    assert "(answer_addresses_question)" in word_judge.calls[0]
    report = read_report(pytester)
    assert report["summary"]["usage"]["judge_calls"] == 1
    assert list(report["cases"][0]["metrics"]) == ["faithfulness"]


def test_a_guess_alone_makes_no_request_and_a_later_test_measures_it_anew(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """The local judge decides the first function's faithfulness: its guess (answer
    relevance, which the local judge leaves to the LLM) has no request to ride in and is not
    asked. The second function asks for answer relevance: measured again, asked, judged."""
    # Its one claim is in the context; whether it answers "how" is for the LLM.
    write_dataset([{**SURE_CASE, "question": UNSURE_CASE["question"]}])
    pytester.makefile(".yaml", **{"eval-config": CASCADE})
    pytester.makepyfile(test_rag=GUESSING_TESTS.split("def test_on_topic")[0])
    word_judge.calls.clear()
    result = pytester.runpytest("--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    assert word_judge.calls == []
    pytester.makepyfile(test_rag=GUESSING_TESTS)
    result = pytester.runpytest("--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    assert len(word_judge.calls) == 1
    assert read_report(pytester)["summary"]["usage"]["judge_calls"] == 1
