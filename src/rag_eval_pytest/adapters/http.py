"""``HttpAdapter``: the RAG system under test is an HTTP endpoint (httpx, async).

One ``httpx.AsyncClient`` per adapter, created on the plugin's event loop at the first query,
so every case reuses its connections; :meth:`HttpAdapter.aclose` closes it at the end of the
run. Each attempt is bounded by the timeout; connect errors, timeouts, dropped connections,
408, 409, 429 and 5xx are retried by the plugin's one retry policy
(:mod:`rag_eval_pytest.runtime.retry`: exponential backoff 1, 2, 4 s plus jitter, or the
server's ``Retry-After`` capped at 60 s).
Anything else that goes wrong is an :class:`~rag_eval_pytest.errors.AdapterError`
naming what was expected and showing a short excerpt of the body, which makes the case an
*error* rather than a failure.

Header values are credentials: :meth:`HttpAdapter.secrets` hands them to the run's redactor,
and neither :meth:`describe`, the error messages nor the log lines contain them. httpx is
imported when the first client is built, never when the plugin is dormant.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import unquote, urlsplit, urlunsplit

from ..data.response import Context, RAGResponse
from ..errors import AdapterError, ConfigError
from ..redaction import (
    PLAIN_HEADERS,
    Redactor,
    basic_credentials,
    header_secrets,
    url_secrets,
)
from ..redaction import display_url as _display_url
from ..runtime.retry import RetryPolicy, Sleep, is_transient_status, retry_after
from ..values import OptionValueError, http_url, resolve_headers
from .base import RAGAdapter
from .paths import PathError, ResponsePath

if TYPE_CHECKING:
    import httpx

    from ..config.settings import HttpSettings
    from ..data.response import Message

log = logging.getLogger(__name__)

DEFAULT_TEMPLATE: dict[str, Any] = {"question": "{question}"}
PLACEHOLDER = "{question}"
HISTORY = "{history}"
"""The earlier turns of a conversation, ``[{"role": ..., "content": ...}]`` (empty for a case
that is no conversation)."""
MESSAGES = "{messages}"
"""The earlier turns and the question as the last user message: a chat API's ``messages``."""
EXCERPT_CHARS = 200
_TEXT_KEYS = ("text", "content", "page_content", "chunk")
_SOURCE_KEYS = ("source", "doc_id", "document_id", "id", "file_name", "filename", "url")

# --------------------------------------------------------------------------- headers


