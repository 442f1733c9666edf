"""The HTTP layer under ``ControllerClient``: one pooled ``requests`` session, retries, hard time limits.

``Transport.request`` makes one logical call: attempts under the ``RetryPolicy``, each attempt under a
deadline that holds whatever the server does (see ``config.py`` for the three limits). Errors come out
as ``ControllerError`` subclasses naming the operation, table and segment, never a credential.

Why a watchdog: requests' read timeout bounds each socket read, so a server sending one byte every half
second keeps a call alive for ever. Streaming the body with time checks would not cover the status line
and headers, which http.client reads line by line inside ``getresponse()``. So every attempt arms a
timer; the connection classes of our pool register themselves with the attempt's deadline when they
connect or send, and when it passes the timer shuts the socket down (``shutdown`` wakes a thread blocked
in ``recv``/``send``, which ``close`` does not). The blocked read then fails at once, in whatever phase
(TLS handshake, headers, body, upload), and the attempt is reported as timed out. The timers live in one
watchdog thread per process (a heap of deadlines): arming one costs a heap push, where a
``threading.Timer`` per attempt cost a thread start (~0.4 ms on a loaded 2-core machine) per call.
"""
from __future__ import annotations

import email.utils
import heapq
import itertools
import logging
import os
import socket
import threading
import time
import uuid
from typing import Any, Iterable, Iterator, Mapping
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from .auth import redact_url
from .config import ClientConfig
from .errors import (
    ControllerError,
    ControllerRedirectError,
    ControllerResponseError,
    ControllerRequestError,
    ControllerTLSError,
    ControllerUnavailableError,
    RetryRefusedError,
    error_for_status,
)
from .retry import RetryPolicy

log = logging.getLogger(__name__)

MULTIPART_CHUNK = 1 << 20  # bytes read from disk per write on the socket


# --- deadlines -------------------------------------------------------------------------------------


class _Watchdog:
    """One daemon thread that runs callbacks at their times; ``arm`` returns a handle for ``cancel``."""

    def __init__(self) -> None:
        self._start_fresh()

    def _start_fresh(self) -> None:
        self._pid = os.getpid()
        self._cond = threading.Condition(threading.Lock())
        self._heap: list[list] = []  # [at, seq, callback or None when cancelled]
        self._seq = itertools.count()
        self._cancelled = 0
        self._thread: threading.Thread | None = None

    def arm(self, at: float, callback) -> list:
        if self._pid != os.getpid():  # a forked child (Spark's Python workers) inherits no thread, maybe a held lock
            self._start_fresh()
        entry = [at, next(self._seq), callback]
        with self._cond:
            heapq.heappush(self._heap, entry)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="pinot-sink-deadlines", daemon=True)
                self._thread.start()
            if self._heap[0] is entry:
                self._cond.notify()
        return entry

    def cancel(self, entry: list) -> None:
        with self._cond:
            if entry[2] is not None:
                entry[2] = None
                self._cancelled += 1
                if self._cancelled > 1024 and self._cancelled * 2 > len(self._heap):  # drop the dead weight
                    self._heap = [e for e in self._heap if e[2] is not None]
                    heapq.heapify(self._heap)
                    self._cancelled = 0

    def pending(self) -> int:
        with self._cond:
            return sum(1 for entry in self._heap if entry[2] is not None)

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._heap and self._heap[0][2] is None:
                    heapq.heappop(self._heap)
                    self._cancelled -= 1
                if not self._heap:
                    self._cond.wait()
                    continue
                delay = self._heap[0][0] - time.monotonic()
                if delay > 0:
                    self._cond.wait(delay)
                    continue
                entry = heapq.heappop(self._heap)
                callback, entry[2] = entry[2], None
            try:
                callback()
            except Exception:  # a watchdog must not die
                log.exception("deadline callback failed")


_WATCHDOG = _Watchdog()


