"""Cases made in code: :func:`make_case`, for tests that call the RAG system themselves.

A test builds a case from what its app returned and passes it to any ``assert_*`` helper or
:func:`~rag_eval_pytest.evaluate`, with or without ``--rag-dataset``. The case is evaluated
by the test running at that moment (:mod:`.running`): with the test's ``rag_judge``, through
the run's engine (made on first use in a run without a dataset), and its results are
recorded under the test's node id, so they reach the reports and the history like a dataset
case's.

Keys: the first case a test evaluates without an ``id`` is recorded as the test's node id;
a case with ``id="x"`` as ``<node id>::x``; another case without an ``id`` in the same test as
``<node id>::case-<hash of its question>``. Evaluating an equal case again in the same test
adds to the same record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import ValidationError

from ..data.dataset import Case, LoadedCase, auto_id, case_text, describe_problems
from ..data.response import Context, RAGResponse
from ..errors import RagEvalError, SetupFailed
from .case import INLINE_INDEX, CaseTest, RagCase
from .running import current_item, engine_for

if TYPE_CHECKING:
    from ..config.settings import Settings
    from ..reporting.payload import CasePayload
    from .case import CaseEngine
    from .engine import Engine

INLINE_KEY: pytest.StashKey[list[tuple[Case, CaseTest]]] = pytest.StashKey()
"""The cases made in code that a test evaluated, with what the engine knows of each."""


def _as_list(name: str, value: object, what: str, problems: list[str]) -> list[Any]:
    """``value`` as a list, or an empty list with its problem added: one string, one mapping
    or bytes would otherwise be taken apart into letters or keys."""
    if isinstance(value, (str, bytes, Mapping)):
        one = "one mapping" if isinstance(value, Mapping) else "one string"
        if isinstance(value, bytes):
            one = "bytes"
        hint = "[{...}]" if isinstance(value, Mapping) else "[value]"
        problems.append(
            f"field {name!r}: expected a list of {what}, got {one}; write {name}={hint}"
        )
        return []
    if not isinstance(value, Iterable):
        problems.append(f"field {name!r}: expected a list of {what}, got {type(value).__name__}")
        return []
    return list(value)


def make_case(
    *,
    question: str,
    answer: str,
    contexts: Sequence[Any] | None = None,
    ground_truth: str | None = None,
    expected_contexts: Sequence[str] | Mapping[str, int] | None = None,
    id: str | None = None,
    critical: bool = False,
    tags: Sequence[str] = (),
    metadata: Mapping[str, Any] | None = None,
) -> RagCase:
    """A case built in code from what the RAG system returned, for the ``assert_*`` helpers
    and :func:`~rag_eval_pytest.evaluate`.

    ``contexts`` are the retrieved passages: strings, ``{"text": ..., "source": ...}``
    mappings, :class:`~rag_eval_pytest.Context` objects or LangChain / LlamaIndex documents
    (``None`` when the system does not say what it retrieved). ``ground_truth`` is the
    reference answer (only the metrics that compare with one need it); ``expected_contexts``
    the documents that should be retrieved (names, or names with grades for
    ``retrieval_ndcg``). ``critical=True`` makes a failure of the case exit with the critical
    code. Raises :class:`ValueError` naming each field that is not valid.
    """
    problems: list[str] = []
    fields: dict[str, Any] = {  # checked as given: the annotations are what a caller means
        "id": id,
        **_asked(question, answer, contexts, ground_truth, expected_contexts, "", problems),
        "critical": critical,
        "tags": _as_list("tags", tags, "tags", problems),
        "metadata": {} if metadata is None else metadata,
    }
    return _made("make_case", fields, metadata, problems)


def make_conversation(
    *,
    turns: Sequence[Mapping[str, Any]],
    id: str | None = None,
    critical: bool = False,
    tags: Sequence[str] = (),
    metadata: Mapping[str, Any] | None = None,
) -> RagCase:
    """A conversation built in code from what the RAG system answered in each turn: each
    turn a mapping of ``question`` and ``answer``, with ``contexts``, ``ground_truth`` and
    ``expected_contexts`` as in :func:`make_case`. Its metrics are measured on each turn with
    the turns before it as their history; ``case.turns[i]`` is turn ``i`` as a case of its
    own. Raises :class:`ValueError` naming each field that is not valid."""
    problems: list[str] = []
    listed = _as_list("turns", turns, "turns", problems)
    asked = [_turn_asked(number, turn, problems) for number, turn in enumerate(listed)]
    fields: dict[str, Any] = {
        "id": id,
        "turns": [turn for turn in asked if turn is not None],
        "critical": critical,
        "tags": _as_list("tags", tags, "tags", problems),
        "metadata": {} if metadata is None else metadata,
    }
    return _made("make_conversation", fields, metadata, problems)


_TURN_KEYS = frozenset({"question", "answer", "contexts", "ground_truth", "expected_contexts"})


def _turn_asked(number: int, turn: object, problems: list[str]) -> dict[str, Any] | None:
    """The fields of a conversation's turn ``number``; ``None`` when it is no mapping."""
    if not isinstance(turn, Mapping):
        problems.append(f"field 'turns[{number}]': expected a mapping, got {type(turn).__name__}")
        return None
    where = f"turns[{number}]."
    unknown = sorted(set(turn) - _TURN_KEYS)
    if unknown:
        problems.append(
            f"field '{where}{unknown[0]}': unknown (allowed: {', '.join(sorted(_TURN_KEYS))})"
        )
    return _asked(
        turn.get("question"),
        turn.get("answer"),
        turn.get("contexts"),
        turn.get("ground_truth"),
        turn.get("expected_contexts"),
        where,
        problems,
    )


