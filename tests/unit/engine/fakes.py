"""A stand-in for the process's ``EvalSession``: what the judge registry and the memos read
of it (settings, redactor, limiter, where secrets and notices go, the usage counted).

And a process's real engine over cases given in code, with what pytest gives it faked: the
test items and their fixtures (``rag_adapter``, ``rag_judge``), and a judge that reads an
answer's sentences against its contexts."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rag_eval_pytest.config.settings import Settings
from rag_eval_pytest.data.dataset import Case, DatasetCollection, LoadedCase
from rag_eval_pytest.engine.case import RagCase
from rag_eval_pytest.engine.engine import Engine
from rag_eval_pytest.engine.session import EvalSession
from rag_eval_pytest.judges.base import Judge, JudgeOutcome, Question, Usage
from rag_eval_pytest.judges.questions import (
    StatementsInput,
    StatementSupport,
    StatementVerdict,
    StatementVerdicts,
)
from rag_eval_pytest.redaction import Redactor
from rag_eval_pytest.reporting.payload import RunInfo
from rag_eval_pytest.text.sentences import split_sentences


class Progress:
    def __init__(self) -> None:
        self.usage = Usage()

    def add_usage(self, usage: Usage) -> None:
        self.usage = self.usage + usage


class Session:
    def __init__(self, cache_dir: Path | None = None, **judge: Any) -> None:
        self.settings = Settings(judge=judge)
        self.judge_cache_dir = cache_dir
        self.search_paths = ()
        self.judge_limiter = None
        self.judge_deadline = None
        self.redactor = Redactor()
        self.progress = Progress()
        self.secrets: list[tuple[list[str], str]] = []
        self.notices: list[str] = []

    def add_secrets(self, secrets: list[str], source: str) -> None:
        self.secrets.append((list(secrets), source))
        self.redactor.add(*secrets, source=source)

    def notice(self, text: str) -> None:
        self.notices.append(text)


# --------------------------------------------------------------------------- a run's engine

ROOT = Path("/project")
DATASET = Path("cases.json")


class SentenceJudge(Judge):
    """Reads an answer as its sentences, as a careful reader checks faithfulness: a sentence
    found word for word in a context is supported, any other is not mentioned. Answers
    nothing else; counts the questions it was asked."""

    kind = "sentences"
    model = "fake"

    def __init__(self) -> None:
        self.calls = 0

    def supports(self, question: type[Question[Any, Any]]) -> bool:
        return question is StatementSupport

    async def ask(self, question: Question[Any, Any], inputs: Any) -> JudgeOutcome[Any]:
        self.calls += 1
        assert isinstance(inputs, StatementsInput)
        verdicts = []
        for sentence in split_sentences(inputs.answer):
            quoted = any(sentence in context for context in inputs.contexts)
            verdicts.append(
                StatementVerdict(
                    statement=sentence,
                    verdict="supported" if quoted else "not mentioned",
                    reason="quoted by a context" if quoted else "no context says it",
                )
            )
        return JudgeOutcome(StatementVerdicts(statements=verdicts), usage=Usage(judge_calls=1))


def loaded(key: str, index: int = 0, **fields: Any) -> LoadedCase:
    """A dataset's case ``key`` (its fields as a dataset file gives them)."""
    return LoadedCase(key=key, index=index, case=Case(id=key, **fields), dataset=DATASET)


def eval_session(
    *cases: LoadedCase, calibration: dict[str, Any] | None = None, **settings: Any
) -> EvalSession:
    """A process's session over ``cases``, with ``settings`` as a config file gives them."""
    return EvalSession(
        settings=Settings(**settings),
        datasets=DatasetCollection([], list(cases), [], len(cases)),
        redactor=Redactor(),
        run=RunInfo(run_id="run-1", started_at="2099-01-01T00:00:00Z"),
        calibration=calibration,
    )


@contextlib.contextmanager
def engine_over(*cases: LoadedCase, **settings: Any) -> Iterator[Engine]:
    """The engine of a process that runs tests of ``cases``, closed after."""
    engine = Engine(eval_session(*cases, **settings))
    try:
        yield engine
    finally:
        engine.close()


class Plugins:
    """What ``config.pluginmanager`` gives: the plugin objects by name."""

    def __init__(self, plugins: dict[str, Any]) -> None:
        self.plugins = plugins

    def get_plugin(self, name: str) -> Any:
        return self.plugins.get(name)


class FixtureRequest:
    """A test's fixture request: its item, its case (``param``), and its fixtures' values
    (an exception is raised, as a failing fixture does)."""

    def __init__(self, node: TestItem, fixtures: dict[str, Any], param: str | None) -> None:
        self.node = node
        self.session = node.session
        self.param = param
        self.fixtures = fixtures
        self.asked: list[str] = []

    def getfixturevalue(self, name: str) -> Any:
        self.asked.append(name)
        value = self.fixtures[name]
        if isinstance(value, BaseException):
            raise value
        return value


class TestItem:
    """What the engine reads of a pytest item: node id, stash, session, config, path, and
    the running test's fixtures (``case``: the dataset case it is parametrized with)."""

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        nodeid: str = "test_rag.py::test_rag",
        *,
        case: str | None = None,
        plugins: dict[str, Any] | None = None,
        **fixtures: Any,
    ) -> None:
        self.nodeid = nodeid
        self.stash = pytest.Stash()
        self.session = SimpleNamespace(shouldfail=False, shouldstop=False)
        self.config = SimpleNamespace(pluginmanager=Plugins(plugins or {}), rootpath=ROOT)
        self.path = ROOT / nodeid.partition("::")[0]
        self.parent = None
        self.callspec = SimpleNamespace(params={"rag_case": case}) if case else None
        self._request = FixtureRequest(self, fixtures, case)


def take_case(engine: Engine, item: TestItem) -> tuple[RagCase, Callable[[], None]]:
    """The ``rag_case`` the test ``item`` receives, and what ends the test (the fixture's
    teardown)."""
    fixture = engine.rag_case(item._request)  # type: ignore[arg-type]
    case = next(fixture)

    def end() -> None:
        next(fixture, None)

    return case, end


def rag_system(answers: dict[str, tuple[str, list[Any]]]) -> Callable[..., Any]:
    """A RAG system answering each question from ``answers``; ``.asked`` lists each question
    it received with the history it was given (``None`` for a single question)."""
    asked: list[tuple[str, list[Any] | None]] = []

    def answer(question: str, history: list[Any] | None = None) -> tuple[str, list[Any]]:
        asked.append((question, history))
        return answers[question]

    answer.asked = asked  # type: ignore[attr-defined]
    return answer
