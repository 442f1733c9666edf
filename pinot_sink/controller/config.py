"""``ClientConfig``: how to reach a controller, and the one home of the client's defaults.

Every other place that needs a default (the data source's options, the CLI, the docs) reads it from here:
``ClientConfig.connect_timeout``, ``ClientConfig.read_timeout``, ``ClientConfig.pool_size`` and, for the
retry bounds, ``RetryPolicy.max_attempts`` / ``max_elapsed_s`` / ``initial_backoff_s`` / ``max_backoff_s``
(dataclass defaults are class attributes).

Time limits of one call:

* ``connect_timeout``: each TCP connect (clipped to what is left of the call's deadline).
* ``read_timeout``: from the moment the request has been sent, the *whole* answer (status line, headers
  and body) must arrive within it; a server that trickles bytes cannot stretch it (requests' own read
  timeout is per socket read). A timed-out attempt is retried like any transport failure.
* the call's deadline, ``retry.max_elapsed_s``: connect, send and receive of every attempt, and the
  sleeps between them; nothing of the call runs past it. An upload of a large segment over a slow link
  must fit in it.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Mapping
from urllib.parse import urlsplit

from .auth import REDACTED, Auth, redact_headers, redact_text, split_url_credentials
from .errors import ControllerConfigError
from .retry import RetryPolicy

URL_SCHEMES = ("http", "https")


def validate_controller_url(url: str | None, *, option: str = "url") -> str:
    """The controller URL, checked and normalised (whitespace and trailing ``/`` removed, credentials kept).

    Only ``http`` / ``https`` with a host; anything else is a ``ControllerConfigError`` (a ``ValueError``)
    naming ``option``, raised before any connection is tried. Never shows a password."""
    text = (url or "").strip()
    if not text:
        raise ControllerConfigError("the controller URL is empty (e.g. http://controller:9000)", option=option)
    shown = redact_text(text)
    if "://" not in text:
        if "@" in text:  # user:password@host without a scheme: no URL syntax to redact by
            shown = f"{REDACTED}@{text.rsplit('@', 1)[1]}"
        raise ControllerConfigError(f"{shown!r} has no scheme; did you mean 'http://{shown}'?", option=option)
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in 0..65535
    except ValueError as exc:
        raise ControllerConfigError(f"{shown!r} is not a valid URL ({exc})", option=option) from None
    if parts.scheme.lower() not in URL_SCHEMES:
        raise ControllerConfigError(f"{shown!r} is not an http:// or https:// URL (a Pinot controller speaks "
                                    "HTTP, e.g. http://controller:9000)", option=option)
    if not parts.hostname:
        raise ControllerConfigError(f"{shown!r} has no host", option=option)
    if parts.query or parts.fragment:
        raise ControllerConfigError(f"{shown!r} must not have a query or fragment", option=option)
    return text.rstrip("/")


@dataclass(frozen=True)
class ClientConfig:
    """Everything needed to rebuild a client elsewhere (picklable; secrets redacted in ``repr``).

    ``url`` is validated (``validate_controller_url``); credentials in it (``http://user:pw@host``) become
    basic ``auth`` (unless ``auth`` is given) and leave the URL. ``cert`` is a client certificate for
    mutual TLS: one PEM file holding certificate and key, or ``(certificate, key)``."""

    url: str
    auth: Auth | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    database: str | None = None
    verify: bool | str = True
    cert: str | tuple[str, str] | None = None
    connect_timeout: float = 10.0
    read_timeout: float = 300.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    pool_size: int = 16
    table_type: str = "OFFLINE"  # the type every table-scoped call names (REALTIME: uploaded real-time segments)

    def __post_init__(self) -> None:
        url, url_auth = split_url_credentials(validate_controller_url(self.url))
        set_ = object.__setattr__  # frozen: normalise once, here
        set_(self, "url", url)
        if self.auth is None and url_auth is not None:
            set_(self, "auth", url_auth)
        set_(self, "headers", dict(self.headers or {}))
        if self.connect_timeout <= 0:
            raise ControllerConfigError(f"must be positive, got {self.connect_timeout}", option="timeout.connect")
        if self.read_timeout <= 0:
            raise ControllerConfigError(f"must be positive, got {self.read_timeout}", option="timeout.read")
        set_(self, "connect_timeout", float(self.connect_timeout))
        set_(self, "read_timeout", float(self.read_timeout))
        set_(self, "retry", self.retry or RetryPolicy())
        set_(self, "pool_size", int(self.pool_size))
        set_(self, "table_type", str(self.table_type or "OFFLINE").upper())
        if self.table_type not in ("OFFLINE", "REALTIME"):
            raise ControllerConfigError(f"must be OFFLINE or REALTIME, got {self.table_type!r}", option="table-type")
        if self.cert is not None:
            set_(self, "cert", _client_certificate(self.cert))

    @property
    def deadline_s(self) -> float:
        """The most one call may take, retries included (``retry.max-elapsed``)."""
        return self.retry.max_elapsed_s

    def __repr__(self) -> str:
        return (
            f"ClientConfig(url={self.url!r}, auth={self.auth!r}, headers={redact_headers(self.headers)!r}, "
            f"database={self.database!r}, verify={self.verify!r}, cert={self.cert!r}, "
            f"connect_timeout={self.connect_timeout}, read_timeout={self.read_timeout}, retry={self.retry!r}, "
            f"pool_size={self.pool_size})"
        )


def _client_certificate(cert: str | tuple[str, str] | list[str]) -> str | tuple[str, str]:
    """Check the mTLS files exist now (on the driver) instead of failing in every task's handshake."""
    if isinstance(cert, (tuple, list)):
        if len(cert) != 2:
            raise ControllerConfigError("give a certificate file and a key file", option="tls.client-cert")
        pair = (os.fspath(cert[0]), os.fspath(cert[1]))
        for option, path in zip(("tls.client-cert", "tls.client-key"), pair):
            if not os.path.isfile(path):
                raise ControllerConfigError(f"no file at {path}", option=option)
        return pair
    path = os.fspath(cert)
    if not os.path.isfile(path):
        raise ControllerConfigError(f"no file at {path}", option="tls.client-cert")
    return path
