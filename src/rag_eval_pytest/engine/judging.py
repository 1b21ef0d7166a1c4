"""The judges of one process: the configured one, the ones ``rag_judge`` fixtures return, and
their one identity.

Every judge a test uses comes through :class:`JudgeRegistry`: built once, an LLM judge as its
backend inside one runtime configured from the run's settings and what its judges share (the
cache folder, limiter, redactor and deadline: :meth:`JudgeRegistry.shared`), a fixture's
judge object left as the user built it; known by :meth:`JudgeRegistry.identity` wherever
answers are remembered, and closed at the end of the run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from ..judges.backend import Backend
    from ..judges.base import Judge
    from ..judges.run_config import RunShared
    from ..metrics.base import Embed
    from ..redaction import Redactor
    from .session import EvalSession


@dataclass
class JudgeRegistry:
    """The judges of a run, each built once, and their identities."""

    session: EvalSession
    _default: Judge | None = None
    _shared: RunShared | None = None
    # What each rag_judge value became: a few per run, compared by identity (``is``), so a
    # callable is wrapped once and the object is kept alive with its judge.
    _built: list[tuple[object, Judge | None]] = field(default_factory=list)
    _judges: list[Judge] = field(default_factory=list)  # every judge built, to close
    _unnamed: list[Judge] = field(default_factory=list)  # judges without a fingerprint
    _embeds: list[tuple[Judge, Embed]] = field(default_factory=list)  # a judge's scrubbed embed
    _local_embed: Embed | None = None
    _local_embed_checked: bool = False

    def default(self) -> Judge:
        """The judge the settings name (``--rag-judge``, config ``judge:``), built once.
        Raises :class:`ConfigError` when none can be built (no key, no local judge)."""
        if self._default is None:
            from ..judges.factory import build_judge

            session = self.session
            judge = build_judge(
                session.settings.judge,
                env=os.environ,
                shared=self.shared(),
                search_paths=session.search_paths,
            )
            self._keep(judge, judge)
            self._default = judge
        return self._default

    def shared(self) -> RunShared:
        """What every judge of the run shares: the cache folder, the judges' limiter, the
        redactor and the deadline."""
        if self._shared is None:
            from ..judges.run_config import RunShared

            session = self.session
            self._shared = RunShared(
                cache_dir=session.judge_cache_dir,
                limiter=session.judge_limiter,
                redactor=session.redactor,
                deadline=session.judge_deadline,
            )
        return self._shared

    def from_fixture(self, value: object) -> Judge | None:
        """What a ``rag_judge`` fixture gave, as a ready judge (built once per object, the
        object itself never changed): a :class:`Judge`, a ``prompt -> text`` callable, or
        ``None`` for no judge."""
        if value is None:
            return None
        for kept, judge in self._built:
            if kept is value:
                return judge
        from ..judges.factory import as_judge

        judge = as_judge(value, self.session.settings.judge, self.shared())
        self._built.append((value, judge))
        if judge is not None:
            self._keep(value, judge)
        return judge

    def _keep(self, value: object, judge: Judge) -> None:
        """A judge built for the run: closed at its end, its secrets masked, and a notice
        when its answers cannot be cached for want of a stable name."""
        if not any(kept is value for kept, _ in self._built):
            self._built.append((value, judge))
        if any(known is judge for known in self._judges):
            return
        self._judges.append(judge)
        secrets = getattr(judge, "secrets", None)
        if callable(secrets):
            self.session.add_secrets(secrets(), f"judge {judge.describe()}")
        self._name(judge)

    def _name(self, judge: Judge) -> None:
        """Keep a judge without a stable name apart, and say it caches nothing."""
        if judge.fingerprint() is None:
            self._unnamed.append(judge)
            self._note_unnamed(judge)

    def _note_unnamed(self, judge: Judge) -> None:
        """Say that a judge without a stable name, whose run would cache, caches nothing."""
        from ..judges.runtime import JudgeRuntime

        if isinstance(judge, JudgeRuntime) and judge.config.cache is not None:
            self.session.notice(
                f"rag-eval: judge {judge.describe()} has no stable name (a lambda, a "
                "function defined inside another, a callable object): its answers are not "
                "cached on disk; name it to cache them: "
                'CallableJudge(fn, model="my-judge-v1")'
            )

    def identity(self, judge: Judge | None) -> str:
        """The judge's one identity in this run: its fingerprint (and its number of votes:
        another vote is another outcome), or, for a judge without one, its place among the
        run's unnamed judges. ``""`` for no judge. Answers are shared only between equal
        identities."""
        from ..judges.base import run_identity

        if judge is None:
            return ""
        unnamed = judge.fingerprint() is None
        fingerprint = f"unnamed {self._unnamed_number(judge)}" if unnamed else None
        identity = run_identity(judge, fingerprint)
        assert identity is not None
        return identity

    def _unnamed_number(self, judge: Judge) -> int:
        """The judge's place among the run's judges without a fingerprint (a new one last)."""
        number = next((i for i, j in enumerate(self._unnamed) if j is judge), None)
        if number is None:
            number = len(self._unnamed)
            self._unnamed.append(judge)
        return number

    # ------------------------------------------------------------------ embeddings

    def embedder(self, judge: Judge | None) -> Embed | None:
        """Embeddings for the metrics that use them: the judge's own when it has them, else
        the offline model when its extra is installed, else ``None``. Call only for a metric
        that embeds: the offline model is loaded on first use."""
        if judge is not None and self.embeds_itself(judge):
            for known, embed in self._embeds:
                if known is judge:
                    return embed
            scrubbed = scrubbing(embedding(judge).embed, self.session.redactor)
            self._embeds.append((judge, scrubbed))
            return scrubbed
        if not self._local_embed_checked:
            self._local_embed_checked = True
            self._local_embed = local_embedder(
                self.session.settings.judge.local.device, self.vector_cache_dir()
            )
        return self._local_embed

    @staticmethod
    def embeds_itself(judge: Judge | None) -> bool:
        """Whether the judge embeds (the offline judge, a class of the user's with its own
        ``embed``): its judged metrics load a model."""
        from ..judges.base import Judge as JudgeBase

        return judge is not None and type(embedding(judge)).embed is not JudgeBase.embed

    def vector_cache_dir(self) -> Path | None:
        """Where sentence vectors are kept between runs: the judge cache's folder, unless
        caching is off."""
        from ..judges.run_config import cache_for

        cache = cache_for(self.session.settings.judge, self.session.judge_cache_dir)
        return cache.directory if cache is not None else None

    def all(self) -> list[Judge]:
        """Every judge built for this run (to close at its end)."""
        return list(self._judges)


def embedding(judge: Judge) -> Judge | Backend:
    """The judge whose ``embed`` gives a judge's embeddings: an LLM judge's backend (a
    class of the user's may have its own), else the judge itself."""
    from ..judges.runtime import JudgeRuntime

    return judge.backend if isinstance(judge, JudgeRuntime) else judge


def scrubbing(embed: Embed, redactor: Redactor) -> Embed:
    """A judge's ``embed`` that never sends a known secret: its embeddings may come from a
    provider, like its answers."""

    async def scrubbed(texts: list[str]) -> list[list[float]]:
        return await embed([redactor.text(text) for text in texts])

    return scrubbed


def local_embedder(device: str = "cpu", cache_dir: Path | None = None) -> Embed | None:
    """The offline embedding model's ``embed``, or ``None`` when the extra is missing."""
    try:
        from ..judges.local.embeddings import shared_embedder
    except ImportError:
        return None
    embedder = shared_embedder(device)
    if embedder is not None:
        embedder.use_cache(cache_dir)
    return embedder.embed if embedder is not None else None
