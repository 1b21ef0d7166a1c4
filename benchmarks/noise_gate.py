"""How often the regression gate fires when nothing changed, and when something did.

A seeded noisy judge scores the same 100 cases twice: each case has four statements, some of
them truly supported, and the judge flips each statement's verdict with probability ``q``
(0.1 to 0.2: a judge that disagrees with itself one time in five to ten). A case's
faithfulness is the share of its statements judged supported, as the metric computes it.

* **A/A**: the same system twice, 200 pairs of runs. How often does ``--rag-fail-on-regression``
  fire (the plugin's own test, :func:`rag_eval_pytest.reporting.statistics.paired_change`,
  at alpha 0.05 and a least drop of 0.05)? And how often did the mean-comparison trend flag a
  "regression" (a mean that dropped by more than its 0.05 tolerance)?
* **A planted drop**: the second run's system lost one supported statement in enough cases
  that the measured faithfulness drops by 0.10 on average (a judge that flips verdicts hides
  part of a true drop: 0.4 / (1 - 2q) of the cases). How often is it caught?

* **Adaptive votes** (``judge.passes: auto``): the same noisy judge asked as the plugin asks
  it: one vote per case, and a majority of 3 (the first vote kept) only for a case whose
  score is within 0.2 (``judge.vote_margin``) of the threshold 0.7, its third vote asked only
  when it can change the pass or fail; against 3 votes for every case (a majority that stops
  when the first two agree). Requests per case, and how
  often the two give the same pass or fail.

Then a few pairs end to end: two real ``pytest`` runs over a recorded dataset with the noisy
judge as a ``rag_judge`` fixture, ``--rag-fail-on-regression``, to show that the plugin's runs
give what the statistics give.

    python benchmarks/noise_gate.py [--pairs 200] [--cases 100] [--end-to-end 10]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from rag_eval_pytest.judges.settings import JudgeSettings
from rag_eval_pytest.reporting.statistics import paired_change, seed_of

STATEMENTS = 4
ALPHA, MIN_DROP, TOLERANCE = 0.05, 0.05, 0.05
VOTE_MARGIN = JudgeSettings().vote_margin


def truth(cases: int, seed: int) -> list[int]:
    """How many of each case's statements are truly supported."""
    rng = random.Random(seed)
    return [rng.choice([2, 3, 4, 4, 4]) for _ in range(cases)]


def judged(supported: list[int], flip: float, rng: random.Random) -> dict[str, float]:
    """One run of the noisy judge: each statement's verdict flips with probability ``flip``."""
    scores = {}
    for i, count in enumerate(supported):
        said = sum((s < count) != (rng.random() < flip) for s in range(STATEMENTS))
        scores[f"c{i:03d}"] = said / STATEMENTS
    return scores


def dropped(supported: list[int], rng: random.Random, flip: float) -> list[int]:
    """The system after a change: enough cases lose one supported statement that the
    measured mean drops by 0.10 (the judge's flips hide a share 2q of a true drop)."""
    share = min(1.0, 0.4 / (1 - 2 * flip))
    return [max(0, c - 1) if rng.random() < share else c for c in supported]


def rates(pairs: int, cases: int, flip: float) -> dict[str, float]:
    rng = random.Random(seed_of("noise-gate", pairs, cases, flip))
    aa_gate = aa_trend = caught = caught_trend = 0
    for pair in range(pairs):
        base = truth(cases, pair)
        before, after = judged(base, flip, rng), judged(base, flip, rng)
        change = paired_change(before, after, seed_of(pair, "aa"))
        assert change is not None
        aa_gate += change.is_regression(ALPHA, MIN_DROP)
        aa_trend += change.before - change.after > TOLERANCE
        worse = judged(dropped(base, rng, flip), flip, rng)
        change = paired_change(before, worse, seed_of(pair, "drop"))
        assert change is not None
        caught += change.is_regression(ALPHA, MIN_DROP)
        caught_trend += change.before - change.after > TOLERANCE
    return {
        "aa_gate": aa_gate / pairs,
        "aa_trend": aa_trend / pairs,
        "drop_gate": caught / pairs,
        "drop_trend": caught_trend / pairs,
    }


def majority(votes: list[list[bool]]) -> float:
    """Faithfulness from votes per statement: each statement's majority verdict."""
    kept = [sum(v[s] for v in votes) * 2 > len(votes) for s in range(STATEMENTS)]
    return sum(kept) / STATEMENTS


def settled(one: list[bool], two: list[bool]) -> bool:
    """Whether a third vote could not change the pass or fail at 0.7: the statements the
    two votes agree on decide it whichever way the others go (the plugin's rule)."""
    agreed = sum(a for a, b in zip(one, two, strict=True) if a == b)
    split = sum(a != b for a, b in zip(one, two, strict=True))
    return len({(agreed + k) / STATEMENTS >= 0.7 for k in range(split + 1)}) == 1


