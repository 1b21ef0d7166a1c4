"""Several questions asked in one request: a *bundle*.

A cascade judge gathers the questions of one case that its local tier left undecided (a
faithfulness statement, a context's usefulness, a rating: one question per metric) and asks
its LLM tier about all of them at once. The bundle is a :class:`Question` like any other, so
the LLM judge's runtime renders, parses, re-asks, caches and prices it as it does one
question: task K's instructions and data (its sections named ``TASK K ...``), and one answer
per task under ``task_K``, each checked by its own question. :func:`parts_of` splits the
bundle's outcome into one outcome per question, the request counted once (under the first
question) and its tokens and cost shared among them.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, create_model

from .base import JudgeOutcome, Question, Usage, with_lengths

if TYPE_CHECKING:
    from collections.abc import Sequence

Asked = tuple[Question[Any, Any], BaseModel]
"""One question of a bundle, with its inputs."""


class BundleInput(BaseModel):
    """The inputs of every question of a bundle, each field named after its task
    (``task_1_answer``, ``task_2_contexts``, ...): the sections and parameters of the prompt."""

    model_config = ConfigDict(extra="allow")


class Bundle(Question[BundleInput, BaseModel]):
    """Questions asked together: each its own task, on its own data, with its own answer."""

    name = "bundle"
    input_model: ClassVar[type[BaseModel]] = BundleInput
    output_model: ClassVar[type[BaseModel]] = BaseModel

    def __init__(self, asked: Sequence[Asked]) -> None:
        self.asked = list(asked)

    def instructions(self) -> str:
        tasks = "\n\n".join(
            f"## Task {k} ({question.name})\n{question.instructions().strip()}"
            for k, (question, _) in enumerate(self.asked, 1)
        )
        return (
            f"This request holds {len(self.asked)} tasks, each with data of its own: the data "
            "sections of task K are named TASK K followed by the section's name. Do each task "
            "on its own data only, as its own instructions say, and record the answers of all "
            "of them at once, the answer of task K under task_K.\n\n" + tasks
        )

    def untrusted(self, inputs: BundleInput) -> dict[str, str | list[str]]:
        return {
            f"task_{k}_{name}": value
            for k, (question, own) in enumerate(self.asked, 1)
            for name, value in question.untrusted(own).items()
        }

    def answer_schema(self, inputs: BundleInput, schema_json: str) -> str:
        """Each task's part of the schema as its question says of its own answer."""
        schema = json.loads(schema_json)
        for k, (question, own) in enumerate(self.asked, 1):
            with_lengths(schema["properties"][f"task_{k}"], question.answer_lengths(own))
        return json.dumps(schema)

    def check(self, inputs: BundleInput, output: BaseModel) -> list[str]:
        return [
            f"task_{k}: {problem}"
            for k, (question, own) in enumerate(self.asked, 1)
            for problem in question.check(own, getattr(output, f"task_{k}"))
        ]

    def salvage(self, inputs: BundleInput, output: BaseModel) -> tuple[BaseModel, str] | None:
        """Each task's answer as its question salvages it (kept whole where it passes its
        checks); ``None`` when one of them cannot be used."""
        kept: dict[str, BaseModel] = {}
        notes = []
        for k, (question, own) in enumerate(self.asked, 1):
            answer = getattr(output, f"task_{k}")
            if not question.check(own, answer):
                kept[f"task_{k}"] = answer
                continue
            salvaged = question.salvage(own, answer)
            if salvaged is None:
                return None
            kept[f"task_{k}"], note = salvaged
            notes.append(f"task_{k}: {note}")
        return type(output).model_validate(kept), "; ".join(notes)


def bundle(asked: Sequence[Asked]) -> tuple[Bundle, BundleInput]:
    """The bundle of these questions (its output model has one field per task), and its
    inputs."""
    kind = _bundle_class(tuple(type(question) for question, _ in asked))
    fields = {
        f"task_{k}_{name}": value
        for k, (_, inputs) in enumerate(asked, 1)
        for name, value in inputs.model_dump().items()
    }
    return kind(asked), BundleInput.model_validate(fields)


@lru_cache(maxsize=64)
def _bundle_class(kinds: tuple[type[Question[Any, Any]], ...]) -> type[Bundle]:
    """The bundle of questions of these kinds, in this order: one class (and so one output
    schema) per order of kinds."""
    fields: dict[str, Any] = {
        f"task_{k}": (kind.output_model, Field(description=f"The answer of task {k}."))
        for k, kind in enumerate(kinds, 1)
    }
    output = create_model("BundleAnswers", __config__=ConfigDict(extra="forbid"), **fields)
    name = "bundle:" + "+".join(kind.name for kind in kinds)
    return type("Bundled", (Bundle,), {"name": name, "output_model": output})


def parts_of(outcome: JudgeOutcome[Any], count: int) -> list[JudgeOutcome[Any]]:
    """The outcome of each question of a bundle of ``count``: its answer, the request counted
    under the first and its tokens and cost shared among them; each not judged, with the
    bundle's reason, where the bundle was not."""
    shares = _shared(outcome.usage, count)
    if outcome.value is None:
        return [JudgeOutcome.not_judged(outcome.reason, share, outcome.stopped) for share in shares]
    return [
        JudgeOutcome(
            getattr(outcome.value, f"task_{k}"),
            usage=share,
            notes=outcome.notes,
            agreement=outcome.agreement,
        )
        for k, share in enumerate(shares, 1)
    ]


def _shared(usage: Usage, count: int) -> list[Usage]:
    """``usage`` shared among ``count`` questions: the requests (and cache hits) the first
    one's, the tokens and the cost in equal parts (the remainder the first one's)."""
    shares = [
        Usage(
            input_tokens=usage.input_tokens // count,
            output_tokens=usage.output_tokens // count,
            cost_usd=usage.cost_usd / count,
        )
        for _ in range(count)
    ]
    rest = Usage(
        judge_calls=usage.judge_calls,
        cache_hits=usage.cache_hits,
        input_tokens=usage.input_tokens % count,
        output_tokens=usage.output_tokens % count,
    )
    shares[0] = shares[0] + rest
    return shares
