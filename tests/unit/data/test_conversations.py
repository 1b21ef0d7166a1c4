"""Conversation cases in a dataset: their turns, and each mistake one message."""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING

import pytest

from rag_eval_pytest.data.dataset import load_datasets
from rag_eval_pytest.errors import DatasetError

if TYPE_CHECKING:
    from pathlib import Path

NOW = dt.datetime(2026, 11, 22, tzinfo=dt.timezone.utc)


def load(tmp_path: Path, *cases: object) -> object:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"test_cases": list(cases)}), encoding="utf-8")
    return load_datasets([path], now=NOW)


def problems(tmp_path: Path, *cases: object) -> str:
    with pytest.raises(DatasetError) as info:
        load(tmp_path, *cases)
    return str(info.value)


def test_a_conversation_has_its_turns_each_a_case_of_its_own(tmp_path: Path) -> None:
    loaded = load(
        tmp_path,
        {
            "id": "fees",
            "critical": True,
            "tags": ["billing"],
            "turns": [
                {"question": "What is the monthly fee?", "answer": "5 EUR.", "contexts": ["5 EUR"]},
                {"question": "And for business accounts?", "ground_truth": "12 EUR."},
            ],
        },
    )
    (conversation,) = loaded.cases  # type: ignore[attr-defined]
    assert conversation.key == "fees"
    assert conversation.case.question == "What is the monthly fee?"  # titles the case
    assert not conversation.case.has_recorded_answer  # the second turn is asked live
    first, second = conversation.turns
    assert (first.key, first.turn, second.key, second.turn) == ("fees/turn-1", 1, "fees/turn-2", 2)
    assert first.case.has_recorded_answer and first.case.contexts[0].text == "5 EUR"
    assert second.case.question == "And for business accounts?"
    assert second.case.ground_truth == "12 EUR." and second.case.tags == ["billing"]
    assert second.critical and second.case.turns is None


def test_a_conversation_without_an_id_gets_one_from_all_its_questions(tmp_path: Path) -> None:
    loaded = load(
        tmp_path,
        {"turns": [{"question": "a?"}]},
        {"turns": [{"question": "a?"}, {"question": "b?"}]},
    )
    keys = [c.key for c in loaded.cases]  # type: ignore[attr-defined]
    assert len(set(keys)) == 2 and all(k.startswith("case-") for k in keys)
    assert "-2" not in keys[1]  # not a clash resolved by a suffix: the ids differ


def test_question_and_turns_together_is_one_error(tmp_path: Path) -> None:
    message = problems(tmp_path, {"id": "c", "question": "q?", "turns": [{"question": "a?"}]})
    assert "chat.json (1 problem)" in message
    assert "case 'c' (test_cases[0])" in message and "both 'question' and 'turns'" in message


def test_an_empty_list_of_turns_is_one_error(tmp_path: Path) -> None:
    message = problems(tmp_path, {"id": "c", "turns": []})
    assert "(1 problem)" in message and "field 'turns': a conversation has at least one turn" in (
        message
    )


def test_a_turn_without_a_question_is_one_error_naming_the_turn(tmp_path: Path) -> None:
    message = problems(tmp_path, {"id": "c", "turns": [{"question": "a?"}, {"answer": "x"}]})
    assert "(1 problem)" in message and "field 'turns[1].question' is required" in message


def test_a_question_field_on_the_conversation_itself_belongs_in_a_turn(tmp_path: Path) -> None:
    message = problems(tmp_path, {"id": "c", "turns": [{"question": "a?"}], "answer": "x"})
    assert "field 'answer' belongs in each turn" in message


def test_a_misspelt_field_of_a_turn_is_named_with_the_turn(tmp_path: Path) -> None:
    message = problems(tmp_path, {"id": "c", "turns": [{"question": "a?", "grund_truth": "g"}]})
    assert "unknown field 'turns[0].grund_truth' (did you mean 'ground_truth'?)" in message
