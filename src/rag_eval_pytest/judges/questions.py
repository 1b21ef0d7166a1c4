"""The questions the RAG metrics ask a judge, with their input and output models.

One question per metric step, batched: every verdict a metric needs for one case comes from
one question (one judge call per pass). The untrusted texts (answer, contexts, ground truth,
question) are returned by :meth:`Question.untrusted` so that LLM judges can delimit them.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from .base import IndexedQuestion, Question


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------- faithfulness


class StatementsInput(_Model):
    question: str
    answer: str
    contexts: list[str]


Verdict = Literal["supported", "contradicted", "not mentioned", "unsupported"]
"""A statement's verdict: ``supported`` (the contexts state or imply it), ``contradicted``
(they state something that conflicts with it), ``not mentioned`` (they say nothing of it, or
too little to decide); ``unsupported`` is a two-way judge's "no" (not supported, without
saying whether contradicted), counted as unfaithful in every mode."""
THREE_WAY = ("supported", "contradicted", "not mentioned")


class StatementVerdict(_Model):
    statement: str = Field(description="One self-contained claim of the answer.")
    verdict: Verdict = Field(
        description="supported: the contexts state or directly imply it; contradicted: they "
        "state something that conflicts with it; not mentioned: they say nothing of it or too "
        "little to decide.",
        json_schema_extra={"enum": list(THREE_WAY)},
    )
    reason: str = Field(description="Short reason, quoting the context where possible.")


class StatementVerdicts(_Model):
    statements: list[StatementVerdict]


class StatementSupport(Question[StatementsInput, StatementVerdicts]):
    """Faithfulness: split the answer into claims and judge each against all contexts."""

    name = "statement_support"
    input_model: ClassVar[type[BaseModel]] = StatementsInput
    output_model: ClassVar[type[BaseModel]] = StatementVerdicts

    def instructions(self) -> str:
        return (
            "Break the ANSWER into standalone statements: one factual claim each, pronouns "
            "replaced by what they refer to. Then judge every statement against the CONTEXTS "
            "only (not your own knowledge), with one of three verdicts: 'supported' if the "
            "contexts state or directly imply it, 'contradicted' if they state something that "
            "conflicts with it, 'not mentioned' if they say nothing of it or too little to "
            "decide. Give a short reason for each, quoting the context for a contradiction. An "
            "answer without any factual claim (a refusal, a greeting) has no statements."
        )

    def untrusted(self, inputs: StatementsInput) -> dict[str, str | list[str]]:
        return {"question": inputs.question, "answer": inputs.answer, "contexts": inputs.contexts}


# --------------------------------------------------------------------------- answer relevance


class QuestionsInput(_Model):
    answer: str
    count: int = Field(3, ge=1, le=10)


class GeneratedQuestionsOutput(_Model):
    questions: list[str] = Field(description="Questions the answer answers, one per item.")
    noncommittal: bool = Field(
        description="True when the answer evades or declines ('I don't know', 'I cannot say')."
    )


class GeneratedQuestions(Question[QuestionsInput, GeneratedQuestionsOutput]):
    """Answer relevance: questions the answer would answer, and whether it is noncommittal."""

    name = "generated_questions"
    input_model: ClassVar[type[BaseModel]] = QuestionsInput
    output_model: ClassVar[type[BaseModel]] = GeneratedQuestionsOutput

    def instructions(self) -> str:
        return (
            "Write questions that the ANSWER answers (the number is given below), as a user "
            "would ask them. Mark the answer noncommittal if it evades, hedges without "
            "content, or declines to answer."
        )

    def untrusted(self, inputs: QuestionsInput) -> dict[str, str | list[str]]:
        return {"answer": inputs.answer}

    def check(self, inputs: QuestionsInput, output: GeneratedQuestionsOutput) -> list[str]:
        if not output.noncommittal and not any(q.strip() for q in output.questions):
            return ["no question was generated"]
        return []


class DirectRelevanceInput(_Model):
    question: str
    answer: str


class DirectRelevance(_Model):
    score: float = Field(
        ge=0.0, le=1.0, description="How directly the answer addresses the question, 0 to 1."
    )
    noncommittal: bool = Field(
        description="True when the answer evades or declines ('I don't know', 'I cannot say')."
    )
    reason: str
    bounds: SkipJsonSchema[tuple[float, float] | None] = None
    """For a rating the judge is unsure of (the local judge's unsure band): the scores
    between which it lies, the band's edges; not asked of LLM judges (it is not in their
    schema)."""


class AnswerAddressesQuestion(Question[DirectRelevanceInput, DirectRelevance]):
    """Answer relevance without embeddings of generated questions: a direct rating.

    The metric asks this only when the judge cannot generate questions (the local judge) or
    no embedding model is available for the generated ones.
    """

    name = "answer_addresses_question"
    input_model: ClassVar[type[BaseModel]] = DirectRelevanceInput
    output_model: ClassVar[type[BaseModel]] = DirectRelevance

    def instructions(self) -> str:
        return (
            "Rate from 0 to 1 how directly and completely the ANSWER addresses the QUESTION "
            "(1: answers exactly what was asked; 0: about something else). Relevance only, "
            "not correctness. Mark the answer noncommittal if it evades, hedges without "
            "content, or declines to answer."
        )

    def untrusted(self, inputs: DirectRelevanceInput) -> dict[str, str | list[str]]:
        return {"question": inputs.question, "answer": inputs.answer}


# --------------------------------------------------------------------------- context precision


class ContextsInput(_Model):
    question: str
    ground_truth: str
    contexts: list[str]


class ContextVerdict(_Model):
    index: int = Field(ge=0, description="0-based position of the context in CONTEXTS.")
    useful: bool = Field(description="Whether the context helps arrive at the ground truth.")
    reason: str


class ContextVerdicts(_Model):
    verdicts: list[ContextVerdict]


class ContextUsefulness(IndexedQuestion[ContextsInput, ContextVerdicts]):
    """Context precision: for each retrieved context, useful for the ground truth or not."""

    name = "context_usefulness"
    input_model: ClassVar[type[BaseModel]] = ContextsInput
    output_model: ClassVar[type[BaseModel]] = ContextVerdicts
    listed = "verdicts"
    items = "contexts"

    def instructions(self) -> str:
        return (
            "For EACH of the CONTEXTS, in order, decide whether it was useful in arriving at "
            "the GROUND TRUTH answer to the QUESTION. Return exactly one verdict per context, "
            "with its 0-based index."
        )

    def untrusted(self, inputs: ContextsInput) -> dict[str, str | list[str]]:
        return {
            "question": inputs.question,
            "ground_truth": inputs.ground_truth,
            "contexts": inputs.contexts,
        }

    def count(self, inputs: ContextsInput) -> int:
        return len(inputs.contexts)


# --------------------------------------------------------------------------- context recall


class AttributionInput(_Model):
    question: str
    ground_truth_sentences: list[str]
    contexts: list[str]


class SentenceAttribution(_Model):
    index: int = Field(ge=0, description="0-based position of the ground-truth sentence.")
    attributed: bool = Field(description="Whether the contexts support this sentence.")
    reason: str


class Attributions(_Model):
    sentences: list[SentenceAttribution]


class GroundTruthAttribution(IndexedQuestion[AttributionInput, Attributions]):
    """Context recall: which ground-truth sentences the contexts support."""

    name = "ground_truth_attribution"
    input_model: ClassVar[type[BaseModel]] = AttributionInput
    output_model: ClassVar[type[BaseModel]] = Attributions
    listed = "sentences"
    items = "ground-truth sentences"

    def instructions(self) -> str:
        return (
            "For EACH numbered sentence of the GROUND TRUTH, decide whether it can be "
            "attributed to the CONTEXTS (they state or directly imply it). Return exactly one "
            "verdict per sentence, with its 0-based index."
        )

    def untrusted(self, inputs: AttributionInput) -> dict[str, str | list[str]]:
        return {
            "question": inputs.question,
            "ground_truth_sentences": inputs.ground_truth_sentences,
            "contexts": inputs.contexts,
        }

    def count(self, inputs: AttributionInput) -> int:
        return len(inputs.ground_truth_sentences)


# --------------------------------------------------------------------------- context relevance


class RelevanceInput(_Model):
    question: str
    context_sentences: list[str]


class SentenceRelevance(_Model):
    index: int = Field(ge=0, description="0-based position of the context sentence.")
    relevant: bool = Field(description="Whether the sentence is needed to answer the question.")
    score: SkipJsonSchema[float | None] = Field(None, ge=0.0, le=1.0)
    """How close the sentence came, where a judge rates it (the local judge: needed from 0.5);
    not asked of LLM judges (it is not in their schema)."""


class SentenceRelevances(_Model):
    sentences: list[SentenceRelevance]


class ContextSentenceRelevance(IndexedQuestion[RelevanceInput, SentenceRelevances]):
    """Context relevance: which context sentences are needed to answer the question."""

    name = "context_sentence_relevance"
    input_model: ClassVar[type[BaseModel]] = RelevanceInput
    output_model: ClassVar[type[BaseModel]] = SentenceRelevances
    listed = "sentences"
    items = "context sentences"

    def instructions(self) -> str:
        return (
            "For EACH numbered sentence of the CONTEXT SENTENCES, decide whether it is needed "
            "to answer the QUESTION. Return exactly one verdict per sentence, with its 0-based "
            "index."
        )

    def untrusted(self, inputs: RelevanceInput) -> dict[str, str | list[str]]:
        return {"question": inputs.question, "context_sentences": inputs.context_sentences}

    def count(self, inputs: RelevanceInput) -> int:
        return len(inputs.context_sentences)


# --------------------------------------------------------------------------- answer correctness


class EquivalenceInput(_Model):
    question: str
    answer: str
    ground_truth: str


class Equivalence(_Model):
    same_information: bool = Field(
        description="Whether the answer conveys the same information as the ground truth."
    )
    matching_facts: list[str] = Field(description="Facts of the ground truth the answer states.")
    missing_facts: list[str] = Field(description="Facts of the ground truth the answer lacks.")
    wrong_or_extra_facts: list[str] = Field(
        description="Facts of the answer that contradict or are absent from the ground truth."
    )


class AnswerEquivalence(Question[EquivalenceInput, Equivalence]):
    """Answer correctness: does the answer convey the ground truth's information?"""

    name = "answer_equivalence"
    input_model: ClassVar[type[BaseModel]] = EquivalenceInput
    output_model: ClassVar[type[BaseModel]] = Equivalence

    def instructions(self) -> str:
        return (
            "Compare the ANSWER with the GROUND TRUTH for the QUESTION. List the ground-truth "
            "facts the answer states, those it lacks, and the answer's facts that contradict "
            "or are absent from the ground truth; then say whether both convey the same "
            "information."
        )

    def untrusted(self, inputs: EquivalenceInput) -> dict[str, str | list[str]]:
        return {
            "question": inputs.question,
            "answer": inputs.answer,
            "ground_truth": inputs.ground_truth,
        }


