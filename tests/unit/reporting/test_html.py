"""``eval_report.html``: the summary and gates, the charts, every case, hostile text made
inert, the page's own script allowed by its policy, and its size at 10,000 cases."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from typing import Any

from rag_eval_pytest.reporting import html_report
from rag_eval_pytest.reporting.html_report import FULL_CASES, OPEN_CASES, render_html
from rag_eval_pytest.reporting.markdown import render_markdown, render_step_summary
from rag_eval_pytest.reporting.models import Report
from rag_eval_pytest.reporting.terminal import summary_lines

BIDI = "\u202etxt.exe\u202c \u2066iso\u2069 \u200fmark\u200e"
HOSTILE = (
    '<script>window.pwned=1</script><img src=x onerror="window.pwned=2"> '
    "</details></summary><a href=https://evil.example>click</a> \"quoted' & "
    + BIDI
    + " http://evil.example/bare"
)


def metric(key: str, name: str, score: float | None, **extra: Any) -> dict[str, Any]:
    status = "not_judged" if score is None else "passed" if score >= 0.7 else "failed"
    return {
        "score": score,
        "reason": extra.pop("reason", f"{name} reason"),
        "evidence": extra.pop("evidence", []),
        "details": extra.pop("details", {}),
        "case": key,
        "metric": name,
        "threshold": 0.7,
        "status": status,
        **extra,
    }


def case(key: str, status: str = "passed", **extra: Any) -> dict[str, Any]:
    return {
        "key": key,
        "id": key,
        "index": 0,
        "dataset": "dataset.json",
        "question": f"What about {key}?",
        "ground_truth": f"The truth of {key}.",
        "critical": False,
        "tags": ["billing"],
        "expected_contexts": ["policy.md"],
        "status": status,
        "composite": 0.8,
        "recorded": True,
        "answer": f"The answer of {key}.",
        "contexts": [
            {"text": "Refunds within 30 days.", "source": "docs/policy.md"},
            {"text": "Shipping is free.", "source": "shipping.md"},
        ],
        "sources": ["docs/policy.md", "shipping.md"],
        "latency_s": None,
        "slow": False,
        "error": None,
        "tests": [],
        "metrics": {"faithfulness": metric(key, "faithfulness", 0.9)},
        **extra,
    }


def point(run: int, score: float, judge: str, identity: str) -> dict[str, Any]:
    return {
        "run_id": f"run-{run}",
        "timestamp": f"2099-01-0{run}T10:00:00Z",
        "composite": score,
        "metrics": {"faithfulness": score},
        "partial": False,
        "selection": "same",
        "judge": judge,
        "judge_identity": identity,
    }


def report(cases: list[dict[str, Any]], **extra: Any) -> Report:
    doc = {
        "schema_version": 1,
        "tool": {"name": "rag-eval-pytest", "version": "9.9"},
        "run": {
            "id": "run-3",
            "started_at": "2099-01-03T10:00:00Z",
            "finished_at": "2099-01-03T10:01:00Z",
            "duration_s": 60.0,
            "partial": False,
            "datasets": [
                {"path": "dataset.json", "name": "d", "version": None, "created": None, "cases": 3}
            ],
            "selected_cases": len(cases),
            "tags_filter": [],
            "adapter": "callable",
            "judge": "word judge",
            "git_commit": None,
            "pytest_exit": 1,
            "exit_code": 2,
            "exit_reason": "critical case refund failed",
        },
        "summary": {
            "composite": {"score": 0.71, "threshold": 0.75, "status": "FAIL"},
            "metrics": {
                "faithfulness": {
                    "mean": 0.84,
                    "threshold": 0.8,
                    "status": "PASS",
                    "judged": 2,
                    "not_judged": 1,
                    "passed": 1,
                    "failed": 1,
                    "weight": 1.0,
                    "case_thresholds": [0.7],
                    "interval": [0.78, 0.9],
                }
            },
            "counts": {"cases": len(cases), "passed": 1, "failed": 1, "errors": 1, "skipped": 0},
            "latency": {
                "count": 0,
                "avg_s": None,
                "p50_s": None,
                "p95_s": None,
                "slow": 0,
                "slow_threshold_s": 5.0,
            },
            "critical": {"total": 1, "passed": 0, "failed": ["refund"]},
            "tags": [{"tag": "billing", "count": 3, "passed": 1, "failed": 2, "avg_score": 0.7}],
            "usage": {},
        },
        "cases": cases,
        "warnings": ["a warning <b>of</b> the run"],
        **extra,
    }
    return Report.from_json(doc)


CASES = [
    case("ok"),
    case(
        "refund",
        "failed",
        critical=True,
        tags=["billing", "vip"],
        metrics={
            "faithfulness": metric(
                "refund",
                "faithfulness",
                0.5,
                reason="1 of 2 statements supported",
                evidence=[
                    {"kind": "statement", "text": "Refunds in 30 days.", "verdict": "supported"},
                    {
                        "kind": "statement",
                        "text": "Shipping to Mars is free.",
                        "verdict": "unsupported",
                        "reason": "not in the contexts",
                    },
                ],
                details={"votes": 3, "agreement": 0.6667},
            )
        },
        tests=[{"nodeid": "test_rag.py::test_q[refund]", "outcome": "failed", "message": "low"}],
    ),
    case("broken", "error", error="RAG system raised TimeoutError", metrics={}, contexts=None),
]


def page(cases: list[dict[str, Any]] | None = None, **extra: Any) -> str:
    return render_html(report(CASES if cases is None else cases, **extra))


class Elements(HTMLParser):
    """Every element's tag and attributes, and the text of each script."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def elements(text: str) -> Elements:
    parser = Elements()
    parser.feed(text)
    parser.close()
    return parser


