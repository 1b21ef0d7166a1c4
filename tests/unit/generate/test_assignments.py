"""What the LLM generator asks before it asks anything: the cases of each kind spread over
the documents by size, each about another sentence of its chunk, the same for a seed; and
the checks its typed questions make of a judge's reply."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from rag_eval_pytest.generate.chunking import Chunk, chunk_documents
from rag_eval_pytest.generate.documents import read_documents
from rag_eval_pytest.generate.llm import assign
from rag_eval_pytest.judges.questions import (
    GeneratedCheck,
    GeneratedCheckInput,
    GeneratedVerdict,
    GeneratedVerdicts,
    QuestionWriting,
    WritingInput,
    WrittenCase,
)
from rag_eval_pytest.text.sentences import split_sentences
from tests.documents import write_documents


def chunks(tmp_path: Path) -> list[Chunk]:
    return chunk_documents(read_documents([write_documents(tmp_path / "docs")]))


def test_cases_spread_by_size_each_on_its_own_sentence_the_same_for_a_seed(
    tmp_path: Path,
) -> None:
    found = chunks(tmp_path)
    wanted = {"single": 10, "multi_hop": 4, "comparison": 2}
    first = assign(found, wanted, seed=1)
    assert assign(found, wanted, seed=1) == first
    assert assign(found, wanted, seed=2) != first
    assert Counter(a.kind for a in first) == wanted
    # The largest document (refunds) gets the most single-fact questions.
    by_document = Counter(a.chunks[0].document for a in first if a.kind == "single")
    assert by_document.most_common(1)[0][0].endswith("docs/billing/refunds.md")
    assert all(len(a.chunks) == 2 for a in first if a.kind in ("multi_hop", "comparison"))
    # Two cases written from one chunk are about two of its sentences, until it has none
    # left.
    foci: dict[str, list[str]] = {}
    for a in first:
        foci.setdefault(a.chunks[0].id, []).append(a.focus)
    sentences = {c.id: len(split_sentences(c.text.replace("\n\n", " "))) for c in found}
    for chunk_id, given in foci.items():
        assert len(set(given)) == min(len(given), sentences[chunk_id])


def test_a_written_unanswerable_question_has_no_ground_truth_and_checks_count_questions() -> None:
    asked = WritingInput(kind="unanswerable", guidance="g", focus="f", chunks=["c"])
    reply = WrittenCase(question="Is there a loyalty programme?", ground_truth="Yes.")
    assert QuestionWriting().check(asked, reply) == [
        "an unanswerable question has null as its ground truth"
    ]
    single = asked.model_copy(update={"kind": "single"})
    assert QuestionWriting().check(single, reply.model_copy(update={"ground_truth": " "})) == [
        "the ground truth is empty"
    ]
    check = GeneratedCheckInput(questions=["a?", "b?"], ground_truths=["a", "b"], chunks=["c"])
    one = GeneratedVerdicts(
        questions=[GeneratedVerdict(index=0, answerable=True, supported=True, reason="r")]
    )
    assert GeneratedCheck().check(check, one) == [
        "expected one verdict for each of 2 questions, got indexes [0]"
    ]
    assert set(GeneratedCheck().untrusted(check)) == {"questions", "ground_truths", "chunks"}
    assert set(QuestionWriting().untrusted(single)) == {"focus", "chunks"}