# --------------------------------------------------------------------------- criteria


class CriterionInput(_Model):
    criterion: str
    """Written by the test's author, so a trusted parameter of the task, not data."""
    question: str
    answer: str
    contexts: list[str]
    ground_truth: str


CriterionLevel = Literal["fully", "mostly", "partly", "barely", "not at all"]
CRITERION_SCORES: dict[str, float] = {
    "fully": 1.0,
    "mostly": 0.75,
    "partly": 0.5,
    "barely": 0.25,
    "not at all": 0.0,
}


class CriterionVerdict(_Model):
    meets: CriterionLevel = Field(
        description="How far the answer meets the criterion: fully, mostly, partly, barely or "
        "not at all."
    )
    violations: list[str] = Field(
        description="The parts of the answer that break the criterion, quoted; empty when none."
    )
    reason: str = Field(description="One or two sentences: why this verdict.")


class CriterionCheck(Question[CriterionInput, CriterionVerdict]):
    """A criterion in plain words, written by the test's author ("the answer must not promise
    refunds beyond 30 days"), checked against the answer."""

    name = "criterion_check"
    input_model: ClassVar[type[BaseModel]] = CriterionInput
    output_model: ClassVar[type[BaseModel]] = CriterionVerdict

    def instructions(self) -> str:
        return (
            "Decide how far the ANSWER to the QUESTION meets the criterion given under "
            "Parameters. Judge the answer against the criterion only, not on other qualities. "
            "Use the CONTEXTS and the GROUND TRUTH only where the criterion refers to them "
            "(they may be empty). Say whether the answer meets the criterion fully, mostly, "
            "partly, barely or not at all; quote each part of the answer that breaks it; give "
            "a short reason."
        )

    def untrusted(self, inputs: CriterionInput) -> dict[str, str | list[str]]:
        return {
            "question": inputs.question,
            "answer": inputs.answer,
            "contexts": inputs.contexts,
            "ground_truth": inputs.ground_truth,
        }