def test_the_summary_shows_the_verdict_and_each_gate() -> None:
    text = page()
    assert "RAG evaluation FAILED: exit 2 — critical case refund failed" in text
    gates = text[text.index('id="gates"') : text.index("</table>", text.index('id="gates"'))]
    assert "<th>Composite</th>" in gates
    assert "0.71" in gates and "0.75" in gates
    assert '<span class="badge bad">FAIL</span>' in gates
    assert "<td>Faithfulness</td>" in gates
    assert "0.84" in gates and "0.78–0.90" in gates
    assert "0.80 (mean); 0.70 per case" in gates
    assert '<span class="badge ok">PASS</span>' in gates
    assert "2 (1 not judged)" in gates
    assert "Critical tests: 0/1 passed" in text
    assert "<td>billing</td>" in text


def test_each_case_is_shown_with_its_contexts_scores_evidence_and_votes() -> None:
    text = page()
    # Failing cases first, open; the passing one closed.
    order = [text.index(f"<b>{key}</b>") for key in ("refund", "broken", "ok")]
    assert order == sorted(order)
    assert re.search(r'<details class="case" id="case-1" data-status="failed"[^>]* open>', text)
    assert re.search(r'<details class="case" id="case-3" data-status="passed"[^>]*>', text)
    assert 'id="case-3" data-status="passed" data-tags="0" data-cause="">' in text
    refund = text[text.index('id="case-1"') : text.index('id="case-2"')]
    assert "What about refund?" in refund
    assert "The answer of refund." in refund
    assert "The truth of refund." in refund
    # Contexts with their rank, the expected one marked, the one not retrieved named.
    assert '<span class="rank">#1</span> <code>docs/policy.md</code>' in refund
    assert '<span class="badge ok">expected</span>' in refund
    assert '<span class="rank">#2</span> <code>shipping.md</code><div' in refund
    assert "<b>Expected documents:</b> <code>policy.md</code></p>" in refund
    assert "3 votes; agreement 67%" in refund
    assert "1 of 2 statements supported" in refund
    assert '<span class="badge bad">unsupported</span>' in refund
    assert "Shipping to Mars is free." in refund
    assert "not in the contexts" in refund
    assert "<code>test_rag.py::test_q[refund]</code> failed: low" in refund
    broken = text[text.index('id="case-2"') : text.index('id="case-3"')]
    assert "RAG system raised TimeoutError" in broken
    assert "unknown (the RAG system returned no contexts)" in broken
    assert "no metric was evaluated" in broken
    assert "a warning &lt;b&gt;of&lt;/b&gt; the run" in text


