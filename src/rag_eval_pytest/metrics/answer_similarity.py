"""Answer similarity: cosine similarity of the embeddings of answer and ground truth.

No judge call: the embeddings come from the judge when it has them (the offline judge), else
from the offline embedding model (the ``local`` extra). Default threshold 0.85.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from .base import Measurement, Metric, Requirement
from .judged import cosine

if TYPE_CHECKING:
    from .base import Sample, Services


class AnswerSimilarity(Metric):
    name = "answer_similarity"
    companion = "answer_correctness"
    default_threshold = 0.85
    requires: ClassVar[frozenset[Requirement]] = frozenset({"ground_truth", "embeddings"})
    summary = "embedding cosine of answer and ground truth"
    failure_cause = "incorrect_answer"

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        assert services.embed is not None
        if not sample.answer.strip():
            return Measurement(score=0.0, reason="the answer is empty")
        answer, truth = await services.embed([sample.answer, sample.ground_truth])
        score = cosine(answer, truth)
        return Measurement(score=score, reason=f"cosine similarity to the ground truth {score:.2f}")