# --------------------------------------------------------------------------- knowledge retention


class RetentionInput(_Model):
    facts: list[str]
    """What the user stated in the conversation's earlier turns, one statement each."""
    question: str
    """The user's message this answer replies to."""
    answer: str


RetentionVerdict = Literal["kept", "contradicted", "asked again"]
"""What an answer does with one fact the user gave: ``kept`` (consistent with it, or silent
on it), ``contradicted`` (states something that conflicts with it) or ``asked again`` (asks
the user for what it already gave)."""


class FactRetention(_Model):
    index: int = Field(ge=0, description="0-based position of the fact in FACTS.")
    verdict: RetentionVerdict = Field(
        description="kept: the answer agrees with the fact or does not touch it; contradicted: "
        "the answer states something that conflicts with it; asked again: the answer asks the "
        "user for what the fact already gave."
    )
    reason: str = Field(description="Short reason, quoting the answer for a contradiction.")


class FactRetentions(_Model):
    facts: list[FactRetention]


class UserFactRetention(IndexedQuestion[RetentionInput, FactRetentions]):
    """Knowledge retention: for each fact the user gave in earlier turns, whether the answer
    contradicts it or asks for it again."""

    name = "fact_retention"
    input_model: ClassVar[type[BaseModel]] = RetentionInput
    output_model: ClassVar[type[BaseModel]] = FactRetentions
    listed = "facts"
    items = "facts"

    def instructions(self) -> str:
        return (
            "The FACTS are what the user said earlier in a conversation; the ANSWER replies to "
            "the user's latest message, the QUESTION. For EACH fact, in order, decide what the "
            "ANSWER does with it: 'contradicted' if the answer states something that conflicts "
            "with the fact (another number, name, date or the opposite), 'asked again' if the "
            "answer asks the user for what the fact already gave, 'kept' otherwise (the answer "
            "agrees with the fact or does not touch it). Return exactly one verdict per fact, "
            "with its 0-based index and a short reason quoting the answer."
        )

    def untrusted(self, inputs: RetentionInput) -> dict[str, str | list[str]]:
        return {"facts": inputs.facts, "question": inputs.question, "answer": inputs.answer}

    def count(self, inputs: RetentionInput) -> int:
        return len(inputs.facts)


