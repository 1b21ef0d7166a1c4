"""The judges of a run: each ``rag_judge`` value built once (its secrets masked, an LLM
judge in a runtime of the run's settings), one identity per judge wherever answers are remembered
(a judge without a stable name gets its own), and embeddings that never send a secret."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.engine import judging
from rag_eval_pytest.engine.judging import JudgeRegistry, scrubbing
from rag_eval_pytest.errors import ConfigError
from rag_eval_pytest.judges.base import Judge, JudgeOutcome
from rag_eval_pytest.judges.callable import CallableJudge
from rag_eval_pytest.judges.runtime import JudgeRuntime
from rag_eval_pytest.redaction import MASK, Redactor
from tests.unit.engine.fakes import Session

SECRET = "sk-test-4f9a8b7c6d5e4f3a2b1c"


class KeyedJudge(Judge):
    kind = "keyed"
    model = "m1"

    async def ask(self, question: Any, inputs: Any) -> JudgeOutcome[Any]:
        return JudgeOutcome.not_judged("unused")

    def secrets(self) -> list[str]:
        return [SECRET]


class EmbeddingJudge(KeyedJudge):
    def __init__(self) -> None:
        self.embedded: list[list[str]] = []

    async def embed(self, texts: list[str]) -> list[list[float]]:
        self.embedded.append(texts)
        return [[1.0] for _ in texts]


def answer(prompt: str) -> str:
    return "{}"


def registry(session: Session | None = None) -> JudgeRegistry:
    return JudgeRegistry(session or Session())  # type: ignore[arg-type]


def test_no_judge_is_none_and_has_no_identity() -> None:
    judges = registry()
    assert judges.from_fixture(None) is None
    assert judges.identity(None) == ""
    assert judges.all() == []


def test_a_judge_is_adopted_once_and_its_secrets_masked() -> None:
    session = Session()
    judges = registry(session)
    judge = KeyedJudge()
    assert judges.from_fixture(judge) is judge
    assert judges.from_fixture(judge) is judge
    assert judges.all() == [judge]
    assert session.secrets == [([SECRET], "judge keyed (m1)")]
    assert session.redactor.text(f"key={SECRET}") == f"key={MASK}"


def test_a_callable_is_wrapped_once_and_given_the_runs_settings() -> None:
    judges = registry(Session(passes=3, cache=False))
    judge = judges.from_fixture(answer)
    assert isinstance(judge, JudgeRuntime) and isinstance(judge.backend, CallableJudge)
    assert judges.from_fixture(answer) is judge
    assert judge.passes == 3


def test_a_judge_class_is_built_and_anything_else_refused() -> None:
    judges = registry()
    assert isinstance(judges.from_fixture(KeyedJudge), KeyedJudge)
    with pytest.raises(ConfigError, match="the rag_judge fixture returned int"):
        judges.from_fixture(42)


def test_an_unnamed_cached_llm_judge_is_told_it_will_not_be_cached(tmp_path: Path) -> None:
    session = Session(cache_dir=tmp_path)
    registry(session).from_fixture(lambda prompt: "{}")
    (notice,) = session.notices
    assert "has no stable name" in notice
    assert 'CallableJudge(fn, model="my-judge-v1")' in notice
    quiet = Session(cache=False)
    registry(quiet).from_fixture(lambda prompt: "{}")
    assert quiet.notices == []  # no disk cache: nothing is lost


def test_identity_is_the_fingerprint_and_the_votes() -> None:
    judges = registry(Session(passes=3, cache=False))
    judge = judges.from_fixture(answer)
    assert judge is not None
    assert judges.identity(judge) == f"{judge.fingerprint()} passes=3"
    keyed = KeyedJudge()
    assert judges.identity(keyed) == f"{keyed.fingerprint()} passes=None"


def test_judges_without_a_stable_name_each_get_their_own_identity() -> None:
    judges = registry(Session(cache=False))
    first = judges.from_fixture(lambda prompt: "{}")
    second = judges.from_fixture(lambda prompt: "{}")
    assert first is not None and second is not None
    one, two = judges.identity(first), judges.identity(second)
    assert one.startswith("unnamed 0 ") and two.startswith("unnamed 1 ")
    assert judges.identity(first) == one  # stable within the run


def test_a_judges_own_embeddings_are_scrubbed_of_secrets() -> None:
    session = Session()
    judges = registry(session)
    judge = EmbeddingJudge()
    judges.from_fixture(judge)
    assert judges.embeds_itself(judge) and not judges.embeds_itself(KeyedJudge())
    embed = judges.embedder(judge)
    assert embed is not None and judges.embedder(judge) is embed
    asyncio.run(embed([f"my key is {SECRET}"]))
    assert judge.embedded == [[f"my key is {MASK}"]]


class EmbeddingCallable(CallableJudge):
    """A user's LLM judge class with embeddings of its own."""

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return [[float(len(text))] for text in texts]


def test_an_llm_judge_class_with_its_own_embeddings_keeps_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(judging, "local_embedder", lambda *args: None)
    judges = registry(Session(cache=False))
    judge = judges.from_fixture(EmbeddingCallable(answer, model="m"))
    assert judges.embeds_itself(judge)
    embed = judges.embedder(judge)
    assert embed is not None and asyncio.run(embed(["abc"])) == [[3.0]]


def test_without_a_judge_that_embeds_the_offline_model_is_looked_up_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, Path | None]] = []

    def fake_local(device: str = "cpu", cache_dir: Path | None = None) -> None:
        calls.append((device, cache_dir))

    monkeypatch.setattr(judging, "local_embedder", fake_local)
    judges = registry(Session(cache=False))
    assert judges.embedder(KeyedJudge()) is None
    assert judges.embedder(None) is None
    assert calls == [("cpu", None)]  # no cache: no vector cache folder either


def test_the_vector_cache_lives_with_the_judge_cache(tmp_path: Path) -> None:
    assert registry(Session(cache_dir=tmp_path)).vector_cache_dir() == tmp_path
    assert registry(Session(cache_dir=tmp_path, cache=False)).vector_cache_dir() is None


def test_scrubbing_masks_before_the_embedding_call() -> None:
    seen: list[list[str]] = []

    async def embed(texts: list[str]) -> list[list[float]]:
        seen.append(texts)
        return [[0.0]]

    asyncio.run(scrubbing(embed, Redactor([SECRET]))([SECRET, "plain"]))
    assert seen == [[MASK, "plain"]]
