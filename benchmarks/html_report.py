"""Size and time of ``eval_report.html`` for a large run: a synthetic report of 10,000 cases.

Builds a typed ``Report`` (each case with a question, an answer of a few sentences, three
retrieved contexts, four judged metrics with their reasons and evidence, tags; one case in
five failing, one in fifty an error) and a history of ten runs with two judge identities,
then renders the page several times and prints the median time and the size. Run from the
repository root:

    python benchmarks/html_report.py                    # 10,000 cases, 5 renders
    python benchmarks/html_report.py --cases 100 --write /tmp/eval_report.html
    python benchmarks/html_report.py --browser /usr/bin/chromium   # and open it, 3 times

With ``--browser``, the page is also opened in that Chromium (through Playwright) and the
benchmark prints the first contentful paint, the end of parsing, the load event and how
long the status filter takes to hide the passing cases.

The renderer shows the first cases in full (failing ones first: at most 1,000 cases or
4,000,000 characters of them) and every other case as one compact row; the JSON report keeps
every case in full.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from rag_eval_pytest.reporting.html_report import render_html
from rag_eval_pytest.reporting.models import Report

METRICS = ("faithfulness", "answer_relevance", "context_precision", "context_recall")
TAGS = ("billing", "account", "shipping", "returns", "security", "api")
WORDS = [
    *("refund", "policy", "order", "customer", "account", "password", "shipping", "delivery"),
    *("invoice", "within", "days", "business", "support", "request", "payment", "card"),
    *("warehouse", "return", "label", "tracking", "number", "email"),
]


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def _metric(rng: random.Random, key: str, name: str) -> dict[str, Any]:
    score = round(rng.betavariate(5, 1.5), 4)
    status = "passed" if score >= 0.7 else "failed"
    evidence = [
        {
            "kind": "statement",
            "text": _sentence(rng, 12),
            "verdict": "supported" if rng.random() < score else "unsupported",
            "reason": _sentence(rng, 10),
            "score": None,
            "source": None,
        }
        for _ in range(3)
    ]
    return {
        "score": score,
        "reason": f"{round(score * 3)} of 3 statements supported by the contexts",
        "cause": None,
        "evidence": evidence,
        "usage": {},
        "warnings": [],
        "details": {"agreement": 1.0},
        "unsure": 0,
        "bounds": None,
        "case": key,
        "metric": name,
        "threshold": 0.7,
        "status": status,
    }


def _case(rng: random.Random, index: int) -> dict[str, Any]:
    key = f"dataset.json::case_{index:05d}"
    metrics = {name: _metric(rng, key, name) for name in METRICS}
    error = rng.random() < 0.02
    failed = any(m["status"] == "failed" for m in metrics.values())
    contexts = [
        {"text": " ".join(_sentence(rng, 14) for _ in range(3)), "source": f"docs/doc_{i}.md"}
        for i in rng.sample(range(40), 3)
    ]
    return {
        "key": key,
        "id": f"case_{index:05d}",
        "index": index,
        "dataset": "dataset.json",
        "question": _sentence(rng, 12)[:-1] + "?",
        "ground_truth": _sentence(rng, 15),
        "critical": index % 50 == 0,
        "tags": rng.sample(TAGS, 2),
        "expected_contexts": [contexts[0]["source"], "docs/doc_99.md"],
        "status": "error" if error else "failed" if failed else "passed",
        "composite": round(sum(m["score"] for m in metrics.values()) / len(metrics), 4),
        "recorded": True,
        "answer": " ".join(_sentence(rng, 16) for _ in range(3)),
        "contexts": contexts,
        "sources": [c["source"] for c in contexts],
        "latency_s": None,
        "slow": False,
        "error": "RAG system raised TimeoutError: no answer within 30 s" if error else None,
        "tests": [
            {
                "nodeid": f"test_rag.py::test_quality[{key}]",
                "outcome": "failed" if failed else "passed",
                "message": "faithfulness 0.50 < 0.70" if failed else None,
            }
        ],
        "metrics": {} if error else metrics,
        "inline": False,
    }


def _summary(cases: list[dict[str, Any]]) -> dict[str, Any]:
    def mean(values: list[float]) -> float | None:
        return round(sum(values) / len(values), 4) if values else None

    metrics = {}
    for name in METRICS:
        scores = [c["metrics"][name]["score"] for c in cases if name in c["metrics"]]
        low = sum(s < 0.7 for s in scores)
        middle = mean(scores) or 0.0
        metrics[name] = {
            "mean": round(middle, 4) if scores else None,
            "threshold": 0.75 if name == "faithfulness" else None,
            "status": "PASS" if name == "faithfulness" else None,
            "judged": len(scores),
            "not_judged": 0,
            "passed": len(scores) - low,
            "failed": low,
            "weight": 0.25,
            "case_thresholds": [0.7],
            "interval": [round(middle - 0.01, 4), round(middle + 0.01, 4)],
        }
    statuses = [c["status"] for c in cases]
    return {
        "composite": {
            "score": mean([c["composite"] for c in cases]),
            "threshold": 0.7,
            "status": "PASS",
        },
        "metrics": metrics,
        "counts": {
            "cases": len(cases),
            "passed": statuses.count("passed"),
            "failed": statuses.count("failed"),
            "errors": statuses.count("error"),
            "skipped": 0,
        },
        "latency": {
            "count": 0,
            "avg_s": None,
            "p50_s": None,
            "p95_s": None,
            "slow": 0,
            "slow_threshold_s": 5.0,
        },
        "critical": {"total": len(cases) // 50, "passed": len(cases) // 50, "failed": []},
        "tags": [],
        "usage": {},
    }


def _trend(rng: random.Random, runs: int) -> dict[str, Any]:
    points = []
    for i in range(runs):
        identity = "a1b2c3d4e5f6a7b8/1" if i < runs // 2 else "ffee0011aabbccdd/3"
        points.append(
            {
                "run_id": f"2099010{i}T120000Z-{i:06x}",
                "timestamp": f"2099-01-0{i % 9 + 1}T12:00:00Z",
                "composite": round(rng.uniform(0.7, 0.9), 4),
                "metrics": {name: round(rng.uniform(0.6, 0.95), 4) for name in METRICS},
                "partial": False,
                "selection": "same",
                "judge": "anthropic claude-sonnet" if i < runs // 2 else "anthropic claude-opus",
                "judge_identity": identity,
            }
        )
    return {
        "points": points,
        "compared_with": {"run_id": points[-2]["run_id"], "timestamp": points[-2]["timestamp"]},
        "not_compared": None,
        "regressions": [
            {
                "name": METRICS[0],
                "previous": 0.95,
                "current": points[-1]["metrics"][METRICS[0]],
                "previous_run": points[-2]["run_id"],
            }
        ],
        "tolerance": 0.05,
    }


def synthetic_report(cases: int, *, runs: int = 10, seed: int = 0) -> Report:
    """A report of ``cases`` cases and a trend of ``runs`` runs, the same for one seed."""
    rng = random.Random(seed)
    rows = [_case(rng, i) for i in range(cases)]
    return Report.from_json(
        {
            "schema_version": 1,
            "tool": {"name": "rag-eval-pytest", "version": "bench"},
            "run": {
                "id": "20990110T120000Z-bench",
                "started_at": "2099-01-10T12:00:00Z",
                "finished_at": "2099-01-10T12:30:00Z",
                "duration_s": 1800.0,
                "partial": False,
                "datasets": [
                    {
                        "path": "dataset.json",
                        "name": "bench",
                        "version": None,
                        "created": None,
                        "cases": cases,
                    }
                ],
                "selected_cases": cases,
                "tags_filter": [],
                "adapter": "callable",
                "judge": "anthropic claude-opus",
                "git_commit": None,
                "pytest_exit": 1,
                "exit_code": 1,
                "exit_reason": "tests failed",
            },
            "summary": _summary(rows),
            "cases": rows,
            "warnings": [],
            "trend": _trend(rng, runs),
        }
    )


def open_in_browser(page: str, executable: str, times: int = 3) -> None:
    """Open ``page`` in Chromium ``times`` times: paint, parse, load, one filter change."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "eval_report.html"
        path.write_text(page, encoding="utf-8")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable)
            for _ in range(times):
                tab = browser.new_page()
                tab.goto(path.as_uri())
                timing = tab.evaluate(
                    """() => {
                      const nav = performance.getEntriesByType("navigation")[0];
                      const paint = performance.getEntriesByType("paint")
                        .find((e) => e.name === "first-contentful-paint");
                      return [paint ? paint.startTime : -1, nav.domInteractive, nav.loadEventEnd];
                    }"""
                )
                started = time.perf_counter()
                tab.select_option("#f-status", "failing")
                shown = tab.locator("#shown").inner_text()
                took = time.perf_counter() - started
                paint, parsed, loaded = (value / 1000 for value in timing)
                print(
                    f"browser: first paint {paint:.2f} s, parsed {parsed:.2f} s, loaded "
                    f"{loaded:.2f} s; filter 'failing' {took:.2f} s ({shown})"
                )
                tab.close()
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--renders", type=int, default=5)
    parser.add_argument("--write", type=Path, default=None, help="write the page here")
    parser.add_argument("--browser", default=None, metavar="CHROMIUM", help="open it there")
    options = parser.parse_args()
    started = time.perf_counter()
    report = synthetic_report(options.cases)
    built = time.perf_counter() - started
    times, page = [], ""
    for _ in range(options.renders):
        started = time.perf_counter()
        page = render_html(report)
        times.append(time.perf_counter() - started)
    size = len(page.encode("utf-8"))
    full = page.count('<details class="case"')
    print(f"cases: {options.cases} ({full} in full, {options.cases - full} compact)")
    print(f"report built in {built:.2f} s (not part of the render)")
    print(
        f"render: median {statistics.median(times):.3f} s, max {max(times):.3f} s "
        f"over {options.renders} renders"
    )
    print(f"size: {size:,} bytes ({size / 1_000_000:.2f} MB)")
    if options.write is not None:
        options.write.write_text(page, encoding="utf-8")
        print(f"wrote {options.write}")
    if options.browser:
        open_in_browser(page, options.browser)


if __name__ == "__main__":
    main()
