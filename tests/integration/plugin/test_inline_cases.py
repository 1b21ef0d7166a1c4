"""Cases made in code: ``make_case(...)`` in a test that calls the app itself, with or without
``--rag-dataset``, asserted with any helper, recorded under the test's node id in the reports
and the history, with the exit codes of a dataset run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import word_judge
from tests.helpers import GROUNDED_CASES, read_report
from tests.integration.plugin.test_report_schema import published
from tests.json_schema import validate

JUDGE = word_judge.CONFTEST

APP_TESTS = """
from rag_eval_pytest import assert_faithful, assert_rag, assert_retrieval, make_case

def app(question):
    contexts = [{"text": "Refunds are available within 30 days of purchase.",
                 "source": "policy.md"}]
    return "Refunds are available within 30 days of purchase.", contexts

def test_refund_answer_is_faithful():
    answer, contexts = app("What is the refund policy?")
    case = make_case(question="What is the refund policy?", answer=answer, contexts=contexts,
                     ground_truth="Refunds within 30 days.", tags=["billing"])
    assert_faithful(case, threshold=0.9)

def test_refund_retrieval():
    answer, contexts = app("What is the refund policy?")
    case = make_case(question="What is the refund policy?", answer=answer, contexts=contexts,
                     expected_contexts=["policy.md", "terms.md"], critical=True)
    assert_retrieval(case, recall=0.9)
"""


@pytest.fixture
def inline_suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(JUDGE)
    pytester.makepyfile(test_app=APP_TESTS)
    return pytester


def test_a_suite_without_a_dataset_writes_reports_keyed_by_the_tests_node_ids(
    inline_suite: pytest.Pytester,
) -> None:
    result = inline_suite.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_app.py::test_refund_retrieval retrieval_recall 0.50 < 0.90",
            "*rag-eval: exit 2: critical case test_app.py::test_refund_retrieval failed",
        ]
    )
    assert result.ret == 2
    report = read_report(inline_suite)
    cases = {c["key"]: c for c in report["cases"]}
    assert list(cases) == [
        "test_app.py::test_refund_answer_is_faithful",
        "test_app.py::test_refund_retrieval",
    ]
    faithful = cases["test_app.py::test_refund_answer_is_faithful"]
    assert faithful["inline"] is True
    assert faithful["dataset"] == "test_app.py"
    assert faithful["tags"] == ["billing"]
    assert faithful["status"] == "passed"
    assert faithful["metrics"]["faithfulness"]["score"] == 1.0
    assert faithful["tests"][0]["nodeid"] == "test_app.py::test_refund_answer_is_faithful"
    retrieval = cases["test_app.py::test_refund_retrieval"]
    assert retrieval["critical"] is True
    assert retrieval["status"] == "failed"
    assert report["run"]["selected_cases"] == 2
    assert report["run"]["judge"]
    assert validate(report, published()) == []
    history = (inline_suite.path / "results" / "results.jsonl").read_text().splitlines()
    assert len(history) == 1
    assert report["run"]["selection"]["cases"] == list(cases)
    line = json.loads(history[0])["selection"]
    assert line["case_count"] == 2
    assert line["fingerprint"] == report["run"]["selection"]["fingerprint"]


def test_a_suite_that_makes_no_case_stays_dormant_and_writes_nothing(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_plain="""
import sys
import pytest

@pytest.mark.rag_critical
def test_plain():
    assert "rag_eval_pytest.engine.engine" not in sys.modules
    assert "rag_eval_pytest.reporting.aggregator" not in sys.modules
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:randomly")
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    assert not (pytester.path / "results").exists()
    assert "rag-eval:" not in result.stdout.str()
    assert "= rag-eval =" not in result.stdout.str()


def test_a_critical_test_that_failed_before_the_first_case_still_exits_critical(
    inline_suite: pytest.Pytester,
) -> None:
    inline_suite.makepyfile(
        test_a_first="""
import pytest

@pytest.mark.rag_critical
def test_login_works():
    assert False, "login is broken"
""",
        test_app="""
from rag_eval_pytest import assert_faithful, make_case

def test_answer():
    case = make_case(question="Refunds?", answer="Refunds within 30 days.",
                     contexts=["Refunds within 30 days."])
    assert_faithful(case)
""",
    )
    result = inline_suite.runpytest("-p", "no:randomly", "test_a_first.py", "test_app.py")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == 2
    critical = read_report(inline_suite)["summary"]["critical"]
    assert critical["failed"] == ["test_a_first.py::test_login_works"]


