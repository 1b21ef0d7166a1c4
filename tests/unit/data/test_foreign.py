"""DeepEval and RAGAS datasets: which format a set of field names comes from, how their
files are read item by item, and how each item becomes a case of ours, every problem naming
the item and the field as the source file spells it."""

from __future__ import annotations

import json

import pytest

from rag_eval_pytest.data.foreign import (
    ConversionError,
    convert_rows,
    converter_command,
    foreign_format,
    read_items,
)


def problems(call: object) -> list[str]:
    assert callable(call)
    with pytest.raises(ConversionError) as info:
        call()
    return info.value.problems


# --------------------------------------------------------------------------- which format


@pytest.mark.parametrize(
    ("keys", "fmt"),
    [
        (["input", "expected_output"], "deepeval"),
        (["input"], "deepeval"),  # the question field alone names it
        (["actualOutput", "retrievalContext"], "deepeval"),
        (["user_input", "reference"], "ragas"),
        (["response", "retrieved_contexts", "question"], "ragas"),
        (["question", "ground_truth", "answer"], None),  # ours
        (["question", "reference"], None),  # one misspelt field of ours is a typo
        (["scenario"], "deepeval"),  # a conversational golden
        (["scenario", "expected_outcome"], "deepeval"),
    ],
)
def test_foreign_format(keys: list[str], fmt: str | None) -> None:
    assert foreign_format(keys) == fmt


def test_the_converter_command_names_the_format_and_file() -> None:
    assert converter_command("ragas", "data/s.jsonl") == (
        "rag-eval convert --from ragas data/s.jsonl converted.json"
    )


# --------------------------------------------------------------------------- reading


def test_json_list_and_object_holding_a_list() -> None:
    assert read_items("d.json", '[{"input": "q"}]') == [("item 0", {"input": "q"})]
    assert read_items("d.JSON", '{"goldens": [{"input": "q"}, 3]}') == [
        ("item 0", {"input": "q"}),
        ("item 1", 3),
    ]


def test_jsonl_items_are_named_by_line_and_blank_lines_skipped() -> None:
    items = read_items("d.jsonl", '{"user_input": "a"}\n\n{"user_input": "b"}\n')
    assert items == [("line 1", {"user_input": "a"}), ("line 3", {"user_input": "b"})]
    assert problems(lambda: read_items("d.jsonl", '{"a": 1}\n{"a": \n')) == [
        "line 2: invalid JSON at line 1, column 7: Expecting value"
    ]


def test_csv_rows_are_named_as_a_spreadsheet_shows_them() -> None:
    items = read_items("d.csv", "input,expected_output\nq1,g1\n\nq2,\n")
    assert items == [
        ("row 2", {"input": "q1", "expected_output": "g1"}),
        ("row 3", {"input": "q2"}),
    ]


def test_malformed_csv_names_the_line() -> None:
    assert problems(lambda: read_items("d.csv", 'input\n"open quote\n')) == [
        "line 2: malformed CSV (a quote opened in this row is never closed)"
    ]
    assert problems(lambda: read_items("d.csv", "a,b\n1,2,3\n")) == [
        "line 2: malformed CSV (3 cells, the header has 2)"
    ]


def test_json_that_is_not_a_list_of_items() -> None:
    assert problems(lambda: read_items("d.json", '{"cases": []}')) == [
        "expected a list of items (or an object with 'goldens', 'test_cases' or 'samples'), "
        "found an object without one"
    ]
    assert problems(lambda: read_items("d.json", "3")) == ["expected a list of items, found int"]
    assert problems(lambda: read_items("d.json", '[{"a": 1, "a": 2}]')) == [
        "the key 'a' appears twice in one object"
    ]


def test_an_unknown_file_type_lists_the_known_ones() -> None:
    assert problems(lambda: read_items("d.txt", "")) == [
        "unknown file type '.txt' (use .json, .jsonl or .csv)"
    ]
    assert problems(lambda: read_items("README", "")) == [
        "unknown file type '(none)' (use .json, .jsonl or .csv)"
    ]


# --------------------------------------------------------------------------- converting


def test_a_deepeval_test_case_with_an_answer_keeps_its_contexts() -> None:
    item = {
        "input": "Refunds?",
        "expected_output": "Within 30 days.",
        "actualOutput": "30 days.",
        "retrieval_context": ["Refunds within 30 days."],
        "context": ["the gold passage"],
        "name": "refunds",
    }
    conversion = convert_rows("deepeval", [("item 0", item)])
    assert conversion.cases == [
        {
            "question": "Refunds?",
            "ground_truth": "Within 30 days.",
            "answer": "30 days.",
            "contexts": ["Refunds within 30 days."],
            "metadata": {"context": ["the gold passage"], "name": "refunds"},
        }
    ]
    assert conversion.notes == []


