"""The assertion API: ``evaluate(case, metric)`` and the ``assert_*`` helpers.

Every helper scores the case, records the result for the reports *before* deciding, and
raises :class:`RagAssertionError` with a short first line (``tc_001 faithfulness 0.50 < 0.90``)
followed by the evidence. A metric that could not be judged skips the test (or fails it, with
``not_judged: fail`` in the config), with the reason; it is never turned into a number. A
check the judge cannot make at all (a criterion under the local judge), or a verdict it was
unsure of, does not end the test: it is recorded as not judged with the reason, the test's
other assertions still run, a test that passes them is reported as skipped with the reason
(``engine/unjudged.py``), and the run's verdict says what it could not check
(``judge.unsupported``).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest

from ..metrics.answer_correctness import AnswerCorrectness
from ..metrics.answer_relevance import AnswerRelevance
from ..metrics.answer_similarity import AnswerSimilarity
from ..metrics.base import check_threshold
from ..metrics.context_precision import ContextPrecision
from ..metrics.context_recall import ContextRecall
from ..metrics.context_relevance import ContextRelevance
from ..metrics.faithfulness import Faithfulness
from ..metrics.retrieval import RetrievalPrecision, RetrievalRecall
from ..reporting.wording import GOOD_VERDICTS, MARK_LEGEND, answer_marks, evidence_label
from ..text.escaping import marked_plain
from ..text.shorten import cut_long, shorten
from ..text.spans import Span, marked_pieces
from .case import RagCase

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..metrics.base import Evidence, Metric, MetricResult

_EVIDENCE_LINES = 12
_TEXT = 160
_MARK_CONTEXT = 60  # the characters of the answer shown beside each marked statement


class RagAssertionError(AssertionError):
    """A RAG metric was below its threshold. ``results`` holds the failing results."""

    def __init__(self, message: str, results: list[MetricResult]) -> None:
        super().__init__(message)
        self.results = results


# Shown as ``rag_eval_pytest.RagAssertionError`` in failures: the public import path.
RagAssertionError.__module__ = "rag_eval_pytest"


def _evidence_line(item: Evidence) -> str:
    label = evidence_label(item.verdict, item.score)
    verdict = f"[{label}] " if label else ""
    source = f" ({item.source})" if item.source else ""
    reason = f" — {shorten(item.reason, 120)}" if item.reason else ""
    turn = f"turn {item.turn}: " if item.turn is not None else ""
    return f"  {turn}{verdict}{shorten(item.text, _TEXT)}{source}{reason}"


def _marked_answer(
    result: MetricResult, answer: str, redact: Callable[[str], str] | None
) -> list[str]:
    """The answer with the statements that count against the score between ``>>>`` and
    ``<<<`` (an excerpt around them), and the statements not found in it. An answer that
    holds a known secret is shown masked and unmarked: a mark inside the secret would
    keep the mask from finding it."""
    spans, unmatched = answer_marks([result])
    lines = _answer_lines(answer, spans, redact)
    if unmatched:
        missing = ", ".join(f'"{shorten(text, _TEXT)}"' for text in unmatched)
        lines.append(f"not found in the answer: {marked_plain([(missing, False)])}")
    return lines


def _answer_lines(answer: str, spans: list[Span], redact: Callable[[str], str] | None) -> list[str]:
    """The answer with its ``spans`` marked; masked and unmarked when it holds a secret."""
    if not spans:
        return []
    if redact is not None and redact(answer) != answer:
        masked = shorten(redact(answer), 400)
        return [f"answer (masked, so not marked): {marked_plain([(masked, False)])}"]
    pieces = marked_pieces(answer, spans, _MARK_CONTEXT)
    return [f"answer (>>> <<<: {MARK_LEGEND}):", f"  {marked_plain(pieces)}"]


def failure_message(
    result: MetricResult, answer: str | None = None, redact: Callable[[str], str] | None = None
) -> str:
    """The text a user reads when ``result`` fails: first line complete, evidence after;
    with the ``answer``, the statements that count against the score marked in it (known
    secrets masked by ``redact``)."""
    if result.status == "not_judged":
        return f"{result.case} {result.metric} not judged: {cut_long(str(result.reason))}"
    lines = [_first_line(result)]
    if result.reason:
        lines.append(f"  {cut_long(result.reason)}")
    lines.extend(_evidence_lines(result))
    if answer is not None:
        lines.extend(_marked_answer(result, answer, redact))
    lines.extend(f"note: {w}" for w in result.warnings)
    return "\n".join(lines)


def _first_line(result: MetricResult) -> str:
    """``tc_001 faithfulness 0.50 < 0.90``, and a conversation's turn that decides it."""
    assert result.score is not None
    assert result.threshold is not None
    turn = result.details.get("turn")
    at = f" at turn {turn}" if isinstance(turn, int) else ""
    return f"{result.case} {result.metric} {result.score:.2f} < {result.threshold:.2f}{at}"