def test_cases_made_in_code_join_a_dataset_run_beside_its_cases(
    inline_suite: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(GROUNDED_CASES)
    inline_suite.makepyfile(
        test_dataset="""
from rag_eval_pytest import assert_faithful

def test_dataset(rag_case):
    assert_faithful(rag_case)
"""
    )
    result = inline_suite.runpytest("-p", "no:randomly", "--rag-dataset", "dataset.json")
    result.assert_outcomes(passed=2, failed=1)
    report = read_report(inline_suite)
    assert [c["key"] for c in report["cases"]] == [
        "pto",
        "test_app.py::test_refund_answer_is_faithful",
        "test_app.py::test_refund_retrieval",
    ]
    assert [c["inline"] for c in report["cases"]] == [False, True, True]
    assert report["run"]["selected_cases"] == 3


def test_under_xdist_the_controller_reports_what_the_workers_evaluated(
    inline_suite: pytest.Pytester,
) -> None:
    # Workers are other processes: they import the judge from the test directory.
    inline_suite.makepyfile(word_judge=Path(word_judge.__file__).read_text())
    inline_suite.makeconftest(JUDGE.replace("tests.word_judge", "word_judge"))
    result = inline_suite.runpytest("-p", "no:randomly", "-n", "2")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == 2
    keys = [c["key"] for c in read_report(inline_suite)["cases"]]
    assert keys == [
        "test_app.py::test_refund_answer_is_faithful",
        "test_app.py::test_refund_retrieval",
    ]


def test_several_cases_in_one_test_get_their_own_keys_and_an_equal_case_one_record(
    inline_suite: pytest.Pytester,
) -> None:
    inline_suite.makepyfile(
        test_app="""
from rag_eval_pytest import assert_faithful, evaluate, make_case

def test_many():
    first = make_case(question="Refunds?", answer="Refunds within 30 days.",
                      contexts=["Refunds within 30 days."])
    second = make_case(question="Shipping?", answer="We ship worldwide.",
                       contexts=["We ship worldwide within 5 days."])
    named = make_case(id="returns", question="Returns?", answer="Returns are free.",
                      contexts=["Returns are free."])
    again = make_case(question="Refunds?", answer="Refunds within 30 days.",
                      contexts=["Refunds within 30 days."])
    for case in (first, second, named, again):
        assert_faithful(case)
    assert first.id == "test_app.py::test_many"
    assert named.id == "test_app.py::test_many::returns"
    assert again.id == first.id
    evaluate(second, "answer_relevance")
"""
    )
    result = inline_suite.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1)
    cases = {c["key"]: c for c in read_report(inline_suite)["cases"]}
    assert set(cases) == {
        "test_app.py::test_many",
        "test_app.py::test_many::returns",
        next(k for k in cases if k.startswith("test_app.py::test_many::case-")),
    }
    second = next(c for c in cases.values() if c["question"] == "Shipping?")
    assert set(second["metrics"]) == {"faithfulness", "answer_relevance"}


