"""Graded ``expected_contexts``: a list of names stays binary, a mapping or a list of
``{"id", "grade"}`` entries gives grades, grade 0 is "not relevant", and a bad entry is
named by its position."""

from __future__ import annotations

import pytest

from rag_eval_pytest.data.relevance import expected_names, graded_expected_contexts


@pytest.mark.parametrize("value", [["a.md", "b.md"], [], None, "a.md"])
def test_plain_names_and_other_types_are_not_graded(value: object) -> None:
    assert graded_expected_contexts(value) is None


def test_a_mapping_and_mixed_entries_give_grades() -> None:
    assert graded_expected_contexts({"a.md": 3, "b.md": 0}) == {"a.md": 3, "b.md": 0}
    mixed = graded_expected_contexts(["a.md", {"id": "b.md", "grade": 2}, {"id": "c.md"}])
    assert mixed == {"a.md": 1, "b.md": 2, "c.md": 1}


def test_the_same_document_with_the_same_grade_twice_is_kept_once() -> None:
    assert graded_expected_contexts(["a.md", {"id": "a.md", "grade": 1}]) == {"a.md": 1}


def test_expected_names_leave_out_grade_zero_and_keep_the_order() -> None:
    assert expected_names({"c.md": 2, "a.md": 0, "b.md": 1}) == ["c.md", "b.md"]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"a.md": -1}, "the grade of 'a.md' must be a whole number of 0 or more, got -1"),
        ({"a.md": True}, "the grade of 'a.md' must be a whole number of 0 or more, got True"),
        ({"a.md": 1.5}, "the grade of 'a.md' must be a whole number of 0 or more, got 1.5"),
        (["a.md", 3], "entry 1 must be a document name or {'id': name, 'grade': n}, found int"),
        (["a.md", {"grade": 2}], "entry 1 has no 'id' (an entry is {'id': name, 'grade': n})"),
        (
            [{"id": "a", "score": 2}],
            "entry 0 has unknown key 'score' (an entry is {'id': name, 'grade': n})",
        ),
        ([{"id": 7}], "entry 0: 'id' must be text, got 7"),
        (["a.md", {"id": "a.md", "grade": 3}], "'a.md' is given two grades (1 and 3)"),
    ],
)
def test_a_bad_entry_is_named(value: object, problem: str) -> None:
    with pytest.raises(ValueError) as info:
        graded_expected_contexts(value)
    assert str(info.value) == problem