# --------------------------------------------------------------------------- test set generation


class WritingInput(_Model):
    kind: str
    """The kind of question to write (``single``, ``multi_hop``, ...): a trusted parameter."""
    guidance: str
    """What that kind of question is, in the generator's words: a trusted parameter."""
    focus: str
    """The sentence of the first chunk the question is about (another for each question
    written from the same chunk)."""
    chunks: list[str]


class WrittenCase(_Model):
    question: str = Field(description="The question, as a user of the documents would ask it.")
    ground_truth: str | None = Field(
        description="The answer, in one or two sentences, stated by the CHUNKS; null for a "
        "question the chunks cannot answer."
    )


class QuestionWriting(Question[WritingInput, WrittenCase]):
    """``rag-eval generate``: one question of a given kind from the chunks, with its ground
    truth."""

    name = "question_writing"
    input_model: ClassVar[type[BaseModel]] = WritingInput
    output_model: ClassVar[type[BaseModel]] = WrittenCase

    def instructions(self) -> str:
        return (
            "Write ONE question that a user of the documents the CHUNKS come from would ask, "
            "of the kind given under Parameters (its guidance says what that kind is), about "
            "the fact of the FOCUS sentence (combined with the other chunk for a kind that "
            "needs two), and its ground truth: the answer in one or two sentences, using only "
            "what the CHUNKS state, never your own knowledge. The question must stand on its "
            "own and must not quote the FOCUS sentence word for word (name what "
            "it is about; no 'the text', 'the chunk' or 'the document'). For the kind "
            "'unanswerable', write a question on the same topic that the CHUNKS do not "
            "answer, and give null as its ground truth."
        )

    def untrusted(self, inputs: WritingInput) -> dict[str, str | list[str]]:
        return {"focus": inputs.focus, "chunks": inputs.chunks}

    def check(self, inputs: WritingInput, output: WrittenCase) -> list[str]:
        problems = [] if output.question.strip() else ["the question is empty"]
        problem = _ground_truth_problem(inputs.kind, output.ground_truth)
        return problems if problem is None else [*problems, problem]