def test_the_tests_own_rag_judge_judges_its_cases(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
import pytest

CALLS = []

@pytest.fixture(scope="session")
def rag_judge():
    def judge(prompt):
        CALLS.append(prompt)
        from tests.word_judge import word_judge
        return word_judge(prompt)
    return judge

@pytest.fixture
def calls():
    return CALLS
"""
    )
    pytester.makepyfile(
        test_app="""
from rag_eval_pytest import assert_faithful, make_case

def test_answer(calls):
    case = make_case(question="Refunds?", answer="Refunds within 30 days.",
                     contexts=["Refunds within 30 days."])
    assert_faithful(case)
    assert calls, "the conftest's rag_judge was not asked"
"""
    )
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1)


def test_a_field_that_is_not_valid_is_named(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_app="""
import pytest
from rag_eval_pytest import make_case

def test_blank_question():
    with pytest.raises(ValueError, match="field 'question': must not be empty"):
        make_case(question="  ", answer="a")

def test_one_string_as_contexts():
    with pytest.raises(ValueError, match="field 'contexts': expected a list of passages"):
        make_case(question="q?", answer="a", contexts="one passage")

def test_a_context_of_the_wrong_kind():
    with pytest.raises(ValueError, match="field 'contexts\\\\[1\\\\]': a context must be a string"):
        make_case(question="q?", answer="a", contexts=["fine", 42])

def test_one_mapping_as_contexts():
    with pytest.raises(ValueError, match="'contexts': expected a list of passages, got one map"):
        make_case(question="q?", answer="a", contexts={"text": "t", "source": "s.md"})

def test_one_name_as_expected_contexts():
    with pytest.raises(ValueError, match="'expected_contexts': expected a list of document names"):
        make_case(question="q?", answer="a", expected_contexts="policy.md")

def test_bytes_are_not_text():
    with pytest.raises(ValueError, match="field 'answer': Input should be a valid string"):
        make_case(question="q?", answer=b"bytes")

def test_the_fields_are_readable_outside_a_run():
    case = make_case(question="q?", answer="a", contexts=[{"text": "t", "source": "s.md"}])
    assert case.answer == "a"
    assert case.contexts[0].source == "s.md"
    assert case.ground_truth is None
"""
    )
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=7)
    assert not (pytester.path / "results").exists()


def test_an_answer_of_none_is_an_error_of_its_test_and_the_others_still_run(
    inline_suite: pytest.Pytester,
) -> None:
    inline_suite.makepyfile(
        test_app="""
from rag_eval_pytest import assert_faithful, make_case

def test_llm_returned_no_content():
    case = make_case(question="Refunds?", answer=None, contexts=["Refunds within 30 days."])
    assert_faithful(case)

def test_ordinary():
    assert "login" == "logout"
"""
    )
    result = inline_suite.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*ValueError: make_case(): field 'answer': is None (did the LLM return no content?)*",
            "*AssertionError: assert 'login' == 'logout'*",
        ]
    )
    assert "SetupFailed" not in result.stdout.str()
    assert "no RAG adapter" not in result.stdout.str()
    assert result.ret == 1


def test_a_case_evaluated_outside_a_test_says_where_it_can_be(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        check="""
from rag_eval_pytest import evaluate, make_case

case = make_case(question="q?", answer="a", contexts=["a"])
try:
    evaluate(case, "faithfulness")
except RuntimeError as exc:
    print("error:", exc)
"""
    )
    result = pytester.runpython(pytester.path / "check.py")
    result.stdout.fnmatch_lines(
        ["error: a case made with make_case() is evaluated inside a pytest test*"]
    )


def test_a_configuration_that_cannot_be_read_exits_fatal_with_its_message(
    inline_suite: pytest.Pytester,
) -> None:
    (inline_suite.path / "eval-config.yaml").write_text("judge:\n  kind: nope\n")
    result = inline_suite.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    assert result.ret == 3
    result.stdout.fnmatch_lines(["rag-eval: exit 3: Invalid configuration *unknown judge 'nope'*"])
    assert "Traceback" not in result.stdout.str()


def test_a_dry_run_without_a_dataset_runs_no_test_and_says_why(
    inline_suite: pytest.Pytester,
) -> None:
    result = inline_suite.runpytest("-p", "no:randomly", "--rag-dry-run")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["*rag-eval dry run: configuration is valid; no dataset given (--rag-dataset)*"]
    )
    assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str()
    assert not (inline_suite.path / "results").exists()
    (inline_suite.path / "eval-config.yaml").write_text("judge:\n  passes: many\n")
    result = inline_suite.runpytest("-p", "no:randomly", "--rag-dry-run")
    assert result.ret == 3
    result.stdout.fnmatch_lines(["*rag-eval: Invalid configuration*judge.passes*"])


def test_with_the_plugin_disabled_evaluating_a_case_says_so(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_app="""
import pytest
from rag_eval_pytest import assert_faithful, make_case

def test_answer():
    case = make_case(question="Refunds?", answer="Within 30 days.", contexts=["30 days."])
    with pytest.raises(RuntimeError, match="plugin loaded .not with -p no:rag_eval"):
        assert_faithful(case)
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:rag_eval")
    result.assert_outcomes(passed=1)