def _evidence_lines(result: MetricResult) -> list[str]:
    """The evidence against the score first, then the rest, up to a dozen lines."""
    shown = sorted(result.evidence, key=_good)[:_EVIDENCE_LINES]
    if not shown:
        return []
    lines = ["evidence:", *(_evidence_line(e) for e in shown)]
    if len(result.evidence) > len(shown):
        lines.append(f"  … {len(result.evidence) - len(shown)} more in the report")
    return lines


def _good(item: Evidence) -> bool:
    return (item.verdict or "").lower() in GOOD_VERDICTS


def _require_case(case: object) -> RagCase:
    if not isinstance(case, RagCase):
        raise TypeError(
            f"expected a case, got {type(case).__name__}: the rag_case fixture "
            "(`def test_x(rag_case): assert_faithful(rag_case, ...)`) or a case made in code "
            "(`assert_faithful(make_case(question=..., answer=..., contexts=[...]), ...)`)"
        )
    return case


def evaluate(
    case: RagCase, metric: str | Metric, *, threshold: float | None = None, **params: Any
) -> MetricResult:
    """Score ``case`` with ``metric`` (a name or a :class:`Metric`), record and return the
    result without asserting. ``threshold`` defaults to the metric's default threshold."""
    return _require_case(case).evaluate(metric, threshold=threshold, **params)


def check_results(results: list[MetricResult], case: RagCase) -> None:
    """Raise for any failed result, unless the run is report-only (the results are recorded
    either way). When nothing could be judged, skip (or fail, with ``not_judged: fail``)
    with the reasons; results judged beside unjudged ones stand."""
    __tracebackhide__ = True
    _raise_failed(results, case)
    # Checks the judge cannot make, and verdicts it was unsure of, do not end the test: its
    # other assertions run, and a test that passes them is reported as skipped, not passed.
    case.defer_not_judged(
        [f"{r.case} {r.metric}: {cut_long(str(r.reason))}" for r in results if _unsure(r)]
    )
    _none_judged([r for r in results if not _unsure(r)], case)


def _raise_failed(results: list[MetricResult], case: RagCase) -> None:
    """Raise for the failed results, each with its evidence, unless the run is report-only."""
    __tracebackhide__ = True
    failed = [r for r in results if r.status == "failed"]
    if failed and not case.settings.report_only:
        message = "\n".join(failure_message(r, case.answer_of(r), case._redact) for r in failed)
        raise RagAssertionError(message, failed)


def _unsure(result: MetricResult) -> bool:
    """A check the judge cannot make, or a verdict it was unsure of."""
    return result.unsupported or result.undecided


def _none_judged(results: list[MetricResult], case: RagCase) -> None:
    """Skip (or fail, with ``not_judged: fail``) when none of the results was judged."""
    __tracebackhide__ = True
    if results and not any(r.judged for r in results):
        message = "; ".join(failure_message(r) for r in results)
        if case.settings.not_judged == "fail":
            raise RagAssertionError(message, results)
        pytest.skip(message)