def vote_costs(cases: int, flip: float, seed: int) -> dict[str, float]:
    """Requests per case and the share of cases whose pass or fail agrees, adaptive votes
    against a fixed majority of 3, on the same votes."""
    rng = random.Random(seed_of("votes", cases, flip, seed))
    auto_requests = fixed_requests = agree = 0
    for count in truth(cases, seed):
        # Three votes the judge would give; each a verdict per statement.
        votes = [
            [(s < count) != (rng.random() < flip) for s in range(STATEMENTS)] for _ in range(3)
        ]
        # Fixed 3: the first two, and the third only when they differ.
        fixed = votes[:2] if votes[0] == votes[1] else votes
        fixed_requests += len(fixed)
        # Auto: one vote; near the threshold, a majority of 3 with the first vote kept, whose
        # third vote is asked only when it can change the pass or fail.
        first = majority(votes[:1])
        auto = votes[:1]
        if abs(first - 0.7) <= VOTE_MARGIN + 1e-9:
            auto = votes[:2] if settled(votes[0], votes[1]) else votes
        auto_requests += len(auto)
        agree += (majority(auto) >= 0.7) == (majority(fixed) >= 0.7)
    return {
        "auto": auto_requests / cases,
        "fixed": fixed_requests / cases,
        "agree": agree / cases,
    }


STOP_RULES = (
    "one vote",
    "two votes, a third when it can change",
    "two votes, supported if both say so",
    "two votes, supported if either says so",
)


def policy_floor(cases: int, flip: float, seeds: int) -> tuple[float, float, str]:
    """The fewest requests per case, as a share of fixed 3's, of every rule that chooses from
    the first vote's score how far to go (one of :data:`STOP_RULES` per score), among the
    rules whose pass or fail agrees with fixed 3's on at least 97 % of the cases, on the same
    votes as :func:`vote_costs`: (share, agreement, the rule per score)."""
    cost: dict[tuple[int, str], int] = {}
    agree: dict[tuple[int, str], int] = {}
    fixed_requests = total = 0
    for seed in range(seeds):
        rng = random.Random(seed_of("votes", cases, flip, seed))
        for count in truth(cases, seed):
            votes = [
                [(s < count) != (rng.random() < flip) for s in range(STATEMENTS)] for _ in range(3)
            ]
            fixed = votes[:2] if votes[0] == votes[1] else votes
            fixed_requests += len(fixed)
            total += 1
            reference = majority(fixed) >= 0.7
            first = sum(votes[0])
            both = votes[:2] if settled(votes[0], votes[1]) else votes
            pairs = list(zip(votes[0], votes[1], strict=True))
            outcomes = (
                (1, first / STATEMENTS >= 0.7),
                (len(both), majority(both) >= 0.7),
                (2, sum(a and b for a, b in pairs) / STATEMENTS >= 0.7),
                (2, sum(a or b for a, b in pairs) / STATEMENTS >= 0.7),
            )
            for rule, (requests, passed) in zip(STOP_RULES, outcomes, strict=True):
                cost[first, rule] = cost.get((first, rule), 0) + requests
                agree[first, rule] = agree.get((first, rule), 0) + (passed == reference)
    scores = sorted({score for score, _ in cost})
    best: tuple[float, float, str] | None = None
    for rules in itertools.product(STOP_RULES, repeat=len(scores)):
        keys = list(zip(scores, rules, strict=True))
        share = sum(cost.get(k, 0) for k in keys) / fixed_requests
        agreed = sum(agree.get(k, 0) for k in keys) / total
        if agreed >= 0.97 and (best is None or share < best[0]):
            named = "; ".join(f"{s}/{STATEMENTS}: {r}" for s, r in keys)
            best = (share, agreed, named)
    assert best is not None  # two votes and a third everywhere agree on every case
    return best


CONFTEST = """
import json, os, random, pytest
from rag_eval_pytest.judges.callable import CallableJudge

def judge(prompt):
    # Four statements per answer; the first SUPPORTED of them truly supported (in the answer's
    # text), each verdict flipped with probability FLIP, seeded by the run and the prompt.
    answer = prompt.split('section="ANSWER"', 1)[1].split("</data", 1)[0]
    supported = int(answer.split("[", 1)[1].split("]", 1)[0])
    rng = random.Random(f"{os.environ['RUN_SEED']}:{answer}")
    flip = float(os.environ["FLIP"])
    verdicts = [
        {"statement": f"s{i}", "reason": "r",
         "verdict": "supported" if (i < supported) != (rng.random() < flip) else "unsupported"}
        for i in range(4)
    ]
    return json.dumps({"statements": verdicts})

@pytest.fixture(scope="session")
def rag_judge():
    return CallableJudge(judge, model="noisy")
"""
TESTS = """
from rag_eval_pytest import evaluate

def test_faithfulness(rag_case):
    evaluate(rag_case, "faithfulness")
"""