def basic_auth_header(url: str) -> tuple[str, str | None]:
    """The URL without its user info, and the ``Authorization`` value that user info stands
    for (``Basic base64(user:password)``), or None when the URL has none."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None
    host = parts.netloc.rpartition("@")[2]
    bare = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    token = basic_credentials(unquote(parts.username or ""), unquote(parts.password or ""))
    return bare, f"Basic {token}"


# --------------------------------------------------------------------------- retries


class _Retryable(Exception):
    """One failed attempt that may succeed if tried again."""

    def __init__(self, summary: str, retry_after: float | None = None) -> None:
        super().__init__(summary)
        self.summary = summary
        self.retry_after = retry_after


# --------------------------------------------------------------------------- the adapter


class HttpAdapter(RAGAdapter):
    """Queries an HTTP endpoint: ``{question}`` in ``body`` is replaced by each question,
    ``{history}`` by a conversation's earlier turns and ``{messages}`` by those turns and the
    question (``[{"role": "user"|"assistant", "content": ...}]``).

    ``answer``, ``contexts`` and ``sources`` are response paths (``data.answer``,
    ``data.documents[*].text``); ``contexts=None`` means the system returns no contexts.
    ``headers`` win over ``header_args`` (``"Name: value"`` lines), which win over the
    ``RAG_AUTH_HEADER`` environment variable. ``sleep``, ``clock`` and ``rand`` are
    injectable so tests can observe the backoff without waiting for it.
    """

    kind = "http"

    def __init__(
        self,
        endpoint: str,
        *,
        method: Literal["POST", "GET", "PUT"] = "POST",
        body: Mapping[str, Any] | None = None,
        body_format: Literal["json", "form"] = "json",
        headers: Mapping[str, str] | None = None,
        header_args: Sequence[str] = (),
        answer: str = "answer",
        contexts: str | None = "contexts",
        sources: str | None = None,
        timeout: float = 30.0,
        max_response_bytes: int = 10_000_000,
        retry: RetryPolicy | None = None,
        env: Mapping[str, str] | None = None,
        sleep: Sleep | None = None,
        clock: Callable[[], float] = time.perf_counter,
        rand: Callable[[], float] = random.random,
    ) -> None:
        _check_endpoint(endpoint, timeout)
        self.endpoint = endpoint
        self.method = method
        self.template: dict[str, Any] = _template(method, body)
        self.body_format = body_format
        self.headers = resolve_headers(headers, header_args, env)
        self._url = self._take_user_info(endpoint)
        self.answer_path, self.contexts_path, self.sources_path = _paths(answer, contexts, sources)
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        self.retry = retry or RetryPolicy()
        self._sleep: Sleep = sleep or self.retry.sleep
        self._clock = clock
        self._rand = rand
        self._redactor = Redactor([*self.secrets(), *url_secrets(endpoint)])
        self._log_filter = _UrlLogFilter(endpoint, self._redactor)
        self._client: httpx.AsyncClient | None = None

    def _take_user_info(self, endpoint: str) -> str:
        """The URL without its user info, which stands for a Basic Authorization header; an
        Authorization header given explicitly (config, --rag-header, RAG_AUTH_HEADER) wins
        over it."""
        url, basic = basic_auth_header(endpoint)
        if basic is not None and not any(k.lower() == "authorization" for k in self.headers):
            self.headers["Authorization"] = basic
        return url

    @classmethod
    def from_settings(
        cls, settings: HttpSettings, env: Mapping[str, str] | None = None, **kwargs: Any
    ) -> HttpAdapter:
        """The adapter described by the ``http:`` config section and its options."""
        if not settings.endpoint:
            raise ConfigError(
                "the http adapter needs an endpoint: --rag-endpoint URL (or http.endpoint "
                "in eval-config.yaml)"
            )
        return cls(
            settings.endpoint,
            method=settings.method,
            body=settings.body,
            body_format=settings.body_format,
            headers=settings.headers,
            header_args=settings.header_args,
            answer=settings.response.answer,
            contexts=settings.response.contexts,
            sources=settings.response.sources,
            timeout=settings.timeout,
            max_response_bytes=settings.max_response_bytes,
            retry=RetryPolicy.from_settings(settings.retry),
            env=env,
            **kwargs,
        )

    # ------------------------------------------------------------------ contract

    def describe(self) -> str:
        return f"http {self.method} {_display_url(self.endpoint)}"

    def __repr__(self) -> str:
        return f"HttpAdapter({self.describe()!r})"

    def secrets(self) -> list[str]:
        return header_secrets(self.headers)

    async def aquery(self, question: str) -> RAGResponse:
        if self._client is None:
            self._client = self._new_client()
        return await self._query(self._client, question, ())

    async def aquery_turn(self, question: str, history: Sequence[Message]) -> RAGResponse:
        if not _mentions_history(self.template):
            raise self._fail(
                'a conversation\'s turn needs its history in the request: put "{history}" '
                '(the earlier turns) or "{messages}" (the earlier turns and the question) '
                "in http.body"
            )
        if self._client is None:
            self._client = self._new_client()
        return await self._query(self._client, question, history)

    def query(self, question: str) -> RAGResponse:
        """Sync form: a private event loop and client (the plugin itself uses :meth:`aquery`)."""

        async def once() -> RAGResponse:
            client = self._new_client()
            try:
                return await self._query(client, question, ())
            finally:
                await client.aclose()
                if self._client is None:
                    _HTTPX_LOG.removeFilter(self._log_filter)

        return asyncio.run(once())

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()
        _HTTPX_LOG.removeFilter(self._log_filter)

    # ------------------------------------------------------------------ internals

    def _new_client(self) -> httpx.AsyncClient:
        import httpx

        _HTTPX_LOG.addFilter(self._log_filter)  # idempotent; removed again by aclose
        return httpx.AsyncClient(
            headers=self.headers,
            timeout=httpx.Timeout(self.timeout),
            follow_redirects=True,
            event_hooks={"request": [self._strip_secrets_off_origin]},
        )

    async def _strip_secrets_off_origin(self, request: httpx.Request) -> None:
        """A redirect to another origin (scheme, host or port) gets none of the configured
        credential headers: httpx itself drops only ``Authorization``."""
        if _origin(str(request.url)) == _origin(self._url):
            return
        for name in self.headers:
            if name.lower() not in PLAIN_HEADERS and name in request.headers:
                del request.headers[name]

    def _fail(self, message: str) -> AdapterError:
        return AdapterError(self._redactor.text(f"{self.describe()}: {message}"))

    async def _query(
        self, client: httpx.AsyncClient, question: str, turns: Sequence[Message]
    ) -> RAGResponse:
        history: list[str] = []
        attempts = self.retry.max_attempts
        for attempt in range(1, attempts + 1):
            started = self._clock()
            try:
                body, content_type = await asyncio.wait_for(
                    self._attempt(client, question, turns), timeout=self.timeout
                )
            except _Retryable as exc:
                history.append(exc.summary)
                asked = exc.retry_after
            except asyncio.TimeoutError:
                history.append(f"timeout after {self.timeout:g} s")
                asked = None
            else:
                latency = self._clock() - started
                return self._parse(body, content_type, latency)
            if attempt == attempts:
                break
            delay = self.retry.delay(attempt, self._rand(), asked)
            log.info(
                "%s: attempt %d/%d: %s; retrying in %.1f s",
                self.describe(),
                attempt,
                attempts,
                self._redactor.text(history[-1]),
                delay,
            )
            await self._sleep(delay)
        tried = "1 attempt" if attempts == 1 else f"{attempts} attempts"
        raise self._fail(f"unreachable after {tried}: {'; '.join(history)}")

    async def _attempt(
        self, client: httpx.AsyncClient, question: str, turns: Sequence[Message]
    ) -> tuple[bytes, str]:
        import httpx

        try:
            async with client.stream(
                self.method, self._url, **self._request(question, turns)
            ) as response:
                status = response.status_code
                if is_transient_status(status):
                    raise _Retryable(f"HTTP {status}", retry_after(response.headers))
                body = await self._read(response)
                content_type = response.headers.get("content-type", "")
        except httpx.TimeoutException:
            raise _Retryable(f"timeout after {self.timeout:g} s") from None
        except (httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            raise _Retryable(_network_summary(exc)) from None
        except httpx.HTTPError as exc:
            raise self._fail(f"request failed: {type(exc).__name__}: {exc}") from None
        if status >= 400:
            raise self._fail(f"HTTP {status} (not retried): {_excerpt(body)}")
        return body, content_type

    def _request(self, question: str, turns: Sequence[Message]) -> dict[str, Any]:
        """The request's query parameters, form or JSON body, filled in for the question."""
        payload = _fill(self.template, question, turns)
        if self.method == "GET":
            return {"params": {k: str(v) for k, v in payload.items()}}
        if self.body_format == "form":
            return {
                "data": {k: v if isinstance(v, str) else json.dumps(v) for k, v in payload.items()}
            }
        return {"json": payload}

    async def _read(self, response: httpx.Response) -> bytes:
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_response_bytes:
            raise self._fail(
                f"response of {int(declared)} bytes exceeds the limit of "
                f"{self.max_response_bytes} bytes (http.max_response_bytes)"
            )
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > self.max_response_bytes:
                raise self._fail(
                    f"response exceeds the limit of {self.max_response_bytes} bytes "
                    "(http.max_response_bytes)"
                )
            chunks.append(chunk)
        return b"".join(chunks)

    def _parse(self, body: bytes, content_type: str, latency: float) -> RAGResponse:
        data = self._json(body, content_type)
        answer, contexts, sources = self._extract(data, body)
        return RAGResponse(
            answer=answer,
            contexts=_with_sources(contexts, sources),
            sources=sources,
            latency=latency,
            raw=data,
        )

    def _json(self, body: bytes, content_type: str) -> Any:
        try:
            return json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError):
            kind = f" ({content_type.split(';')[0]})" if content_type else ""
            raise self._fail(f"response is not JSON{kind}: {_excerpt(body)}") from None

    def _extract(self, data: Any, body: bytes) -> tuple[str, list[Context] | None, list[str]]:
        """The answer, the contexts and the sources at their paths in the response."""
        try:
            answer = self.answer_path.extract(data)
            contexts = _contexts(self.contexts_path, data)
            sources = _sources(self.sources_path, data)
        except PathError as exc:
            raise self._fail(
                f"response has no {exc.path!r} ({exc.where}: {exc.reason}): {_excerpt(body)}"
            ) from None
        except _ShapeError as exc:
            raise self._fail(f"{exc}: {_excerpt(body)}") from None
        if not isinstance(answer, str):
            raise self._fail(
                f"response {self.answer_path.text!r} is not a string: {_excerpt(body)}"
            )
        return answer, contexts, sources


