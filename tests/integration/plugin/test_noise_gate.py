"""The gate that knows the judge's noise, through real pytest runs: each metric's mean with
its 95 % interval in every report; a regression only when a drop is both larger than the
noise (a paired test over the cases both runs scored) and at least regression.min_drop;
--rag-fail-on-regression; a baseline given as history or as a report's path; a subset
compared only on its own cases; judge-flaky cases listed, and quarantined on request."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# Imported before any inner run, so the inner runs' conftest shares it.
from tests import word_judge  # noqa: F401
from tests.helpers import case, read_report

CASES = 40
# The RAG system finds the policy for every case but the first MISSES ones.
APP = """
import os
def answer(question):
    number = int(question.split()[-1].rstrip("?"))
    if number < int(os.environ.get("MISSES", "0")):
        return "I don't know.", []
    return "Full refund within 30 days.", [{"text": "Full refund.", "source": "policy.md"}]
"""
TESTS = """
from rag_eval_pytest import evaluate

def test_recall(rag_case):
    evaluate(rag_case, "retrieval_recall")  # recorded, fails no test
"""


@pytest.fixture
def project(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> pytest.Pytester:
    write_dataset(
        [
            case(f"c{i:02d}", f"refund policy {i}?", expected_contexts=["policy.md"])
            for i in range(CASES)
        ]
    )
    pytester.makepyfile(app=APP, test_rag=TESTS)
    pytester.syspathinsert()
    return pytester


def run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, misses: int, *args: str
) -> tuple[pytest.RunResult, dict[str, Any]]:
    monkeypatch.setenv("MISSES", str(misses))
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", "--rag-target=app:answer", "-p", "no:randomly", *args
    )
    return result, read_report(pytester)


def test_a_drop_is_a_regression_only_when_it_is_real_and_large_enough(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, first = run(project, monkeypatch, 0, "--rag-fail-on-regression")
    assert result.ret == 0
    assert first["comparison"]["not_compared"].startswith("no earlier complete run")
    # One case of 40 lost: a drop of 0.025, below the least drop that counts. The case itself
    # newly fails, and retrieval asks no judge: that is a regression of its own.
    result, small = run(project, monkeypatch, 1, "--rag-fail-on-regression")
    (change,) = small["comparison"]["changes"]
    assert (change["metric"], change["cases"], change["regression"]) == (
        "retrieval_recall",
        40,
        False,
    )
    assert change["change"] == -0.025
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "rag-eval: exit 1: regressed since the baseline: 1 case newly fails with stable "
            "verdicts: c00 retrieval_recall 1.00 -> 0.00 (< 0.80)"
        ]
    )
    # Ten of 40 lost: a real drop of 0.25 since the last run not flagged as a regression.
    result, dropped = run(project, monkeypatch, 10, "--rag-fail-on-regression")
    assert result.ret == 1
    (change,) = dropped["comparison"]["changes"]
    assert change["regression"] and change["p_value"] < 0.05
    assert dropped["comparison"]["baseline"] == f"history: run {first['run']['id']}"
    result.stdout.fnmatch_lines(
        [
            "rag-eval: exit 1: regressed since the baseline: retrieval_recall 1.00 -> 0.75 "
            "(-0.25, 95 % * to *, p=*, 40 cases); 10 cases newly fail with stable verdicts: *"
        ]
    )
    markdown = (project.path / "results" / "eval_report.md").read_text()
    assert "| Retrieval Recall | 40 | 1.00 | 0.75 | -0.25 (" in markdown
    assert "| **REGRESSION** |" in markdown
    assert "> **Regression:** Retrieval Recall 1.00 → 0.75" in markdown  # the trend's mark
    # Without --rag-fail-on-regression a regression is reported, not failed.
    result, _ = run(project, monkeypatch, 20)
    assert result.ret == 0


def test_the_interval_is_in_the_json_the_markdown_and_the_step_summary(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, report = run(project, monkeypatch, 10)
    low, high = report["summary"]["metrics"]["retrieval_recall"]["interval"]
    assert low < 0.75 < high
    row = f"| Retrieval Recall | 0.75 ({low:.2f}-{high:.2f}) |"
    assert row in (project.path / "results" / "eval_report.md").read_text()
    assert row in (project.path / "results" / "eval_summary.md").read_text()
    _, again = run(project, monkeypatch, 10)
    assert again["summary"]["metrics"]["retrieval_recall"]["interval"] == [low, high]  # seeded


def test_a_baseline_report_given_by_path_and_a_subset_compared_on_its_own_cases(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(project, monkeypatch, 0)
    baseline = project.path / "main-branch.json"
    baseline.write_text((project.path / "results" / "eval_report.json").read_text())
    result, subset = run(
        project, monkeypatch, 10, "-k", "c0 or c1", f"--rag-baseline={baseline}",
        "--rag-fail-on-regression",
    )  # fmt: skip
    (change,) = subset["comparison"]["changes"]
    assert subset["comparison"]["baseline"] == str(baseline)
    assert change["cases"] == 20  # c00-c19: the cases both runs scored
    assert (change["before"], change["after"]) == (1.0, 0.5)
    assert result.ret == 1


def test_a_run_flagged_as_a_regression_is_not_the_next_runs_baseline(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, first = run(project, monkeypatch, 0, "--rag-fail-on-regression")
    assert result.ret == 0
    result, _ = run(project, monkeypatch, 10, "--rag-fail-on-regression")
    assert result.ret == 1
    # The same build again: still compared with the last run that did not regress (it used
    # to be compared with the regressed run, and pass).
    result, again = run(project, monkeypatch, 10, "--rag-fail-on-regression")
    assert result.ret == 1, result.stdout.str()
    assert again["comparison"]["baseline"] == f"history: run {first['run']['id']}"
    # Fixed: compared with the same baseline, no regression; that run is the next baseline.
    result, fixed = run(project, monkeypatch, 0, "--rag-fail-on-regression")
    assert result.ret == 0
    result, after = run(project, monkeypatch, 0, "--rag-fail-on-regression")
    assert after["comparison"]["baseline"] == f"history: run {fixed['run']['id']}"


def test_a_subset_is_compared_with_the_history_on_the_cases_it_shares(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, full = run(project, monkeypatch, 0)
    result, subset = run(project, monkeypatch, 10, "-k", "c0 or c1", "--rag-fail-on-regression")
    (change,) = subset["comparison"]["changes"]
    assert subset["comparison"]["baseline"] == f"history: run {full['run']['id']}"
    assert change["cases"] == 20  # c00-c19: the cases both runs scored
    assert (change["before"], change["after"]) == (1.0, 0.5)
    assert result.ret == 1
    # A full run after a subset that passed: each case compared with its own last run.
    _, passing = run(project, monkeypatch, 0, "-k", "c0 or c1")
    _, again = run(project, monkeypatch, 0)
    assert again["comparison"]["baseline"] == (
        f"history: runs {full['run']['id']}, {passing['run']['id']}"
    )
    assert again["comparison"]["changes"][0]["cases"] == CASES


NAMED_JUDGE_CONFTEST = """
import json, os, pytest
from rag_eval_pytest.judges.callable import CallableJudge