def end_to_end(pairs: int, cases: int, flip: float) -> tuple[int, int]:
    """Pairs of real runs: (A/A pairs the gate failed, planted drops it caught)."""
    fired = caught = 0
    for pair in range(pairs):
        rng = random.Random(seed_of("end-to-end", pair))
        base = truth(cases, 1000 + pair)
        worse = dropped(base, rng, flip)
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "conftest.py").write_text(CONFTEST)
            (root / "test_rag.py").write_text(TESTS)
            codes = []
            for run, system in enumerate((base, base, worse)):
                dataset = {
                    "test_cases": [
                        {"id": f"c{i:03d}", "question": f"Question {i}?",
                         "answer": f"Answer [{count}] {run if run == 2 else 0}.",
                         "contexts": ["ctx"]}
                        for i, count in enumerate(system)
                    ]
                }  # fmt: skip
                (root / "dataset.json").write_text(json.dumps(dataset))
                env = {**os.environ, "RUN_SEED": f"{pair}:{run}", "FLIP": str(flip)}
                # The third run is compared with the first (--rag-baseline PATH), not the second.
                baseline = ["--rag-baseline", str(root / "first.json")] if run == 2 else []
                proc = subprocess.run(
                    [sys.executable, "-m", "pytest", "--rag-dataset", "dataset.json",
                     "--rag-no-cache", "--rag-fail-on-regression", "-p", "no:randomly", "-q",
                     *baseline],
                    cwd=root, env=env, capture_output=True, text=True, check=False,
                )  # fmt: skip
                codes.append(proc.returncode)
                if run == 0:
                    report = root / "results" / "eval_report.json"
                    (root / "first.json").write_text(report.read_text())
            fired += codes[1] == 1
            caught += codes[2] == 1
    return fired, caught


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--end-to-end", type=int, default=10, help="pairs of real runs")
    options = parser.parse_args()
    print(
        f"{options.cases} cases, {STATEMENTS} statements each, {options.pairs} pairs of runs "
        f"per row; alpha {ALPHA}, least drop {MIN_DROP}; the mean-comparison trend's tolerance "
        f"{TOLERANCE}\n"
    )
    print(
        "| cases, judge flips a verdict | A/A: gate fires | A/A: trend flagged | planted drop of "
        "0.10: gate catches | planted drop: trend flagged |"
    )
    print("|---|---|---|---|---|")
    for cases in sorted({30, options.cases}):
        for flip in (0.1, 0.15, 0.2):
            r = rates(options.pairs, cases, flip)
            print(
                f"| {cases} cases, {flip:.0%} | {r['aa_gate']:.1%} | {r['aa_trend']:.1%} "
                f"| {r['drop_gate']:.1%} | {r['drop_trend']:.1%} |"
            )
    print(
        "\n| cases, judge flips a verdict | requests per case, passes: auto | fixed 3 "
        "| auto / fixed | same pass or fail |"
    )
    print("|---|---|---|---|---|")
    for flip in (0.1, 0.15, 0.2):
        runs = [vote_costs(options.cases, flip, seed) for seed in range(options.pairs)]
        auto = sum(r["auto"] for r in runs) / len(runs)
        fixed = sum(r["fixed"] for r in runs) / len(runs)
        agree = sum(r["agree"] for r in runs) / len(runs)
        print(
            f"| {options.cases} cases, {flip:.0%} | {auto:.2f} | {fixed:.2f} "
            f"| {auto / fixed:.0%} | {agree:.1%} |"
        )
    print(
        "\n| cases, judge flips a verdict | the cheapest rule by first score, agreeing on 97 % "
        "| its requests / fixed 3's | its agreement |"
    )
    print("|---|---|---|---|")
    for flip in (0.1, 0.15, 0.2):
        share, agreed, rules = policy_floor(options.cases, flip, options.pairs)
        print(f"| {options.cases} cases, {flip:.0%} | {rules} | {share:.0%} | {agreed:.1%} |")
    if options.end_to_end:
        fired, caught = end_to_end(options.end_to_end, options.cases, 0.15)
        print(
            f"\nend to end, {options.end_to_end} pairs of pytest runs (judge flips 15 %): the "
            f"gate failed {fired} A/A runs and caught {caught} planted drops"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