def test_hostile_text_is_shown_as_text_never_as_markup_script_or_attribute() -> None:
    hostile = case(
        "x" + HOSTILE,
        "failed",
        question=HOSTILE,
        answer=HOSTILE,
        ground_truth=HOSTILE,
        tags=[HOSTILE, "plain"],
        expected_contexts=[HOSTILE],
        contexts=[{"text": HOSTILE, "source": HOSTILE}],
        error=HOSTILE,
        metrics={
            "faithfulness": metric(
                "x",
                "faithfulness",
                0.1,
                reason=HOSTILE,
                evidence=[
                    {"kind": HOSTILE, "text": HOSTILE, "verdict": HOSTILE, "reason": HOSTILE}
                ],
                warnings=[HOSTILE],
                details={"tiers": {HOSTILE: 1}},
            ),
            "criteria: " + HOSTILE: metric("x", "criteria: " + HOSTILE, 0.9),
        },
        tests=[{"nodeid": HOSTILE, "outcome": "failed", "message": HOSTILE}],
    )
    text = page([hostile], warnings=[HOSTILE])
    found = elements(text)
    # One script, the page's own; no element the hostile text carries.
    assert len(found.scripts) == 1
    assert "pwned" not in found.scripts[0]
    tags = {tag for tag, _ in found.tags}
    assert not tags & {"img", "a", "iframe", "object", "embed", "link", "base", "form"}
    for _, attributes in found.tags:
        assert not [name for name in attributes if name.startswith("on") or name == "href"]
        for value in attributes.values():
            assert "evil" not in (value or "") and "pwned" not in (value or "")
    # Shown, as the characters they are.
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=&quot;window.pwned=2&quot;&gt;" in text
    assert "&lt;/details&gt;&lt;/summary&gt;" in text
    assert "&quot;quoted&#x27; &amp;" in text
    assert "txt.exe iso mark" in text
    assert re.findall(r"[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", text) == []
    # The tags filter lists the tag as text; the case carries numbers.
    assert f'<option value="0">{html_report.html_text(HOSTILE, 80)}</option>' in text
    assert 'data-tags="0 1"' in text


def test_a_value_the_templates_place_is_inert_without_being_asked() -> None:
    """The page's templates autoescape: a value placed with no filter at all is shown as the
    characters it is, without its control and bidirectional characters."""
    template = html_report._environment().from_string('<p title="{{ value }}">{{ value }}</p>')
    shown = html_report.html_text(HOSTILE)
    assert template.render(value=HOSTILE) == f'<p title="{shown}">{shown}</p>'
    found = elements(template.render(value=HOSTILE))
    assert [tag for tag, _ in found.tags] == ["p"] and found.scripts == []


def test_the_page_loads_nothing_and_its_policy_allows_its_own_script_and_style() -> None:
    text = page()
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', text)
    assert policy is not None
    rules = dict(rule.strip().split(" ", 1) for rule in policy.group(1).split(";"))
    assert rules["default-src"] == "'none'"
    found = elements(text)

    def digest(code: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(code.encode()).digest()).decode() + "'"

    assert rules["script-src"] == digest(found.scripts[0])
    style = re.search(r"<style>(.*?)</style>", text, re.S)
    assert style is not None and rules["style-src"] == digest(style.group(1))
    assert " style=" not in text  # an inline style attribute would be refused by the policy
    assert not re.search(r"(?:src|href)=", text)


def test_filters_start_hidden_and_the_cause_filter_is_empty_without_causes() -> None:
    text = page()
    assert '<div id="filters" hidden>' in text
    assert "<noscript>" in text
    assert '<select id="f-cause"><option value="">any cause</option></select>' in text
    assert 'id="causes"' not in text


def test_failure_causes_are_counted_shown_and_filterable() -> None:
    plain = report(CASES)
    cases = [
        c.model_copy(update={"failure_cause": cause})
        for c, cause in zip(plain.cases, [None, "retrieval_miss", "rag_error"], strict=True)
    ]
    summary = plain.summary.model_copy(
        update={"failure_causes": {"rag_error": 1, "retrieval_miss": 1}}
    )
    text = render_html(plain.model_copy(update={"cases": cases, "summary": summary}))
    assert '<span class="badge warn">retrieval_miss</span>' in text
    assert '<option value="0">rag_error</option><option value="1">retrieval_miss</option>' in text
    assert 'data-status="failed" data-tags="0 1" data-cause="1"' in text
    causes = text[text.index('id="causes"') :]
    assert '<td>rag_error</td><td class="n">1</td>' in causes
    assert '<td>retrieval_miss</td><td class="n">1</td>' in causes