def _asked(
    question: object,
    answer: object,
    contexts: object,
    ground_truth: object,
    expected_contexts: object,
    where: str,
    problems: list[str],
) -> dict[str, Any]:
    """The fields of one question (a case's, or a conversation's turn at ``where``)."""
    fields: dict[str, Any] = {"question": question, "answer": answer, "ground_truth": ground_truth}
    if answer is None:
        problems.append(
            f"field '{where}answer': is None (did the LLM return no content?); pass the text the "
            'app answered, "" for an empty answer'
        )
    if expected_contexts is not None:
        fields["expected_contexts"] = _expected(expected_contexts, where, problems)
    if contexts is not None:
        fields["contexts"] = _passages(contexts, where, problems)
    return fields


def _expected(expected_contexts: object, where: str, problems: list[str]) -> Any:
    """The expected documents: names with grades (a mapping), or a list of names."""
    if isinstance(expected_contexts, Mapping):
        return dict(expected_contexts)
    return _as_list(f"{where}expected_contexts", expected_contexts, "document names", problems)


def _passages(contexts: object, where: str, problems: list[str]) -> list[Context]:
    """The retrieved passages, each as a context; each that is none, a problem."""
    passages: list[Context] = []
    listed = _as_list(f"{where}contexts", contexts, "passages", problems)
    for number, passage in enumerate(listed):
        try:
            passages.append(Context.coerce(passage))
        except (TypeError, ValidationError) as exc:
            detail = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else exc
            problems.append(f"field '{where}contexts[{number}]': {detail}")
    return passages


def _made(maker: str, fields: dict[str, Any], metadata: object, problems: list[str]) -> RagCase:
    """The case of ``fields`` (validated as a dataset's), or one error naming each problem."""
    if isinstance(fields["metadata"], Mapping):
        fields["metadata"] = dict(fields["metadata"])
    else:
        problems.append(f"field 'metadata': expected a mapping, got {type(metadata).__name__}")
        del fields["metadata"]
    try:
        # Strict, as a dataset file is: bytes are not text, a number is not a name.
        case = Case.model_validate(fields, strict=True)
    except ValidationError as exc:
        problems.extend(describe_problems(exc))
    if problems:
        raise ValueError(f"{maker}(): " + "; ".join(problems))
    return InlineCase(case)


