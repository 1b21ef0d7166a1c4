"""The exit code by what happened, whichever judge: one table of (judge kind) x (outcome), each
cell a real pytest run, and then ``rag-eval merge`` of the report it wrote, which must give
the same code (SPEC 11).

3 (fatal) only when the run could not judge (a judge that failed, a vote the verdict depends
on that failed, a baseline it cannot use under ``--rag-fail-on-regression``); 2 when a critical
case failed; 1 for a failure and for a check not judged; 0 otherwise.

The kinds: ``local`` (``--rag-judge=local``), ``auto`` without a key (it falls back to the
local judge), ``llm`` (the Anthropic judge against a fake Messages API on 127.0.0.1),
``cascade`` (the local judge, then that Anthropic judge for what it is unsure of) and
``custom`` (a ``rag_judge`` fixture: a callable that cannot read a criterion). The LLM answers
come from :mod:`tests.table_judge`, with the row's fault.

Cells that cannot happen are not in the table: the local judge casts one vote (``local``,
``auto``), and the cascade asks its LLM tier only what the local tier was unsure of, so no
close vote of its own; an LLM judge answers every check, and the cascade's LLM tier decides
what the local tier was unsure of, so neither leaves a check not judged.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.cli import main as rag_eval
from tests import table_judge
from tests.helpers import case, read_report
from tests.integration.reliability.test_judge_faults_plugin import FAST
from tests.servers.fake_llm import (
    FakeLLMServer,
    LoggedRequest,
    Step,
    anthropic_error,
    anthropic_tool,
)

REFUNDS = "Refunds are available within 30 days of purchase."
LEAVE = (
    "Employees get 20 days of paid time off per year. Unused days can be carried over to the "
    "next year, up to five days. Requests go through the HR portal."
)
GOOD = case("good", "What is the refund window?", answer=REFUNDS, contexts=[REFUNDS])
# Another number than the context's: a contradiction the local judge decides alone.
BAD = case(
    "bad",
    "What is the refund window?",
    answer="Refunds are available within 90 days of purchase.",
    contexts=[REFUNDS],
)
# The local judge is unsure of its second claim: fair, but not stated as such.
UNSURE = case(
    "unsure",
    "How do employees request time off?",
    answer="Employees get 20 days of paid time off per year. "
    "The HR portal handles requests for leave.",
    contexts=[LEAVE],
)
CRITERION = case("criterion", "What is the refund window?", answer=REFUNDS, contexts=[REFUNDS],
                 tags=["criterion"])  # fmt: skip
TESTS = """
from rag_eval_pytest import assert_criteria, assert_faithful

def test_rag(rag_case):
    if "criterion" in rag_case.tags:
        assert_criteria(rag_case, "The answer must mention 'refunds'.")
    else:
        assert_faithful(rag_case, 0.7)