def test_distributions_and_the_trend_one_line_per_judge_identity_with_regressions() -> None:
    trend = {
        "points": [
            point(1, 0.9, "judge A", "aaaa/1"),
            point(2, 0.88, "judge A", "aaaa/1"),
            point(3, 0.6, "judge B", "bbbb/3"),
        ],
        "compared_with": {"run_id": "run-2", "timestamp": None},
        "not_compared": None,
        "regressions": [
            {"name": "faithfulness", "previous": 0.88, "current": 0.6, "previous_run": "run-2"}
        ],
        "tolerance": 0.05,
    }
    text = page(trend=trend)
    histograms = re.findall(r'<svg class="chart hist".*?</svg>', text)
    assert len(histograms) == 2  # the composite and faithfulness
    assert histograms[1].count("<rect") == 10
    assert "0.9–1.0: 1 case</title>" in histograms[1]
    assert "0.5–0.6: 1 case</title>" in histograms[1]  # 0.5 falls in [0.5, 0.6)
    trends = re.findall(r'<svg class="chart trend".*?</svg>', text)
    assert len(trends) == 2
    faithfulness = trends[1]
    assert faithfulness.count("<polyline") == 1  # judge A's two runs; judge B has one dot
    assert faithfulness.count('<circle class="dot') == 3
    assert faithfulness.count('class="regression"') == 1
    assert "Regression: 0.88 → 0.60 since run run-2" in faithfulness
    assert "<title>run 3: 0.60 (judge B)</title>" in faithfulness
    assert "<b>Regression:</b> Faithfulness 0.88 → 0.60" in text
    assert "<code>run-1</code>" in text  # the table of runs


def test_no_trend_section_without_history() -> None:
    assert 'id="trend"' not in page()


def test_the_demo_sized_page_is_small_and_draws_every_case() -> None:
    text = page(CASES * 4)
    assert len(text.encode()) < 1_000_000
    assert "<body>" in text  # no content-visibility: a full-page screenshot shows every case


def test_ten_thousand_cases_stay_under_ten_megabytes_the_first_shown_in_full() -> None:
    base = report(CASES[1:2])
    one = base.cases[0]
    many = [
        one.model_copy(update={"key": f"case_{i:05d}", "status": "failed" if i % 5 else "passed"})
        for i in range(10_000)
    ]
    text = render_html(base.model_copy(update={"cases": many}))
    assert len(text.encode()) < 10_000_000
    full = text.count('<details class="case"')
    assert full == FULL_CASES
    assert text.count(" open>") == OPEN_CASES  # the rest closed: a browser lays out less
    assert '<body class="large">' in text  # cases off screen are skipped by the browser
    compact = text.count("<tr data-status=")
    assert full + compact == 10_000
    assert f"{10_000 - FULL_CASES} more cases, one line each" in text
    # Failing cases first: the compact rows end with the passing ones.
    assert text.rindex('<tr data-status="failed"') < text.index('<tr data-status="passed"')


def test_the_full_cases_stop_at_their_byte_budget() -> None:
    text = render_html(report(CASES * 10), full_bytes=1)
    assert text.count('<details class="case"') == 1
    assert text.count("<tr data-status=") == 29


def test_long_three_byte_texts_stay_under_ten_megabytes_at_ten_thousand_cases() -> None:
    long = "退款政策" * 3000  # 12,000 characters, 36,000 bytes
    base = report(CASES[1:2])
    one = base.cases[0].model_copy(
        update={
            "question": long,
            "answer": long,
            "ground_truth": long,
            "contexts": [c.model_copy(update={"text": long}) for c in base.cases[0].contexts or []],
        }
    )
    many = [one.model_copy(update={"key": f"{long[:40]}{i}"}) for i in range(10_000)]
    text = render_html(base.model_copy(update={"cases": many}))
    assert len(text.encode()) < 10_000_000
    shown = text.count('<details class="case"') + text.count("<tr data-status=")
    assert f"{10_000 - shown} further cases are only in eval_report.json." in text


