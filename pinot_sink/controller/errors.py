"""Errors raised by the controller client.

Every error carries the HTTP status (None for transport failures), the controller's own message, and the
table and segment it concerns, so a failed Spark task says *what* failed without a stack dive. Messages
never contain request headers, and any ``scheme://user:password@`` in them is redacted on the way in
(``auth.redact_text``), so credentials cannot leak through them.
"""
from __future__ import annotations

from .auth import redact_text
from type_mapping.errors import PinotSinkError


class ControllerError(PinotSinkError):
    """Base class. ``retryable`` tells the retry policy whether trying again can help."""

    retryable = False

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        table: str | None = None,
        segment: str | None = None,
        operation: str | None = None,
        retry_after_s: float | None = None,
        retryable: bool | None = None,
    ) -> None:
        if retryable is not None:  # per-instance override (e.g. a deep-store I/O error that may pass)
            self.retryable = retryable
        self.message = redact_text(message)
        self.status = status
        self.table = table
        self.segment = segment
        self.operation = operation
        self.retry_after_s = retry_after_s
        super().__init__(self._render())

    def _render(self) -> str:
        return self._where() + ((f"HTTP {self.status}: " if self.status is not None else "") + self.message)

    def _where(self) -> str:
        where = []
        if self.operation:
            where.append(self.operation)
        if self.segment:
            where.append(f"segment {self.segment!r}")
        if self.table:
            where.append(f"table {self.table!r}")
        return ", ".join(where) + ": " if where else ""

    def __reduce__(self):  # keep keyword fields across pickling (Spark ships task errors to the driver)
        return (_rebuild, (type(self), self.message, self.__dict__.copy()))


def _rebuild(cls, message, state):
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    error.__dict__.update(state)
    error.args = (error._render(),)
    return error


class ControllerRequestError(ControllerError):
    """The controller refused the request for good (400, 404, 410, 412 and other 4xx): fix the input."""


class RetryRefusedError(ControllerRequestError):
    """Raised by a call's pre-retry check (``on_retry``) when the controller's record shows that trying again
    cannot succeed and that the failed attempt changed nothing (Pinot answers a broken precondition with a 500,
    which is retried like an outage): the call fails at once with this, not after its every attempt."""


class ControllerConfigError(ControllerRequestError, ValueError):
    """The client's own settings are wrong (a URL that is not http(s), a missing certificate file): found
    before any request, never retried. ``option`` is the data source option as a user types it (``url``,
    ``tls.client-cert``); the message starts with it."""

    def __init__(self, message: str, *, option: str | None = None, **kwargs) -> None:
        self.option = option
        super().__init__(message, **kwargs)

    def _render(self) -> str:
        return (f"option {self.option!r}: " if self.option else "") + self.message


class ControllerAuthError(ControllerRequestError):
    """401 or 403: credentials missing or insufficient (403 is also Pinot's answer to a segment time range
    outside 1971..2071, a storage quota overrun or a disk-utilisation limit; the message says which)."""


class ControllerResponseError(ControllerError, ValueError):
    """A success status whose body is not the JSON the endpoint answers with (an HTML page of a proxy or a
    login form in front of the controller): the message names the URL, the status and the start of the body.
    A ``ValueError`` too, as ``response.json()``'s own error is."""


class ControllerRedirectError(ControllerRequestError):
    """The controller redirected to another origin (scheme, host or port): refused, since the client's
    credentials (auth and ``header.*`` values) and the request body belong to the origin they were given for."""


class ControllerNotFoundError(ControllerRequestError):
    """404: no such table, schema or segment."""


class SegmentConflictError(ControllerError):
    """409: another upload of the same segment holds the parallel-push lock. Retried."""

    retryable = True


class ControllerUnavailableError(ControllerError):
    """5xx, 429 or a transport failure (refused connection, reset, timeout). Retried. ``never_connected`` says
    when no connection was made at all: "refused" (nothing listens there) or "name lookup" (no such host), the
    failures a pre-flight check may stop early on (a wrong URL), unlike a 5xx or a reset (a busy or restarting
    controller)."""

    retryable = True
    never_connected: str | None = None


class ControllerTLSError(ControllerError):
    """The TLS handshake failed (untrusted certificate, wrong host name, plain HTTP port): not retried.
    Fix with a CA bundle (``verify="/path/ca.pem"``) rather than by turning verification off."""


class RetriesExhaustedError(ControllerError):
    """A retryable failure that persisted past the policy's attempts or time budget.

    ``last_error`` is the final attempt's error; ``attempts`` how many were made."""

    def __init__(self, last_error: ControllerError, attempts: int, elapsed_s: float) -> None:
        self.last_error = last_error
        self.attempts = attempts
        self.elapsed_s = elapsed_s
        super().__init__(
            f"gave up after {attempts} attempt(s) in {elapsed_s:.1f}s; last error: "
            + (f"HTTP {last_error.status}: " if last_error.status is not None else "")
            + last_error.message,
            status=last_error.status,
            table=last_error.table,
            segment=last_error.segment,
            operation=last_error.operation,
        )

    def _render(self) -> str:  # the status is already in the last error's part of the message
        return self._where() + self.message


class DeepStoreError(ControllerError):
    """Copying a tarball to the deep store failed (bad URI, missing filesystem package, I/O error)."""


class ConsistentPushError(ControllerError):
    """The replace-segments protocol failed; ``reverted`` says whether the new segments were rolled back."""

    def __init__(self, message: str, *, reverted: bool, **kwargs) -> None:
        self.reverted = reverted
        super().__init__(message, **kwargs)


class CommitOutcomeUnknownError(ConsistentPushError):
    """A start / end / revert of ``lineage_id`` got no clear answer, and the controller's record of the entry
    could not be read back within the deadline: the replacement MAY have completed."""

    def __init__(self, message: str, *, lineage_id: str | None, **kwargs) -> None:
        self.lineage_id = lineage_id
        super().__init__(message, reverted=False, **kwargs)


def error_for_status(
    status: int,
    message: str,
    *,
    table: str | None = None,
    segment: str | None = None,
    operation: str | None = None,
    retry_after_s: float | None = None,
    conflict_retryable: bool = True,
) -> ControllerError:
    """The error class for an HTTP status, as the retry rules of docs/controller.md classify it."""
    fields = dict(table=table, segment=segment, operation=operation, status=status)
    if status >= 500 or status == 429:
        return ControllerUnavailableError(message, retry_after_s=retry_after_s, **fields)
    if status == 409:
        if conflict_retryable:
            return SegmentConflictError(message, retry_after_s=retry_after_s, **fields)
        return ControllerRequestError(message, **fields)
    if status in (401, 403):
        return ControllerAuthError(message, **fields)
    if status == 404:
        return ControllerNotFoundError(message, **fields)
    return ControllerRequestError(message, **fields)
