"""``eval_report.html`` of a real run: written and listed with the other reports, rebuilt the
same by ``rag-eval report`` (never over the JSON report or the history), and opened in
headless Chromium: it loads nothing but itself, raises no script error, shows a conversation
as its turns (the failing turn first), its status filter hides passing cases, what a RAG
system planted in an answer does not run, and without JavaScript it lists every case.

The browser is the system's Chromium (Debian's ``chromium`` package: ``make test`` installs
it where it can), driven by Playwright with that executable; the browser test is skipped
only where no Chromium can be found. Its screenshot is written under the test's temporary
folder and copied to ``tests/artifacts/`` (ignored by git), for a CI job to keep.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from rag_eval_pytest.cli import main as rag_eval
from tests import word_judge
from tests.helpers import case

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")

PLANTED = (
    '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> '
    "\u202etxt.exe\u202c <a href=https://evil.example>click</a> "
)
REFUND = "Refunds are available within 30 days of purchase."
RESET = "Click Forgot Password on the login page."
# Retrieval recall at 1.0: its perfect scores meet the threshold, and their bar is green.
CONFIG = "metrics:\n  faithfulness: 0.7\n  retrieval_recall: 1.0\n"
CASES = [
    case(
        "refund",
        "What is the refund policy?",
        REFUND,
        answer=REFUND,
        contexts=[{"text": REFUND, "source": "policy.md"}],
        expected_contexts=["policy.md"],
        tags=["billing"],
    ),
    case(
        "mars",
        "Where do you ship?",
        "Worldwide.",
        answer="Shipping is free to Mars and the moon.",
        contexts=[{"text": "We ship worldwide within 5 business days.", "source": "shipping.md"}],
        expected_contexts=["shipping.md"],
        tags=["shipping"],
    ),
    case(
        "planted",
        "Can I get my money back?",
        REFUND,
        answer=PLANTED + REFUND,
        contexts=[{"text": REFUND, "source": '<img src=x onerror="window.pwned = 3">'}],
        expected_contexts=["policy.md"],
        tags=['<img src=x onerror="window.pwned = 4">'],
        critical=True,
    ),
    {
        "id": "chat",
        "tags": ["account"],
        "turns": [
            {
                "question": "How do I reset my password?",
                "answer": RESET,
                "contexts": [{"text": RESET, "source": "a.md"}],
            },
            {
                "question": "And if I lost my phone too?",
                "answer": RESET + " The moon will call you back.",
                "contexts": [{"text": RESET, "source": "a.md"}],
            },
        ],
    },
    case(
        "password",
        "How do I reset my password?",
        "Click Forgot Password.",
        answer="Click Forgot Password on the login page.",
        contexts=[{"text": "Click Forgot Password on the login page.", "source": "password.md"}],
        expected_contexts=["password.md"],
        tags=["account"],
    ),
]


@pytest.fixture
def html_run(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> tuple[pytest.RunResult, Path]:
    """A run of recorded answers judged by the word judge (no model, no network)."""
    assert word_judge.CONFTEST  # imported before the inner run, so the inner run shares it
    write_dataset(CASES)
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    pytester.makeconftest(word_judge.CONFTEST)
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-judge-passes", "1", "-p", "no:randomly"
    )
    return result, pytester.path / "results" / "eval_report.html"


def test_the_html_report_is_written_listed_and_rebuilt_alike_from_the_json(
    html_run: tuple[pytest.RunResult, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    result, page = html_run
    assert result.ret == 2, result.stdout.str()  # the planted case is critical and fails
    result.stdout.fnmatch_lines(["reports: */results/eval_report.html"])
    text = page.read_text(encoding="utf-8")
    for key in ("refund", "mars", "planted", "chat", "password"):
        assert f"<b>{key}</b>" in text
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in text
    # `rag-eval report` writes the same page from the JSON report.
    rebuilt = page.parent / "rebuilt.html"
    assert rag_eval(["report", str(page.parent), "--output", str(rebuilt)]) == 0
    assert f"wrote {rebuilt}" in capsys.readouterr().out
    assert rebuilt.read_text(encoding="utf-8") == text


def test_rag_eval_report_never_writes_over_its_inputs_and_replaces_the_page_only_when_forced(
    html_run: tuple[pytest.RunResult, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, page = html_run
    results = page.parent
    inputs = [results / "eval_report.json", results / "results.jsonl"]
    (results / "link.html").symlink_to(inputs[0])
    kept = {path: path.read_bytes() for path in [*inputs, page]}
    for out in [*inputs, results / "link.html"]:
        assert rag_eval(["report", str(results), "--output", str(out), "--force"]) == 3
        err = capsys.readouterr().err
        assert err.startswith(f"rag-eval report: {out}: --output is the input file "), err
    assert rag_eval(["report", str(results)]) == 3  # the page the run wrote
    assert capsys.readouterr().err == (
        f"rag-eval report: {page}: already exists; give --force to replace it\n"
    )
    assert {path: path.read_bytes() for path in [*inputs, page]} == kept
    page.write_text("stale", encoding="utf-8")
    assert rag_eval(["report", str(results), "--force"]) == 0
    assert page.read_bytes() == kept[page]


def test_rag_eval_report_draws_the_trend_from_the_history_when_the_report_has_none(
    html_run: tuple[pytest.RunResult, Path],
) -> None:
    _, page = html_run
    results = page.parent
    report = json.loads((results / "eval_report.json").read_text(encoding="utf-8"))
    report.pop("trend", None)
    (results / "eval_report.json").write_text(json.dumps(report), encoding="utf-8")
    own = json.loads((results / "results.jsonl").read_text(encoding="utf-8"))
    earlier = {**own, "run_id": "an-earlier-run", "composite_score": 0.99}
    (results / "results.jsonl").write_text(
        json.dumps(earlier) + "\n" + json.dumps(own) + "\n", encoding="utf-8"
    )
    page.unlink()
    assert rag_eval(["report", str(results)]) == 0
    text = page.read_text(encoding="utf-8")
    assert "Trend: last 2 runs" in text
    assert "<code>an-earlier-run</code>" in text


def chromium() -> str | None:
    """The Chromium to drive: ``RAG_EVAL_CHROMIUM``, else the system's."""
    named = os.environ.get("RAG_EVAL_CHROMIUM")
    if named:
        return named
    found = [path for path in CHROMIUM if Path(path).is_file()]
    return found[0] if found else shutil.which("chromium")


