"""The plan of the selected tests: each test's case, function and judge group, indexed by
node id, position, group and function, and the metrics known of each function (each once)."""

from __future__ import annotations

from types import SimpleNamespace

from rag_eval_pytest.config.settings import Settings
from rag_eval_pytest.engine.ahead.plan import PlannedTest, TestPlan, function_id, judge_group
from rag_eval_pytest.engine.zero_code import ZERO_CODE_CASE
from tests.unit.engine.ahead.fakes import Item


def test_a_test_is_its_own_judge_group_unless_told() -> None:
    assert PlannedTest("c1", "t.py::test_a", []).group == "t.py::test_a"
    assert PlannedTest("c1", "t.py::test_a", [], group="data.json").group == "data.json"


def test_the_indexes_and_the_known_metrics() -> None:
    faith, recall = ("faithfulness", {}), ("retrieval_recall", {"k": 1})
    tests = [
        PlannedTest("c1", "t.py::test_a", [faith], nodeid="t.py::test_a[c1]"),
        PlannedTest("c2", "t.py::test_a", [faith, recall], nodeid="t.py::test_a[c2]"),
        PlannedTest("c1", "t.py::test_b", [], nodeid="t.py::test_b[c1]"),
        PlannedTest("c9", "t.py::test_c", []),  # no node id: not indexed by it
    ]
    plan = TestPlan(tests)
    assert plan.position == {"t.py::test_a[c1]": 0, "t.py::test_a[c2]": 1, "t.py::test_b[c1]": 2}
    assert plan.by_node["t.py::test_b[c1]"] is tests[2]
    assert [t.case for t in plan.by_function["t.py::test_a"]] == ["c1", "c2"]
    assert list(plan.by_group) == ["t.py::test_a", "t.py::test_b", "t.py::test_c"]
    assert plan.known["t.py::test_a"] == [faith, recall]  # each metric once
    assert plan.known["t.py::test_b"] == []


def test_function_id_drops_the_parameters() -> None:
    item = Item("tests/test_rag.py::test_answer[case-1]")
    assert function_id(item) == "tests/test_rag.py::test_answer"  # type: ignore[arg-type]
    assert judge_group(item) == "tests/test_rag.py::test_answer"  # type: ignore[arg-type]


def test_zero_code_tests_are_grouped_by_their_dataset_file() -> None:
    item = Item("data.json::c1", {ZERO_CODE_CASE: "c1"}, SimpleNamespace(nodeid="data.json"))
    assert judge_group(item) == "data.json"  # type: ignore[arg-type]


def test_of_keeps_the_items_taking_a_case_in_run_order() -> None:
    parametrized = Item("t.py::test_a[c2]")
    parametrized.callspec = SimpleNamespace(params={"rag_case": "c2"})  # type: ignore[attr-defined]
    plain = Item("t.py::test_plain")
    plain.callspec = SimpleNamespace(params={"other": 1})  # type: ignore[attr-defined]
    zero = Item("d.json::c1", {ZERO_CODE_CASE: "c1"}, SimpleNamespace(nodeid="d.json"))
    settings = Settings(metrics={"faithfulness": {"threshold": 0.8, "mode": "deepeval"}})
    plan = TestPlan.of([parametrized, plain, Item("t.py::test_other"), zero], settings)  # type: ignore[list-item]
    assert [(t.case, t.function, t.group, t.nodeid) for t in plan.tests] == [
        ("c2", "t.py::test_a", "t.py::test_a", "t.py::test_a[c2]"),
        ("c1", "d.json::c1", "d.json", "d.json::c1"),
    ]
    # A test function's metrics are learnt as it runs; zero-code tests know theirs: the
    # configured metrics with their parameters and without the threshold.
    assert plan.tests[0].requests == []
    assert plan.tests[1].requests == [("faithfulness", {"mode": "deepeval"})]