def check_together(results: list[MetricResult], case: RagCase) -> None:
    """Check the results of several metrics asserted at once: fail once for every metric
    that missed, each with its evidence; one the judge failed on leaves the case unchecked,
    not passed (skipped, or failed with ``not_judged: fail``), whatever else was judged."""
    __tracebackhide__ = True
    _raise_missed_together(results, case)
    check_results(results, case)
    unjudged = [r for r in results if r.judge_failed]
    if unjudged:
        check_results(unjudged, case)


def _raise_missed_together(results: list[MetricResult], case: RagCase) -> None:
    """Raise once for two or more failed results, unless the run is report-only."""
    __tracebackhide__ = True
    failed = [r for r in results if r.status == "failed"]
    if len(failed) > 1 and not case.settings.report_only:
        raise RagAssertionError(_missed_together(failed, len(results), case), failed)


def _missed_together(failed: list[MetricResult], asserted: int, case: RagCase) -> str:
    """Every metric that missed on one line, then each one's failure with its evidence."""
    missed = ", ".join(f"{r.metric} {r.score:.2f} < {r.threshold:.2f}" for r in failed)
    header = f"{case.id}: {len(failed)} of {asserted} metrics missed: {missed}"
    body = "\n\n".join(failure_message(r, case.answer_of(r), case._redact) for r in failed)
    return f"{header}\n{body}"


def assert_rag(
    case: RagCase, **metrics: float | Mapping[str, Any] | None
) -> dict[str, MetricResult]:
    """Several metrics at once: ``assert_rag(case, faithfulness=0.9, answer_relevance=None)``.

    Each keyword names a metric (built-in or registered); its value is the threshold, ``None``
    for the metric's default, or a mapping of the threshold and the metric's parameters
    (``retrieval_ndcg={"threshold": 0.8, "k": 5}``). The metrics are scored concurrently and
    all recorded; the test fails once, listing every metric that missed with its evidence.
    Returns the results by metric name.
    """
    __tracebackhide__ = True
    rag_case = _require_case(case)
    if not metrics:
        raise TypeError(
            "assert_rag needs at least one metric, e.g. assert_rag(case, faithfulness=0.9)"
        )
    requests: list[tuple[str, float | None, dict[str, Any]]] = []
    for name, value in metrics.items():
        _known_metric(name)
        if isinstance(value, Mapping):
            params = dict(value)
            threshold = params.pop("threshold", None)
        else:
            params, threshold = {}, value
        requests.append((name, check_threshold(threshold, f"assert_rag: {name}"), params))
    results = rag_case.evaluate_many(list(requests))
    check_together(results, rag_case)
    return {r.metric: r for r in results}


def _known_metric(name: str) -> None:
    from ..metrics.registry import registered_names

    known = registered_names()
    if name not in known:
        close = difflib.get_close_matches(name, sorted(known), n=1)
        hint = f"; did you mean {close[0]}?" if close else f" (known: {', '.join(sorted(known))})"
        raise TypeError(f"assert_rag: unknown metric {name!r}{hint}")


def assert_metric(
    case: RagCase, metric: str | Metric, threshold: float | None = None, **params: Any
) -> MetricResult:
    """Assert any registered or custom metric meets ``threshold``."""
    __tracebackhide__ = True
    result = evaluate(case, metric, threshold=threshold, **params)
    check_results([result], case)
    return result


def assert_faithful(
    case: RagCase,
    threshold: float | None = None,
    *,
    mode: str = "ragas",
    penalize_ambiguous: bool = False,
) -> MetricResult:
    """Faithfulness: the share of the answer's statements supported by the contexts."""
    __tracebackhide__ = True
    params: dict[str, Any] = {"mode": mode}
    if penalize_ambiguous:
        params["penalize_ambiguous"] = True
    return assert_metric(case, Faithfulness.name, threshold, **params)