# --------------------------------------------------------------------------- helpers


class _ShapeError(ValueError):
    """A value was found at its path but has the wrong type."""


def _check_endpoint(endpoint: str, timeout: float) -> None:
    try:
        http_url(endpoint)
    except OptionValueError as exc:
        raise ConfigError(f"http endpoint: {exc}") from None
    if timeout <= 0:
        raise ConfigError("http timeout must be greater than 0")


def _template(method: str, body: Mapping[str, Any] | None) -> dict[str, Any]:
    """The request template (the default: the question alone); a GET request's is flat."""
    template = dict(body if body is not None else DEFAULT_TEMPLATE)
    if method == "GET" and any(isinstance(v, (dict, list)) for v in template.values()):
        raise ConfigError("http body: a GET request sends flat query parameters only")
    return template


def _paths(
    answer: str, contexts: str | None, sources: str | None
) -> tuple[ResponsePath, ResponsePath | None, ResponsePath | None]:
    """The response paths of the answer, the contexts and the sources (``None``: the
    response has none)."""
    try:
        return (
            ResponsePath.parse(answer),
            ResponsePath.parse(contexts) if contexts else None,
            ResponsePath.parse(sources) if sources else None,
        )
    except ValueError as exc:
        raise ConfigError(f"http response path: {exc}") from None


