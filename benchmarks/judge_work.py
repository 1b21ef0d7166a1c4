"""Judge work per case: requests and tokens of the four default metrics, beside DeepEval and RAGAS.

Writes N deterministic RAG cases (question, 3 retrieved contexts, a pre-recorded answer, a
ground truth; the shape and sizes of the peer bench's cases), starts the project's fake judge
(``fake_judge_server.py``: Anthropic Messages API on 127.0.0.1, answers like a competent
judge, counts requests and ceil(chars/4) tokens the way the peer bench does), and runs, as a
user would, in a temporary directory::

    python -m pytest --rag-dataset cases.json --rag-judge anthropic --rag-judge-passes 1 \\
        --rag-no-cache -p no:randomly -q

(zero-code mode: one test per case with the default metrics: faithfulness, answer relevance,
context precision, context recall; the retrieval metrics are not judged without expected
contexts). Then prints requests, input and output tokens per case, per question (metric step),
re-asks, the wall time, and the peer numbers measured by ``../shared/peer-bench`` on cases of
the same shape. Exits 1 when more than ``--max-requests-per-case`` (4) requests per case are
made, or when the plugin re-asks or repeats a request.

    python benchmarks/judge_work.py [--cases 30] [--latency-ms 0] [--slots 8]
    python benchmarks/judge_work.py --peer-dataset ../shared/peer-bench   # their 30 cases
    python benchmarks/judge_work.py --peer-dataset ../shared/peer-bench --turns 3

``--turns K`` makes the same cases conversations of K turns (cases 1 to K the turns of the
first, and so on, each turn with its recorded answer, contexts and ground truth): the work
per turn, with each judge question reading the turn's question after the user's earlier ones,
set beside the work per single case of the same cases.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fake_judge_server import make_server

# The peers, from ../shared/peer-bench/RESULTS.md (2026-11-22, N=30, latency 300 ms, 8 slots,
# the same ceil(chars/4) estimate with schemas and tool definitions counted as input).
PEERS = [
    {"tool": "deepeval 4.3.1", "requests": 11.00, "input": 4941, "output": 166, "wall": 27.1},
    {"tool": "ragas 0.4.3", "requests": 6.60, "input": 5653, "output": 177, "wall": 8.0},
]
PEER_SOURCE = "../shared/peer-bench/RESULTS.md (2026-11-22, 30 cases, 2-3 contexts each)"

# Which metric asks which question (src/rag_eval_pytest/judges/questions.py).
QUESTION_METRIC = {
    "statement_support": "faithfulness",
    "generated_questions": "answer_relevance",
    "answer_addresses_question": "answer_relevance",
    "context_usefulness": "context_precision",
    "ground_truth_attribution": "context_recall",
    "context_sentence_relevance": "context_relevance",
    "answer_equivalence": "answer_correctness",
}
DEFAULT_METRICS = ("faithfulness", "answer_relevance", "context_precision", "context_recall")


def metric_of(question: str) -> str:
    """The metric that asks a question, or those whose questions a bundle carries together
    (``bundle:statement_support+context_usefulness``: one request, several metrics)."""
    names = question.removeprefix("bundle:").split("+")
    return " + ".join(QUESTION_METRIC.get(name, "?") for name in names)


COMPANY = "Nordvik Freight"
SITES = [
    "Bremen",
    "Gdynia",
    "Rouen",
    "Antwerp",
    "Malaga",
    "Trieste",
    "Aarhus",
    "Kotka",
    "Tilburg",
    "Genoa",
    "Bilbao",
    "Varna",
    "Rijeka",
    "Narvik",
    "Constanta",
    "Kiel",
]
TEAMS = ["dispatch", "customs", "fleet", "billing", "yard", "claims"]
# (fact, question, answer, ground truth, unsupported extra claim, values)
TOPICS = [
    (
        "Drivers of the {m} must take a rest break of {v} minutes after four and a half hours "
        "of driving, logged on the tachograph card.",
        "How long is the rest break for drivers of the {m} after four and a half hours of driving?",
        "Drivers of the {m} take a {v} minute rest break after four and a half hours of driving. "
        "The break is logged on the tachograph card.",
        "Drivers of the {m} must take a {v} minute break after four and a half hours at the "
        "wheel. It is recorded on the tachograph card.",
        "Breaks can be skipped on routes shorter than 300 kilometres.",
        [30, 45, 50, 60],
    ),
    (
        "Damage claims handled by the {m} are settled within {v} working days once the surveyor's "
        "report and the delivery note are on file.",
        "Within how many working days does the {m} settle damage claims?",
        "The {m} settles damage claims within {v} working days. The surveyor's report and the "
        "delivery note must be on file first.",
        "Damage claims at the {m} are settled within {v} working days. They need the surveyor's "
        "report and the delivery note.",
        "Claims under 500 euros are paid the same day.",
        [5, 10, 15, 20],
    ),
    (
        "Invoices issued by the {m} are payable within {v} days, and late payments carry "
        "interest at the statutory rate.",
        "What is the payment term on invoices issued by the {m}?",
        "Invoices from the {m} are payable within {v} days. Late payments carry interest at the "
        "statutory rate.",
        "The {m} invoices are due within {v} days. Interest at the statutory rate applies to "
        "late payments.",
        "Customers who pay early get a two percent discount.",
        [14, 30, 45, 60],
    ),
    (
        "Trailers used by the {m} are inspected every {v} weeks, and any trailer that fails "
        "inspection is taken off the road until it is repaired.",
        "How often are the trailers used by the {m} inspected?",
        "Trailers of the {m} are inspected every {v} weeks. A trailer that fails is taken off the "
        "road until repaired.",
        "The {m} inspects its trailers every {v} weeks. Failed trailers stay off the road until "
        "they are repaired.",
        "Inspections are done by the drivers themselves.",
        [4, 6, 8, 12],
    ),
    (
        "Containers stored in the {m} area are free of charge for {v} days, after which a daily "
        "storage fee of 35 euros applies.",
        "For how many days is container storage free in the {m} area?",
        "Container storage in the {m} area is free for {v} days. After that a daily fee of 35 "
        "euros applies.",
        "Storage in the {m} area costs nothing for {v} days. Then a 35 euro daily fee is charged.",
        "Empty containers are always stored for free.",
        [3, 5, 7, 10],
    ),
    (
        "Customs declarations prepared by the {m} are filed at least {v} hours before the "
        "vessel's arrival, as the port authority requires.",
        "How many hours before arrival does the {m} file customs declarations?",
        "The {m} files customs declarations at least {v} hours before the vessel arrives. The "
        "port authority requires this.",
        "Customs declarations from the {m} are filed {v} hours or more before arrival. This is a "
        "port authority rule.",
        "Late declarations are accepted without penalty.",
        [12, 24, 48, 72],
    ),
]
SUPPORT = [
    f"Every {COMPANY} depot keeps its operating manual in the shared drive.",
    f"{COMPANY} reviews its depot procedures with the works council each spring.",
    f"Questions about {COMPANY} procedures go to the operations helpdesk.",
    f"{COMPANY} trains new staff on safety rules in their first week.",
    f"The {COMPANY} quality team audits two depots every quarter.",
    f"Drivers and depot staff at {COMPANY} wear high-visibility vests on site.",
]


def make_cases(n: int, seed: int = 20261122) -> list[dict[str, Any]]:
    """N cases: one context with the fact, two company-wide ones; a third of the answers
    carry a wrong value and a third an unsupported extra claim (a real judge would not
    score them all 1.0)."""
    rng = random.Random(seed)
    combos = [(site, team) for site in SITES for team in TEAMS]
    rng.shuffle(combos)
    if n > len(combos):
        raise SystemExit(f"at most {len(combos)} cases")
    cases = []
    for i in range(n):
        site, team = combos[i]
        marker = f"{site} {team} team"
        fact, question, answer, truth, extra, values = TOPICS[i % len(TOPICS)]
        value = rng.choice(values)
        kind = ("correct", "wrong_value", "extra_claim")[i % 3]
        said = rng.choice([v for v in values if v != value]) if kind == "wrong_value" else value
        contexts = [fact.format(m=marker, v=value), *rng.sample(SUPPORT, 2)]
        if rng.random() < 0.3:
            contexts.reverse()  # the useful context is not always ranked first
        cases.append(
            {
                "id": f"case-{i + 1:03d}",
                "question": question.format(m=marker),
                "contexts": contexts,
                "answer": answer.format(m=marker, v=said)
                + (f" {extra}" if kind == "extra_claim" else ""),
                "ground_truth": truth.format(m=marker, v=value),
            }
        )
    return cases


def peer_cases(peer_bench: Path, n: int) -> list[dict[str, Any]]:
    """The peer bench's own cases (its make_dataset.py, default seed): the very same inputs."""
    out = subprocess.run(
        [sys.executable, str(peer_bench / "make_dataset.py"), "--n", str(n)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    keys = ("id", "question", "contexts", "answer", "ground_truth")
    return [{k: row[k] for k in keys} for row in map(json.loads, out.splitlines()) if row]


def as_conversations(cases: list[dict[str, Any]], turns: int) -> list[dict[str, Any]]:
    """The cases as conversations of ``turns`` turns each (the last may be shorter)."""
    fields = ("question", "contexts", "answer", "ground_truth")
    return [
        {
            "id": f"conversation-{start // turns + 1:03d}",
            "turns": [{k: case[k] for k in fields} for case in cases[start : start + turns]],
        }
        for start in range(0, len(cases), turns)
    ]


def fetch(url: str, method: str = "GET") -> dict[str, Any]:
    request = urllib.request.Request(url, data=b"{}" if method == "POST" else None, method=method)
    with urllib.request.urlopen(request, timeout=10) as response:
        result: dict[str, Any] = json.loads(response.read())
        return result


def run(cases: list[dict[str, Any]], options: argparse.Namespace) -> dict[str, Any]:
    server, _ = make_server(
        0, options.latency_ms / 1000, options.slots, array_len=options.array_len
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            dataset = {"metadata": {"name": "judge-work", "version": "1"}, "test_cases": cases}
            (root / "cases.json").write_text(json.dumps(dataset, indent=1))
            env = {
                **os.environ,
                "ANTHROPIC_BASE_URL": url,
                "ANTHROPIC_API_KEY": "sk-fake-judge-work",
            }
            command = [
                sys.executable,
                "-m",
                "pytest",
                "--rag-dataset",
                "cases.json",
                "--rag-judge",
                options.judge,
                "--rag-judge-passes",
                "1",
                "--rag-no-cache",
                "-p",
                "no:randomly",
                "-q",
            ]
            fetch(f"{url}/reset", "POST")
            started = time.perf_counter()
            proc = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
            wall = time.perf_counter() - started
            # 0: all passed; 1: some cases below their thresholds (results, not errors).
            if proc.returncode not in (0, 1):
                sys.exit(
                    f"pytest exited {proc.returncode}:\n"
                    f"{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
                )
            report = json.loads((root / "results" / "eval_report.json").read_text())
        stats = fetch(f"{url}/stats")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    return {"stats": stats, "report": report, "wall_s": wall, "pytest_tail": proc.stdout[-300:]}


def per_metric(report: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Judge calls and tokens the plugin itself recorded, per metric (report ``cases``)."""
    totals: dict[str, dict[str, float]] = {}
    for case in report.get("cases", []):
        for name, result in (case.get("metrics") or {}).items():
            usage = (result.get("usage") if isinstance(result, dict) else None) or {}
            row = totals.setdefault(name, {})
            for key in ("judge_calls", "input_tokens", "output_tokens"):
                row[key] = row.get(key, 0) + usage.get(key, 0)
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--slots", type=int, default=8)
    parser.add_argument("--array-len", type=int, default=2, help="items in the fake's arrays")
    parser.add_argument(
        "--peer-dataset",
        type=Path,
        default=None,
        metavar="PEER_BENCH_DIR",
        help="use the peer bench's own cases (its make_dataset.py) instead of ours",
    )
    parser.add_argument(
        "--judge",
        choices=("anthropic", "cascade"),
        default="anthropic",
        help="cascade: the local judge first, the fake Anthropic judge only for what it is "
        "unsure of (compare its requests per case with anthropic's)",
    )
    parser.add_argument(
        "--turns",
        type=int,
        default=1,
        help="group the cases into conversations of this many turns (per-turn work)",
    )
    parser.add_argument("--max-requests-per-case", type=float, default=4.0)
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    options = parser.parse_args()

    if options.peer_dataset is not None:
        cases = peer_cases(options.peer_dataset, options.cases)
        source = f"the peer bench's make_dataset.py ({options.peer_dataset})"
    else:
        cases = make_cases(options.cases)
        source = "make_cases() in this script"
    n = len(cases)  # per case, or per turn of a conversation: the same questions are asked
    contexts = sum(len(c["contexts"]) for c in cases) / n
    if options.turns > 1:
        source += f", as {len(as_conversations(cases, options.turns))} conversations of "
        source += f"{options.turns} turns (figures per turn)"
    result = run(as_conversations(cases, options.turns) if options.turns > 1 else cases, options)
    stats, report = result["stats"], result["report"]
    usage = report["summary"]["usage"]

    print(
        f"{n} cases from {source}, {contexts:.1f} contexts per case; fake judge: "
        f"{options.latency_ms:.0f} ms, {options.slots} slots, arrays of {options.array_len}"
    )
    print(
        f"command: pytest --rag-dataset cases.json --rag-judge {options.judge} "
        "--rag-judge-passes 1 --rag-no-cache -p no:randomly -q"
    )
    print(f"pytest: {result['pytest_tail'].strip().splitlines()[-1]}")
    print()
    unit = "turn" if options.turns > 1 else "case"
    print(
        f"| question (metric step) | metric | requests per {unit} | input tokens per {unit} "
        f"| output tokens per {unit} | re-asks |"
    )
    print("|---|---|---|---|---|---|")
    for name, row in stats["questions"].items():
        print(
            f"| {name} | {metric_of(name)} | {row['requests'] / n:.2f} "
            f"| {row['input_tokens'] / n:,.0f} | {row['output_tokens'] / n:,.0f} "
            f"| {row['reasks']} |"
        )
    print()
    ours = {
        "tool": "rag-eval-pytest" + (" (cascade)" if options.judge == "cascade" else ""),
        "requests": stats["requests"] / n,
        "input": stats["input_tokens"] / n,
        "output": stats["output_tokens"] / n,
        "wall": result["wall_s"],
    }
    print("| tool | requests per case | input tokens per case | output tokens per case | wall s |")
    print("|---|---|---|---|---|")
    for row in [*PEERS, ours]:
        print(
            f"| {row['tool']} | {row['requests']:.2f} | {row['input']:,.0f} "
            f"| {row['output']:,.0f} | {row['wall']:.1f} |"
        )
    print()
    print(f"peers: {PEER_SOURCE}; their wall time is around evaluate() (imports excluded),")
    print("ours is the whole pytest command (interpreter, imports, embedding model included).")
    print(
        f"server: {stats['requests']} requests, {stats['reasks']} re-asks, "
        f"{stats['duplicates']} repeated requests, peak {stats['peak_offered']} offered at once "
        f"({stats['peak_in_flight']} served), "
        f"judge span {stats['span_s']:.2f} s"
    )
    print(
        f"report summary.usage: {usage.get('judge_calls')} judge calls, "
        f"{usage.get('input_tokens')} input / {usage.get('output_tokens')} output tokens, "
        f"{usage.get('cache_hits', 0)} cache hits"
    )
    scores = report["summary"]["metrics"]
    print(
        "mean scores: "
        + ", ".join(
            f"{name} {scores[name]['mean']} ({scores[name]['judged']} judged)"
            for name in DEFAULT_METRICS
            if name in scores
        )
    )
    metrics = per_metric(report)
    if metrics:
        print(
            "report per metric (judge calls per case): "
            + ", ".join(
                f"{name} {row.get('judge_calls', 0) / n:.2f}"
                for name, row in sorted(metrics.items())
            )
        )
    if options.json is not None:
        options.json.write_text(
            json.dumps(
                {
                    "cases": n,
                    "contexts_per_case": contexts,
                    "ours": ours,
                    "peers": PEERS,
                    "server": stats,
                    "report_usage": usage,
                    "per_metric": metrics,
                },
                indent=1,
            )
        )

    failures = []
    if ours["requests"] > options.max_requests_per_case:
        failures.append(
            f"{ours['requests']:.2f} requests per case, more than {options.max_requests_per_case:g}"
        )
    if stats["reasks"] or stats["duplicates"]:
        failures.append(f"{stats['reasks']} re-asks, {stats['duplicates']} repeated requests")
    if usage.get("judge_calls") != stats["requests"]:
        failures.append(
            f"the report counts {usage.get('judge_calls')} judge calls, "
            f"the server saw {stats['requests']}"
        )
    for peer in PEERS:
        if ours["input"] >= peer["input"]:
            failures.append(f"not fewer input tokens per case than {peer['tool']}")
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
