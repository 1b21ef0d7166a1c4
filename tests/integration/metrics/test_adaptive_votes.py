"""judge.passes: auto through real pytest runs: one vote per question, and more only for a
verdict whose score is near its threshold, where they can change it; the first vote is kept;
the report gives how many verdicts were asked again and how often their votes differed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests import word_judge
from tests.helpers import case, read_report

CONTEXT = "Refunds are available within 30 days of purchase."
CASES = [
    # Far from the threshold 0.7 (1.00, 0.3 above): one vote.
    case("far", "Refund policy?", answer=CONTEXT, contexts=[CONTEXT]),
    # Two of three statements supported: 0.67, within 0.2 of 0.7: asked again.
    case(
        "near",
        "Refund policy?",
        answer=f"{CONTEXT} Refunds are available within 30 days of purchase for members. "
        "Shipping is free to Mars.",
        contexts=[CONTEXT],
    ),
]
CONFTEST = """
import pytest
from rag_eval_pytest.judges.callable import CallableJudge
from tests.word_judge import word_judge

@pytest.fixture(scope="session")
def rag_judge():
    return CallableJudge(word_judge, model="words")
"""
TESTS = """
from rag_eval_pytest import evaluate

def test_faithful(rag_case):
    evaluate(rag_case, "faithfulness", threshold=0.7)
"""


@pytest.fixture
def project(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> pytest.Pytester:
    write_dataset(CASES)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_rag=TESTS)
    return pytester


@pytest.mark.parametrize(("passes", "far", "near"), [("auto", 1, 2), ("3", 2, 2)])
def test_only_a_verdict_near_its_threshold_gets_more_votes(
    project: pytest.Pytester, passes: str, far: int, near: int
) -> None:
    word_judge.calls.clear()
    result = project.runpytest(
        "--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly",
        f"--rag-judge-passes={passes}",
    )  # fmt: skip
    result.assert_outcomes(passed=2)
    requests = {
        "far": sum(
            "standalone statements" in p and word_judge.sections(p)["ANSWER"] == CONTEXT
            for p in word_judge.calls
        ),
        "near": sum(
            "standalone statements" in p and "Mars" in word_judge.sections(p)["ANSWER"]
            for p in word_judge.calls
        ),
    }
    # auto: 1 for the far case; the near one's first vote is kept and the second agrees (a
    # majority of 3). Fixed 3: the first two votes for both.
    assert requests == {"far": far, "near": near}
    report = read_report(project)
    cases = {c["id"]: c["metrics"]["faithfulness"] for c in report["cases"]}
    assert round(cases["near"]["score"], 2) == 0.67
    if passes == "auto":
        assert cases["near"]["details"]["votes"] == 3
        assert "votes" not in cases["far"]["details"]
        assert report["summary"]["metrics"]["faithfulness"]["votes"] == {
            "revoted": 1, "disagreed": 0
        }  # fmt: skip
        assert report["summary"]["usage"]["judge_calls"] == 3  # what the judge was asked
        result.stdout.fnmatch_lines(
            ["votes: Faithfulness: 1 verdict near the threshold asked again with more votes; "
             "the votes differed on 0 (0%)"]
        )  # fmt: skip


SPLIT_JUDGE = """
import json, pytest
from collections import Counter
from rag_eval_pytest.judges.callable import CallableJudge

S, N = "supported", "not mentioned"
# Each answer's votes in turn: the first puts it at 3 of 4 statements (0.75, near 0.7).
VOTES = {
    "settled": [[S, S, S, N], [S, S, S, S], [S, S, S, N]],  # 0.75 or 1.0: a pass either way
    "open": [[S, S, S, N], [N, S, S, N], [N, S, S, N]],  # 0.5 or 0.75: the third decides
}
ASKED = Counter()

def judge(prompt):
    answer = prompt.split('section="ANSWER"', 1)[1].split("</data", 1)[0]
    name = "settled" if "settled" in answer else "open"
    verdicts = VOTES[name][ASKED[name]]
    ASKED[name] += 1
    return json.dumps({"statements": [
        {"statement": f"{name} {i}", "verdict": v, "reason": "r"} for i, v in enumerate(verdicts)
    ]})

@pytest.fixture(scope="session")
def rag_judge():
    yield CallableJudge(judge, model="split")
    print("ASKED", dict(sorted(ASKED.items())))
"""


def test_a_vote_that_cannot_change_the_verdict_is_not_asked(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [
            case(name, "Refund policy?", answer=f"The {name} answer.", contexts=[CONTEXT])
            for name in ("settled", "open")
        ]
    )
    pytester.makeconftest(SPLIT_JUDGE)
    pytester.makepyfile(test_rag=TESTS)
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly", "-s",
        "--rag-judge-passes=auto",
    )  # fmt: skip
    # The split on 'settled' (3 or 4 of 4 supported) passes at 0.7 either way: no third vote.
    # The split on 'open' (2 or 3 of 4) is decided by the third.
    result.stdout.fnmatch_lines(["*ASKED {'open': 3, 'settled': 2}"])
    cases = {c["id"]: c["metrics"]["faithfulness"] for c in read_report(pytester)["cases"]}
    assert cases["settled"]["status"] == "passed"
    assert any("could not change the verdict" in w for w in cases["settled"]["warnings"])
    assert (cases["open"]["status"], cases["open"]["score"]) == ("failed", 0.5)