def _with_sources(contexts: list[Context] | None, sources: list[str]) -> list[Context] | None:
    """The contexts, each without a source of its own given the source at its place in the
    sources, when there are as many of them."""
    if contexts is None or not sources or len(sources) != len(contexts):
        return contexts
    return [
        c if c.source else Context(text=c.text, source=s)
        for c, s in zip(contexts, sources, strict=True)
    ]


def _contexts(path: ResponsePath | None, data: Any) -> list[Context] | None:
    if path is None:
        return None
    value = path.extract(data)
    if not isinstance(value, list):
        raise _ShapeError(f"response {path.text!r} is not a list")
    out: list[Context] = []
    for n, item in enumerate(value):
        context = _context(item)
        if context is None:
            raise _ShapeError(
                f"response {path.text!r} item {n} is neither a string nor an object with "
                f"one of {', '.join(_TEXT_KEYS)}"
            )
        out.append(context)
    return out


def _context(item: Any) -> Context | None:
    if isinstance(item, str):
        return Context(text=item)
    if not isinstance(item, Mapping):
        return None
    text = next((item[k] for k in _TEXT_KEYS if isinstance(item.get(k), str)), None)
    if text is None:
        return None
    return Context(text=text, source=_source_of(item))


def _source_of(item: Mapping[str, Any]) -> str | None:
    """A context object's source: the first of its source keys with a plain value, its own
    or its metadata's."""
    metadata = item.get("metadata")
    places = [item, metadata] if isinstance(metadata, Mapping) else [item]
    return next(
        (
            str(p[k])
            for p in places
            for k in _SOURCE_KEYS
            if p.get(k) is not None and not isinstance(p.get(k), (dict, list))
        ),
        None,
    )


def _sources(path: ResponsePath | None, data: Any) -> list[str]:
    if path is None:
        return []
    value = path.extract(data)
    return _source_names(path, value if isinstance(value, list) else [value])


def _source_names(path: ResponsePath, items: list[Any]) -> list[str]:
    if any(isinstance(v, (dict, list)) for v in items):
        raise _ShapeError(f"response {path.text!r} holds objects, not source names")
    return [str(v) for v in items if v is not None]