def test_contexts_without_an_answer_go_to_metadata_with_a_note() -> None:
    conversion = convert_rows(
        "ragas", [("line 1", {"user_input": "q", "retrieved_contexts": ["c"]})]
    )
    assert conversion.cases == [{"question": "q", "metadata": {"retrieved_contexts": ["c"]}}]
    assert conversion.notes == [
        "line 1: 'retrieved_contexts' without an answer is kept in the case's metadata only: "
        "the RAG system is called for this case"
    ]


def test_ragas_ids_pair_with_their_contexts() -> None:
    item = {
        "user_input": "q",
        "response": "a",
        "retrieved_contexts": ["one", "two"],
        "retrieved_context_ids": ["a.md", "b.md"],
        "reference_context_ids": ["a.md"],
    }
    (case,) = convert_rows("ragas", [("line 1", item)]).cases
    assert case["contexts"] == [
        {"text": "one", "source": "a.md"},
        {"text": "two", "source": "b.md"},
    ]
    assert case["expected_contexts"] == ["a.md"]
    item["retrieved_context_ids"] = ["a.md"]
    assert problems(lambda: convert_rows("ragas", [("line 1", item)])) == [
        "line 1: field 'retrieved_context_ids' has 1 ids for 2 retrieved_contexts"
    ]


def test_old_ragas_ground_truths_are_joined_and_an_empty_reference_dropped() -> None:
    (case,) = convert_rows(
        "ragas", [("item 0", {"question": "q", "ground_truths": ["a", "b"]})]
    ).cases
    assert case == {"question": "q", "ground_truth": "a\nb"}
    (case,) = convert_rows("ragas", [("item 0", {"user_input": "q", "reference": "  "})]).cases
    assert case == {"question": "q"}


def test_csv_cells_hold_lists_as_python_lists_or_bars() -> None:
    rows = [
        ("row 2", {"user_input": "q", "response": "a", "retrieved_contexts": "['x', 'y']"}),
        ("row 3", {"user_input": "q", "response": "a", "retrieved_contexts": "x|y| "}),
    ]
    cases = convert_rows("ragas", rows, cells=True).cases
    assert [c["contexts"] for c in cases] == [["x", "y"], ["x", "y"]]
    bad = [("row 2", {"user_input": "q", "response": "a", "retrieved_contexts": "[x, y"})]
    assert problems(lambda: convert_rows("ragas", bad, cells=True)) == [
        "row 2: field 'retrieved_contexts' is not a readable list"
    ]


def test_every_problem_of_the_file_is_listed_with_item_and_field() -> None:
    items = [
        ("item 0", {"input": "q", "expectd_output": "g"}),
        ("item 1", {"expected_output": "g"}),
        ("item 2", {"input": "  "}),
        ("item 3", "just text"),
        ("item 4", {"input": 5}),
        ("item 5", {"input": "q", "actual_output": "a", "retrieval_context": "one"}),
        ("item 6", {"input": "q", "colour": "red"}),
    ]
    found = problems(lambda: convert_rows("deepeval", items))
    assert (
        found[0]
        == "item 0: unknown field 'expectd_output' for DeepEval (did you mean 'expected_output'?)"
    )
    assert found[1] == "item 1: field 'input' is required"
    assert found[2] == "item 2: field 'input' must not be empty"
    assert found[3] == "item 3: expected an object, found str"
    assert found[4] == "item 4: field 'input' must be text, found int"
    assert found[5] == "item 5: field 'retrieval_context' must be a list of texts"
    assert found[6].startswith("item 6: unknown field 'colour' for DeepEval (known: input, ")
    assert len(found) == 7


# As DeepEval's EvaluationDataset.save_as(file_type="json") writes a conversational golden.
DEEPEVAL_CONVERSATION = {
    "scenario": "A customer compares account fees.",
    "turns": [
        {"role": "assistant", "content": "Hello! How can I help?", "retrieval_context": None},
        {"role": "user", "content": "What does a personal account cost?", "user_id": None},
        {
            "role": "assistant",
            "content": "5 EUR a month.",
            "retrieval_context": [
                "deepeval_source=fees.md,deepeval_context=A personal account costs 5 EUR a month.",
                "Fees are charged monthly.",
            ],
            "tools_called": [{"name": "search"}],
            "metadata": None,
        },
        {"role": "user", "content": "And for business accounts?"},
    ],
    "expected_outcome": "The customer learns both fees.",
    "user_description": None,
    "context": None,
    "name": "fees",
}
# As RAGAS's EvaluationDataset.to_jsonl writes a MultiTurnSample.
RAGAS_CONVERSATION = {
    "user_input": [
        {"content": "What does a personal account cost?", "type": "human"},
        {"content": "", "type": "ai", "tool_calls": [{"name": "search", "args": {"q": "fee"}}]},
        {"content": "A personal account costs 5 EUR.", "type": "tool"},
        {"content": "5 EUR a month.", "type": "ai"},
        {"content": "And for business", "type": "human"},
        {"content": "accounts?", "type": "human"},
        {"content": "12 EUR a month.", "type": "ai", "metadata": None},
    ],
    "reference": "The customer learns both fees.",
    "reference_topics": None,
}


