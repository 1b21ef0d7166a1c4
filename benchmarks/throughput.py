"""Throughput against a judge with a fixed latency: how close to the floor a suite runs.

Starts the project's fake judge (``fake_judge_server.py``) on 127.0.0.1 with 300 ms per
request and 8 slots, writes 30 cases with pre-recorded answers and 3 contexts each, and runs
them through pytest in zero-code mode with the four default metrics (faithfulness, answer
relevance, context precision, context recall), the Anthropic judge (the real SDK, pointed at
the fake), one pass and no cache, as a user would. Then prints the requests, tokens, the
judge span at the server (first request in to last answer out), pytest's session time, the
whole command's time, and their ratios to the floor (requests x latency / slots: the least
time any tool needs for those requests).

``--sdk-imported`` imports the anthropic SDK in the pytest process before pytest starts
(``python -c "import anthropic, pytest; pytest.main(...)"``), the way the peer bench times
DeepEval and RAGAS (their imports done before the timed ``evaluate()`` call): pytest's session
time then leaves the SDK's import out, measured rather than subtracted.

Usage: ``python benchmarks/throughput.py [--cases 30] [--latency-ms 300] [--slots 8]
[--workers N] [--sdk-imported]`` (``--workers`` adds ``-n N``, pytest-xdist).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from fake_judge_server import make_server

TOPICS = ["refunds", "shipping", "passwords", "invoices", "warranty", "returns"]


def dataset(cases: int) -> dict[str, object]:
    rows = []
    for i in range(cases):
        topic = TOPICS[i % len(TOPICS)]
        contexts = [
            f"Policy {i} on {topic}: customers may ask within {10 + i} days. "
            f"Requests go through the {topic} desk, which answers within two business days.",
            f"The {topic} desk is open Monday to Friday. It is closed on public holidays. "
            f"Case reference {i} covers the {topic} rules of region {i % 5}.",
            f"Exceptions to the {topic} rules need a manager's approval and a written reason. "
            f"They are reviewed every quarter.",
        ]
        rows.append(
            {
                "id": f"case_{i:03d}",
                "question": f"How long do customers have to ask about {topic} under policy {i}?",
                "ground_truth": f"Customers may ask within {10 + i} days under policy {i}.",
                "answer": f"Under policy {i}, customers may ask within {10 + i} days through "
                f"the {topic} desk, which answers within two business days.",
                "contexts": [
                    {"text": t, "source": f"{topic}-{j}.md"} for j, t in enumerate(contexts)
                ],
                "critical": i % 10 == 0,
            }
        )
    return {"metadata": {"name": "throughput", "version": "1"}, "test_cases": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument("--latency-ms", type=float, default=300)
    parser.add_argument("--slots", type=int, default=8)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=0, help="--rag-concurrency")
    parser.add_argument(
        "--sdk-imported", action="store_true", help="import the SDK before pytest starts"
    )
    options = parser.parse_args()
    latency = options.latency_ms / 1000
    server, _ = make_server(0, latency, options.slots)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "cases.json").write_text(json.dumps(dataset(options.cases)))
            env = {**os.environ, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-fake-bench"}
            start = (
                ["-c", "import sys, anthropic, pytest; sys.exit(pytest.main(sys.argv[1:]))"]
                if options.sdk_imported
                else ["-m", "pytest"]
            )
            command = [
                sys.executable,
                *start,
                "-q",
                "-p",
                "no:randomly",
                "--rag-dataset=cases.json",
                "--rag-judge=anthropic",
                "--rag-judge-passes=1",
                "--rag-no-cache",
            ]
            if options.concurrency:
                command.append(f"--rag-concurrency={options.concurrency}")
            if options.workers:
                command += ["-n", str(options.workers)]
            started = time.monotonic()
            proc = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
            ended = time.monotonic()
            wall = ended - started
            if proc.returncode not in (0, 1, 2):
                sys.exit(f"pytest failed ({proc.returncode}):\n{proc.stdout[-3000:]}")
            report = json.loads((root / "results" / "eval_report.json").read_text())
        with urllib.request.urlopen(f"{url}/stats") as response:
            seen = json.loads(response.read())
    finally:
        server.shutdown()
        server.server_close()
    requests = seen["requests"]
    floor = requests * latency / options.slots
    session = report["run"]["duration_s"]
    print(
        f"cases: {options.cases}, latency {options.latency_ms:.0f} ms, {options.slots} slots"
        + (f", -n {options.workers}" if options.workers else "")
        + (", SDK imported before pytest starts" if options.sdk_imported else "")
    )
    print(
        f"requests: {requests} ({requests / options.cases:.2f} per case); "
        f"peak in flight: {seen['peak_in_flight']}"
    )
    print(
        f"tokens per case: {seen['input_tokens'] / options.cases:.0f} in, "
        f"{seen['output_tokens'] / options.cases:.0f} out"
    )
    print(f"by question: {seen['by_question']}")
    print(f"floor (requests x latency / slots): {floor:.2f} s")
    print(
        f"judge span at the server: {seen['span_s']:.2f} s ({seen['span_s'] / floor:.2f} x floor)"
    )
    print(f"pytest session: {session:.2f} s ({session / floor:.2f} x floor)")
    print(f"whole command, interpreter start included: {wall:.2f} s ({wall / floor:.2f} x floor)")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print(
            "  note: PYTHONDONTWRITEBYTECODE is set, so every module (pytest's assertion rewriting"
            " included) is compiled again on each start: the start-up above is slower than a"
            " user's"
        )
    if seen["first_in"] is not None and seen["last_out"] is not None:
        print(
            f"  of which: {seen['first_in'] - started:.2f} s before the first judge request, "
            f"{seen['span_s']:.2f} s judging, "
            f"{ended - seen['last_out']:.2f} s after the last answer"
        )
    sdk = subprocess.run(
        [sys.executable, "-c", "import time; t = time.perf_counter(); import anthropic; "
         "print(time.perf_counter() - t)"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    print(f"importing the anthropic SDK alone, in a fresh interpreter: {float(sdk.stdout):.2f} s")
    print(f"judged: {report['summary']['metrics']['faithfulness']['judged']} faithfulness results")


if __name__ == "__main__":
    main()