def judge(prompt):
    verdict = os.environ.get("VERDICT", "supported")
    return json.dumps({"statements": [{"statement": "s", "verdict": verdict, "reason": "r"}]})

@pytest.fixture(scope="session")
def rag_judge():
    return CallableJudge(judge, model=os.environ["JUDGE_MODEL"])
"""


def test_a_baseline_judged_by_another_judge_is_not_compared(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_dataset(
        [
            case(f"c{i}", "Refund policy?", answer="Full refund.", contexts=["Full refund."])
            for i in range(SMALL)
        ]
    )
    pytester.makeconftest(NAMED_JUDGE_CONFTEST)
    pytester.makepyfile(
        test_rag="from rag_eval_pytest import evaluate\n"
        "def test_faithful(rag_case):\n    evaluate(rag_case, 'faithfulness')\n"
    )

    def judged(model: str, verdict: str, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
        monkeypatch.setenv("JUDGE_MODEL", model)
        monkeypatch.setenv("VERDICT", verdict)
        result = pytester.runpytest(
            "--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly", *args
        )
        return result, read_report(pytester)

    _, first = judged("judge-a", "supported")
    baseline = pytester.path / "main.json"
    baseline.write_text((pytester.path / "results" / "eval_report.json").read_text())
    # Another model scores every answer 0: its runs are not compared with judge-a's (this
    # used to be a regression of 1.0 to 0.0).
    words = (
        f"the baseline {baseline} was judged by custom (judge-a), identity *, this run by "
        "custom (judge-b), identity *: runs of different judges * are not compared"
    )
    result, _ = judged("judge-b", "unsupported", f"--rag-baseline={baseline}")
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"baseline: not compared: {words}"])
    result, other = judged(
        "judge-b", "unsupported", f"--rag-baseline={baseline}", "--rag-fail-on-regression"
    )
    assert result.ret == 3
    result.stdout.fnmatch_lines([f"rag-eval: exit 3: fatal: *no comparison: {words}"])
    assert other["comparison"]["changes"] == []
    # The history keeps each judge's runs apart: each is compared with its own last run.
    result, history_b = judged("judge-b", "unsupported", "--rag-fail-on-regression")
    assert result.ret == 0
    assert history_b["comparison"]["baseline"] == f"history: run {other['run']['id']}"
    result, again = judged("judge-a", "supported", "--rag-fail-on-regression")
    assert result.ret == 0
    assert again["comparison"]["baseline"] == f"history: run {first['run']['id']}"


def test_a_baseline_of_another_datasets_content_is_not_compared(
    project: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run(project, monkeypatch, 0)
    baseline = project.path / "main.json"
    baseline.write_text((project.path / "results" / "eval_report.json").read_text())
    # One case's question changed: it is another case, the others are compared.
    cases = [
        case(f"c{i:02d}", f"refund policy {i}?", expected_contexts=["policy.md"])
        for i in range(CASES)
    ]
    cases[5]["question"] = "shipping policy 5?"
    write_dataset(cases)
    _, edited = run(project, monkeypatch, 0)
    assert edited["comparison"]["changed_cases"] == ["c05"]
    assert edited["comparison"]["changes"][0]["cases"] == CASES - 1
    markdown = (project.path / "results" / "eval_report.md").read_text()
    assert (
        "1 case has another question, ground truth or expected documents than in the "
        "baseline, not compared: c05." in markdown
    )
    # Another dataset's content under the same ids: nothing in common (it used to be compared
    # case by case, and a drop of recall a regression).
    write_dataset(
        [
            case(f"c{i:02d}", f"delivery time {i}?", expected_contexts=["policy.md"])
            for i in range(CASES)
        ]
    )
    words = (
        f"the baseline {baseline} has no scored case in common with this run (40 scored "
        "there, 40 here; 40 of this run's cases have its ids with another question, ground "
        "truth or expected documents (another dataset's content))"
    )
    result, _ = run(project, monkeypatch, 10, f"--rag-baseline={baseline}")
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"baseline: not compared: {words}"])
    result, _ = run(
        project, monkeypatch, 10, f"--rag-baseline={baseline}", "--rag-fail-on-regression"
    )
    assert result.ret == 3
    result.stdout.fnmatch_lines([f"rag-eval: exit 3: fatal: *no comparison: {words}"])


STEADY_CONFTEST = """
import os, pytest
from rag_eval_pytest.judges.callable import CallableJudge
from tests.word_judge import word_judge