"""
KEY = "sk-ant-exit-code-table-0123456789"
RETRY = "retry:\n    max_attempts: 2\n"


class TableServer(FakeLLMServer):
    """The Messages API answering as :func:`tests.table_judge.answer` does: its JSON as the
    forced tool call, a fault as HTTP 529 (overloaded) after the retries."""

    def _next(self, request: LoggedRequest) -> Step:
        body = request.body
        system = body.get("system", "")
        if isinstance(system, list):
            system = "".join(block.get("text", "") for block in system)
        with self._lock:
            self.requests.append(request)
        try:
            text = table_judge.answer(f"{system}\n\n{body['messages'][0]['content']}")
        except table_judge.JudgeDown:
            return anthropic_error(529, "overloaded_error", FAST)
        return anthropic_tool(json.loads(text.split("```json\n", 1)[-1].split("\n```", 1)[0]))


@dataclass(frozen=True)
class Outcome:
    code: int
    reason: str
    """What the exit line says decided the code (an fnmatch pattern)."""
    cases: tuple[dict[str, Any], ...]
    fault: str = "none"
    args: tuple[str, ...] = ()


OUTCOMES = {
    "all-passed": Outcome(0, "all tests passed*", (GOOD,)),
    "a-failure": Outcome(1, "1 test failed", (GOOD, BAD)),
    "a-critical-failure": Outcome(2, "critical case bad failed", (GOOD, {**BAD, "critical": True})),
    # The local judge unsure of a claim; a custom judge that cannot read a criterion.
    "not-judged": Outcome(1, "1 c* to *", (GOOD, UNSURE)),
    "judge-failure": Outcome(3, "fatal: *", (GOOD, UNSURE), fault="down"),
    "vote-failed": Outcome(
        3,
        "fatal: *votes 2 and 3 of 3 failed and the verdict depends on them*",
        (GOOD,),
        fault="close",
    ),
    "unusable-baseline": Outcome(
        3,
        "fatal: *--rag-fail-on-regression, and no comparison: *",
        (GOOD,),
        args=("--rag-fail-on-regression", "--rag-baseline=no-such-report.json"),
    ),
}
KINDS = ("local", "auto", "llm", "cascade", "custom")
NOT_APPLICABLE = {
    ("local", "vote-failed"),
    ("auto", "vote-failed"),
    ("cascade", "vote-failed"),
    ("llm", "not-judged"),
    ("cascade", "not-judged"),
}
CELLS = [
    pytest.param(kind, outcome, id=f"{kind}-{outcome}")
    for outcome in OUTCOMES
    for kind in KINDS
    if (kind, outcome) not in NOT_APPLICABLE
]


@pytest.fixture
def server() -> Iterator[TableServer]:
    started = TableServer().start()
    assert isinstance(started, TableServer)
    yield started
    started.stop()


def configure(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, kind: str, outcome: str,
    server: TableServer,
) -> None:  # fmt: skip
    """The run's judge: its config file, fixtures and environment."""
    local_down = outcome == "judge-failure" and kind in ("local", "auto")
    config = "judge:\n"
    if local_down:  # the local judge's failure: a model folder that holds no model
        config += "  local:\n    embedding_model: no-such-model-folder\n"
    if kind in ("llm", "cascade"):
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    if kind == "llm":
        config += f"  kind: anthropic\n  {RETRY}"
    elif kind == "cascade":
        config += (
            f"  kind: cascade\n  then:\n    kind: anthropic\n    {RETRY.replace('  ', '      ')}"
        )
    elif kind == "custom":
        pytester.makeconftest(table_judge.CONFTEST)
        config += f"  {RETRY}"
    elif kind == "local":
        config += "  kind: local\n"
    if config != "judge:\n":
        pytester.makefile(".yaml", **{"eval-config": config})


@pytest.mark.parametrize(("kind", "outcome"), CELLS)
def test_the_exit_code_is_the_outcomes_whichever_judge_and_the_merge_gives_the_same(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    server: TableServer,
    kind: str,
    outcome: str,
) -> None:
    row = OUTCOMES[outcome]
    cases = [CRITERION if c is UNSURE and kind == "custom" else c for c in row.cases]
    write_dataset(cases)
    pytester.makepyfile(test_rag=TESTS)
    table_judge.use(monkeypatch, row.fault)
    configure(pytester, monkeypatch, kind, outcome, server)
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly", *row.args
    )
    output = result.stdout.str()
    assert "INTERNALERROR" not in output and "Traceback" not in output
    assert result.ret == row.code, output
    result.stdout.fnmatch_lines([f"rag-eval: exit {row.code}: {row.reason}"])
    assert read_report(pytester)["run"]["exit_code"] == row.code

    shard = pytester.path / "results" / "eval_report.json"
    code = rag_eval(["merge", "--output-dir", "merged", str(shard)])
    merged = read_report(pytester, "merged")["run"]
    assert (code, merged["exit_code"]) == (row.code, row.code), merged["exit_reason"]
    assert fnmatch.fnmatch(merged["exit_reason"], row.reason), merged["exit_reason"]
