"""Judge-based metrics through real pytest runs, with a custom ``prompt -> text`` judge."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests import word_judge  # imported before any inner run, so inner runs share it
from tests.helpers import case, read_report

JUDGE_CONFTEST = """
import pytest
from tests.word_judge import word_judge

@pytest.fixture(scope="session")
def rag_judge():
    return word_judge

@pytest.fixture(scope="session")
def rag_adapter():
    def app(question):
        if "refund" in question:
            return (
                "Refunds are available within 30 days of purchase. Shipping is free to Mars.",
                [{"text": "Refunds are available within 30 days of purchase.",
                  "source": "policy.md"}],
            )
        return ("I don't know.", [])
    return app
"""

CASES = [
    case(
        "refund",
        "What is the refund policy?",
        "Refunds are available within 30 days of purchase.",
        critical=True,
    ),
    case("unknown", "Where is the moon base?", "There is no moon base."),
]


@pytest.fixture
def judged(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> pytest.Pytester:
    write_dataset(CASES)
    pytester.makeconftest(JUDGE_CONFTEST)
    return pytester


def test_assert_faithful_fails_with_score_threshold_and_the_unsupported_statement(
    judged: pytest.Pytester,
) -> None:
    judged.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_faithful
def test_faithful(rag_case):
    assert_faithful(rag_case, threshold=0.9)
"""
    )
    result = judged.runpytest("--rag-dataset", "dataset.json", "--rag-judge-passes", "1")
    result.stdout.fnmatch_lines(
        [
            "*refund faithfulness 0.50 < 0.90",
            "*1 of 2 statements supported by the contexts; 1 not supported",
            "*evidence:",
            "*?unsupported? Shipping is free to Mars. — 0% of its words are in the contexts",
        ]
    )
    # "unknown" retrieved nothing: faithfulness 0 with the reason, not a skip.
    result.stdout.fnmatch_lines(
        ["*unknown faithfulness 0.00 < 0.90", "*the RAG system returned no contexts*"]
    )
    assert result.ret == 2  # the failing case is critical
    report = read_report(judged)
    refund = next(c for c in report["cases"] if c["id"] == "refund")
    faith = refund["metrics"]["faithfulness"]
    assert faith["score"] == 0.5
    assert faith["usage"]["judge_calls"] == 1
    assert report["run"]["judge"] == "custom (word_judge)"


def test_each_question_goes_to_the_judge_once_and_is_cached_for_the_next_run(
    judged: pytest.Pytester,
) -> None:
    judged.makepyfile(
        test_rag="""
from rag_eval_pytest import evaluate
from tests import word_judge

def test_twice(rag_case):
    before = len(word_judge.calls)
    evaluate(rag_case, "faithfulness")
    evaluate(rag_case, "faithfulness", mode="deepeval")
    evaluate(rag_case, "faithfulness")
    assert len(word_judge.calls) - before <= 1
"""
    )
    word_judge.calls.clear()
    args = ("--rag-dataset", "dataset.json", "--rag-judge-passes", "1", "-p", "no:randomly")
    first = judged.runpytest(*args)
    first.assert_outcomes(passed=2)
    assert len(word_judge.calls) == 1  # "unknown" has no contexts: nothing to ask
    assert read_report(judged)["summary"]["usage"]["judge_calls"] == 1

    word_judge.calls.clear()
    second = judged.runpytest(*args)
    second.assert_outcomes(passed=2)
    assert word_judge.calls == []
    usage = read_report(judged)["summary"]["usage"]
    assert (usage["judge_calls"], usage["cache_hits"]) == (0, 1)

    word_judge.calls.clear()
    judged.runpytest(*args, "--rag-no-cache").assert_outcomes(passed=2)
    assert len(word_judge.calls) == 1


@pytest.mark.parametrize(
    ("judge_config", "warned"),
    [("cache: false", False), ("no_cache: true", True), ("no_cache: false\n  cache: false", True)],
    ids=["cache-false", "deprecated-no-cache", "both"],
)
def test_judge_cache_false_in_the_config_turns_the_cache_off_and_no_cache_still_works(
    judged: pytest.Pytester, judge_config: str, warned: bool
) -> None:
    judged.makepyfile(
        test_rag="""
from rag_eval_pytest import evaluate

def test_faithful(rag_case):
    evaluate(rag_case, "faithfulness")
"""
    )
    judged.makefile(".yaml", **{"eval-config": f"judge:\n  {judge_config}\n"})
    args = ("--rag-dataset", "dataset.json", "--rag-judge-passes", "1", "-p", "no:randomly")
    for _ in range(2):
        word_judge.calls.clear()
        result = judged.runpytest(*args)
        result.assert_outcomes(passed=2)
        assert len(word_judge.calls) == 1  # asked again: nothing was cached
    notice = (
        "*RagEvalWarning: *eval-config.yaml: 'judge.no_cache' is deprecated: use 'judge.cache'*"
    )
    if warned:
        result.stdout.fnmatch_lines(["*warnings summary*", notice])
    else:
        result.stdout.no_fnmatch_line(notice)


