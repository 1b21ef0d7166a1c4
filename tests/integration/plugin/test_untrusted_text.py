"""Untrusted text (answers, contexts, sources, dataset names, judge reasons) is inert in
every output: no HTML, link, image or fence of it renders in the Markdown reports or the
step summary, and no terminal control sequence of it reaches the terminal, the reports or
the judge."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import word_judge  # imported before any inner run, so inner runs share it
from tests.helpers import case, read_report
from tests.integration.metrics.test_judged_runs import JUDGE_CONFTEST

# Bidirectional controls: an override shows "txt.exe" as "exe.txt", an isolate, the marks.
BIDI = "\u202etxt.exe\u202c \u2066iso\u2069 \u200fmark\u200e \u202aemb\u202c"
HOSTILE = (
    BIDI + " http://evil.example/bare www.evil.example/w mail@evil.example "
    "<script>alert(1)</script> <img src=https://evil.example/a.png> "
    "<iframe src=https://evil.example></iframe> <details open>x</details> "
    "[click](https://evil.example) ![pic](https://evil.example/p.png) ```\nfence\n``` "
    "\\[escaped](https://evil.example) &lt;b&gt;"
)
ANSI = "\x1b[2J\x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x07link\x1b]8;;\x07 31\rm"

CONFTEST = """
import json, pytest

HOSTILE = {hostile!r}
ANSI = {ansi!r}
PROMPTS = []

@pytest.fixture(scope="session")
def rag_adapter():
    def app(question):
        return (HOSTILE + " " + ANSI, [{{"text": HOSTILE + ANSI, "source": HOSTILE + ANSI}}])
    return app

@pytest.fixture(scope="session")
def rag_judge():
    def judge(prompt):
        with open("prompts.txt", "a", encoding="utf-8") as fh:
            fh.write(prompt)
        reason = "```\\n<script>r()</script> [r](https://evil.example)\\n``` " + ANSI
        return json.dumps({{"statements": [
            {{"statement": HOSTILE, "verdict": "unsupported", "reason": reason}}
        ]}})
    return judge
"""

# An HTML tag, a link or image (a "](" whose bracket is not escaped), a fence, a control
# character, a bidirectional control, what GitHub links by itself (a bare URL, "www.", an
# e-mail address).
ACTIVE = re.compile(
    r"<[a-z/]|(?<!\\)\]\(|(?<!\\)```|[\x00-\x09\x0b-\x1f\x7f]"
    r"|[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
    r"|://|(?i:www)\.|\w@\w"
)
BIDI_CHARS = re.compile(r"[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize("markdown", ["eval_report.md", "eval_summary.md", "step summary"])
def test_untrusted_text_is_inert_in_every_report_and_on_the_terminal(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    markdown: str,
) -> None:
    step_summary = pytester.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    write_dataset(
        [case("hostile", "What is <iframe src=x>?" + BIDI, "gt", critical=True)],
        metadata={"name": "[n](https://evil.example) <img src=x> " + ANSI},
    )
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.9\n"})
    pytester.makeconftest(CONFTEST.format(hostile=HOSTILE, ansi=ANSI))
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-judge-passes", "1")
    assert result.ret == 2
    # Nothing reaches the terminal that would clear it, colour it or link from it.
    terminal = "\n".join(result.outlines + result.errlines)
    assert "\x1b" not in terminal
    assert "\x07" not in terminal
    assert BIDI_CHARS.findall(terminal) == []
    # The judge read the answer as the system gave it, without the control sequences.
    prompts = (pytester.path / "prompts.txt").read_text(encoding="utf-8")
    assert "\x1b" not in prompts
    assert "red link 31m" in prompts

    results = pytester.path / "results"
    text = {
        "eval_report.md": (results / "eval_report.md").read_text(encoding="utf-8"),
        "eval_summary.md": (results / "eval_summary.md").read_text(encoding="utf-8"),
        "step summary": step_summary.read_text(encoding="utf-8"),
    }[markdown]
    assert ACTIVE.findall(text) == []
    if markdown == "eval_report.md":
        # Shown, as the characters they are.
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
        assert "\\[click\\](https&#58;//evil.example)" in text
        # Bare URLs read the same on GitHub, and link nowhere.
        assert "http&#58;//evil.example/bare www&#46;evil.example/w mail&#64;evil.example" in text
        assert "txt.exe iso mark emb" in text
        assert "\\`\\`\\` fence \\`\\`\\`" in text
        assert "**Judge Reasoning:**" in text
        assert "&lt;img src=x&gt;" in text  # the dataset's name
    report = read_report(pytester)
    answer = report["cases"][0]["answer"]
    assert "\x1b" not in json.dumps(report)
    assert answer.endswith("red link 31m")
    assert answer.startswith("txt.exe iso mark emb http://evil.example/bare")
    # The dataset's own text is kept as data, its bidirectional controls written as escapes.
    written = (results / "eval_report.json").read_text(encoding="utf-8")
    assert BIDI_CHARS.findall(written) == []
    assert report["cases"][0]["question"].endswith(BIDI)


def test_a_long_check_name_neither_widens_the_terminal_table_nor_links_in_the_report(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset([case("refund", "What is the refund policy?", "Refunds within 30 days.")])
    pytester.makeconftest(JUDGE_CONFTEST)
    name = "see https://evil.example " + BIDI + " " + "n" * 500
    pytester.makepyfile(
        test_rag=f"""
