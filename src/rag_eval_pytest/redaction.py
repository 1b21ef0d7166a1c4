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
_MIN_SECRET_LENGTH = 4
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
    r"key|token|secret|passw|passphrase|auth|credential|cookie|signature|bearer",
    re.IGNORECASE,
)
# ...and these as whole words of the name (``pw`` inside another word is not a credential).
_CREDENTIAL_PARTS = frozenset({"pw", "pwd", "code", "sig", "otp"})


def is_credential_name(name: str) -> bool:
    """Whether a header, query parameter, config key or variable named so holds a credential."""
    if _CREDENTIAL_WORDS.search(name):
        return True
    return any(part in _CREDENTIAL_PARTS for part in re.split(r"[^a-z0-9]+", name.lower()))


def derived_forms(secret: str) -> set[str]:
    """The forms a secret takes on its way out: URL-encoded (in a query string or a form
    body) and base64 (in a Basic ``Authorization`` header, or a service's debug dump)."""
    forms = {secret, quote(secret, safe=""), quote_plus(secret, safe="")}
    raw = secret.encode("utf-8", errors="replace")
    for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        text = encoded.decode("ascii")
        forms.update({text, text.rstrip("=")})
    return {form for form in forms if len(form) >= _MIN_SECRET_LENGTH}


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
    """Replaces known secret values (API keys, header values) by ``[REDACTED]``."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self.add(*secrets)

    @classmethod
    def from_environment(cls, extra: Iterable[str] = ()) -> Redactor:
        values = [os.environ.get(name, "") for name in SECRET_ENV_VARS]
        header = os.environ.get("RAG_AUTH_HEADER", "")
        if ":" in header:
            values.append(header.split(":", 1)[1].strip())
        for name in SECRET_URL_ENV_VARS:
            values.extend(url_secrets(os.environ.get(name, "")))
        return cls([*values, *extra])

    def add(self, *secrets: str) -> None:
        for secret in secrets:
            secret = secret.strip()
            if len(secret) >= _MIN_SECRET_LENGTH:
                self._secrets.update(derived_forms(secret))
                # "Bearer abc" also leaks as "abc".
                scheme, _, token = secret.partition(" ")
                if token and len(token) >= _MIN_SECRET_LENGTH and scheme.isalpha():
                    self._secrets.update(derived_forms(token))

    def __repr__(self) -> str:
        return f"Redactor(<{len(self._secrets)} secret forms>)"

    def text(self, value: str) -> str:
        for secret in sorted(self._secrets, key=len, reverse=True):
            if secret in value:
                value = value.replace(secret, MASK)
        return value

    def data(self, value: Any) -> Any:
        """Redact every string inside JSON-like data."""
        if not self._secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.data(k): self.data(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(v) for v in value]
        return value


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