def test_a_deepeval_conversation_becomes_turns_with_recorded_answers_and_a_live_last() -> None:
    conversion = convert_rows("deepeval", [("item 0", DEEPEVAL_CONVERSATION)])
    assert conversion.cases == [
        {
            "turns": [
                {
                    "question": "What does a personal account cost?",
                    "answer": "5 EUR a month.",
                    "contexts": [
                        {"text": "A personal account costs 5 EUR a month.", "source": "fees.md"},
                        "Fees are charged monthly.",
                    ],
                },
                {"question": "And for business accounts?"},  # no reply: asked live
            ],
            "metadata": {
                "scenario": "A customer compares account fees.",
                "expected_outcome": "The customer learns both fees.",
                "name": "fees",
                "turns[2]": {"tools_called": [{"name": "search"}]},
            },
        }
    ]
    assert conversion.notes == [
        "item 0: 'turns[0]' (assistant) comes before the user's first message: left out, as "
        "a turn starts with the user's question",
        "'expected_outcome' describes a whole conversation, not one turn's answer: it is kept "
        "in the case's metadata, and the turns have no ground_truth",
    ]


def test_a_ragas_conversation_joins_a_reply_and_takes_the_tools_output_as_contexts() -> None:
    (case,) = convert_rows("ragas", [("line 1", RAGAS_CONVERSATION)]).cases
    assert case["turns"] == [
        {
            "question": "What does a personal account cost?",
            "answer": "5 EUR a month.",
            "contexts": ["A personal account costs 5 EUR."],
        },
        {"question": "And for business\naccounts?", "answer": "12 EUR a month."},
    ]
    assert case["metadata"] == {
        "reference": "The customer learns both fees.",
        "user_input[1]": {"tool_calls": [{"name": "search", "args": {"q": "fee"}}]},
    }


def test_a_conversation_in_a_csv_cell_is_read_as_json_or_as_a_python_list() -> None:
    messages = [{"role": "user", "content": "q?", "retrieval_context": None}]
    rows = [
        ("row 2", {"scenario": "s", "turns": json.dumps(messages)}),
        ("row 3", {"user_input": str([{"content": "q?", "type": "human"}])}),
    ]
    deepeval = convert_rows("deepeval", rows[:1], cells=True).cases
    ragas = convert_rows("ragas", rows[1:], cells=True).cases
    assert deepeval[0]["turns"] == ragas[0]["turns"] == [{"question": "q?"}]


def test_every_problem_of_a_conversation_names_the_item_and_the_message_field() -> None:
    items = [
        ("item 0", {"scenario": "only a scenario"}),
        ("item 1", {"turns": [{"role": "user", "content": "q", "colour": "red"}]}),
        ("item 2", {"turns": [{"role": "system", "content": "be brief"}]}),
        ("item 3", {"turns": [{"role": "user", "content": 5}]}),
        ("item 4", {"turns": [{"role": "user", "content": " "}]}),
        ("item 5", {"turns": [{"role": "user", "content": "q", "retrieval_context": ["c"]}]}),
        ("item 6", {"turns": [{"role": "assistant", "content": "hello"}]}),
        ("item 7", {"turns": "q", "scenaro": "s"}),
        ("item 8", {"turns": []}),
        ("item 9", {"turns": [{"content": "q"}]}),
    ]
    assert problems(lambda: convert_rows("deepeval", items)) == [
        "item 0: field 'turns' is required (a golden with only a scenario is for DeepEval's "
        "simulator)",
        "item 1: unknown field 'turns[0].colour' (known: additional_metadata, content, "
        "mcp_prompts_called, mcp_resources_called, mcp_tools_called, metadata, "
        "retrieval_context, role, tools_called, user_id)",
        "item 2: field 'turns[0].role' must be user or assistant, found 'system'",
        "item 3: field 'turns[0].content' must be text, found int",
        "item 4: field 'turns[0].content' must not be empty",
        "item 5: field 'turns[0].retrieval_context' is on a user message: retrieval context "
        "belongs to the assistant's reply",
        "item 6: the conversation has no user message to ask",
        "item 7: unknown field 'scenaro' for a DeepEval conversation (did you mean 'scenario'?)",
        "item 7: field 'turns' must be a list of messages",
        "item 8: field 'turns' has no messages",
        "item 9: field 'turns[0].role' is required",
    ]


def test_a_ragas_reply_without_text_is_no_answer() -> None:
    sample = {
        "user_input": [
            {"content": "q?", "type": "human"},
            {"content": "", "type": "ai", "tool_calls": [{"name": "search", "args": {}}]},
            {"content": "found", "type": "tool"},
        ]
    }
    assert problems(lambda: convert_rows("ragas", [("line 4", sample)])) == [
        "line 4: the reply to turn 1 ('user_input[1]', 'user_input[2]') has no assistant text "
        "to record as its answer"
    ]


def test_an_empty_file_has_no_items() -> None:
    assert problems(lambda: convert_rows("ragas", [])) == ["the file has no items"]