FACTS = ["Refunds are available within 30 days of purchase.",
         "Shipping takes five business days.", "Support answers within one day."]
WRONG = ["Shipping is free to Mars.", "Refunds are paid in gold coins."]

@pytest.fixture(scope="session")
def rag_judge():
    steady = os.environ["DETERMINISTIC"] == "1"
    return CallableJudge(word_judge, model="word-judge", deterministic=steady)

@pytest.fixture(scope="session")
def rag_adapter():
    def app(question):
        number, broken = int(question.split()[-1].rstrip("?")), os.environ["BROKEN"] == "1"
        if number < 3:  # 1.0, then 0.33 when broken
            said = [FACTS[0], *WRONG] if broken else FACTS
        elif number < 7:  # 0.75, then 1.0 when broken
            said = FACTS if broken else [*FACTS, WRONG[0]]
        else:  # 0.5 in both
            said = [FACTS[0], WRONG[0]]
        return " ".join(said), [{"text": " ".join(FACTS), "source": "policy.md"}]
    return app
"""


@pytest.mark.parametrize(
    ("judge", "args", "regression"),
    [
        ("deterministic", (), True),
        ("three votes that agree", ("--rag-judge-passes=3",), True),
        ("one vote", (), False),
    ],
)
def test_a_case_that_newly_fails_with_stable_verdicts_is_a_regression_whatever_the_mean(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    judge: str,
    args: tuple[str, ...],
    regression: bool,
) -> None:
    write_dataset([case(f"c{i}", f"refund policy {i}?") for i in range(10)])
    pytester.makeconftest(STEADY_CONFTEST)
    pytester.makepyfile(
        test_rag="from rag_eval_pytest import evaluate\n"
        "def test_faithful(rag_case):\n    evaluate(rag_case, 'faithfulness')  # at 0.7\n"
    )
    monkeypatch.setenv("DETERMINISTIC", "1" if judge == "deterministic" else "0")

    def judged(broken: str, *more: str) -> pytest.RunResult:
        monkeypatch.setenv("BROKEN", broken)
        return pytester.runpytest(
            "--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly", *args, *more
        )

    judged("0")
    # Three answers broken (1.0 to 0.33), four a little better: the mean's drop (0.75 to
    # 0.65) is within the noise, and the three cases newly fail.
    result = judged("1", "--rag-fail-on-regression")
    report = read_report(pytester)
    (change,) = report["comparison"]["changes"]
    assert not change["regression"] and change["p_value"] > 0.05
    assert [(f["key"], f["regression"]) for f in report["comparison"]["newly_failing"]] == [
        ("c0", regression), ("c1", regression), ("c2", regression)
    ]  # fmt: skip
    summary = "3 cases since the baseline, {} of them regressions (stable verdicts): c0 *"
    result.stdout.fnmatch_lines([f"newly failing: {summary.format(3 if regression else 0)}"])
    markdown = (pytester.path / "results" / "eval_report.md").read_text()
    assert "### Newly failing: 3 cases" in markdown
    verdict = "**REGRESSION** (stable verdicts)" if regression else "may be the judge's noise"
    assert f"| c0 | Faithfulness | 1.00 | 0.33 | 0.70 | {verdict}" in markdown
    html = (pytester.path / "results" / "eval_report.html").read_text()
    assert "Newly failing: 3 cases" in html
    if regression:
        assert result.ret == 1
        result.stdout.fnmatch_lines(
            [
                "rag-eval: exit 1: regressed since the baseline: 3 cases newly fail with stable "
                "verdicts: c0 faithfulness 1.00 -> 0.33 (< 0.70); c1 *"
            ]
        )
    else:  # an LLM judge's one vote may go the other way next time: listed, not failed
        assert result.ret == 0, result.stdout.str()


FLIPPING_CONFTEST = """
import json, os, pytest
from rag_eval_pytest.judges.callable import CallableJudge