def turn(number: int, question: str, answer: str, score: float, **extra: Any) -> dict[str, Any]:
    key = f"chat/turn-{number}"
    return {
        "key": key,
        "turn": number,
        "question": question,
        "ground_truth": None,
        "expected_contexts": None,
        "status": "passed" if score >= 0.7 else "failed",
        "recorded": True,
        "answer": answer,
        "contexts": [{"text": f"The context of turn {number}.", "source": f"t{number}.md"}],
        "sources": [f"t{number}.md"],
        "latency_s": None,
        "metrics": {"faithfulness": metric(key, "faithfulness", score, **extra)},
    }


def test_a_conversation_is_shown_as_its_turns_the_failing_first_each_marking_its_answer() -> None:
    moon = "Fees are 5 EUR. The moon is cheese."
    unsupported = {
        "kind": "statement",
        "text": "The moon is cheese.",
        "verdict": "unsupported",
        "start": moon.index("The moon"),
        "end": len(moon),
    }
    turns = [
        turn(1, "What does an account cost?", "5 EUR a month.", 1.0),
        turn(2, "And for business?", moon, 0.5, evidence=[unsupported], reason="turn 2: 1 of 2"),
    ]
    chat = case(
        "chat",
        "failed",
        question=turns[0]["question"],
        answer=moon,
        turns=turns,
        metrics={"faithfulness": metric("chat", "faithfulness", 0.5, evidence=[unsupported])},
    )
    text = page([case("ok"), chat])
    block = text[text.index("<b>chat</b>") :]
    block = block[: block.index("</details>")]
    assert "Conversation: 2 turns, the failing first" in block
    second, first = block.index("Turn 2 of 2"), block.index("Turn 1 of 2")
    assert second < first  # the failing turn first
    turn_2, turn_1 = block[second:first], block[first:]
    assert '<span class="badge bad">failed</span>' in turn_2
    assert "And for business?" in turn_2
    # Each turn marks its own answer, with its own contexts and metric rows.
    assert "Fees are 5 EUR. <mark>The moon is cheese.</mark>" in turn_2
    assert "<code>t2.md</code>" in turn_2 and "<code>t1.md</code>" not in turn_2
    assert "<td>Faithfulness</td>" in turn_2 and "turn 2: 1 of 2" in turn_2
    assert "5 EUR a month." in turn_1 and "<mark>" not in turn_1
    assert '<span class="badge ok">passed</span>' in turn_1
    # The conversation's own scores follow its turns; its last answer is not marked again.
    assert block.count("<mark>The moon is cheese.</mark>") == 1
    assert block.index("Scores of the conversation") > first
    # The filters see the case, not its turns.
    assert len(re.findall(r"data-status=", text)) == 2


def test_a_case_that_newly_fails_is_listed_even_with_no_mean_to_compare() -> None:
    comparison = {
        "baseline": "history: run run-2",
        "baseline_run": "run-2",
        "alpha": 0.05,
        "min_drop": 0.05,
        "changes": [],  # one shared case: no mean to test
        "gate": True,
        "newly_failing": [
            {"key": "refund", "metric": "faithfulness", "before": 0.9, "after": 0.5,
             "threshold": 0.7, "regression": True},
        ],
    }  # fmt: skip
    built = report(CASES, comparison=comparison)
    html = render_html(built)
    assert "No metric was scored on 2 or more of the same cases: no mean compared." in html
    assert "Newly failing: 1 case" in html and "REGRESSION (stable verdicts)" in html
    markdown = render_markdown(built)
    assert "| refund | Faithfulness | 0.90 | 0.50 | 0.70 | **REGRESSION** (stable verdicts) |" in (
        markdown
    )
    words = "1 case since the baseline, 1 of them regressions (stable verdicts): refund"
    assert f"> **Newly failing:** {words}" in render_step_summary(built)
    assert f"newly failing: {words} faithfulness 0.90 → 0.50 REGRESSION" in summary_lines(
        built, [], []
    )
