"""The unsupported words marked, through a real run: a recorded answer with a planted
unsupported sentence reaches the JSON report as offsets, the Markdown report in bold and the
failure message between ``>>>`` and ``<<<``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests import word_judge  # imported before the inner run, which shares it
from tests.helpers import case, read_report

PLANTED = "Shipping is **free** | to Mars."
ANSWER = f"Refunds are available within 30 days of purchase. {PLANTED}"
CONTEXT = "Refunds are available within 30 days of purchase."


def test_the_planted_sentence_is_marked_in_every_output(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [
            case(
                "refund",
                "What is the refund policy?",
                "30 days.",
                answer=ANSWER,
                contexts=[{"text": CONTEXT, "source": "policy.md"}],
            )
        ]
    )
    pytester.makeconftest(word_judge.CONFTEST)
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_faithful
def test_faithful(rag_case):
    assert_faithful(rag_case, threshold=0.9)
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-judge-passes", "1")
    assert result.ret == 1, result.stdout.str()

    evidence = read_report(pytester)["cases"][0]["metrics"]["faithfulness"]["evidence"]
    planted = next(e for e in evidence if e["verdict"] == "unsupported")
    assert ANSWER[planted["start"] : planted["end"]] == PLANTED
    supported = next(e for e in evidence if e["verdict"] == "supported")
    assert supported["start"] is None and supported["end"] is None

    markdown = (pytester.path / "results" / "eval_report.md").read_text(encoding="utf-8")
    assert (
        '**Unsupported in the Answer:** "Refunds are available within 30 days of purchase. '
        '**Shipping is \\*\\*free\\*\\* \\| to Mars.**"'
    ) in markdown
    assert "Legend: **bold** = statements the judge found unsupported or contradicted." in markdown

    result.stdout.fnmatch_lines(
        [
            "*answer (>>> <<<: statements the judge found unsupported or contradicted):",
            f"*Refunds are available within 30 days of purchase. >>>{PLANTED}<<<",
        ]
    )


def test_an_answer_that_holds_a_secret_is_masked_in_the_failure_message(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secret = "sk-proj-Zq8vN3kLw5Rt7Yp2Hx9Bc4Mf"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    leaked = f"Your voucher code is {secret} for free shipping."
    write_dataset(
        [
            case(
                "refund",
                "What is the refund policy?",
                "30 days.",
                answer=f"{CONTEXT} {leaked}",
                contexts=[{"text": CONTEXT, "source": "policy.md"}],
            )
        ]
    )
    pytester.makeconftest(word_judge.CONFTEST)
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_faithful
def test_faithful(rag_case):
    assert_faithful(rag_case, threshold=0.9)
"""
    )
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-judge-passes", "1", "--junitxml=junit.xml"
    )
    assert result.ret == 1, result.stdout.str()
    output = result.stdout.str() + (pytester.path / "junit.xml").read_text(encoding="utf-8")
    assert "voucher code is" in output  # the answer is shown,
    assert secret not in output  # its secret masked
    assert "answer (masked, so not marked):" in output
