"""The judges of one process: the configured one, the ones ``rag_judge`` fixtures return, and
their one identity.

Every judge a test uses comes through :class:`JudgeRegistry`: built or adopted once (the
run's limiter, redactor and deadline given to it), known by :meth:`JudgeRegistry.identity`
wherever answers are remembered, and closed at the end of the run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from ..judges.base import Judge
    from ..metrics.base import Embed
    from ..redaction import Redactor
    from .session import EvalSession


@dataclass
class JudgeRegistry:
    """The judges of a run, each adopted once, and their identities."""

    session: EvalSession
    _default: Judge | None = None
    # What each rag_judge value became: a few per run, compared by identity (``is``), so a
    # callable is wrapped once and the object is kept alive with its judge.
    _adopted: list[tuple[object, Judge | None]] = field(default_factory=list)
    _judges: list[Judge] = field(default_factory=list)  # every judge adopted, to close
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
                cache_dir=session.judge_cache_dir,
                search_paths=session.search_paths,
            )
            self._adopt(judge, judge)
            self._default = judge
        return self._default

    def adopt(self, value: object) -> Judge | None:
        """What a ``rag_judge`` fixture gave, as a ready judge (adopted once per object): a
        :class:`Judge`, a ``prompt -> text`` callable, or ``None`` for no judge."""
        if value is None:
            return None
        for kept, judge in self._adopted:
            if kept is value:
                return judge
        from ..judges.factory import as_judge

        session = self.session
        adopted = as_judge(value, session.settings.judge, session.judge_cache_dir)
        self._adopted.append((value, adopted))
        if adopted is not None:
            self._adopt(value, adopted)
        return adopted

    def _adopt(self, value: object, judge: Judge) -> None:
        from ..judges.llm import LLMJudge

        session = self.session
        if not any(kept is value for kept, _ in self._adopted):
            self._adopted.append((value, judge))
        if any(known is judge for known in self._judges):
            return
        self._judges.append(judge)
        for part in judge.parts():  # a cascade's LLM tier is limited like any LLM judge
            if isinstance(part, LLMJudge):
                part.adopt(
                    limiter=session.judge_limiter,
                    redactor=session.redactor,
                    deadline=session.judge_deadline,
                )
        secrets = getattr(judge, "secrets", None)
        if callable(secrets):
            session.add_secrets(secrets(), f"judge {judge.describe()}")
        if judge.fingerprint() is None:
            self._unnamed.append(judge)
            if isinstance(judge, LLMJudge) and judge.cache:
                session.notice(
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
        fingerprint = None
        if judge.fingerprint() is None:
            number = next((i for i, j in enumerate(self._unnamed) if j is judge), None)
            if number is None:
                number = len(self._unnamed)
                self._unnamed.append(judge)
            fingerprint = f"unnamed {number}"
        identity = run_identity(judge, fingerprint)
        assert identity is not None
        return identity

    # ------------------------------------------------------------------ embeddings

    def embedder(self, judge: Judge | None) -> Embed | None:
        """Embeddings for the metrics that use them: the judge's own when it has them, else
        the offline model when its extra is installed, else ``None``. Call only for a metric
        that embeds: the offline model is loaded on first use."""
        from ..judges.base import Judge as JudgeBase

        if judge is not None and type(judge).embed is not JudgeBase.embed:
            for known, embed in self._embeds:
                if known is judge:
                    return embed
            scrubbed = scrubbing(judge.embed, self.session.redactor)
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
        """Whether the judge embeds (the offline judge): its judged metrics load a model."""
        from ..judges.base import Judge as JudgeBase

        return judge is not None and type(judge).embed is not JudgeBase.embed

    def vector_cache_dir(self) -> Path | None:
        """Where sentence vectors are kept between runs: the judge cache's folder, unless
        caching is off."""
        from ..judges.cache import JudgeCache
        from ..judges.factory import cache_for

        cache = cache_for(self.session.settings.judge, self.session.judge_cache_dir)
        return cache.directory if isinstance(cache, JudgeCache) else None

    def all(self) -> list[Judge]:
        """Every judge adopted in this run (to close at its end)."""
        return list(self._judges)


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
