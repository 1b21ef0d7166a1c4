"""What the LLM judges' backends are handed: one rendered prompt, small enough to compare
the requests built from it whole."""

from __future__ import annotations

from rag_eval_pytest.judges.prompt import RenderedPrompt

PROMPT = RenderedPrompt(
    system="You are a judge.",
    user="<data>the answer</data>",
    schema_json='{"type": "object", "required": ["statements"]}',
    untrusted_texts=(),
)