def test_the_page_in_a_browser_loads_nothing_runs_nothing_planted_and_filters(
    html_run: tuple[pytest.RunResult, Path], tmp_path: Path
) -> None:
    executable = chromium()
    if executable is None:
        pytest.skip(
            "no Chromium found (/usr/bin/chromium or RAG_EVAL_CHROMIUM): "
            "apt-get install chromium, or run `make test`, which installs it where it can"
        )
    from playwright.sync_api import sync_playwright

    _, page_file = html_run
    url = page_file.as_uri()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            problems: list[str] = []
            requests: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda error: problems.append(str(error)))
            page.on("dialog", lambda dialog: problems.append(f"dialog: {dialog.message}"))
            page.on("request", lambda request: requests.append(request.url))
            page.goto(url)
            page.wait_for_load_state("load")

            assert problems == []
            assert requests == [url]
            assert page.evaluate("() => window.pwned") is None
            assert page.locator("img, iframe, a[href]").count() == 0
            planted = page.locator("details.case:has(summary > b:text-is('planted'))")
            assert "<script>window.pwned = 1</script>" in planted.inner_text()

            # The conversation: its turns shown, the failing turn first, marking its answer.
            chat = page.locator("details.case:has(summary > b:text-is('chat'))")
            turns = chat.locator("section.turn")
            assert turns.count() == 2
            assert turns.nth(0).locator("h3").inner_text().startswith("Turn 2 of 2 failed")
            assert turns.nth(1).locator("h3").inner_text().startswith("Turn 1 of 2 passed")
            assert turns.nth(0).is_visible() and turns.nth(1).is_visible()
            marked = turns.nth(0).locator("mark")
            assert marked.first.inner_text() == "The moon will call you back."
            assert turns.nth(1).locator("mark").count() == 0
            assert turns.nth(0).locator("td", has_text="Faithfulness").count() == 1

            # The filters: shown by the script; "failing" hides the passing cases.
            assert page.locator("#filters").is_visible()
            assert page.locator("#shown").inner_text() == "5 of 5 cases shown"
            page.select_option("#f-status", "failing")
            assert page.locator('[data-status="passed"]').count() == 2
            assert page.locator('[data-status="passed"]:visible').count() == 0
            assert page.locator('[data-status="failed"]:visible').count() == 3
            assert page.locator("#shown").inner_text() == "3 of 5 cases shown"
            assert turns.nth(0).is_visible()
            page.select_option("#f-status", "passed")
            assert not chat.is_visible() and not turns.nth(0).is_visible()
            page.select_option("#f-status", "")
            page.select_option("#f-tag", label="billing")
            assert page.locator("details.case:visible").count() == 1
            page.select_option("#f-tag", label="account")
            assert page.locator("details.case:visible").count() == 2
            page.select_option("#f-tag", "")
            assert problems == []

            # The histograms: the bar of recall scores of 1.0, at a threshold of 1.0, is
            # drawn as passing; the bar of the planted case's 0 as failing.
            recall = page.locator("figure", has=page.locator("figcaption", has_text="recall"))
            fills = dict(
                recall.locator("rect").evaluate_all(
                    "bars => bars.map(b => [b.querySelector('title').textContent, "
                    "getComputedStyle(b).fill])"
                )
            )
            passing = page.locator("svg.hist rect.bar:not(.low)").first.evaluate(
                "b => getComputedStyle(b).fill"
            )
            assert fills["0.9–1.0: 3 cases"] == passing
            assert fills["0.0–0.1: 1 case"] != passing

            shot = tmp_path / "eval_report.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
            ARTIFACTS.mkdir(exist_ok=True)
            shutil.copy(shot, ARTIFACTS / "eval_report.png")

            # Without JavaScript: every case listed, no filter.
            plain = browser.new_page(java_script_enabled=False)
            plain.goto(url)
            assert plain.locator("details.case:visible").count() == 5
            assert not plain.locator("#filters").is_visible()
        finally:
            browser.close()
