"""A rendered prompt: the task, the parameters, each untrusted section between tags whose id
is a hash of the content, the answer format, and long sections cut to the judge's window
(the longest first) with a note that says how much."""

from __future__ import annotations

import json
import re

from rag_eval_pytest.judges.prompt import (
    SYSTEM_PROMPT,
    TRUNCATION_MARK,
    estimate_tokens,
    render,
)
from rag_eval_pytest.judges.questions import (
    ContextsInput,
    ContextUsefulness,
    GeneratedQuestions,
    QuestionsInput,
    StatementsInput,
    StatementSupport,
)

INPUTS = StatementsInput(question="Capital?", answer="Paris.", contexts=["Paris is big.", "x"])


def nonce_of(user: str) -> str:
    match = re.search(r'<data section="QUESTION" id="(\w+)">', user)
    assert match is not None
    return match.group(1)


def test_sections_are_tagged_with_one_id_in_the_order_of_the_question() -> None:
    prompt = render(StatementSupport(), INPUTS, mode="json")
    nonce = nonce_of(prompt.user)
    assert len(nonce) == 16
    sections = re.findall(r'<data section="([A-Z ]+)" id="(\w+)"', prompt.user)
    assert sections == [("QUESTION", nonce), ("ANSWER", nonce), ("CONTEXTS", nonce)]
    assert f'<data section="CONTEXTS" id="{nonce}" items="2">' in prompt.user
    assert f'<item index="1" id="{nonce}">\nx\n</item id="{nonce}">' in prompt.user
    assert prompt.system == SYSTEM_PROMPT
    assert prompt.untrusted_texts == ("Capital?", "Paris.", "Paris is big.", "x")


def test_the_id_changes_with_the_content() -> None:
    one = nonce_of(render(StatementSupport(), INPUTS, mode="json").user)
    again = nonce_of(render(StatementSupport(), INPUTS, mode="json").user)
    other = nonce_of(
        render(StatementSupport(), INPUTS.model_copy(update={"answer": "Lyon."}), mode="json").user
    )
    assert one == again
    assert one != other


def test_an_empty_list_is_shown_as_none() -> None:
    prompt = render(StatementSupport(), INPUTS.model_copy(update={"contexts": []}), mode="json")
    nonce = nonce_of(prompt.user)
    assert f'<data section="CONTEXTS" id="{nonce}" items="0">\n(none)\n' in prompt.user


def test_inputs_that_are_not_untrusted_are_parameters() -> None:
    prompt = render(GeneratedQuestions(), QuestionsInput(answer="a", count=4), mode="json")
    assert "# Parameters\n\n- count: 4\n\n# Data" in prompt.user
    assert "# Parameters" not in render(StatementSupport(), INPUTS, mode="json").user


def test_json_mode_gives_the_schema_and_tool_mode_names_the_tool() -> None:
    as_json = render(
        ContextUsefulness(),
        ContextsInput(question="q", ground_truth="g", contexts=["c"]),
        mode="json",
    )
    schema_line = as_json.user.split("JSON schema, and nothing else:\n")[1].splitlines()[0]
    assert json.loads(schema_line) == as_json.schema
    assert "$defs" not in as_json.schema_json  # references inlined
    assert (
        as_json.schema["properties"]["verdicts"]["items"]["properties"]["useful"]["type"]
        == "boolean"
    )
    as_tool = render(StatementSupport(), INPUTS, mode="tool", tool_name="submit")
    assert "calling the `submit` tool once" in as_tool.user
    assert "JSON schema" not in as_tool.user


def test_the_correction_keeps_the_task_and_says_why() -> None:
    prompt = render(StatementSupport(), INPUTS, mode="json")
    corrected = prompt.with_correction("missing field 'verdict'")
    assert corrected.user.startswith(prompt.user)
    assert (
        "Your previous reply to this task was rejected: missing field 'verdict'" in corrected.user
    )
    assert corrected.untrusted_texts == prompt.untrusted_texts
    assert prompt.text == f"{prompt.system}\n\n{prompt.user}"


def test_the_longest_text_is_cut_to_fit_the_window_with_a_note() -> None:
    inputs = StatementsInput(question="q", answer="a" * 2000, contexts=["c" * 100])
    # 1,700 tokens less 1,500 of overhead leave 200 tokens: 800 characters of data. The one
    # long text is cut to the largest common cap that fits: 800 - 1 - 100 = 699 characters.
    prompt = render(StatementSupport(), inputs, mode="json", max_context_tokens=1_700)
    cap = 699 - len(TRUNCATION_MARK)
    assert prompt.notes == (
        f"truncated 1 answer text to about {cap} characters each to fit the judge's context "
        "window (2101 characters of data for a budget of 800)",
    )
    assert "a" * cap + TRUNCATION_MARK in prompt.user
    assert "a" * (cap + 1) not in prompt.user
    assert "c" * 100 in prompt.user  # the short context is whole


def test_data_within_the_window_is_not_cut() -> None:
    prompt = render(StatementSupport(), INPUTS, mode="json", max_context_tokens=100_000)
    assert prompt.notes == ()
    assert TRUNCATION_MARK not in prompt.user


def test_token_estimate_rounds_up_at_four_characters() -> None:
    assert [estimate_tokens("x" * n) for n in (0, 1, 4, 5, 8)] == [0, 1, 1, 2, 2]