def assert_relevant(case: RagCase, threshold: float | None = None, **params: Any) -> MetricResult:
    """Answer relevance: does the answer address the question?"""
    __tracebackhide__ = True
    return assert_metric(case, AnswerRelevance.name, threshold, **params)


def assert_context_precision(
    case: RagCase, threshold: float | None = None, **params: Any
) -> MetricResult:
    """Context precision: useful contexts ranked first (average precision)."""
    __tracebackhide__ = True
    return assert_metric(case, ContextPrecision.name, threshold, **params)


def assert_context_recall(
    case: RagCase, threshold: float | None = None, **params: Any
) -> MetricResult:
    """Context recall: ground-truth sentences attributable to the contexts."""
    __tracebackhide__ = True
    return assert_metric(case, ContextRecall.name, threshold, **params)


def assert_context_relevance(
    case: RagCase, threshold: float | None = None, **params: Any
) -> MetricResult:
    """Context relevance: context sentences needed to answer / all context sentences."""
    __tracebackhide__ = True
    return assert_metric(case, ContextRelevance.name, threshold, **params)


def assert_similar(case: RagCase, threshold: float | None = None, **params: Any) -> MetricResult:
    """Answer similarity: embedding cosine of answer and ground truth (default 0.85)."""
    __tracebackhide__ = True
    return assert_metric(case, AnswerSimilarity.name, threshold, **params)


def assert_correct(case: RagCase, threshold: float | None = None, **params: Any) -> MetricResult:
    """Answer correctness: does the answer convey the ground truth's information?"""
    __tracebackhide__ = True
    return assert_metric(case, AnswerCorrectness.name, threshold, **params)


def assert_criteria(
    case: RagCase, criterion: str, threshold: float | None = None, *, name: str | None = None
) -> MetricResult:
    """A criterion in plain words ("the answer must not promise refunds beyond 30 days"),
    checked by an LLM judge: fully 1.0, mostly 0.75, partly 0.5, barely 0.25, not at all 0
    (default threshold 0.75). Reported as ``criteria: <name>`` (the criterion shortened when
    no ``name`` is given). The local judge cannot read a criterion: not judged, with why."""
    __tracebackhide__ = True
    from ..metrics.criteria import Criteria

    params: dict[str, Any] = {"criterion": criterion}
    if name is not None:
        params["name"] = name
    return assert_metric(case, Criteria(**params), threshold)


def assert_retrieval(
    case: RagCase,
    threshold: float | None = None,
    *,
    precision: float | None = None,
    recall: float | None = None,
) -> tuple[MetricResult, ...]:
    """Retrieval precision and recall against the case's ``expected_contexts``.

    The call checks what it names: ``recall=1.0`` checks recall only, ``precision=0.75``
    precision only, both names both. ``threshold`` applies to the metrics not named, and a
    bare ``assert_retrieval(case)`` checks both at their default thresholds (0.5 and 0.8).
    Returns the results checked, precision first.
    """
    __tracebackhide__ = True
    rag_case = _require_case(case)
    metrics = ((RetrievalPrecision.name, precision), (RetrievalRecall.name, recall))
    wanted = _retrieval_checks(threshold, metrics)
    results = [rag_case.evaluate(metric, threshold=value) for metric, value in wanted]
    check_results(results, rag_case)
    return tuple(results)


def _retrieval_checks(
    threshold: float | None, metrics: tuple[tuple[str, float | None], ...]
) -> list[tuple[str, float | None]]:
    """The retrieval ``metrics`` (each with the threshold the call names for it) a call
    checks, in order, each with its threshold: those it names with theirs, the others with
    ``threshold`` when it gives one."""
    named = any(value is not None for _, value in metrics)
    wanted: list[tuple[str, float | None]] = []
    for metric, value in metrics:
        if _checked(value, named, threshold):
            wanted.append((metric, value if value is not None else threshold))
    return wanted


def _checked(value: float | None, named: bool, threshold: float | None) -> bool:
    """Whether a retrieval metric is checked: named, or none named, or a threshold given."""
    return value is not None or not named or threshold is not None
