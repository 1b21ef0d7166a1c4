"""Values of options and settings that lower layers check too: URLs and HTTP headers, and
the headers a configuration gives (config, ``--rag-header``, ``RAG_AUTH_HEADER``).

Stdlib only, and the messages never repeat a value that may hold a credential.
"""

from __future__ import annotations

import os
import re
import types
from typing import TYPE_CHECKING, Annotated, Any, Union, get_args, get_origin
from urllib.parse import SplitResult, urlsplit

from .errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

AUTH_HEADER_ENV = "RAG_AUTH_HEADER"


class OptionValueError(ValueError):
    """A URL or HTTP header value that cannot be used, whatever gave it.

    The settings model's validators raise it (a ``ValueError``, which pydantic reports with
    the key), and so do the checks of values read from the environment and of an adapter
    built by hand; the message never repeats the value.
    """


_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
# C0 controls but the tab, and DEL: a header value holding one (a pasted newline) is refused by
# the HTTP client at every request, with the value in its message.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def check_header(name: str, value: str) -> None:
    """Raise OptionValueError for a header the HTTP client would refuse; never echo the value
    (a header value is usually a credential)."""
    if not _HEADER_NAME.fullmatch(name):
        raise OptionValueError("the header name is not a valid HTTP header name")
    if _CONTROL.search(value):
        raise OptionValueError(
            f"the value of header {name} contains a line break or another control character"
        )


def header_line(text: str) -> str:
    """An HTTP header as ``"Name: value"`` (``--rag-header``), returned as given."""
    name, sep, value = text.partition(":")
    if not sep or not name.strip() or not value.strip() or " " in name.strip():
        # Never echo the text: it is usually a credential.
        raise OptionValueError('expected "Name: value", e.g. "Authorization: ..."')
    check_header(name.strip(), value.strip())
    return text


def http_url(text: str) -> str:
    """An ``http://`` or ``https://`` URL that an HTTP client accepts, returned as given.

    The messages never repeat the URL: its user info or query string may hold a credential.
    """
    _check_scheme(text)
    if _CONTROL.search(text) or any(ch.isspace() for ch in text):
        raise OptionValueError("the URL contains a space, a line break or a control character")
    _check_address(text)
    return text


def _check_scheme(text: str) -> None:
    scheme, sep, _ = text.partition("://")
    if sep and scheme.lower() in ("http", "https"):
        return
    plain = sep and scheme.isalnum() and len(scheme) < 16
    shown = f" (its scheme is {scheme!r})" if plain else ""
    raise OptionValueError(f"not an http:// or https:// URL{shown}")


def _check_address(text: str) -> None:
    """The URL's host and port, as an HTTP client reads them."""
    try:
        parts = urlsplit(text)
    except ValueError:
        raise OptionValueError("the URL's host is not a valid name or IPv6 address") from None
    if _port(parts) == 0:
        raise OptionValueError("the URL's port is not a number from 1 to 65535")
    if not parts.hostname:
        raise OptionValueError("the URL names no host")


def _port(parts: SplitResult) -> int | None:
    """The URL's port, ``None`` when it names none, 0 when it is not one."""
    try:
        return parts.port
    except ValueError:
        return 0


def parse_header_line(line: str, *, origin: str) -> tuple[str, str]:
    """``"Name: value"`` -> ``(name, value)``; the error never repeats the value."""
    name, sep, value = line.partition(":")
    name, value = name.strip(), value.strip()
    if not sep or not name or not value or " " in name:
        raise ConfigError(f'{origin} is not of the form "Name: value"')
    try:
        check_header(name, value)
    except OptionValueError as exc:
        raise ConfigError(f"{origin}: {exc}") from None
    return name, value


def resolve_headers(
    config_headers: Mapping[str, str] | None = None,
    header_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Merge headers, highest precedence first: config ``http.headers`` > ``--rag-header``
    > ``RAG_AUTH_HEADER``. Names compare case-insensitively; the winner's spelling is kept."""
    env = os.environ if env is None else env
    merged: dict[str, tuple[str, str]] = {}
    given = [*_env_header(env), *_arg_headers(header_args), *_config_headers(config_headers)]
    for name, value in given:
        merged[name.lower()] = (name, value)
    return dict(merged.values())


def _env_header(env: Mapping[str, str]) -> list[tuple[str, str]]:
    line = env.get(AUTH_HEADER_ENV, "").strip()
    if not line:
        return []
    return [parse_header_line(line, origin=f"environment variable {AUTH_HEADER_ENV}")]


def _arg_headers(header_args: Sequence[str]) -> list[tuple[str, str]]:
    return [
        parse_header_line(line, origin=f"--rag-header number {n}")
        for n, line in enumerate(header_args, 1)
    ]


def _config_headers(config_headers: Mapping[str, str] | None) -> list[tuple[str, str]]:
    headers: list[tuple[str, str]] = []
    for name, value in (config_headers or {}).items():
        try:
            check_header(name, str(value))
        except OptionValueError as exc:
            raise ConfigError(f"http.headers: {exc}") from None
        headers.append((name, str(value)))
    return headers


def not_a_bool(value: object) -> object:
    """``value``, unless it is ``true`` or ``false``: Python counts a bool as the number 1
    or 0, so a setting that wants a number would read ``deadline: true`` as one second."""
    if isinstance(value, bool):
        raise ValueError(f"{str(value).lower()} is not a number")
    return value


def _wants_number(annotation: object) -> bool:
    origin = get_origin(annotation)
    if origin is Annotated:
        return _wants_number(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        options = get_args(annotation)
        return bool not in options and any(_wants_number(a) for a in options)
    return annotation in (int, float)


def numbers_not_bools(cls: Any, value: object, info: Any) -> object:
    """A settings model's validator of every field, before pydantic's own: a bool given
    where the field wants a number is refused (:func:`not_a_bool`). Attach it with
    ``field_validator("*", mode="before")(numbers_not_bools)``."""
    if isinstance(value, bool) and _wants_number(cls.model_fields[info.field_name].annotation):
        not_a_bool(value)
    return value