def _ground_truth_problem(kind: str, ground_truth: str | None) -> str | None:
    """What is wrong with a written case's ground truth: an unanswerable question has none,
    any other a text."""
    if kind == "unanswerable":
        return (
            None
            if ground_truth is None
            else "an unanswerable question has null as its ground truth"
        )
    return None if (ground_truth or "").strip() else "the ground truth is empty"


class ConversationInput(_Model):
    turns: int = Field(ge=2, le=8)
    focus: str
    """The sentence the conversation starts from."""
    chunks: list[str]


class WrittenTurn(_Model):
    question: str = Field(description="The user's message of this turn.")
    ground_truth: str = Field(description="Its answer, stated by the CHUNKS.")


class WrittenConversation(_Model):
    turns: list[WrittenTurn]


class ConversationWriting(Question[ConversationInput, WrittenConversation]):
    """``rag-eval generate --conversations``: a conversation whose follow-ups lean on its
    earlier turns, each turn with its ground truth."""

    name = "conversation_writing"
    input_model: ClassVar[type[BaseModel]] = ConversationInput
    output_model: ClassVar[type[BaseModel]] = WrittenConversation

    def instructions(self) -> str:
        return (
            "Write a conversation of a user with an assistant that answers from the CHUNKS: "
            "the number of turns is given under Parameters. The first question stands on its "
            "own and asks about the fact of the FOCUS sentence; each later one is a follow-up "
            "that leans on the earlier turns (it says 'it', 'that one', 'and for ...?' instead "
            "of repeating what was asked). Give each "
            "turn its ground truth: the answer in one or two sentences, using only what the "
            "CHUNKS state."
        )

    def untrusted(self, inputs: ConversationInput) -> dict[str, str | list[str]]:
        return {"focus": inputs.focus, "chunks": inputs.chunks}

    def check(self, inputs: ConversationInput, output: WrittenConversation) -> list[str]:
        if len(output.turns) != inputs.turns:
            return [f"expected {inputs.turns} turns, got {len(output.turns)}"]
        if any(not (t.question.strip() and t.ground_truth.strip()) for t in output.turns):
            return ["a turn has an empty question or ground truth"]
        return []


class GeneratedCheckInput(_Model):
    questions: list[str]
    """One question, or a conversation's turns in order (a follow-up read after them)."""
    ground_truths: list[str]
    """Each question's ground truth; empty for a question meant to be unanswerable."""
    chunks: list[str]


class GeneratedVerdict(_Model):
    index: int = Field(ge=0, description="0-based position of the question in QUESTIONS.")
    answerable: bool = Field(description="Whether the CHUNKS answer the question.")
    supported: bool = Field(
        description="Whether the CHUNKS state the question's ground truth (false when it is empty)."
    )
    reason: str = Field(description="Short reason, quoting the chunks.")


class GeneratedVerdicts(_Model):
    questions: list[GeneratedVerdict]


class GeneratedCheck(IndexedQuestion[GeneratedCheckInput, GeneratedVerdicts]):
    """``rag-eval generate``: is each generated question answerable from its source chunks,
    and its ground truth supported by them? A case that fails is dropped."""

    name = "generated_check"
    input_model: ClassVar[type[BaseModel]] = GeneratedCheckInput
    output_model: ClassVar[type[BaseModel]] = GeneratedVerdicts
    listed = "questions"
    items = "questions"

    def instructions(self) -> str:
        return (
            "For EACH of the QUESTIONS, in order (several are the turns of one conversation: "
            "read a follow-up with the turns before it), decide from the CHUNKS only (not "
            "your own knowledge): 'answerable' if the chunks hold its answer; 'supported' if "
            "the chunks state its GROUND TRUTH (the item of the same index; an empty ground "
            "truth is never supported). Return exactly one verdict per question, with its "
            "0-based index and a short reason."
        )

    def untrusted(self, inputs: GeneratedCheckInput) -> dict[str, str | list[str]]:
        return {
            "questions": inputs.questions,
            "ground_truths": inputs.ground_truths,
            "chunks": inputs.chunks,
        }

    def count(self, inputs: GeneratedCheckInput) -> int:
        return len(inputs.questions)

    def salvage(
        self, inputs: GeneratedCheckInput, output: GeneratedVerdicts
    ) -> tuple[GeneratedVerdicts, str] | None:
        return None  # a case its check left out is not kept half-checked
