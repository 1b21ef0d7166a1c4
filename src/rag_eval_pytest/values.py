"""Values of options and settings that lower layers check too: URLs and HTTP headers.

Stdlib only, and the messages never repeat a value that may hold a credential.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit


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
    scheme, sep, _ = text.partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        plain = sep and scheme.isalnum() and len(scheme) < 16
        shown = f" (its scheme is {scheme!r})" if plain else ""
        raise OptionValueError(f"not an http:// or https:// URL{shown}")
    if _CONTROL.search(text) or any(ch.isspace() for ch in text):
        raise OptionValueError("the URL contains a space, a line break or a control character")
    try:
        parts = urlsplit(text)
    except ValueError:
        raise OptionValueError("the URL's host is not a valid name or IPv6 address") from None
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        raise OptionValueError("the URL's port is not a number from 1 to 65535")
    if not parts.hostname:
        raise OptionValueError("the URL names no host")
    return text
