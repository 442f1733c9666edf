"""``ControllerClient``: the Pinot controller REST calls a segment writer needs, on one pooled session.

Endpoints, headers and status codes follow ``shared/pinot-format/CONTROLLER_API.md``. Only OFFLINE tables
are handled; table names are accepted raw (``events``) or typed (``events_OFFLINE``). Every call goes
through the retry policy (``retry.py``); errors are ``ControllerError`` subclasses naming the operation,
the table and the segment, and never a credential. The client pickles as its ``ClientConfig`` (Spark
ships it to executors), and rebuilds its HTTP session on arrival.
"""
from __future__ import annotations

import email.utils
import logging
import os
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping
from urllib.parse import quote

import requests
from requests.adapters import HTTPAdapter

from .auth import Auth, redact_headers, split_url_credentials
from .errors import (
    ControllerError,
    ControllerNotFoundError,
    ControllerRequestError,
    ControllerTLSError,
    ControllerUnavailableError,
    error_for_status,
)
from .retry import RetryPolicy

log = logging.getLogger(__name__)

OFFLINE_SUFFIX = "_OFFLINE"
REALTIME_SUFFIX = "_REALTIME"
MULTIPART_CHUNK = 1 << 20  # bytes read from disk per write on the socket
DELETE_BATCH = 100  # segment names per DELETE request (keeps the URL short)


def raw_table_name(table: str) -> str:
    """``events`` or ``events_OFFLINE`` -> ``events``; REALTIME tables are refused (we write OFFLINE only)."""
    if not table or not table.strip():
        raise ControllerRequestError("table name is empty")
    table = table.strip()
    if table.endswith(REALTIME_SUFFIX):
        raise ControllerRequestError("only OFFLINE tables can take uploaded segments here", table=table)
    return table[: -len(OFFLINE_SUFFIX)] if table.endswith(OFFLINE_SUFFIX) else table