class InlineCase(RagCase):
    """A case made in code. Its fields and answer are readable anywhere; evaluating it needs
    a running test, whose results it joins."""

    def __init__(self, case: Case) -> None:  # no test yet: bound when evaluated
        self._case = case
        last = case.turns[-1] if case.turns else case  # a conversation's: its last turn's
        self._response = RAGResponse(answer=last.answer or "", contexts=last.contexts)

    def __repr__(self) -> str:
        return f"<RagCase {self.id} made in code critical={self.critical}>"

    @property
    def id(self) -> str:
        """The key the case is recorded under in the running test (its id, or a name made
        from its question, outside a test)."""
        item = current_item()
        bound = _bound_test(item, self._case) if item is not None else None
        if bound is not None:
            return bound.loaded.key
        return self._case.id or auto_id(case_text(self._case))

    @property
    def case(self) -> Case:
        return self._case

    @property
    def response(self) -> RAGResponse:
        return self._response

    @property
    def settings(self) -> Settings:
        return self._bind()[1].settings

    def _bind(self) -> tuple[CaseTest, CaseEngine]:
        """The running test's record of this case, and the run's engine: made at the first
        evaluation in each test."""
        __tracebackhide__ = True
        item = current_item()
        if item is None:
            raise RuntimeError(
                "a case made with make_case() is evaluated inside a pytest test, with the "
                "rag-eval plugin loaded (not with -p no:rag_eval): the plugin records its "
                "results there; call the assert_* helper from a test"
            )
        engine = _engine(item)
        bound = _bound_test(item, self._case)
        if bound is None:
            bound = _new_binding(item, self._case, engine)
        return bound, engine


def _engine(item: pytest.Item) -> Engine:
    """The run's engine; one that cannot be made stops the run (a bad configuration)."""
    __tracebackhide__ = True
    try:
        engine = engine_for(item.config)
    except RagEvalError as exc:
        item.session.shouldfail = f"rag-eval: {exc}"
        raise SetupFailed(str(exc), pytrace=False) from None
    if engine is None:  # pragma: no cover - a test is marked running by the plugin only
        raise RuntimeError("the rag-eval plugin is not active in this run")
    return engine


def _new_binding(item: pytest.Item, case: Case, engine: Engine) -> CaseTest:
    """The running test's record of a case it evaluates for the first time, under a key of
    its own, with the test's fixtures."""
    bindings = item.stash.setdefault(INLINE_KEY, [])
    loaded = LoadedCase(
        key=_new_key(item, case, {t.loaded.key for _, t in bindings}),
        index=INLINE_INDEX,
        case=case,
        dataset=_test_file(item),
    )
    request = getattr(item, "_request", None)  # the running test's fixtures
    fixture = request.getfixturevalue if request is not None else None
    bound = CaseTest(item, loaded, engine.judges, engine.session.redactor, fixture)
    bindings.append((case, bound))
    return bound


def _bound_test(item: pytest.Item, case: Case) -> CaseTest | None:
    for known, test in item.stash.get(INLINE_KEY, []):
        if known == case:
            return test
    return None


def _new_key(item: pytest.Item, case: Case, taken: set[str]) -> str:
    nodeid = item.nodeid
    if case.id is not None:
        key = f"{nodeid}::{case.id}"
    elif nodeid not in taken:
        key = nodeid
    else:
        key = f"{nodeid}::{auto_id(case_text(case))}"
    unique, number = key, 2
    while unique in taken:
        unique, number = f"{key}-{number}", number + 1
    return unique


def _test_file(item: pytest.Item) -> Path:
    """The test's file, relative to the root directory when below it."""
    path = Path(item.path)
    try:
        return path.relative_to(item.config.rootpath)
    except ValueError:
        return path


def inline_payloads(item: pytest.Item) -> list[CasePayload]:
    """What the test learned about the cases it made in code, for its report."""
    payloads: list[CasePayload] = []
    for _, test in item.stash.get(INLINE_KEY, []):
        payload = test.recorder.payload()
        payload["inline"] = True
        payloads.append(payload)
    return payloads


def inline_properties(item: pytest.Item) -> list[tuple[str, object]]:
    """The scores of the test's cases made in code, for JUnit XML."""
    return [p for _, test in item.stash.get(INLINE_KEY, []) for p in test.recorder.properties()]


def inline_cause_properties(item: pytest.Item, status: str) -> list[tuple[str, object]]:
    """The failure cause of each of the failing test's cases made in code, for JUnit XML
    (in the order of their ``rag_case`` properties)."""
    return [
        p
        for _, test in item.stash.get(INLINE_KEY, [])
        for p in test.recorder.cause_properties(status)
    ]


def inline_finished(item: pytest.Item, engine: Engine) -> None:
    """The test is over (its reports carry what it recorded): the engine lets go of its
    cases made in code."""
    bindings = item.stash.get(INLINE_KEY, None)
    if bindings is None:
        return
    del item.stash[INLINE_KEY]
    for _, test in bindings:
        engine.finished(test)