def test_zero_code_checks_the_judge_based_metrics_and_the_composite(
    judged: pytest.Pytester,
) -> None:
    result = judged.runpytest(
        "--rag-dataset", "dataset.json", "--rag-judge-passes", "1", "-p", "no:randomly", "-v"
    )
    result.stdout.fnmatch_lines(["*dataset.json::refund FAILED*", "*dataset.json::unknown FAILED*"])
    report = read_report(judged)
    metrics = report["summary"]["metrics"]
    assert set(metrics) >= {
        "faithfulness",
        "answer_relevance",
        "context_precision",
        "context_recall",
    }
    refund = next(c for c in report["cases"] if c["id"] == "refund")
    by_name = refund["metrics"]
    assert by_name["context_precision"]["score"] == 1.0
    assert by_name["context_recall"]["score"] == 1.0
    assert by_name["faithfulness"]["score"] == 0.5
    unknown = next(c for c in report["cases"] if c["id"] == "unknown")
    by_name = unknown["metrics"]
    assert by_name["answer_relevance"]["score"] == 0.0
    assert "noncommittal" in by_name["answer_relevance"]["reason"]
    assert report["summary"]["composite"] is not None


def test_answer_correctness_runs_beside_similarity(judged: pytest.Pytester) -> None:
    judged.makepyfile(
        test_rag="""
from rag_eval_pytest import evaluate
def test_correct(rag_case):
    result = evaluate(rag_case, "answer_correctness")
    beside = result.details["beside"]
    assert beside["metric"] == "answer_similarity"
    print("BESIDE", beside["score"], beside["reason"][:40])
"""
    )
    result = judged.runpytest("--rag-dataset", "dataset.json", "--rag-judge-passes", "1", "-s")
    result.assert_outcomes(passed=2)
    report = read_report(judged)
    refund = next(c for c in report["cases"] if c["id"] == "refund")
    correctness = refund["metrics"]["answer_correctness"]
    # The answer states the ground truth and one extra fact: F1 = 1 / (1 + 0.5).
    assert correctness["score"] == pytest.approx(2 / 3, abs=1e-4)
    assert [e["verdict"] for e in correctness["evidence"]] == ["matching", "wrong"]


