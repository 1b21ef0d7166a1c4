"""Graded ``expected_contexts``: the forms a dataset may give them in, read into names and grades.

Three forms, the first the plain one every retrieval metric reads:

* a list of document names: each relevant alike (grade 1);
* a mapping of name to grade: ``{"refunds.md": 3, "faq.md": 1}``;
* a list mixing names and ``{"id": name, "grade": n}`` entries (a bare name is grade 1).

A grade is a whole number of 0 or more, as in TREC relevance judgements: 0 marks a document
judged not relevant, so it is not expected (retrieval precision and recall leave it out).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

_ENTRY_KEYS = ("id", "grade")


def _grade(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(
            f"the grade of {name!r} must be a whole number of 0 or more, got {value!r}"
        )
    return value


def _entry(index: int, item: object) -> tuple[str, int]:
    if isinstance(item, str):
        return item, 1
    if not isinstance(item, dict):
        raise ValueError(
            f"entry {index} must be a document name or {{'id': name, 'grade': n}}, "
            f"found {type(item).__name__}"
        )
    _check_keys(index, item)
    name = item["id"]
    if not isinstance(name, str):
        raise ValueError(f"entry {index}: 'id' must be text, got {name!r}")
    return name, _grade(name, item.get("grade", 1))


def _check_keys(index: int, item: dict[str, object]) -> None:
    unknown = sorted(set(item) - set(_ENTRY_KEYS))
    if unknown or "id" not in item:
        problem = f"unknown key {unknown[0]!r}" if unknown else "no 'id'"
        raise ValueError(f"entry {index} has {problem} (an entry is {{'id': name, 'grade': n}})")


def graded_expected_contexts(value: object) -> dict[str, int] | None:
    """The grade of each document of a graded ``expected_contexts``; ``None`` for a plain list
    of names (or a value of another type, left to the field's own check). Raises
    ``ValueError`` naming the entry at fault."""
    if isinstance(value, dict):
        return {str(name): _grade(str(name), grade) for name, grade in value.items()}
    if not isinstance(value, list) or all(isinstance(item, str) for item in value):
        return None
    return _graded_entries(value)


def _graded_entries(entries: list[object]) -> dict[str, int]:
    """The grade of each document of a list of names and ``{"id", "grade"}`` entries."""
    grades: dict[str, int] = {}
    for index, item in enumerate(entries):
        name, grade = _entry(index, item)
        if grades.get(name, grade) != grade:
            raise ValueError(f"{name!r} is given two grades ({grades[name]} and {grade})")
        grades[name] = grade
    return grades


def expected_names(grades: Mapping[str, int]) -> list[str]:
    """The expected documents of a graded form: those with a grade above 0, in order."""
    return [name for name, grade in grades.items() if grade > 0]
