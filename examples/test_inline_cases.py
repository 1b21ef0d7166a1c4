"""The inline style on the demo app: each test asks the app itself and builds its case in code
(``make_case``), as DeepEval and RAGAS tests do. No dataset is needed: ``pytest
test_inline_cases.py`` runs these alone and writes the reports, with each case under its
test's node id; in ``make demo`` they join the dataset's cases in the same reports.
"""

from __future__ import annotations

from demo_rag import answer

from rag_eval_pytest import assert_rag, make_case


def test_password_reset_answer_is_grounded_and_on_topic() -> None:
    question = "How do I reset my password?"
    response = answer(question)  # the app under test: {"answer": ..., "contexts": [...]}
    case = make_case(
        question=question,
        answer=response["answer"],
        contexts=response["contexts"],
        expected_contexts=["accounts.md"],
        tags=["account"],
    )
    assert_rag(case, faithfulness=0.8, answer_relevance=0.5, retrieval_recall=1.0)


def test_vacation_answer_states_the_days_in_the_policy() -> None:
    question = "How many days of paid vacation do full-time staff get?"
    response = answer(question)  # the app under test: {"answer": ..., "contexts": [...]}
    case = make_case(
        question=question,
        answer=response["answer"],
        contexts=response["contexts"],
        ground_truth="Full-time employees receive 20 days of paid time off per year.",
        tags=["hr"],
    )
    assert_rag(case, faithfulness=0.8, answer_correctness=0.7)