def test_no_key_and_an_explicit_anthropic_judge_fail_with_what_to_do(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset([case("a", "What is the refund policy?", "Full refund within 30 days.")])
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_faithful
def test_faithful(rag_case):
    assert_faithful(rag_case)
"""
    )
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-target", rag_app, "--rag-judge", "anthropic"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*a: the anthropic judge needs an API key: set ANTHROPIC_API_KEY*"]
    )
    assert "Traceback" not in result.stdout.str()


def test_a_rag_judge_fixture_returning_none_leaves_judge_metrics_not_judged(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset([case("a", "What is the refund policy?", "Full refund within 30 days.")])
    pytester.makeconftest(
        "import pytest\n@pytest.fixture(scope='session')\ndef rag_judge():\n    return None\n"
    )
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_relevant
def test_relevant(rag_case):
    assert_relevant(rag_case)
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app, "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*a answer_relevance not judged: no judge is configured*"])
    report = json.loads((pytester.path / "results" / "eval_report.json").read_text())
    assert report["cases"][0]["metrics"]["answer_relevance"]["score"] is None


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    """The report without timings and judge usage: a question asked by several cases is sent
    once per process, so with workers the same scores can cost a few more requests."""
    for volatile in ("id", "started_at", "finished_at", "duration_s"):
        report["run"].pop(volatile)
    report.pop("trend", None)  # the second run has the first in its history
    report.pop("comparison", None)  # and is compared with it
    report.pop("integrity")  # the digest of the cases, their timings with them
    report["summary"]["latency"] = None
    report["summary"]["usage"] = None
    for c in report["cases"]:
        c["latency_s"] = c["slow"] = None  # slow: a latency over 5 s, on a loaded machine
        c["tests"] = sorted(t["nodeid"] for t in c["tests"])
        c["composite"] = _rounded(c["composite"])
        for result in c["metrics"].values():
            result["usage"] = None
            # Embedding scores differ in their last digits between processes (the batches a
            # vector is encoded in differ): the same to 6 places is the same score.
            result["score"] = _rounded(result["score"])
            for item in result["evidence"]:
                item["score"] = _rounded(item["score"])
    return report


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def test_xdist_gives_the_same_judged_report_as_a_plain_run(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [
            {**c, "id": f"{c['id']}-{i}", "critical": c.get("critical", False) and i == 0}
            for i in range(4)
            for c in CASES
        ]
    )
    # Workers are other processes: they import the judge from the test directory.
    pytester.makepyfile(word_judge=Path(word_judge.__file__).read_text())
    pytester.makeconftest(JUDGE_CONFTEST.replace("tests.word_judge", "word_judge"))
    args = ("--rag-dataset", "dataset.json", "--rag-judge-passes", "1", "--rag-no-cache")
    plain = judged_run(pytester, *args, "-n", "0")
    plain_report = _comparable(read_report(pytester))
    distributed = judged_run(pytester, *args, "-n", "2")
    distributed_report = _comparable(read_report(pytester))
    assert plain.ret == distributed.ret == 2
    assert distributed_report["summary"]["metrics"]["faithfulness"]["judged"] == 8
    assert distributed_report == plain_report


def judged_run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*args, "-p", "no:randomly")


USEFULNESS_JUDGES = """
import json, re

def _verdicts(prompt, yes):
    if "GROUND TRUTH SENTENCES" in prompt:  # context recall
        items = int(re.search(r'"GROUND TRUTH SENTENCES"[^>]*items="(\\d+)"', prompt).group(1))
        return json.dumps({"sentences": [{"index": i, "attributed": yes, "reason": "r"}
                                         for i in range(items)]})
    items = int(re.search(r'section="CONTEXTS"[^>]*items="(\\d+)"', prompt).group(1))
    return json.dumps({"verdicts": [{"index": i, "useful": yes, "reason": "r"}
                                    for i in range(items)]})

def _log(name):
    with open("judge_calls.log", "a") as fh:
        fh.write(name + "\\n")

def useful_judge(prompt):
    _log("useful")
    return _verdicts(prompt, True)

def useless_judge(prompt):
    _log("useless")
    return _verdicts(prompt, False)
"""


def test_tests_with_different_judges_get_each_its_own_judges_scores(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """Two test modules that override ``rag_judge`` with different judges and ask the same
    metric of the same cases: each gets its own judge's verdicts, never the other's answer
    remembered from earlier in the run; and the evaluation ahead of the tests asks each
    judge only what its own module asks (no request is spent on the wrong judge)."""
    write_dataset([case(f"c{i}", f"q{i}?", answer="a", contexts=["x", "y"]) for i in range(3)])
    pytester.makepyfile(usefulness_judges=USEFULNESS_JUDGES)
    pytester.syspathinsert()
    module = """
import pytest
from rag_eval_pytest import evaluate
import usefulness_judges

@pytest.fixture(scope="module")
def rag_judge():
    return usefulness_judges.{judge}

def test_precision(rag_case):
    print("SCORE {name}", rag_case.id, evaluate(rag_case, "context_precision").score)
"""
    recall = """
def test_recall(rag_case):
    evaluate(rag_case, "context_recall")
"""
    pytester.makepyfile(
        test_a_useful=module.format(judge="useful_judge", name="a"),
        test_b_useless=module.format(judge="useless_judge", name="b") + recall,
    )
    calls = pytester.path / "judge_calls.log"
    for run in ("first", "second"):  # the second run the same: nothing is carried over
        calls.unlink(missing_ok=True)
        result = pytester.runpytest(
            "--rag-dataset=dataset.json",
            "--rag-judge-passes=1",
            "--rag-no-cache",
            "-s",
            "-p",
            "no:randomly",
        )
        # Module a: precision of 3 cases; module b: precision and recall of 3 cases.
        assert sorted(calls.read_text().split()) == ["useful"] * 3 + ["useless"] * 6, run
        result.assert_outcomes(passed=9)
        scores = [line.split()[-3:] for line in result.outlines if "SCORE " in line]
        assert sorted(scores) == [
            *(["a", f"c{i}", "1.0"] for i in range(3)),
            *(["b", f"c{i}", "0.0"] for i in range(3)),
        ], (run, scores)


JUDGE_MODULE = """
import pytest
from rag_eval_pytest import evaluate
from rag_eval_pytest.judges.callable import CallableJudge
import usefulness_judges

@pytest.fixture(scope="module")
def rag_judge():
    return {judge}

def test_precision(rag_case):
    print("SCORE {name}", rag_case.id, evaluate(rag_case, "context_precision").score)
"""


def _two_judge_runs(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], judge_a: str, judge_b: str
) -> list[tuple[list[str], list[list[str]], pytest.RunResult]]:
    """Two runs with the disk cache on, module a judging with ``judge_a`` (useful) and
    module b with ``judge_b`` (useless): per run, the calls each judge got and the scores."""
    write_dataset([case(f"c{i}", f"q{i}?", answer="a", contexts=["x", "y"]) for i in range(3)])
    pytester.makepyfile(usefulness_judges=USEFULNESS_JUDGES)
    pytester.syspathinsert()
    pytester.makepyfile(
        test_a_useful=JUDGE_MODULE.format(judge=judge_a, name="a"),
        test_b_useless=JUDGE_MODULE.format(judge=judge_b, name="b"),
    )
    calls = pytester.path / "judge_calls.log"
    runs = []
    for _ in range(2):
        calls.unlink(missing_ok=True)
        result = pytester.runpytest(
            "--rag-dataset=dataset.json", "--rag-judge-passes=1", "-s", "-p", "no:randomly"
        )
        result.assert_outcomes(passed=6)
        logged = sorted(calls.read_text().split()) if calls.exists() else []
        scores = sorted(line.split()[-3:] for line in result.outlines if "SCORE " in line)
        runs.append((logged, scores, result))
    return runs


RIGHT_SCORES = [
    *(["a", f"c{i}", "1.0"] for i in range(3)),
    *(["b", f"c{i}", "0.0"] for i in range(3)),
]


def test_two_lambda_judges_never_share_verdicts_through_the_disk_cache(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """Two modules whose rag_judge returns a lambda each: both lambdas have the same name,
    so nothing tells their answers apart on disk. Each module gets its own judge's verdicts
    on every run, the plan learned from the first run sends no module's work to the other's
    judge, and the run says once that these judges are not cached."""
    runs = _two_judge_runs(
        pytester,
        write_dataset,
        "lambda prompt: usefulness_judges.useful_judge(prompt)",
        "lambda prompt: usefulness_judges.useless_judge(prompt)",
    )
    for run, (logged, scores, result) in enumerate(runs):
        assert scores == RIGHT_SCORES, run
        # Not cached: every run asks each judge its own module's 3 questions, and no more.
        assert logged == ["useful"] * 3 + ["useless"] * 3, run
        notices = [line for line in result.outlines if "has no stable name" in line]
        assert len(notices) == 1, result.outlines
        assert "not cached on disk" in notices[0] and "model=" in notices[0]


def test_named_judges_are_cached_each_under_its_own_name(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """A judge with ``model=`` and a function defined at a module's top level have stable
    names: the second run is answered from the disk cache, each module its own verdicts."""
    runs = _two_judge_runs(
        pytester,
        write_dataset,
        'CallableJudge(lambda p: usefulness_judges.useful_judge(p), model="useful-v1")',
        "usefulness_judges.useless_judge",
    )
    (first_calls, first_scores, first), (second_calls, second_scores, second) = runs
    assert first_calls == ["useful"] * 3 + ["useless"] * 3
    assert second_calls == []
    assert first_scores == second_scores == RIGHT_SCORES
    assert not any("has no stable name" in line for line in first.outlines + second.outlines)


def test_early_stopping_of_a_vote_is_not_reported_only_disagreement_is(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """With 3 passes, a vote whose first two passes agree stops there: that is the design and
    the failure says nothing of it. Passes that disagree are worth a note (not a warning)."""
    write_dataset([case(f"c{i}", f"q{i}?", answer="a", contexts=["x", "y"]) for i in range(2)])
    pytester.makeconftest(
        """
import json, re, pytest

ANSWERS = {"c0": [False, False], "c1": [False, True, False]}  # c1's passes disagree
asked = {}

@pytest.fixture(scope="session")
def rag_judge():
    def judge(prompt):
        case = re.search(r"q(\\d)\\?", prompt).group(0)[:2].replace("q", "c")
        n = asked[case] = asked.get(case, -1) + 1
        useful = ANSWERS[case][n]
        return json.dumps({"verdicts": [{"index": i, "useful": useful, "reason": "r"}
                                        for i in range(2)]})
    return judge
"""
    )
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_context_precision
def test_precision(rag_case):
    assert_context_precision(rag_case, 0.5)
"""
    )
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", "--rag-judge-passes=3", "--rag-no-cache", "-p", "no:randomly"
    )
    result.assert_outcomes(failed=2)
    output = result.stdout.str()
    assert "not needed" not in output and "passes agreed" not in output
    result.stdout.no_fnmatch_line("E * warning: *")
    result.stdout.fnmatch_lines(
        ["*c1 context_precision 0.00 < 0.50", "*note: judge passes disagreed on 2 of 2 verdicts*"]
    )
    # pytest repeats whole messages in its short summary on CI (the CI variable set): count
    # the failure sections only
    failures = output.split("short test summary info")[0]
    assert failures.count("judge passes disagreed") == 1  # c0's passes agreed