class _Deadline:
    """The time limit of one attempt: ``limit_s`` from now for everything, and ``read_timeout_s`` from
    the end of sending for the whole answer. When it passes, the watched connections are shut down."""

    def __init__(self, limit_s: float, read_timeout_s: float) -> None:
        self.ends_at = time.monotonic() + max(0.0, limit_s)
        self.limit_s = limit_s
        self.read_timeout_s = read_timeout_s
        self.reason: str | None = None  # set when it fired
        self._connections: list = []
        self._lock = threading.Lock()
        self._timer: list | None = None
        self._arm(self.ends_at, f"the call did not finish within its deadline ({limit_s:.1f}s left of "
                                "retry.max-elapsed)")

    @property
    def fired(self) -> bool:
        return self.reason is not None

    def remaining(self) -> float:
        return max(0.0, self.ends_at - time.monotonic())

    def _arm(self, at: float, reason: str) -> None:
        if self._timer is not None:
            _WATCHDOG.cancel(self._timer)
        self._timer = _WATCHDOG.arm(at, lambda: self._fire(reason))

    def answer_expected(self) -> None:
        """The request is sent: from now on the whole answer must come within the read timeout."""
        at = time.monotonic() + self.read_timeout_s
        if at < self.ends_at and not self.fired:
            self._arm(at, f"no complete answer within the read timeout ({self.read_timeout_s:g}s)")

    def watch(self, connection) -> None:
        with self._lock:
            self._connections.append(connection)
            fired = self.fired
        if fired:
            _shut(connection)

    def _fire(self, reason: str) -> None:
        with self._lock:
            self.reason = reason
            connections = list(self._connections)
        for connection in connections:
            _shut(connection)

    def cancel(self) -> None:
        if self._timer is not None:
            _WATCHDOG.cancel(self._timer)
        with self._lock:
            self._connections.clear()


def _shut(connection) -> None:
    sock = getattr(connection, "sock", None)
    sock = getattr(sock, "socket", sock)  # urllib3's SSLTransport (TLS in TLS) wraps the real socket
    if isinstance(sock, socket.socket):
        try:
            socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain call: SSLSocket's drops its state
        except OSError:
            pass


_active = threading.local()  # the deadlines of this thread's calls, innermost last


def _current() -> _Deadline | None:
    stack = getattr(_active, "stack", None)
    return stack[-1] if stack else None


class _Watched:
    """Mixed into urllib3's connection classes: tell the current attempt's deadline about the socket."""

    def connect(self) -> None:
        deadline = _current()
        if deadline is not None:
            deadline.watch(self)
        super().connect()
        if deadline is not None and deadline.fired:  # fired while connecting, before a socket existed
            _shut(self)

    def request(self, *args, **kwargs):
        deadline = _current()
        if deadline is not None:
            deadline.watch(self)
        return super().request(*args, **kwargs)

    def getresponse(self):
        deadline = _current()
        if deadline is not None:
            deadline.answer_expected()
        return super().getresponse()


class _HTTPConnection(_Watched, HTTPConnection):
    pass


class _HTTPSConnection(_Watched, HTTPSConnection):
    pass