def judge(prompt):
    # The same answer and contexts every run; the verdict flips with NOISE: a noisy judge.
    verdict = "supported" if os.environ["NOISE"] == "0" else "unsupported"
    return json.dumps({"statements": [{"statement": "s", "verdict": verdict, "reason": "r"}]})

@pytest.fixture(scope="session")
def rag_judge():
    return CallableJudge(judge, model="flipping")
"""
FAITHFUL_TESTS = """
from rag_eval_pytest import assert_faithful

def test_faithful(rag_case):
    assert_faithful(rag_case, 0.5)
"""


@pytest.mark.parametrize("policy", ["report", "quarantine"])
def test_a_case_whose_outcome_flips_with_nothing_changed_is_judge_flaky(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    policy: str,
) -> None:
    write_dataset(
        [case("same", "Refund policy?", answer="Full refund within 30 days.", contexts=["ctx"])]
    )
    pytester.makeconftest(FLIPPING_CONFTEST)
    pytester.makepyfile(test_rag=FAITHFUL_TESTS)
    pytester.makefile(".yaml", **{"eval-config": f"regression:\n  flaky: {policy}\n"})
    codes = []
    for noise in ("0", "1", "0", "1"):
        monkeypatch.setenv("NOISE", noise)
        result = pytester.runpytest(
            "--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly"
        )
        codes.append(result.ret)
    report = read_report(pytester)
    assert report["flaky"] == [
        {"key": "same", "outcomes": "passed, failed, passed, failed",
         "quarantined": policy == "quarantine"}
    ]  # fmt: skip
    markdown = (pytester.path / "results" / "eval_report.md").read_text()
    assert "## Judge-flaky cases: 1" in markdown
    if policy == "quarantine":
        # Flaky from the third run on; the fourth run's failure does not fail the run.
        assert codes == [0, 1, 0, 0]
        result.stdout.fnmatch_lines(["rag-eval: exit 0: *QUARANTINED as judge-flaky*same*"])
        assert "**QUARANTINED: its failure did not fail the run**" in markdown
    else:
        assert codes == [0, 1, 0, 1]


# --------------------------------------------------------------------------- unusable baselines

SMALL = 6  # cases: recall falls from 1.0 to 0.33 when 4 of them miss


def _report_text(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> str:
    """The eval_report.json of a sound run, for baselines made from it."""
    run(project, monkeypatch, 0)
    return (project.path / "results" / "eval_report.json").read_text(encoding="utf-8")


def _edited(text: str, edit: Callable[[dict[str, Any]], None]) -> str:
    import json

    doc = json.loads(text)
    edit(doc)
    return json.dumps(doc)


def _score(value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["cases"][1]["metrics"]["retrieval_recall"]["score"] = value

    return edit


def _other_keys(doc: dict[str, Any]) -> None:
    for case_doc in doc["cases"]:
        case_doc["key"] = case_doc["id"] = "other-" + case_doc["key"]


def _stored(project: pytest.Pytester) -> Path:
    (path,) = (project.path / "results" / "baselines").glob("*.json")
    return path


# Each: how to make it (given the project and a way to get a sound report's text), the
# --rag-baseline value, and the words the reason has.
Maker = Callable[[pytest.Pytester, Callable[[], str]], str]


def _file(content: str | bytes) -> Maker:
    def make(project: pytest.Pytester, _: Callable[[], str]) -> str:
        path = project.path / "main.json"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return str(path)

    return make


def _from_report(change: Callable[[str], str]) -> Maker:
    def make(project: pytest.Pytester, report: Callable[[], str]) -> str:
        path = project.path / "main.json"
        path.write_text(change(report()), encoding="utf-8")
        return str(path)

    return make


def _typo(project: pytest.Pytester, _: Callable[[], str]) -> str:
    return str(project.path / "mian.json")


def _dangling(project: pytest.Pytester, _: Callable[[], str]) -> str:
    (project.path / "main.json").symlink_to(project.path / "gone.json")
    return str(project.path / "main.json")


def _directory(project: pytest.Pytester, _: Callable[[], str]) -> str:
    (project.path / "artifacts").mkdir()
    return str(project.path / "artifacts")


def _endless(project: pytest.Pytester, _: Callable[[], str]) -> str:
    (project.path / "main.json").symlink_to("/dev/zero")
    return str(project.path / "main.json")


def _stored_as(content: str | None) -> Maker:
    """The history's stored baseline replaced (``None``: by a link to /dev/zero)."""

    def make(project: pytest.Pytester, report: Callable[[], str]) -> str:
        report()  # a run of the same selection keeps its cases' scores
        path = _stored(project)
        path.unlink()
        if content is None:
            path.symlink_to("/dev/zero")
        else:
            path.write_text(content, encoding="utf-8")
        return "history"

    return make


