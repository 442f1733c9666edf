"""Credentials for the controller, kept out of logs, reprs and error messages.

Pinot compares the ``Authorization`` header verbatim (basic auth after trimming and dropping ``=``
padding), so every style reduces to one header value. The value lives in a private slot; ``repr`` and
``str`` show only the style (and the user name for basic auth).
"""
from __future__ import annotations

import base64
import re
from typing import Any, Mapping
from urllib.parse import unquote, urlsplit, urlunsplit

from type_mapping.errors import REDACTED, redact_text  # noqa: F401  (the one rule; re-exported for the controller)

# Option / header names whose values are secrets wherever they appear (Spark option dumps, CLI echo).
SECRET_NAME = re.compile(r"(?i)pass(word)?|secret|token|authorization|auth[-_.]?header|api[-_.]?key|credential")


class Auth:
    """One way of authenticating: ``Auth.basic``, ``Auth.bearer`` or ``Auth.header`` (a raw value)."""

    __slots__ = ("kind", "user", "_value")

    def __init__(self, kind: str, value: str, user: str | None = None) -> None:
        if not value:
            raise ValueError(f"{kind} auth needs a non-empty secret")
        self.kind = kind
        self.user = user
        self._value = value

    @classmethod
    def basic(cls, user: str, password: str | None) -> "Auth":
        if not user:
            raise ValueError("basic auth needs a user name")
        token = base64.b64encode(f"{user}:{password or ''}".encode("utf-8")).decode("ascii")
        return cls("basic", f"Basic {token}", user=user)

    @classmethod
    def bearer(cls, token: str) -> "Auth":
        if not token or not token.strip():
            raise ValueError("bearer auth needs a non-empty token")
        return cls("bearer", f"Bearer {token}")

    @classmethod
    def header(cls, value: str) -> "Auth":
        """The whole ``Authorization`` value as the cluster expects it (Pinot's own clients do this)."""
        return cls("header", value)

    def header_value(self) -> str:
        return self._value

    def apply(self, headers: dict[str, str]) -> None:
        headers["Authorization"] = self._value

    def __repr__(self) -> str:
        if self.kind == "basic":
            return f"Auth.basic(user={self.user!r}, password={REDACTED})"
        return f"Auth.{self.kind}({REDACTED})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Auth) and (self.kind, self.user, self._value) == (other.kind, other.user, other._value)

    def __hash__(self) -> int:
        return hash((self.kind, self.user, self._value))

    def __getstate__(self):  # __slots__ classes need explicit pickling support
        return (self.kind, self.user, self._value)

    def __setstate__(self, state) -> None:
        self.kind, self.user, self._value = state


def split_url_credentials(url: str) -> tuple[str, Auth | None]:
    """``http://user:pw@host:9000`` -> (``http://host:9000``, basic auth); a URL never carries a secret onward."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    clean = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return clean, Auth.basic(unquote(parts.username or ""), unquote(parts.password or ""))


def redact_headers(headers: Mapping[str, Any] | None) -> dict[str, Any]:
    """A copy safe to print: values of secret-looking header names replaced."""
    return {k: (REDACTED if SECRET_NAME.search(str(k)) else v) for k, v in (headers or {}).items()}


def redact_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None and parts.username is None:
        return url
    host = parts.hostname or ""
    netloc = f"{REDACTED}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