def segment_name_from_path(tar_path: str | os.PathLike) -> str:
    """``.../<segmentName>.tar.gz`` -> ``<segmentName>`` (the builder's and Pinot's file naming)."""
    name = Path(tar_path).name
    for suffix in (".tar.gz", ".tgz", ".tar"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


@dataclass(frozen=True)
class ClientConfig:
    """Everything needed to rebuild a client elsewhere (picklable; secrets redacted in ``repr``)."""

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

    def __repr__(self) -> str:
        return (
            f"ClientConfig(url={self.url!r}, auth={self.auth!r}, headers={redact_headers(self.headers)!r}, "
            f"database={self.database!r}, verify={self.verify!r}, connect_timeout={self.connect_timeout}, "
            f"read_timeout={self.read_timeout}, retry={self.retry!r}, pool_size={self.pool_size})"
        )


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


class ControllerClient:
    """A Pinot controller at ``url`` (``http(s)://host:port``; a bare ``host:port`` means http)."""

    def __init__(
        self,
        url: str,
        *,
        auth: Auth | None = None,
        headers: Mapping[str, str] | None = None,
        database: str | None = None,
        verify: bool | str = True,
        cert: str | tuple[str, str] | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 300.0,
        retry: RetryPolicy | None = None,
        pool_size: int = 16,
    ) -> None:
        if not url or not url.strip():
            raise ValueError("controller url is empty")
        url = url.strip().rstrip("/")
        if "://" not in url:
            url = "http://" + url
        url, url_auth = split_url_credentials(url)
        if auth is None:
            auth = url_auth
        if connect_timeout <= 0 or read_timeout <= 0:
            raise ValueError("controller timeouts must be positive")
        self.config = ClientConfig(
            url=url,
            auth=auth,
            headers=dict(headers or {}),
            database=database,
            verify=verify,
            cert=cert,
            connect_timeout=float(connect_timeout),
            read_timeout=float(read_timeout),
            retry=retry or RetryPolicy(),
            pool_size=int(pool_size),
        )
        self._session = self._new_session()

    # --- construction, pickling, lifecycle ---------------------------------------------------------

    @classmethod
    def from_config(cls, config: ClientConfig) -> "ControllerClient":
        client = cls.__new__(cls)
        client.config = config
        client._session = client._new_session()
        return client

    def with_retry(self, retry: RetryPolicy) -> "ControllerClient":
        return ControllerClient.from_config(replace(self.config, retry=retry))

    def _new_session(self) -> requests.Session:
        session = requests.Session()
        adapter = HTTPAdapter(pool_connections=4, pool_maxsize=self.config.pool_size, max_retries=0)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        session.verify = self.config.verify
        session.cert = self.config.cert
        session.trust_env = True  # proxies / REQUESTS_CA_BUNDLE from the environment, as users expect
        headers = {"Accept": "application/json", "User-Agent": "pinot-sink"}
        headers.update(self.config.headers)
        if self.config.database:
            headers["database"] = self.config.database
        if self.config.auth is not None:
            self.config.auth.apply(headers)
        session.headers.update(headers)
        return session

    def __getstate__(self):
        return {"config": self.config}

    def __setstate__(self, state) -> None:
        self.config = state["config"]
        self._session = self._new_session()

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> "ControllerClient":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ControllerClient({self.config.url!r}, auth={self.config.auth!r})"

    @property
    def url(self) -> str:
        return self.config.url

    # --- the HTTP core -----------------------------------------------------------------------------

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
        """One logical call, retried per policy. ``body_factory()`` makes a fresh body for each attempt
        (a streamed body cannot be replayed); it may return ``(body, content_type)``."""
        url = self.config.url + path
        policy = retry or self.config.retry
        attempts = 0

        def attempt(remaining_s: float) -> requests.Response:
            nonlocal attempts
            attempts += 1
            if attempts > 1 and on_retry is not None:
                try:
                    resolved = on_retry()
                except ControllerError as error:  # the check is a refinement: without it, just retry
                    log.debug("%s: pre-retry check failed (%s); retrying the call itself", operation, error)
                    resolved = None
                if resolved is not None:
                    return resolved
            request_headers = dict(headers or {})
            data = None
            if body_factory is not None:
                data, content_type = body_factory()
                request_headers["Content-Type"] = content_type
            read_timeout = max(0.05, min(self.config.read_timeout, remaining_s))
            started = time.monotonic()
            try:
                response = self._session.request(
                    method,
                    url,
                    params=params,
                    json=json_body,
                    data=data,
                    headers=request_headers,
                    timeout=(self.config.connect_timeout, read_timeout),
                    # per request: a session-level verify loses to REQUESTS_CA_BUNDLE (requests #3829)
                    verify=self.config.verify,
                    cert=self.config.cert,
                )
            except requests.Timeout as exc:
                raise ControllerUnavailableError(
                    f"no answer within the timeout (connect {self.config.connect_timeout}s, read {read_timeout:.1f}s)"
                    f" [{type(exc).__name__}]",
                    operation=operation, table=table, segment=segment,
                ) from None
            except requests.exceptions.SSLError as exc:
                raise ControllerTLSError(
                    f"TLS with {self.config.url} failed: {_transport_reason(exc)}",
                    operation=operation, table=table, segment=segment,
                ) from None
            except requests.RequestException as exc:
                raise ControllerUnavailableError(
                    f"cannot reach the controller at {self.config.url}: {_transport_reason(exc)}",
                    operation=operation, table=table, segment=segment,
                ) from None
            log.debug("%s %s -> %s in %.3fs", method, path, response.status_code, time.monotonic() - started)
            if response.status_code >= 400:
                message = _error_message(response)
                error = error_for_status(
                    response.status_code,
                    message,
                    table=table,
                    segment=segment,
                    operation=operation,
                    retry_after_s=_retry_after_seconds(response.headers.get("Retry-After")),
                    conflict_retryable=conflict_retryable,
                )
                response.close()
                raise error
            return response

        return policy.call(attempt, describe=" ".join(x for x in (operation, table, segment) if x))

    def _get_json(self, path: str, *, operation: str, table: str | None = None, **kwargs) -> Any:
        response = self.request("GET", path, operation=operation, table=table, **kwargs)
        try:
            return response.json()
        except ValueError:
            raise ControllerError(
                f"the controller answered with non-JSON: {response.text[:200]!r}", operation=operation, table=table
            ) from None

    # --- table config and schema --------------------------------------------------------------------

    def get_table_config(self, table: str) -> dict:
        """The OFFLINE table config as the controller serves it (``GET /tables/{t}?type=offline``)."""
        raw = raw_table_name(table)
        body = self._get_json(
            f"/tables/{quote(raw, safe='')}", params={"type": "offline"}, operation="get table config", table=raw
        )
        config = body.get("OFFLINE") if isinstance(body, dict) else None
        if not config:
            raise ControllerNotFoundError(f"table {raw}_OFFLINE does not exist", status=404, table=raw)
        return config

    def get_schema(self, table: str) -> dict:
        raw = raw_table_name(table)
        return self._get_json(f"/tables/{quote(raw, safe='')}/schema", operation="get schema", table=raw)

    # --- segment listing ----------------------------------------------------------------------------

    def list_segments(self, table: str, exclude_replaced: bool = True) -> list[str]:
        """Segment names of the OFFLINE table; ``exclude_replaced`` hides segments replaced by completed
        lineage entries (what a consistent push must replace)."""
        raw = raw_table_name(table)
        body = self._get_json(
            f"/segments/{quote(raw, safe='')}",
            params={"type": "OFFLINE", "excludeReplacedSegments": "true" if exclude_replaced else "false"},
            operation="list segments",
            table=raw,
        )
        names: list[str] = []
        for element in body if isinstance(body, list) else []:
            if isinstance(element, dict):
                names.extend(element.get("OFFLINE", []))
        return names

    def segment_crcs(self, table: str) -> dict[str, int]:
        raw = raw_table_name(table)
        body = self._get_json(f"/segments/{quote(raw, safe='')}/crc", operation="get segment CRCs", table=raw)
        return {name: int(crc) for name, crc in body.items()}

    def segment_zk_metadata(self, table: str) -> dict[str, dict]:
        raw = raw_table_name(table)
        return self._get_json(
            f"/segments/{quote(raw, safe='')}/zkmetadata",
            params={"type": "OFFLINE"},
            operation="get segment ZK metadata",
            table=raw,
        )

    def get_lineage(self, table: str) -> dict[str, dict]:
        """Lineage entries by id: ``{"segmentsFrom", "segmentsTo", "state", "timestamp"}``."""
        raw = raw_table_name(table)
        response = self.request(
            "GET", f"/segments/{quote(raw, safe='')}/lineage", params={"type": "OFFLINE"},
            operation="get segment lineage", table=raw,
        )
        if not response.content:
            return {}
        return dict(response.json().get("lineageEntries") or {})

    def download_segment(self, table: str, segment: str, dest: str | os.PathLike) -> Path:
        """Fetch a stored tarball (``GET /segments/{t}/{segment}``), streamed to ``dest``."""
        raw = raw_table_name(table)
        response = self.request(
            "GET", f"/segments/{quote(raw, safe='')}/{quote(segment, safe='')}",
            operation="download segment", table=raw, segment=segment,
        )
        dest = Path(dest)
        with open(dest, "wb") as handle:
            for chunk in response.iter_content(MULTIPART_CHUNK):
                handle.write(chunk)
        return dest

    # --- upload -------------------------------------------------------------------------------------

    def upload_segment(
        self,
        table: str,
        tar_path: str | os.PathLike,
        *,
        push_mode: str = "tar",
        deep_store_uri: str | None = None,
        copy_to_deep_store: bool = False,
        parallel_push_protection: bool = False,
        deep_store_options: Mapping[str, Any] | None = None,
    ) -> None:
        """Upload one built segment tarball in one of the push modes (see ``push.py``); re-uploading the
        same name refreshes it, and the same bytes (same CRC) are a no-op on the controller."""
        from .push import push_segment  # push builds on this client

        push_segment(
            self,
            table,
            tar_path,
            push_mode=push_mode,
            deep_store_uri=deep_store_uri,
            copy_to_deep_store=copy_to_deep_store,
            parallel_push_protection=parallel_push_protection,
            deep_store_options=deep_store_options,
        )

    def upload_params(self, table: str, *, parallel_push_protection: bool = False) -> dict[str, str]:
        """Query parameters of ``POST /v2/segments``. The upload endpoints do not apply the ``database``
        header to ``tableName``, so a database-scoped table name is qualified here."""
        raw = raw_table_name(table)
        qualified = f"{self.config.database}.{raw}" if self.config.database and "." not in raw else raw
        params = {"tableName": qualified, "tableType": "OFFLINE"}
        if parallel_push_protection:
            params["enableParallelPushProtection"] = "true"
        return params

    def post_segment_file(
        self,
        table: str,
        segment: str,
        source: str | os.PathLike | bytes,
        *,
        upload_type: str = "SEGMENT",
        download_uri: str | None = None,
        copy_to_deep_store: bool = False,
        parallel_push_protection: bool = False,
    ) -> str:
        """``POST /v2/segments`` with a one-part multipart body (the tarball, or the metadata tarball for
        ``upload_type="METADATA"``). Returns the controller's status message."""
        raw = raw_table_name(table)
        headers = {"UPLOAD_TYPE": upload_type}
        if download_uri:
            headers["DOWNLOAD_URI"] = download_uri
        if upload_type == "METADATA" and copy_to_deep_store:
            headers["COPY_SEGMENT_TO_DEEP_STORE"] = "true"

        def body():
            multipart = MultipartFile(source, segment)
            return multipart, multipart.content_type

        response = self.request(
            "POST", "/v2/segments",
            params=self.upload_params(raw, parallel_push_protection=parallel_push_protection),
            headers=headers, body_factory=body, operation="upload segment", table=raw, segment=segment,
            conflict_retryable=True,
        )
        return _status_message(response)

    def post_segment_uri(
        self, table: str, segment: str, download_uri: str, *, parallel_push_protection: bool = False
    ) -> str:
        """``UPLOAD_TYPE: URI``: the controller downloads the tarball from ``download_uri`` itself."""
        raw = raw_table_name(table)
        response = self.request(
            "POST", "/v2/segments",
            params=self.upload_params(raw, parallel_push_protection=parallel_push_protection),
            headers={"UPLOAD_TYPE": "URI", "DOWNLOAD_URI": download_uri},
            body_factory=lambda: (b"", "application/json"),
            operation="upload segment", table=raw, segment=segment, conflict_retryable=True,
        )
        return _status_message(response)

    # --- delete -------------------------------------------------------------------------------------

    def delete_segments(self, table: str, names: Iterable[str], *, retention: str | None = None) -> None:
        """Delete the named segments (missing names are ignored by the controller). An empty list does
        nothing: Pinot's DELETE without ``segments`` would drop every segment of the table. Segments of a
        live lineage entry cannot be deleted (Pinot refuses the whole batch); batches are of 100 names."""
        raw = raw_table_name(table)
        names = [n for n in dict.fromkeys(names) if n]
        for start in range(0, len(names), DELETE_BATCH):
            batch = names[start : start + DELETE_BATCH]
            params: list[tuple[str, str]] = [("type", "OFFLINE")] + [("segments", n) for n in batch]
            if retention is not None:
                params.append(("retention", retention))
            self.request(
                "DELETE", f"/segments/{quote(raw, safe='')}", params=params, operation="delete segments",
                table=raw, segment=batch[0] if len(batch) == 1 else None,
            )

    # --- segment replacement (consistent push) -------------------------------------------------------

    def start_replace(
        self,
        table: str,
        segments_from: Iterable[str],
        segments_to: Iterable[str],
        *,
        force_cleanup: bool = False,
        custom_map: Mapping[str, str] | None = None,
    ) -> str:
        """Start replacing ``segments_from`` by ``segments_to``; returns the lineage entry id.

        Retry-safe: if an earlier attempt reached the controller but its answer was lost, the retry finds
        the IN_PROGRESS entry with exactly these segments and returns its id instead of failing."""
        raw = raw_table_name(table)
        segments_from, segments_to = list(segments_from), list(segments_to)
        body: dict[str, Any] = {"segmentsFrom": segments_from, "segmentsTo": segments_to}
        if custom_map:
            body["customMap"] = dict(custom_map)

        def existing_entry():
            for entry_id, entry in self._lineage_single_attempt(raw).items():
                if (
                    entry.get("state") == "IN_PROGRESS"
                    and sorted(entry.get("segmentsFrom") or []) == sorted(segments_from)
                    and sorted(entry.get("segmentsTo") or []) == sorted(segments_to)
                ):
                    return _Resolved({"segmentLineageEntryId": entry_id})
            return None

        response = self.request(
            "POST", f"/segments/{quote(raw, safe='')}/startReplaceSegments",
            params={"type": "OFFLINE", "forceCleanup": "true" if force_cleanup else "false"},
            json_body=body, operation="start segment replacement", table=raw, on_retry=existing_entry,
        )
        entry_id = response.json().get("segmentLineageEntryId")
        if not entry_id:
            raise ControllerError("no segmentLineageEntryId in the answer", operation="start segment replacement",
                                  table=raw)
        return str(entry_id)

    def end_replace(
        self,
        table: str,
        lineage_id: str,
        *,
        segments_to: Iterable[str] | None = None,
        cleanup: bool = False,
    ) -> None:
        """Finish the replacement (atomic switch of routing). ``segments_to`` may name a subset of the
        declared new segments. Ending a COMPLETED entry is a no-op, so a retry is harmless."""
        raw = raw_table_name(table)
        params = {"type": "OFFLINE", "segmentLineageEntryId": lineage_id, "cleanup": "true" if cleanup else "false"}
        if segments_to is not None:
            self.request(
                "POST", f"/segments/{quote(raw, safe='')}/endReplaceSegments", params=params,
                json_body={"segmentsTo": list(segments_to)}, operation="end segment replacement", table=raw,
            )
        else:
            self.request(
                "POST", f"/segments/{quote(raw, safe='')}/endReplaceSegments", params=params,
                body_factory=lambda: (b"", "application/json"), operation="end segment replacement", table=raw,
            )

    def revert_replace(self, table: str, lineage_id: str, *, force: bool = True) -> None:
        """Revert a replacement: routing stays on the old segments and the new ones are deleted. ``force``
        is needed for an IN_PROGRESS entry (the failure case). A retry after a lost answer finds the entry
        REVERTED and succeeds."""
        raw = raw_table_name(table)

        def already_reverted():
            entry = self._lineage_single_attempt(raw).get(lineage_id)
            return _Resolved({}) if entry and entry.get("state") == "REVERTED" else None

        self.request(
            "POST", f"/segments/{quote(raw, safe='')}/revertReplaceSegments",
            params={"type": "OFFLINE", "segmentLineageEntryId": lineage_id,
                    "forceRevert": "true" if force else "false"},
            body_factory=lambda: (b"", "application/json"),
            operation="revert segment replacement", table=raw, on_retry=already_reverted,
        )

    def _lineage_single_attempt(self, raw: str) -> dict[str, dict]:
        """Lineage lookup used inside another call's retry loop (so it must not loop itself)."""
        response = self.request(
            "GET", f"/segments/{quote(raw, safe='')}/lineage", params={"type": "OFFLINE"},
            operation="get segment lineage", table=raw, retry=RetryPolicy.none(),
        )
        if not response.content:
            return {}
        return dict(response.json().get("lineageEntries") or {})


class _Resolved:
    """Stands in for a response when a retry finds the work already done."""

    status_code = 200

    def __init__(self, payload: dict) -> None:
        self._payload = payload
        self.content = b"{}"

    def json(self) -> dict:
        return self._payload


def _status_message(response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    return str(body.get("status", "")) if isinstance(body, dict) else ""


def _transport_reason(exc: BaseException) -> str:
    """The root cause (e.g. ``ConnectionRefusedError: Connection refused``) instead of urllib3's nested repr.

    Searches the exception graph (args, ``reason``, cause, context) for the first OS-level error."""
    queue, seen = [exc], set()
    while queue:
        current = queue.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, OSError) and not isinstance(current, requests.RequestException) and current.strerror:
            return f"{type(current).__name__}: {current.strerror}"
        linked = [a for a in current.args if isinstance(a, BaseException)]
        linked += [getattr(current, "reason", None), current.__cause__, current.__context__]
        queue.extend(e for e in linked if isinstance(e, BaseException))
    text = str(exc)
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__