class _HTTPPool(HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


_POOLS = {"http": _HTTPPool, "https": _HTTPSPool}


class _WatchedAdapter(HTTPAdapter):
    """An adapter whose pools (direct and through an HTTP proxy) make watched connections."""

    def init_poolmanager(self, *args, **kwargs) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _POOLS

    def proxy_manager_for(self, proxy, **proxy_kwargs):
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if hasattr(manager, "pool_classes_by_scheme"):
            manager.pool_classes_by_scheme = _POOLS
        return manager


# --- request bodies ---------------------------------------------------------------------------------


class MultipartFile:
    """A ``multipart/form-data`` body with one file part, streamed from disk (or from small bytes).

    Pinot requires exactly one form field holding exactly one body part; like Pinot's own client we use
    the segment name as both the field name and the filename. ``len()`` gives the exact Content-Length,
    so the body is sent in one piece without chunked encoding and never held in memory."""

    def __init__(self, source: str | os.PathLike | bytes, part_name: str) -> None:
        self.source = source
        self.boundary = uuid.uuid4().hex
        safe_name = part_name.replace("\\", "\\\\").replace('"', "%22").replace("\r", "").replace("\n", "")
        self._head = (
            f"--{self.boundary}\r\n"
            f'Content-Disposition: form-data; name="{safe_name}"; filename="{safe_name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode("utf-8")
        self._tail = f"\r\n--{self.boundary}--\r\n".encode("ascii")
        size = len(source) if isinstance(source, (bytes, bytearray)) else os.path.getsize(source)
        self._length = len(self._head) + size + len(self._tail)

    @property
    def content_type(self) -> str:
        return f"multipart/form-data; boundary={self.boundary}"

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[bytes]:
        yield self._head
        if isinstance(self.source, (bytes, bytearray)):
            yield bytes(self.source)
        else:
            with open(self.source, "rb") as handle:
                while chunk := handle.read(MULTIPART_CHUNK):
                    yield chunk
        yield self._tail


# --- the transport ----------------------------------------------------------------------------------


def _origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the scheme's default port filled in: what a credential is bound to."""
    parts = urlsplit(url)
    scheme = (parts.scheme or "").lower()
    return scheme, (parts.hostname or "").lower(), parts.port or {"http": 80, "https": 443}.get(scheme)


class _OriginBoundSession(requests.Session):
    """A session that follows redirects only within the configured controller's origin.

    requests drops ``Authorization`` when a redirect leaves the host, but sends every other session header
    (``header.X-Api-Key``, ``database``) wherever it is sent, and keeps ``Authorization`` across a port or an
    http -> https change of one host. A redirect elsewhere is refused before anything is sent to it
    (docs/controller.md, "Redirects")."""

    def __init__(self, base_url: str) -> None:
        super().__init__()
        self._base_url = base_url
        self._origin = _origin(base_url)

    def rebuild_auth(self, prepared_request, response) -> None:
        if _origin(prepared_request.url) != self._origin:
            scheme, host, port = _origin(prepared_request.url)
            target = f"{scheme}://{host}:{port}"
            raise ControllerRedirectError(
                f"the controller at {self._base_url} answered {response.status_code} redirecting to {target}, "
                f"another origin; credentials and headers are only sent to the origin they were given for, so "
                f"the redirect is not followed (if {target} is the controller, set 'url' to it)",
                status=response.status_code)
        super().rebuild_auth(prepared_request, response)


class Transport:
    """One pooled session to the controller of ``config``; ``request`` is one logical, retried call."""

    def __init__(self, config: ClientConfig) -> None:
        self.config = config
        self._session = self._new_session()

    def _new_session(self) -> requests.Session:
        config = self.config
        session = _OriginBoundSession(config.url)
        adapter = _WatchedAdapter(pool_connections=4, pool_maxsize=config.pool_size, max_retries=0)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        session.verify = config.verify
        session.cert = config.cert
        session.trust_env = True  # proxies / REQUESTS_CA_BUNDLE from the environment, as users expect
        headers = {"Accept": "application/json", "User-Agent": "pinot-sink"}
        headers.update(config.headers)
        if config.database:
            headers["database"] = config.database
        if config.auth is not None:
            config.auth.apply(headers)
        session.headers.update(headers)
        return session

    def close(self) -> None:
        self._session.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        operation: str,
        table: str | None = None,
        segment: str | None = None,
        params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
        json_body: Any = None,
        body_factory=None,
        headers: Mapping[str, str] | None = None,
        conflict_retryable: bool = False,
        retry: RetryPolicy | None = None,
        on_retry=None,
    ) -> requests.Response:
        """One logical call, retried per policy, within the call's deadline. ``body_factory()`` makes a
        fresh ``(body, content_type)`` for each attempt (a streamed body cannot be replayed);
        ``on_retry()`` runs before each retry and may return a response that makes it unnecessary."""
        config = self.config
        url = config.url + path
        policy = retry or config.retry
        outer = _current()
        attempts = 0

        def attempt(remaining_s: float) -> requests.Response:
            nonlocal attempts
            attempts += 1
            if attempts > 1 and on_retry is not None:
                try:
                    resolved = on_retry()
                except RetryRefusedError:  # the record says another attempt cannot succeed
                    raise
                except ControllerError as error:  # the check is a refinement: without it, just retry
                    log.debug("%s: pre-retry check failed (%s); retrying the call itself", operation, error)
                    resolved = None
                if resolved is not None:
                    return resolved
            if outer is not None:  # a call made inside another call's attempt stays within its deadline
                remaining_s = min(remaining_s, outer.remaining())
            request_headers = dict(headers or {})
            data = None
            if body_factory is not None:
                data, content_type = body_factory()
                request_headers["Content-Type"] = content_type
            where = dict(operation=operation, table=table, segment=segment)
            deadline = _Deadline(remaining_s, config.read_timeout)
            stack = _active.__dict__.setdefault("stack", [])
            stack.append(deadline)
            connect_s = round(max(0.05, min(config.connect_timeout, remaining_s)), 3)
            read_s = round(max(0.05, min(config.read_timeout, remaining_s)), 3)  # per read; the watchdog does the rest
            started = time.monotonic()
            try:
                response = self._session.request(
                    method,
                    url,
                    params=params,
                    json=json_body,
                    data=data,
                    headers=request_headers,
                    timeout=(connect_s, read_s),
                    # per request: a session-level verify loses to REQUESTS_CA_BUNDLE (requests #3829)
                    verify=config.verify,
                    cert=config.cert,
                )
            except ControllerRedirectError as exc:  # raised inside requests' redirect loop: add where it was
                raise ControllerRedirectError(exc.message, status=exc.status, **where) from None
            except requests.RequestException as exc:
                if deadline.fired:
                    raise ControllerUnavailableError(f"{deadline.reason} [{type(exc).__name__}]", **where) from None
                if isinstance(exc, requests.ConnectTimeout):
                    raise ControllerUnavailableError(
                        f"could not connect within the connect timeout ({connect_s:g}s) [{type(exc).__name__}]",
                        **where) from None
                if isinstance(exc, requests.Timeout):  # one socket read waited longer than it may
                    raise ControllerUnavailableError(
                        f"no answer within the read timeout ({read_s:g}s) [{type(exc).__name__}]", **where) from None
                if isinstance(exc, requests.exceptions.SSLError):
                    raise ControllerTLSError(f"TLS with {config.url} failed: {_transport_reason(exc)}",
                                             **where) from None
                error = ControllerUnavailableError(
                    f"cannot reach the controller at {config.url}: {_transport_reason(exc)}", **where)
                error.never_connected = _never_connected(exc)
                raise error from None
            finally:
                deadline.cancel()
                stack.remove(deadline)
            log.debug("%s %s -> %s in %.3fs", method, path, response.status_code, time.monotonic() - started)
            if response.status_code >= 400:
                message = _error_message(response)
                if response.status_code == 404 and message == NO_ROUTE:
                    # Jersey's answer to a path no resource serves: a broker or server (every controller path),
                    # never the controller's word for a missing table or schema, which names it
                    response.close()
                    raise ControllerRequestError(
                        f"{config.url} serves no {method} {path.split('?')[0]}: is it the controller's "
                        f"URL? A Pinot broker or server answers so (the controller listens on port 9000 unless "
                        f"configured otherwise)", status=404, **where)
                error = error_for_status(
                    response.status_code,
                    message,
                    retry_after_s=_retry_after_seconds(response.headers.get("Retry-After")),
                    conflict_retryable=conflict_retryable,
                    **where,
                )
                response.close()
                raise error
            response.json = _json_reader(response, method, where)
            return response

        return policy.call(attempt, describe=" ".join(x for x in (operation, table, segment) if x))


def _json_reader(response: requests.Response, method: str, where: dict):
    """``response.json`` that, when the body is not JSON, says so with the URL and status instead of a bare
    ``JSONDecodeError`` from deep inside a caller."""
    parse = response.json

    def json(**kwargs):
        try:
            return parse(**kwargs)
        except ValueError:
            kind = response.headers.get("Content-Type") or "no content type"
            start = (response.text or "").strip()[:200]
            raise ControllerResponseError(
                f"{method} {redact_url(response.url.split('?', 1)[0])} answered HTTP {response.status_code} with "
                f"{kind}, not JSON (a proxy or a login page in front of the controller?): {start!r}",
                **where) from None

    return json


def _retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


NO_ROUTE = "HTTP 404 Not Found"  # Jersey's whole message for a path no resource of the server serves


def _error_message(response: requests.Response) -> str:
    """The controller's ``{"code": N, "error": "..."}`` message, or the start of the body."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and body.get("error"):
        return str(body["error"])
    text = (response.text or "").strip()
    return text[:500] if text else (response.reason or "no message")


def _never_connected(exc: BaseException) -> str | None:
    """"refused" or "name lookup" when the request never reached a listening socket (see
    ``ControllerUnavailableError.never_connected``), else None."""
    for current in _causes(exc):
        if isinstance(current, ConnectionRefusedError):
            return "refused"
        if isinstance(current, socket.gaierror):
            return "name lookup"
    return None


def _causes(exc: BaseException):
    """The exception graph below ``exc`` (args, ``reason``, cause, context), breadth first, each once."""
    queue, seen = [exc], set()
    while queue:
        current = queue.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        linked = [a for a in current.args if isinstance(a, BaseException)]
        linked += [getattr(current, "reason", None), current.__cause__, current.__context__]
        queue.extend(e for e in linked if isinstance(e, BaseException))


def _transport_reason(exc: BaseException) -> str:
    """The root cause (e.g. ``ConnectionRefusedError: Connection refused``) instead of urllib3's nested repr.

    Searches the exception graph (args, ``reason``, cause, context) for the first OS-level error."""
    for current in _causes(exc):
        if isinstance(current, OSError) and not isinstance(current, requests.RequestException) and current.strerror:
            return f"{type(current).__name__}: {current.strerror}"
    text = str(exc)
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__
