"""Secrets never reach an output: every string written by the plugin passes through here."""

from __future__ import annotations

import base64
import os
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlsplit, urlunsplit

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

MASK = "[REDACTED]"
# Environment variables whose values are credentials wherever they appear...
SECRET_ENV_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "RAG_AUTH_HEADER", "RAG_JUDGE_API_KEY")
# ...and those holding a URL whose user info or credential parameters are.
SECRET_URL_ENV_VARS = ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL")
MIN_SECRET_LENGTH = 8
"""A value shorter than this is too weak to be masked inside a text (see :func:`too_weak`)."""
_MIN_FORM_LENGTH = 4
# Values of these HTTP headers are not credentials; every other header value is redacted.
PLAIN_HEADERS = frozenset(
    {
        "accept",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "connection",
        "content-type",
        "user-agent",
    }
)
# Names that mark a credential, wherever a name comes with a value: header names, query
# parameters of the endpoint, config keys and environment variables (``API_KEY``,
# ``X-Auth-Token``, ``?sig=``, ``DB_PASSWD``), matched anywhere in the name...
_CREDENTIAL_WORDS = re.compile(
    r"key|token|secret|passw|passphrase|auth|credential|cookie|signature|bearer|jwt|hmac"
    r"|session|sessid",
    re.IGNORECASE,
)
# ...and these as whole words of the name (``pw`` inside another word is not a credential,
# ``pass`` in ``passes`` neither).
_CREDENTIAL_PARTS = frozenset({"pw", "pwd", "pass", "code", "sig", "otp", "pin", "sid", "sas"})
# A query parameter (or a fragment's, ``#access_token=``) inside any text: its value is masked
# when its name marks a credential, whatever the value's length.
_QUERY_PAIR = re.compile(r"(?P<lead>[?&#](?P<name>[^=&#?\s/\"'<>]+)=)(?P<value>[^&#\s\"'<>]+)")


def is_credential_name(name: str) -> bool:
    """Whether a header, query parameter, config key or variable named so holds a credential."""
    if _CREDENTIAL_WORDS.search(name):
        return True
    return any(part in _CREDENTIAL_PARTS for part in re.split(r"[^a-z0-9]+", name.lower()))


def too_weak(value: str) -> bool:
    """Whether ``value`` is too short or too common to be a secret (a placeholder: ``EMPTY``,
    ``ollama``, ``dummy``, ``none``): fewer than :data:`MIN_SECRET_LENGTH` characters, or one
    word (letters only, all lower case, all upper case or capitalized). Such a value is not
    masked inside texts, where it is a word of their own ("What is the refund policy?" with
    a key ``refund``); where it appears as a credential's value (a header, a key in the
    settings, a query parameter named like a credential) it is masked all the same."""
    value = value.strip()
    if len(value) < MIN_SECRET_LENGTH:
        return True
    return value.isalpha() and (value.islower() or value.isupper() or value.istitle())


def derived_forms(secret: str) -> set[str]:
    """The forms a secret takes on its way out: URL-encoded (in a query string or a form
    body) and base64 (in a Basic ``Authorization`` header, or a service's debug dump)."""
    forms = {secret, quote(secret, safe=""), quote_plus(secret, safe="")}
    raw = secret.encode("utf-8", errors="replace")
    for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        text = encoded.decode("ascii")
        forms.update({text, text.rstrip("=")})
    return {form for form in forms if len(form) >= _MIN_FORM_LENGTH}


def basic_credentials(username: str, password: str) -> str:
    """``base64(user:password)``, the token of a Basic ``Authorization`` header."""
    return base64.b64encode(f"{username}:{password}".encode()).decode("ascii")


def url_secrets(url: str) -> list[str]:
    """Credentials inside a URL (the RAG endpoint, a judge's base URL): the user info's
    password (as written, decoded, and as the ``base64(user:password)`` of the Basic header it
    becomes), and the values of query parameters named like credentials (``?code=...``,
    ``?api_key=...``, ``?sig=...``)."""
    try:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=False)
        password = parts.password
    except ValueError:
        return []
    found = [value for name, value in query if is_credential_name(name)]
    if password:
        user = unquote(parts.username or "")
        found += [password, unquote(password), basic_credentials(user, unquote(password))]
    return found


class Redactor:
    """Replaces known secret values (API keys, header values) by ``[REDACTED]`` wherever they
    appear, and the value of any query parameter named like a credential (``?pin=123``)."""

    def __init__(self, secrets: Iterable[str] = (), *, source: str = "a credential") -> None:
        self._secrets: set[str] = set()
        self._weak: dict[str, str] = {}  # a value too weak to mask in texts: where it is from
        self.add(*secrets, source=source)

    @classmethod
    def from_environment(cls, extra: Iterable[str] = ()) -> Redactor:
        redactor = cls()
        for name in SECRET_ENV_VARS:
            redactor.add(os.environ.get(name, ""), source=name)
        header = os.environ.get("RAG_AUTH_HEADER", "")
        if ":" in header:
            redactor.add(header.split(":", 1)[1].strip(), source="RAG_AUTH_HEADER")
        for name in SECRET_URL_ENV_VARS:
            redactor.add(*url_secrets(os.environ.get(name, "")), source=name)
        redactor.add(*extra, source="a ${VAR} credential of the configuration")
        return redactor

    def add(self, *secrets: str, source: str = "a credential") -> None:
        """Mask ``secrets`` from now on; ``source`` says where they come from, for the notice
        of those too weak to be masked in texts (:func:`too_weak`)."""
        for secret in secrets:
            self._add(secret.strip(), source)

    def _add(self, secret: str, source: str) -> None:
        if not secret:
            return
        if too_weak(secret):
            self._weak.setdefault(secret, source)
            return
        self._secrets.update(derived_forms(secret))
        # "Bearer abc" also leaks as "abc".
        scheme, _, token = secret.partition(" ")
        if token and scheme.isalpha() and not too_weak(token):
            self._secrets.update(derived_forms(token))

    def weak_sources(self) -> list[str]:
        """Where the values too weak to be masked in texts come from, each once."""
        return list(dict.fromkeys(self._weak.values()))

    def __repr__(self) -> str:
        return f"Redactor(<{len(self._secrets)} secret forms>)"

    def text(self, value: str) -> str:
        for secret in sorted(self._secrets, key=len, reverse=True):
            if secret in value:
                value = value.replace(secret, MASK)
        if "=" in value:
            value = _QUERY_PAIR.sub(_masked_pair, value)
        return value

    def data(self, value: Any) -> Any:
        """Redact every string inside JSON-like data."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.data(k): self.data(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(v) for v in value]
        return value


def _masked_pair(match: re.Match[str]) -> str:
    if match["value"] == MASK or not is_credential_name(unquote(match["name"])):
        return match[0]
    return match["lead"] + MASK


def weak_secrets_notice(sources: Iterable[str]) -> str:
    """The notice of credentials too short or too common to be masked inside texts."""
    return (
        f"the value of {', '.join(sources)} is too short or too common to be a secret (fewer "
        f"than {MIN_SECRET_LENGTH} characters, or one word such as EMPTY or ollama): it is "
        "not masked inside answers, contexts, prompts and reports, where it would change "
        "what they say; it is still never shown as the credential's own value"
    )


def header_secrets(headers: Mapping[str, str]) -> list[str]:
    """The header values to redact: all but a few well-known non-credential headers."""
    return [v for k, v in headers.items() if k.lower() not in PLAIN_HEADERS and v.strip()]


def display_url(url: str) -> str:
    """A URL without its user info or query string (either may hold a credential)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "<invalid URL>"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if port:
        host = f"{host}:{port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