from rag_eval_pytest import assert_criteria

def test_named(rag_case):
    assert_criteria(rag_case, "The answer must mention 'refunds' by name.", name={name!r})
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-judge-passes", "1")
    assert result.ret == 0, result.stdout.str()
    header = next(i for i, line in enumerate(result.outlines) if line.startswith("Metric "))
    table = result.outlines[header : header + 4]  # the header, its rule, the composite, ours
    # The name cut at 40 characters, the bidirectional controls gone.
    assert table[3].startswith("Criteria: see https://evil.example txt.…  1.00")
    assert max(len(line) for line in table) < 80
    assert BIDI_CHARS.findall("\n".join(result.outlines)) == []
    markdown = (pytester.path / "results" / "eval_report.md").read_text(encoding="utf-8")
    assert ACTIVE.findall(markdown) == []
    assert "Criteria: see https&#58;//evil.example txt.exe iso mark emb nnn" in markdown
    # The history keeps the name as data, its bidirectional controls written as escapes.
    history = (pytester.path / "results" / "results.jsonl").read_text(encoding="utf-8")
    assert BIDI_CHARS.findall(history) == [] and "\\u202e" in history
    assert f"criteria: {name}" in json.loads(history)["metrics"]


MOJIBAKE_CONFTEST = (
    word_judge.CONFTEST
    + """
# A page scraped as Latin-1: its curly quotes hold C1 control characters, U+009D among them.
PAGE = ("Florida has, in historic times, \\u00e2\\x80\\x9cfelt\\u00e2\\x80\\x9d a few "
        "\\u00e2\\x80\\x9cseismic events\\u00e2\\x80\\x9d. Florida sits on the passive margin of "
        "the North American Plate.")

@pytest.fixture(scope="session")
def rag_adapter():
    def app(question):
        return ("Florida sits on the passive margin of the North American Plate.",
                [{"text": PAGE, "source": "quakes.html"}])
    return app
"""
)


def test_a_context_read_with_the_wrong_charset_keeps_the_sentence_that_supports_the_answer(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset([case("quakes", "Where does Florida sit on its plate?", "gt")])
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.9\n"})
    pytester.makeconftest(MOJIBAKE_CONFTEST)
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-judge-passes", "1")
    assert result.ret == 0, result.stdout.str()
    context = read_report(pytester)["cases"][0]["contexts"][0]
    assert context["text"].endswith("passive margin of the North American Plate.")
    assert "\u0080" not in context["text"] and "\u009d" not in context["text"]