HOSTILE: dict[str, tuple[Maker, str]] = {
    "typo": (_typo, "mian.json: file not found"),
    "dangling link": (_dangling, "main.json: file not found"),
    "directory": (_directory, "artifacts/eval_report.json: file not found"),
    "empty": (_file(""), "main.json: not a JSON report"),
    "truncated": (_from_report(lambda t: t[: len(t) // 2]), "main.json: not a JSON report"),
    "binary": (_file(bytes(range(256)) * 4), "main.json: not a JSON report"),
    "endless": (_endless, "main.json: larger than 1 MiB"),
    "object": (_file("{}"), "not an eval_report.json of schema version 1"),
    "list": (_file("[]"), "not an eval_report.json of schema version 1"),
    "schema 2": (
        _from_report(lambda t: _edited(t, lambda d: d.update(schema_version=2))),
        "not an eval_report.json of schema version 1",
    ),
    "NaN score": (
        _from_report(lambda t: _edited(t, _score(float("nan")))),
        "metrics.retrieval_recall.score': ",
    ),
    "string score": (
        _from_report(lambda t: _edited(t, _score("high"))),
        "metrics.retrieval_recall.score': ",
    ),
    "no shared case": (
        _from_report(lambda t: _edited(t, _other_keys)),
        "has no scored case in common with this run (6 scored there, 6 here)",
    ),
    "stored endless": (_stored_as(None), "is not JSON Lines"),  # its first line, 64 KB
    "stored truncated": (
        _stored_as('{"version": 3, "judge_identity": null}\n{"key": "c0'),
        "is not JSON Lines",
    ),
    "stored without its end": (
        _stored_as('{"version": 3, "judge_identity": null}\n{"key": "c00"}\n'),
        "is cut short: it has no last line",
    ),
    "stored string score": (
        _stored_as(
            '{"version": 3, "judge_identity": null}\n{"key": "c01", "case": {"content": "x", '
            '"metrics": {"retrieval_recall": {"run": "r1", "score": "high"}}}}\n{"runs": []}\n'
        ),
        "case 'c01': metric 'retrieval_recall': score: Input should be a valid number",
    ),
    "stored list": (_stored_as("[]"), "is not a stored baseline of version 3"),
    "stored by an earlier release, not as it writes": (
        _stored_as('{"version":2,"judge_identity":null,"cases":[],"outcomes":{},"runs":[]}'),
        "(version 2): cases: Input should be a valid dictionary",
    ),
}


@pytest.mark.parametrize("hostile", list(HOSTILE))
def test_a_baseline_that_cannot_be_used_is_fatal_under_the_gate_and_said_without_it(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    hostile: str,
) -> None:
    # Every input file is read up to the one size limit: 1 MiB here, to keep the test light.
    monkeypatch.setattr("rag_eval_pytest.data.reading.MAX_FILE_BYTES", 1024 * 1024)
    write_dataset(
        [
            case(f"c{i:02d}", f"refund policy {i}?", expected_contexts=["policy.md"])
            for i in range(SMALL)
        ]
    )
    pytester.makepyfile(app=APP, test_rag=TESTS)
    pytester.syspathinsert()
    make, words = HOSTILE[hostile]
    spec = make(pytester, lambda: _report_text(pytester, monkeypatch))
    # Recall fell from 1.0 to 0.33: with the gate, a baseline it cannot use is no pass.
    result, report = run(
        pytester, monkeypatch, 4, f"--rag-baseline={spec}", "--rag-fail-on-regression"
    )
    assert result.ret == 3, result.stdout.str()
    result.stdout.fnmatch_lines(
        [f"rag-eval: exit 3: fatal: --rag-fail-on-regression, and no comparison: *{words}*"]
    )
    assert report["comparison"]["unusable"] and report["comparison"]["gate"]
    summary = (pytester.path / "results" / "eval_summary.md").read_text(encoding="utf-8")
    assert "FAILED: exit 3" in summary
    if spec == "history":  # the run kept its own cases' scores in place of the bad file
        make(pytester, lambda: "")
    # Without it: the exit code of the cases (evaluate() fails no test), the reason said.
    result, report = run(pytester, monkeypatch, 4, f"--rag-baseline={spec}")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines([f"baseline: not compared: *{words}*"])
    assert words in report["comparison"]["not_compared"]
    summary = (pytester.path / "results" / "eval_summary.md").read_text(encoding="utf-8")
    assert "> **Not compared with the baseline:** " in summary


def _as_version_2(path: Path) -> None:
    """The kept file as release 0.1.0 wrote it: one JSON text."""
    header, *lines, trailer = (json.loads(line) for line in path.read_text().splitlines())
    cases = {line["key"]: line["case"] for line in lines if "case" in line}
    outcomes = {line["key"]: line["outcomes"] for line in lines if "outcomes" in line}
    old = {**header, "version": 2, "cases": cases, "outcomes": outcomes, **trailer}
    path.write_text(json.dumps(old, separators=(",", ":")), encoding="utf-8")


def test_the_cases_kept_by_release_0_1_0_are_still_the_baseline(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upgrade keeps the history: the file of version 2 is read, compared with and
    rewritten as JSON Lines."""
    first, _ = run(project, monkeypatch, 0, "--rag-fail-on-regression")
    assert first.ret == 0
    path = _stored(project)
    _as_version_2(path)
    result, dropped = run(project, monkeypatch, 10, "--rag-fail-on-regression")
    assert result.ret == 1, result.stdout.str()
    (change,) = dropped["comparison"]["changes"]
    assert change["regression"] and change["cases"] == CASES
    assert json.loads(path.read_text().splitlines()[0])["version"] == 3