def _fill(template: Any, question: str, history: Sequence[Message] = ()) -> Any:
    """The template with every ``{question}`` replaced (a whole-string placeholder keeps
    the question as is; inside a longer string it is substituted), and every ``{history}``
    and ``{messages}`` by the list of messages (as JSON text inside a longer string)."""
    if isinstance(template, str):
        return _fill_text(template, question, history)
    if isinstance(template, Mapping):
        return {k: _fill(v, question, history) for k, v in template.items()}
    if isinstance(template, list):
        return [_fill(v, question, history) for v in template]
    return template


def _fill_text(template: str, question: str, history: Sequence[Message]) -> Any:
    if template == PLACEHOLDER:
        return question
    lists = {HISTORY: list(history), MESSAGES: [*history, _user(question)]}
    if template in lists:
        return lists[template]
    for name, messages in lists.items():
        if name in template:
            template = template.replace(name, json.dumps(messages, ensure_ascii=False))
    return template.replace(PLACEHOLDER, question)


def _user(question: str) -> Message:
    return {"role": "user", "content": question}


def check_conversations(
    body: Mapping[str, Any] | None, conversations: Sequence[str], config_file: str
) -> None:
    """Refuse, at the start of a run, a request template that sends no history when the
    run asks conversations of the RAG system: each of their turns would fail.
    ``conversations`` are their keys; ``config_file`` holds ``http.body``."""
    template = DEFAULT_TEMPLATE if body is None else body
    if not conversations or _mentions_history(template):
        return
    shown = ", ".join(conversations[:5]) + (", …" if len(conversations) > 5 else "")
    default = json.dumps(DEFAULT_TEMPLATE)
    given = f"http.body in {config_file}" if body is not None else f"http.body (default {default})"
    raise ConfigError(
        f"{given} sends no history, and the run asks conversations of the RAG system "
        f'({shown}): put "{HISTORY}" (the earlier turns) or "{MESSAGES}" (the earlier '
        "turns and the question) in http.body"
    )


def _mentions_history(template: Any) -> bool:
    """Whether the request template sends a conversation's history."""
    if isinstance(template, str):
        return HISTORY in template or MESSAGES in template
    return any(_mentions_history(value) for value in _inside(template))


def _inside(template: Any) -> list[Any]:
    """The values a part of a request template holds (none for a value that is no mapping
    or list)."""
    if isinstance(template, Mapping):
        return list(template.values())
    if isinstance(template, list):
        return template
    return []


def _excerpt(body: bytes) -> str:
    text = body[: EXCERPT_CHARS * 4].decode("utf-8", errors="replace")
    text = " ".join(text.split())
    if not text:
        return "empty body"
    if len(text) > EXCERPT_CHARS or len(body) > EXCERPT_CHARS * 4:
        return f"body {text[:EXCERPT_CHARS]!r}... ({len(body)} bytes)"
    return f"body {text!r}"


def _network_summary(exc: Exception) -> str:
    import httpx

    if isinstance(exc, httpx.ConnectError):
        return "connection failed"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "connection closed by the server"
    if isinstance(exc, httpx.ReadError):
        return "connection reset while reading"
    return f"network error ({type(exc).__name__})"


_HTTPX_LOG = logging.getLogger("httpx")


class _UrlLogFilter(logging.Filter):
    """httpx logs every request with its full URL at INFO (``HTTP Request: POST URL ...``);
    the endpoint's query string or user info may hold a token (``?code=...``). Shown for the
    adapter's own requests as :func:`_display_url` does, with header values redacted."""

    def __init__(self, endpoint: str, redactor: Redactor) -> None:
        super().__init__()
        parts = urlsplit(endpoint)
        self._where = (parts.hostname, parts.path or "/")
        self._redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(self._clean(arg) for arg in record.args)
        return True

    def _clean(self, arg: object) -> object:
        if isinstance(arg, (str, bytes, int, float)) or arg is None:
            return self._redactor.text(arg) if isinstance(arg, str) else arg
        return self._clean_url(arg)

    def _clean_url(self, arg: object) -> object:
        """An httpx.URL, shown without its query or user info when it is the endpoint's."""
        text = str(arg)
        try:
            parts = urlsplit(text)
        except ValueError:
            return arg
        if (parts.query or parts.username) and (parts.hostname, parts.path or "/") == self._where:
            return _display_url(text)
        return arg


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or {"http": 80, "https": 443}.get(scheme)
    return scheme, (parts.hostname or "").lower(), port
