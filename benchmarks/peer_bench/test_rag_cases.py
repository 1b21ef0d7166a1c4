"""The peer bench's four judgements, one test per dataset line, with rag-eval-pytest.

Run by ``run.sh`` through the peer bench's ``peer_command.py`` (which points the Anthropic
SDK at its fake judge and sets ``BENCH_DATASET``)::

    pytest -q --rag-dataset "$BENCH_DATASET" --rag-judge anthropic --rag-judge-passes 1 \\
        --rag-no-cache test_rag_cases.py

The plugin reads the JSON lines itself (question, contexts, answer, ground truth: a
pre-recorded output, so no RAG system is called) and gives each line as ``rag_case``. A test
fails when a metric scores below its default threshold (a judged result, not an error).
"""

from __future__ import annotations

from rag_eval_pytest import evaluate

METRICS = ("faithfulness", "answer_relevance", "context_precision", "context_recall")


def test_rag_case(rag_case):
    results = [evaluate(rag_case, metric) for metric in METRICS]
    below = [f"{r.metric} {r.score} < {r.threshold}" for r in results if r.status == "failed"]
    unjudged = [f"{r.metric}: {r.reason}" for r in results if not r.judged]
    assert not unjudged, unjudged
    assert not below, below
