"""A faithful stand-in for the Pinot controller endpoints a segment writer uses (a real HTTP server).

Behaviour follows ``shared/pinot-format/CONTROLLER_API.md`` (read from Pinot's source): the upload rules
(one multipart field with one part, ``UPLOAD_TYPE`` SEGMENT / URI / METADATA, ``DOWNLOAD_URI``,
``COPY_SEGMENT_TO_DEEP_STORE``, table-type check, reserved names, time interval 1971..2071, refresh by CRC,
``allowRefresh``, ``REFRESH_ONLY``, ``If-Match``, parallel-push lock), segment lineage (start / end /
revert with Pinot's checks and error texts), listing with ``excludeReplacedSegments``, deletion, schema
and table config. Errors are ``{"code": N, "error": "..."}`` as Pinot's exception mapper writes them.

Stricter than Pinot in one respect (``strict_layout``, on by default): a SEGMENT / URI upload whose
tarball would not load on a server (no ``v3/index_map`` / ``columns.psf``, index entries past the end of
``columns.psf``) is refused with 500, so builder bugs surface in tests instead of on a server.

Fault knobs (each matches requests by method and path prefix, and is used up after ``times`` requests):
``fail_next`` (answer with a status, optional Retry-After), ``delay_next`` (sleep before answering, to
exceed a client's read timeout), ``reset_next`` (read part of the body, then reset the connection),
``require_auth`` (401 unless the Authorization header is one of the accepted values),
``hold_upload_lock`` (a parallel-push lock held by "another" upload), ``lose_response_next`` (do the work,
then reset instead of answering; ``then_outage_s``: and be unreachable for that long after), ``outage``
(every request reset before it is read, for a while) and ``error_body_next`` (answer 200 with an error body
and do nothing, as a misbehaving proxy or a half-failed controller may); ``ideal_state_conflicts`` answers
uploads as Pinot does when its ideal-state update keeps losing the version check to concurrent ones.

ZooKeeper records (``zk_record_limit``, default Helix's 1,024,000 bytes): the lineage record and the ideal
state are sized as Helix writes them (``pinot_sink.controller.zk_records``, checked against Helix's own
serializer); a lineage update or an upload that would write one over the limit is refused with Pinot's
answer, and nothing changes. ``GET /tables/{t}/idealstate`` and ``POST /segments/batchUpload`` are served.

Every request is recorded in ``received`` (method, path, query, headers, body size, outcome status).
"""
from __future__ import annotations

import io
import json
import re
import socket
import struct
import tarfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

try:  # the fixture is for the tests; `python tests/fake_controller.py --serve` (the README) runs without pytest
    import pytest
except ImportError:  # pragma: no cover
    pytest = None

from fake_primary_keys import primary_key_upload_refusal, record_load_error
from pinot_sink.controller.zk_records import SIZE_LIMIT, ideal_state_record, lineage_record, written_size
from pinot_sink.segment.properties import as_text, parse_properties
from pinot_sink.segment.read.tar_source import open_tar

LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1
VALID_MIN_MS = 31_536_000_000  # 1971-01-01T00:00Z
VALID_MAX_MS = 3_187_296_000_000  # 2071-01-01T00:00Z
UNIT_MS = {
    "NANOSECONDS": 1e-6, "MICROSECONDS": 1e-3, "MILLISECONDS": 1, "SECONDS": 1_000, "MINUTES": 60_000,
    "HOURS": 3_600_000, "DAYS": 86_400_000,
}


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


@dataclass
class Received:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body_bytes: int
    status: int | None = None
    body: bytes | None = None  # kept for small bodies only (JSON, metadata tarballs)

    def header(self, name: str) -> str | None:
        for key, value in self.headers.items():
            if key.lower() == name.lower():
                return value
        return None


@dataclass
class StoredSegment:
    name: str
    crc: int
    creation_time: int
    data_crc: int
    metadata: dict
    zk: dict[str, str]
    upload_type: str
    tar_bytes: bytes | None  # the full tarball (SEGMENT / URI, or METADATA with copy to deep store)
    download_uri: str
    refreshes: int = 0  # uploads with a different CRC after the first
    noop_uploads: int = 0  # uploads with the same CRC (nothing changed)
    upload_lock_ms: int = -1


@dataclass
class LineageEntry:
    segments_from: list[str]
    segments_to: list[str]
    state: str
    timestamp: int

    def to_json(self) -> dict:
        return {"segmentsFrom": self.segments_from, "segmentsTo": self.segments_to, "state": self.state,
                "timestamp": self.timestamp, "autoCompleteLineageEntry": False}


@dataclass
class Table:
    raw: str
    schema: dict | None
    config: dict
    segments: dict[str, StoredSegment] = field(default_factory=dict)
    lineage: dict[str, LineageEntry] = field(default_factory=dict)
    kind: str = "OFFLINE"  # the table type (one type per raw name here: no hybrid tables)
    # what a server would log on loading a segment of a primary-key table (the controller accepted it)
    load_errors: dict[str, str] = field(default_factory=dict)
    reloads: int = 0  # POST /segments/{t}/reload calls (servers reload every segment)
    # a server drops a reverted segment a moment after the controller: the external view keeps showing it for
    # this many reads after a revert (``lingering``: segment -> reads left)
    linger_reads: int = 0
    lingering: dict[str, int] = field(default_factory=dict)
    # a server that could not download a new segment (its controller restarted in between: seen on a real
    # cluster) holds it in ERROR until POST /segments/{t}_OFFLINE/{segment}/reset: the next ``failing_loads``
    # uploaded segments need ``resets_to_load`` resets each (``errored``: segment -> resets still needed)
    failing_loads: int = 0
    resets_to_load: int = 1
    errored: dict[str, int] = field(default_factory=dict)
    resets: list[str] = field(default_factory=list)
    # a reset is a Helix message (resetPartition): the external view shows ERROR a moment longer, then OFFLINE
    # while the server loads the segment, then ONLINE or ERROR again (segment -> states still to show, one a read)
    after_reset: dict[str, list[str]] = field(default_factory=dict)
    # what the view shows after a reset of a segment still failing: a server whose download fails again at once
    # goes ERROR -> OFFLINE -> ERROR between two reads, and the view never shows it out of ERROR: ("ERROR",)
    reset_shows: tuple[str, ...] = ("ERROR", "OFFLINE")
    # replicas the ideal state assigns every segment on servers that are down (not live): absent from the external
    # view; Pinot's reset of a segment without ``targetInstance`` resets every replica the view does not show
    # OFFLINE, and fails (500) on one whose server is not live (PinotHelixResourceManager.resetSegment)
    down_replicas: tuple[str, ...] = ()
    # a server loads a new segment a moment after the upload: the external view lacks it for this many of its
    # reads (``loading``: segment -> reads left; ``loaded``: shown once). One removed while loading is still
    # loaded (Helix drops it only after), so it shows, then lingers; a reload while the server holds or still
    # loads a removed segment leaves the keys it took over hidden (``reloads_while_held`` counts those)
    load_reads: int = 0
    loading: dict[str, int] = field(default_factory=dict)
    loaded: set[str] = field(default_factory=set)
    reloads_while_held: int = 0


@dataclass
class Fault:
    kind: str  # fail / delay / reset / lose / trickle / error200 / redirect / html
    times: int
    method: str | None
    path: str | None
    after: int = 0  # matching requests to let through before the fault starts
    status: int = 503
    message: str = "injected failure"
    retry_after: str | None = None
    seconds: float = 0.0
    after_bytes: int | None = None
    phase: str = "headers"  # trickle: "headers" (status line and headers too) or "body"
    location: str | None = None  # redirect: the base URL the request's path and query are sent on to

    def matches(self, method: str, path: str) -> bool:
        return (self.method is None or self.method == method) and (self.path is None or path.startswith(self.path))


@dataclass
class UploadHold:
    """One upload held back by ``FakeController.delay_upload``."""

    segment: str | None
    nth: int | None
    seconds: float
    taken: bool = False
    arrived: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)
    landed: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        self.released.set()


class FakeController:
    """Start with ``start()`` (or the ``fake_controller`` fixture); ``url`` is ``http://127.0.0.1:<port>``."""

    def __init__(self, *, strict_layout: bool = True, upload_lock_timeout_s: float = 600.0,
                 tls: tuple[str, str] | None = None, client_ca: str | None = None, port: int = 0) -> None:
        self.port = port  # 0: any free port
        self.strict_layout = strict_layout
        self.tls = tls  # (certificate file, key file): serve HTTPS
        self.client_ca = client_ca  # with tls: require a client certificate signed by this CA (mutual TLS)
        self.upload_lock_timeout_s = upload_lock_timeout_s
        self.tables: dict[str, Table] = {}
        self.schemas: dict[str, dict] = {}  # POST /schemas: by schemaName, with or without a table yet
        self.received: list[Received] = []
        self.accepted_auth: set[str] | None = None
        self._faults: list[Fault] = []
        self._lock = threading.RLock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.max_concurrent_uploads = 0
        self._uploads_in_flight = 0
        self.upload_latency_s = 0.0  # simulated ZK + deep-store work per upload, outside the state lock (bench)
        self.lineage_exclusive_delete = True  # Pinot's controller.lineage.exclusive.delete.enabled default
        self._upload_holds: list[UploadHold] = []
        self._uploads_arrived = 0
        self._down_until = 0.0  # monotonic time until which every request is reset unread (an outage)
        self.zk_record_limit = SIZE_LIMIT  # zk.serializer.znrecord.write.size.limit.bytes
        self.instance = "Server_127.0.0.1_8098"  # the one server every segment is assigned to
        self.batch_uploads = True  # /segments/batchUpload exists (Pinot 1.2+); False: 404 as older controllers
        self._ideal_state_sizes: dict[str, tuple[int, int]] = {}  # table -> (segments, bytes) at the last sizing

    # --- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> "FakeController":
        handler = type("Handler", (_Handler,), {"controller": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        self._server.daemon_threads = True
        if self.tls is not None:
            import ssl

            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*self.tls)
            if self.client_ca is not None:
                context.verify_mode = ssl.CERT_REQUIRED
                context.load_verify_locations(cafile=self.client_ca)
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="fake-controller", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        for hold in self._upload_holds:
            hold.release()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"{'https' if self.tls else 'http'}://{host}:{port}"

    # --- setup ---------------------------------------------------------------------------------------

    def add_table(self, schema: dict | None, table_config: dict) -> Table:
        raw = table_config["tableName"]
        kind = str(table_config.get("tableType") or "OFFLINE").upper()
        raw = raw[: -len(f"_{kind}")] if raw.endswith(f"_{kind}") else raw
        config = dict(table_config, tableName=f"{raw}_{kind}", tableType=kind)
        with self._lock:
            table = self.tables[raw] = Table(raw, schema, config, kind=kind)
        return table

    def add_simple_table(self, raw: str = "events", *, time_column: str | None = "ts", **config_extra) -> Table:
        schema = {
            "schemaName": raw,
            "dimensionFieldSpecs": [{"name": "country", "dataType": "STRING"}],
            "metricFieldSpecs": [{"name": "value", "dataType": "LONG"}],
        }
        segments_config: dict[str, Any] = {"replication": "1"}
        if time_column:
            schema["dateTimeFieldSpecs"] = [{"name": time_column, "dataType": "TIMESTAMP",
                                             "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"}]
            segments_config["timeColumnName"] = time_column
        config = {"tableName": raw, "tableType": "OFFLINE", "segmentsConfig": segments_config,
                  "tenants": {}, "tableIndexConfig": {"loadMode": "MMAP"}, "metadata": {}}
        config.update(config_extra)
        return self.add_table(schema, config)

    # --- fault knobs -----------------------------------------------------------------------------------

    def fail_next(self, times: int = 1, status: int = 503, *, message: str | None = None,
                  retry_after: float | str | None = None, method: str | None = None, path: str | None = None,
                  after: int = 0) -> None:
        """Answer the next ``times`` matching requests (after letting ``after`` through) with ``status``."""
        with self._lock:
            self._faults.append(Fault("fail", times, method, path, after=after, status=status,
                                      message=message or f"injected {status}",
                                      retry_after=None if retry_after is None else str(retry_after)))

    def delay_next(self, times: int = 1, seconds: float = 1.0, *, method: str | None = None,
                   path: str | None = None) -> None:
        with self._lock:
            self._faults.append(Fault("delay", times, method, path, seconds=seconds))

    def reset_next(self, times: int = 1, *, after_bytes: int | None = None, method: str | None = None,
                   path: str | None = None) -> None:
        """Read ``after_bytes`` of the body (default: half of it), then reset the TCP connection."""
        with self._lock:
            self._faults.append(Fault("reset", times, method, path, after_bytes=after_bytes))

    def trickle_next(self, times: int = 1, *, interval: float = 0.5, phase: str = "headers",
                     method: str | None = None, path: str | None = None, after: int = 0) -> None:
        """Do the work, then answer one byte every ``interval`` seconds: from the status line on
        (``phase="headers"``, padded with a long header) or after whole headers (``"body"``, the JSON body
        padded with spaces). No single read waits long, so only a deadline on the whole answer stops it;
        the trickle ends when the client goes away (or after 120 s)."""
        if phase not in ("headers", "body"):
            raise ValueError("phase is 'headers' or 'body'")
        with self._lock:
            self._faults.append(Fault("trickle", times, method, path, after=after, seconds=interval, phase=phase))

    def delay_upload(self, seconds: float = 30.0, *, segment: str | None = None, nth: int | None = None) -> "UploadHold":
        """Hold ONE upload before it is processed, so it lands late (a straggling task attempt): the first
        upload of ``segment`` (the name the request carries: multipart part name or ``DOWNLOAD_URI`` file
        name, as Pinot's and our clients send it), or the ``nth`` upload to arrive (1-based, counted from
        now). It proceeds after ``seconds`` or at ``hold.release()``; ``hold.arrived`` / ``hold.landed``
        are events to wait on."""
        if (segment is None) == (nth is None):
            raise ValueError("give segment or nth")
        hold = UploadHold(segment, None if nth is None else self._uploads_arrived + nth, seconds)
        with self._lock:
            self._upload_holds.append(hold)
        return hold

    def redirect_next(self, location: str, times: int = 1, status: int = 307, *, method: str | None = None,
                      path: str | None = None) -> None:
        """Answer ``status`` with ``Location: <location><the request's path and query>`` (a load balancer or
        an attacker sending the client elsewhere)."""
        with self._lock:
            self._faults.append(Fault("redirect", times, method, path, status=status, location=location))

    def html_next(self, times: int = 1, status: int = 200, *, method: str | None = None,
                  path: str | None = None) -> None:
        """Answer with an HTML page instead of doing the work (a proxy's login or error page)."""
        with self._lock:
            self._faults.append(Fault("html", times, method, path, status=status))

    def lose_response_next(self, times: int = 1, *, method: str | None = None, path: str | None = None,
                           then_outage_s: float = 0.0) -> None:
        """Process the request fully, then reset the connection instead of answering (a lost answer);
        with ``then_outage_s``, the controller is unreachable for that long right after (``outage``)."""
        with self._lock:
            self._faults.append(Fault("lose", times, method, path, seconds=then_outage_s))

    def outage(self, seconds: float) -> None:
        """For ``seconds`` from now every request is reset before it is read: nothing is done, no answer."""
        with self._lock:
            self._down_until = time.monotonic() + seconds

    def error_body_next(self, times: int = 1, *, method: str | None = None, path: str | None = None,
                        message: str = "injected: request not applied") -> None:
        """Answer the next ``times`` matching requests 200 with ``{"code": 500, "error": message}`` and do
        nothing (the call is not applied)."""
        with self._lock:
            self._faults.append(Fault("error200", times, method, path, message=message))

    def ideal_state_conflicts(self, times: int = 1, *, path: str = "/v2/segments", after: int = 0) -> None:
        """The next ``times`` uploads fail as Pinot's do when concurrent ideal-state updates keep winning the
        version check (``IdealStateGroupCommit`` gives up; the upload answers 500)."""
        self.fail_next(times, 500, method="POST", path=path, after=after,
                       message="Exception while uploading segment: Caught exception while updating ideal state for "
                               "resource: events_OFFLINE")

    def require_auth(self, *accepted: str) -> None:
        """Only these exact Authorization values pass (none given: switch auth off again)."""
        self.accepted_auth = set(accepted) if accepted else None

    def hold_upload_lock(self, table: str, segment: str) -> None:
        """Mark an existing segment as being uploaded by someone else (parallel-push protection)."""
        with self._lock:
            self._table(table).segments[segment].upload_lock_ms = int(time.time() * 1000)

    def release_upload_lock(self, table: str, segment: str) -> None:
        with self._lock:
            self._table(table).segments[segment].upload_lock_ms = -1

    def _take_upload_hold(self, headers: dict, body: bytes) -> "UploadHold | None":
        name = _upload_name(headers, body)
        with self._lock:
            self._uploads_arrived += 1
            for hold in self._upload_holds:
                if hold.taken:
                    continue
                if (hold.segment is not None and hold.segment == name) or hold.nth == self._uploads_arrived:
                    hold.taken = True
                    return hold
        return None

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.times > 0 and fault.matches(method, path):
                    if fault.after > 0:
                        fault.after -= 1
                        return None
                    fault.times -= 1
                    return fault
        return None

    # --- inspection ------------------------------------------------------------------------------------

    def segments(self, table: str = "events") -> dict[str, StoredSegment]:
        return self._table(table).segments

    def live_segments(self, table: str = "events") -> list[str]:
        """What ``excludeReplacedSegments=true`` lists: what queries are routed to."""
        with self._lock:
            return self._listing(self._table(table), exclude_replaced=True)

    def uploads(self) -> list[Received]:
        return [r for r in self.received if r.method == "POST" and r.path in ("/v2/segments", "/segments")]

    # --- internals -------------------------------------------------------------------------------------

    def _table(self, name: str, *, missing: str = "Table {raw}_OFFLINE does not exist") -> Table:
        raw = name[: -len("_OFFLINE")] if name.endswith("_OFFLINE") else name
        typed = self.tables.get(name[: -len("_REALTIME")]) if name.endswith("_REALTIME") else None
        if typed is not None and typed.kind == "REALTIME":  # a REALTIME table named with its type
            return typed
        table = self.tables.get(raw)
        if table is None:
            raise ApiError(404, missing.format(raw=raw))
        return table

    @staticmethod
    def _loaded(table: Table, name: str) -> bool:
        """Whether the server has loaded ``name`` by this read of the external view (``Table.load_reads``)."""
        if not table.load_reads or name in table.loaded:
            return True
        left = table.loading.setdefault(name, table.load_reads)
        if left > 0:
            table.loading[name] = left - 1
            return False
        table.loaded.add(name)
        return True

    @staticmethod
    def _view_of_kind(table: Table, q: dict[str, str]) -> None:
        """TableViews: ``tableType`` names the one type asked for; a table without that type is a 404 (seen on
        a real cluster: a REALTIME table's ideal state asked for ``offline``)."""
        asked = (q.get("tableType") or "").upper()
        if asked and asked != table.kind:
            raise ApiError(404, "Table not found")

    def _select(self, table: Table, q: dict[str, str], *, exclude_replaced: bool) -> list[str]:
        """``PinotHelixResourceManager.getSegmentsFor`` with a time window: ``[startTimestamp, endTimestamp)``
        in millis against each segment's ZK ``[start, end]`` (both inclusive); a segment without a time
        range is always selected; one straddling an edge unless ``excludeOverlapping``; then replaced
        segments are left out (``excludeReplacedSegments``; always for ``/select``)."""
        try:
            start = int(q["startTimestamp"]) if q.get("startTimestamp") else LONG_MIN
            end = int(q["endTimestamp"]) if q.get("endTimestamp") else LONG_MAX
        except ValueError:
            raise ApiError(400, "Failed to parse the start/end timestamp. Please make sure they are in "
                                "'millisSinceEpoch' format.") from None
        if not start < end:  # Preconditions.checkArgument: an IllegalArgumentException, mapped to 500
            raise ApiError(500, "The value of startTimestamp should be smaller than the one of endTimestamp. "
                                f"Start timestamp: {start}. End timestamp: {end}")
        exclude_overlapping = q.get("excludeOverlapping", "false").lower() == "true"
        names = list(table.segments)
        if (start, end) != (LONG_MIN, LONG_MAX):
            names = [n for n in names
                     if _within(table.segments[n].zk, start, end, exclude_overlapping)]
        return self._listing(table, exclude_replaced, names)

    @staticmethod
    def _listing(table: Table, exclude_replaced: bool, names: list[str] | None = None) -> list[str]:
        names = list(table.segments) if names is None else names
        if exclude_replaced:  # SegmentLineageUtils.filterSegmentsBasedOnLineageInPlace
            hidden: set[str] = set()
            for entry in table.lineage.values():
                hidden.update(entry.segments_from if entry.state == "COMPLETED" else entry.segments_to)
            names = [n for n in names if n not in hidden]
        return sorted(names)

    # --- request handling (called by the handler thread) ------------------------------------------------

    def handle(self, method: str, path: str, query: dict[str, list[str]], headers, body: bytes) -> tuple[int, Any]:
        if self.accepted_auth is not None and headers.get("Authorization") not in self.accepted_auth:
            raise ApiError(401, "HTTP 401 Unauthorized")
        parts = [unquote(p) for p in path.strip("/").split("/")]
        q = {k: v[-1] for k, v in query.items()}
        database = headers.get("database")

        def table_name(name: str) -> str:  # DatabaseUtils.translateTableName for table-scoped endpoints
            return f"{database}.{name}" if database and "." not in name else name

        with self._lock:
            if method == "GET" and parts == ["health"]:  # as Pinot's controller: 200, text/plain "OK"
                return 200, "OK"
            if method == "GET" and parts == ["tables"]:  # raw names; this controller holds OFFLINE tables only
                kind = (q.get("type") or "").upper()
                if kind not in ("", "OFFLINE", "REALTIME"):
                    raise ApiError(500, f"No enum constant org.apache.pinot.spi.config.table.TableType.{kind}")
                return 200, {"tables": sorted(self.tables) if kind != "REALTIME" else []}
            if method == "POST" and path in ("/v2/segments", "/segments"):
                return 200, self._upload(q, headers, body, v2=path == "/v2/segments")
            if method == "POST" and path == "/segments/batchUpload" and self.batch_uploads:
                return 200, self._batch_upload(q, headers, body)
            if method == "POST" and parts == ["schemas"]:
                return 200, self._add_schema(q, _json_body(body))
            if method == "POST" and parts == ["tables"]:
                return 200, self._add_table(_json_body(body), table_name)
            if parts[0] == "tables" and len(parts) == 2 and method == "GET":
                table = self._table(table_name(parts[1]))
                kind = (q.get("type") or table.kind).upper()
                if kind != table.kind:
                    raise ApiError(404, f"Table {table.raw}_{kind} does not exist")
                return 200, {kind: table.config}
            if parts[0] == "tables" and len(parts) == 3 and parts[2] == "idealstate" and method == "GET":
                table = self._table(table_name(parts[1]))  # TableViews.getIdealState: the table's segment map
                self._view_of_kind(table, q)
                other = "REALTIME" if table.kind == "OFFLINE" else "OFFLINE"
                assigned = {self.instance: "ONLINE", **dict.fromkeys(table.down_replicas, "ONLINE")}
                return 200, {table.kind: {name: dict(assigned) for name in table.segments}, other: None}
            if parts[0] == "tables" and len(parts) == 3 and parts[2] == "externalview" and method == "GET":
                table = self._table(table_name(parts[1]), missing="Table not found")  # TableViews.getExternalView
                self._view_of_kind(table, q)
                held = {name: {self.instance: (table.after_reset.get(name) or [None]).pop(0) or
                               ("ERROR" if table.errored.get(name) else "ONLINE")}
                        for name in table.segments if self._loaded(table, name)}
                for name, left in list(table.lingering.items()):
                    if left > 0 and self._loaded(table, name):
                        held[name] = {self.instance: "ONLINE"}
                        table.lingering[name] = left - 1
                other = "REALTIME" if table.kind == "OFFLINE" else "OFFLINE"
                return 200, {table.kind: held, other: None}
            if parts[0] == "tables" and len(parts) == 3 and parts[2] == "schema" and method == "GET":
                table = self._table(table_name(parts[1]), missing="Schema not found for table: {raw}")
                if table.schema is None:
                    raise ApiError(404, f"Schema not found for table: {table.raw}")
                return 200, table.schema
            if parts[0] == "segments" and len(parts) >= 2:
                table = self._table(table_name(parts[1]), missing="Table '{raw}_OFFLINE' not found.")
                rest = parts[2:]
                if not rest and method == "GET":  # also takes the time window since Pinot 1.x
                    exclude = q.get("excludeReplacedSegments", "false").lower() == "true"
                    return 200, [{table.kind: self._select(table, q, exclude_replaced=exclude)}]
                if rest == ["select"] and method == "GET":  # always leaves replaced segments out
                    return 200, [{table.kind: self._select(table, q, exclude_replaced=True)}]
                if not rest and method == "DELETE":
                    return 200, self._delete(table, query.get("segments", []))
                if rest == ["crc"] and method == "GET":
                    return 200, {n: str(s.crc) for n, s in table.segments.items()}
                if rest == ["zkmetadata"] and method == "GET":
                    return 200, {n: dict(s.zk) for n, s in table.segments.items()}
                if rest == ["lineage"] and method == "GET":
                    if not table.lineage:
                        return 200, None
                    return 200, {"tableNameWithType": f"{table.raw}_OFFLINE",
                                 "lineageEntries": {i: e.to_json() for i, e in table.lineage.items()}}
                if rest == ["startReplaceSegments"] and method == "POST":
                    return 200, self._start_replace(table, q, _json_body(body))
                if rest == ["endReplaceSegments"] and method == "POST":
                    if not q.get("segmentLineageEntryId"):
                        raise ApiError(500, "'segmentLineageEntryId' should not be null")
                    with _lineage_update("endReplaceSegments", table, f"segmentLineageEntryId = "
                                                                       f"{q['segmentLineageEntryId']}"):
                        return 200, self._end_replace(table, q, _json_body(body))
                if rest == ["reload"] and method == "POST":  # Pinot: the job id and messages sent, per table type
                    table.reloads += 1
                    if any(left > 0 for left in table.lingering.values()):
                        table.reloads_while_held += 1
                    return 200, {"status": json.dumps({f"{table.raw}_{table.kind}": {
                        "reloadJobId": str(uuid.uuid4()), "reloadJobMetaZKStorageStatus": "SUCCESS",
                        "numMessagesSent": "1"}}, separators=(",", ":"))}  # Jackson's compact JSON
                if rest == ["revertReplaceSegments"] and method == "POST":
                    with _lineage_update("revertReplaceSegments", table,
                                         f"segmentLineageEntryId = {q.get('segmentLineageEntryId')}"):
                        return 200, self._revert_replace(table, q)
                if len(rest) == 2 and rest[1] == "reset" and method == "POST":
                    return 200, self._reset_segment(table, parts[1], rest[0], q.get("targetInstance"))
                if len(rest) == 1 and method == "GET":
                    accept = headers.get("Accept") or "*/*"
                    if not any(kind.split(";")[0].strip() in ("*/*", "application/*", "application/octet-stream")
                               for kind in accept.split(",")):  # Jersey: the endpoint produces octet-stream only
                        raise ApiError(406, "HTTP 406 Not Acceptable")
                    segment = table.segments.get(rest[0])
                    if segment is None or segment.tar_bytes is None:
                        raise ApiError(404, f"Segment {rest[0]} or table {table.raw} not found in "
                                            f"/tmp/fake-controller/data/{table.raw}/{rest[0]}")
                    return 200, segment.tar_bytes
                if len(rest) == 1 and method == "DELETE":
                    if rest[0] not in table.segments:
                        raise ApiError(404, f"Failed to find segment: {rest[0]} in table: {table.raw}")
                    self._delete(table, [rest[0]])
                    return 200, {"status": f"Segment deleted"}
        raise ApiError(404, "HTTP 404 Not Found")  # Jersey's whole answer to a path no resource serves

    # --- schema and table creation -------------------------------------------------------------------

    def _add_schema(self, q: dict[str, str], schema: Any) -> dict:
        """``PinotSchemaRestletResource.addSchema``: ``override`` defaults to true; without it an existing
        schema is a 409 (``SchemaAlreadyExistsException``); a schema without a name is a 400."""
        if not isinstance(schema, dict) or not schema.get("schemaName"):
            raise ApiError(400, "Invalid schema. Reason: 'schemaName' should not be null or empty")
        name = schema["schemaName"]
        override = q.get("override", "true").lower() == "true"
        if name in self.schemas and not override:
            raise ApiError(409, f"Schema: {name} already exists")
        schema = _schema_as_served(schema)
        self.schemas[name] = schema
        if name in self.tables:
            self.tables[name].schema = schema
        return {"unrecognizedProperties": {}, "status": f"{name} successfully added"}

    def _add_table(self, config: Any, table_name) -> dict:
        """``PinotTableRestletResource.addTable``: 409 when the table exists, 400 when its schema (named as
        the raw table) is missing or the config is invalid; only OFFLINE tables here."""
        for index, key in enumerate(("tableName", "tableType", "segmentsConfig", "tenants", "tableIndexConfig")):
            if isinstance(config, dict) and key not in config:  # TableConfig's @JsonCreator: required properties
                raise ApiError(400, f"Missing required creator property '{key}' (index {index})\n at [Source: "
                                    "REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, "
                                    f"column: {len(json.dumps(config))}] (through reference chain: "
                                    f"org.apache.pinot.spi.config.table.TableConfig[\"{key}\"])")
        if not isinstance(config, dict) or not config.get("tableName"):
            raise ApiError(400, "Invalid table config: 'tableName' is missing")
        kind = str(config.get("tableType") or "").upper()
        if kind != "OFFLINE":
            raise ApiError(400, f"the test controller creates OFFLINE tables only, got tableType {kind!r}")
        raw = table_name(config["tableName"])
        raw = raw[: -len("_OFFLINE")] if raw.endswith("_OFFLINE") else raw
        if raw in self.tables:
            raise ApiError(409, f"Table config for {raw}_OFFLINE already exists. If this is unexpected, try deleting "
                                "the table to remove all metadata associated with it before attempting to recreate.")
        schema = self.schemas.get(raw)
        if schema is None:
            raise ApiError(400, f"Failed to find schema for table: {raw}_OFFLINE")
        time_column = (config.get("segmentsConfig") or {}).get("timeColumnName")
        date_times = {spec.get("name") for spec in schema.get("dateTimeFieldSpecs") or []}
        if time_column and time_column not in date_times:  # TableConfigUtils.validateValidationConfig
            raise ApiError(400, f"Cannot find valid fieldSpec for timeColumn: {time_column} from the table config: "
                                f"{raw}_OFFLINE, in the schema: {raw}")
        self.add_table(schema, _table_config_as_served(config))
        return {"unrecognizedProperties": {}, "status": f"Table {raw}_OFFLINE successfully added"}

    # --- upload ------------------------------------------------------------------------------------------

    def _upload(self, q: dict[str, str], headers, body: bytes, *, v2: bool = True) -> dict:
        table_name = q.get("tableName", "")
        table_type = (q.get("tableType") or "OFFLINE").upper()
        if table_type not in ("OFFLINE", "REALTIME"):
            raise ApiError(400, f"Invalid table type: {table_type}")
        if table_name.endswith("_OFFLINE") and table_type != "OFFLINE" or \
                table_name.endswith("_REALTIME") and table_type != "REALTIME":
            raise ApiError(400, f"Table name: {table_name} does not match table type: {table_type}")
        upload_type = (headers.get("UPLOAD_TYPE") or "SEGMENT").upper()
        if upload_type not in ("SEGMENT", "URI", "METADATA", "JSON"):  # FileUploadType.valueOf, inside the upload
            raise ApiError(500, "Exception while uploading segment: No enum constant "
                                f"org.apache.pinot.common.utils.FileUploadDownloadClient.FileUploadType.{upload_type}")
        if upload_type == "JSON":  # in the enum, not handled by the upload's switch
            raise ApiError(400, f"Unsupported upload type: {upload_type}")
        content_type = headers.get("Content-Type") or ""
        is_multipart = content_type.lower().startswith("multipart/form-data")
        download_uri = headers.get("DOWNLOAD_URI") or ""
        # The multipart endpoints and /v2/segments copy into the deep store (the controller serves the segment);
        # only the old JSON endpoint POST /segments keeps DOWNLOAD_URI (recorded: a URI push to /v2 is served
        # by the controller)
        copy_to_deep_store = is_multipart or v2
        if upload_type == "SEGMENT":
            if not is_multipart:
                raise ApiError(400, "Segment file (as multipart/form-data) is required for SEGMENT upload mode")
            tar_bytes = _single_part(content_type, body)
            size = len(tar_bytes)
        elif upload_type == "URI":
            if not download_uri:
                raise ApiError(400, "Source download URI is required in header field 'DOWNLOAD_URI' for URI upload mode")
            if download_uri.lower().startswith("file:"):
                raise ApiError(400, f"Unsupported URI: {download_uri}")
            tar_bytes = _fetch(download_uri)
            size = len(tar_bytes)
        else:
            if not is_multipart:
                raise ApiError(400, "Segment metadata file (as multipart/form-data) is required for METADATA upload mode")
            if not download_uri:
                raise ApiError(400, "Source download URI is required in header field 'DOWNLOAD_URI' for METADATA upload mode")
            copy_to_deep_store = (headers.get("COPY_SEGMENT_TO_DEEP_STORE") or "").lower() == "true"
            tar_bytes = _single_part(content_type, body)
            try:
                size = len(_fetch(download_uri))
            except ApiError:
                size = -1

        metadata, creation = _read_segment(tar_bytes, full=upload_type != "METADATA", strict=self.strict_layout)
        name = as_text(metadata.get("segment.name"))
        raw = table_name or as_text(metadata.get("segment.table.name")) or ""
        raw = raw[: -len(f"_{table_type}")] if raw.endswith(f"_{table_type}") else raw
        if name.count("__") == 4 and table_type != "REALTIME":
            raise ApiError(400, f"Cannot upload segment: {name} to OFFLINE table as this format is reserved for "
                                "uploaded real-time segment")
        table = self.tables.get(raw)
        if table is None or table_type != table.kind:
            raise ApiError(400, f"Failed to find table: {raw}_{table_type}")
        ingestion = table.config.get("ingestionConfig") or {}
        if ingestion.get("segmentTimeValueCheck", True):
            self._validate_time(table, name, metadata)
        refused = primary_key_upload_refusal(table, name, metadata, tar_bytes if upload_type != "METADATA" else None,
                                             size)
        if refused is not None:
            raise ApiError(*refused)

        crc, creation_time, data_crc = creation
        existing = table.segments.get(name)
        now = int(time.time() * 1000)
        if copy_to_deep_store:
            stored_uri = f"{self.url}/segments/{raw}/{quote(name, safe='')}"  # URIUtils.constructDownloadUrl
            stored_bytes = tar_bytes if upload_type != "METADATA" else _fetch(download_uri)
        else:
            stored_uri = download_uri
            stored_bytes = tar_bytes if upload_type != "METADATA" else None
        if existing is None:
            if (headers.get("REFRESH_ONLY") or "").lower() == "true":
                raise ApiError(410, f"Failed to refresh segment: {name} of table: {raw}_OFFLINE because it does not exist")
            self._check_ideal_state(table, 1)
            zk = self._zk_metadata(name, metadata, creation, stored_uri, size, push_time=now)
            table.segments[name] = StoredSegment(name, crc, creation_time, data_crc, metadata, zk, upload_type,
                                                 stored_bytes, stored_uri)
        else:
            if q.get("allowRefresh", "true").lower() == "false":
                raise ApiError(409, f"Segment: {name} already exists in table: {raw}_OFFLINE. Refresh not permitted.")
            if_match = headers.get("If-Match")
            if if_match is not None:
                try:
                    expected = int(if_match)
                except ValueError:
                    raise ApiError(412, f"Caught exception while parsing IF-MATCH CRC: \"{if_match}\"") from None
                if expected != existing.crc:
                    raise ApiError(412, f"For segment: {name} of table: {raw}_OFFLINE, expected CRC: {expected} "
                                        f"does not match existing CRC: {existing.crc}")
            if q.get("enableParallelPushProtection", "false").lower() == "true":
                lock = existing.upload_lock_ms
                if lock > 0 and now - lock < self.upload_lock_timeout_s * 1000:
                    raise ApiError(409, f"Another segment upload is in progress for segment: {name} of table: "
                                        f"{raw}_OFFLINE, retry later")
            if crc == existing.crc:
                existing.noop_uploads += 1
                existing.creation_time = creation_time
                existing.zk["segment.creation.time"] = str(creation_time)
                existing.zk["segment.refresh.time"] = str(now)
                if stored_uri != existing.download_uri:
                    existing.download_uri = existing.zk["segment.download.url"] = stored_uri
                    existing.tar_bytes = stored_bytes
            else:
                zk = self._zk_metadata(name, metadata, creation, stored_uri, size, push_time=None)
                zk["segment.push.time"] = existing.zk.get("segment.push.time", str(now))
                zk["segment.refresh.time"] = str(now)
                table.segments[name] = StoredSegment(name, crc, creation_time, data_crc, metadata, zk, upload_type,
                                                     stored_bytes, stored_uri, refreshes=existing.refreshes + 1,
                                                     noop_uploads=existing.noop_uploads)
        record_load_error(table, name, metadata)
        if table.failing_loads > 0 and name not in table.errored:
            table.failing_loads -= 1
            table.errored[name] = table.resets_to_load
        return {"status": f"Successfully uploaded segment: {name} of table: {raw}_{table.kind}"}

    def _batch_upload(self, q: dict[str, str], headers, body: bytes) -> dict:
        """``POST /segments/batchUpload`` (``PinotSegmentUploadDownloadRestletResource.uploadSegmentsAsMultiPart``):
        METADATA only; one multipart part, a gzipped tar of ``<segment>.metadata.properties`` /
        ``<segment>.creation.meta`` files and ``all_segments_metadata`` (lines: name, download URI, ...). Every
        segment is validated first, then all are added in one ideal-state update, or none."""
        table_name, table_type = q.get("tableName", ""), (q.get("tableType") or "").upper()
        if not table_name:
            raise ApiError(400, "tableName is a required field while uploading segments in batch mode.")
        if not table_type:
            raise ApiError(400, "tableType is a required field while uploading segments in batch mode.")
        upload_type = (headers.get("UPLOAD_TYPE") or "SEGMENT").upper()
        if upload_type != "METADATA":
            raise ApiError(400, f"Unsupported upload type: {upload_type}")
        raw = table_name[: -len("_OFFLINE")] if table_name.endswith("_OFFLINE") else table_name
        table = self.tables.get(raw)
        if table is None or table_type != "OFFLINE":
            raise ApiError(400, f"Failed to fetch table config for table: {raw}_{table_type}")
        files: dict[str, bytes] = {}
        with tarfile.open(fileobj=io.BytesIO(_single_part(headers.get("Content-Type") or "", body)), mode="r:*") as tar:
            for member in tar.getmembers():
                if member.isfile():
                    files[member.name.rsplit("/", 1)[-1]] = tar.extractfile(member).read()
        lines = files.get("all_segments_metadata", b"").decode("utf-8").splitlines()
        uris = {}
        for i in range(0, len(lines), 2):
            if i + 1 >= len(lines) or not lines[i + 1]:
                raise ApiError(500, "Failed to find the segment download uri within the file: all_segments_metadata "
                                    f"for segment: {lines[i]}")
            uris[lines[i]] = lines[i + 1]
        copy = (headers.get("COPY_SEGMENT_TO_DEEP_STORE") or "").lower() == "true"
        staged = []
        for segment, uri in uris.items():
            properties = files.get(f"{segment}.metadata.properties")
            creation_meta = files.get(f"{segment}.creation.meta")
            if properties is None or creation_meta is None:
                raise ApiError(500, f"Exception while processing segments to upload: no metadata for {segment}")
            metadata = parse_properties(properties)
            name = as_text(metadata.get("segment.name")) or segment
            if (table.config.get("ingestionConfig") or {}).get("segmentTimeValueCheck", True):
                self._validate_time(table, name, metadata)
            staged.append((name, uri, metadata, _creation(creation_meta)))
        new = [item for item in staged if item[0] not in table.segments]
        self._check_ideal_state(table, len(new))
        now = int(time.time() * 1000)
        for name, uri, metadata, creation in staged:
            stored_uri = f"{self.url}/segments/{raw}/{quote(name, safe='')}" if copy else uri
            stored_bytes = _fetch(uri) if copy else None
            existing = table.segments.get(name)
            if existing is not None and existing.crc == creation[0]:
                existing.noop_uploads += 1
                continue
            zk = self._zk_metadata(name, metadata, creation, stored_uri, -1, push_time=now)
            table.segments[name] = StoredSegment(name, creation[0], creation[1], creation[2], metadata, zk, "METADATA",
                                                 stored_bytes, stored_uri,
                                                 refreshes=existing.refreshes + 1 if existing else 0)
        return {"status": f"Successfully uploaded segments: {len(staged)} of table: {raw}_OFFLINE"}

    @staticmethod
    def _validate_time(table: Table, name: str, metadata: dict) -> None:
        start, end, unit = (as_text(metadata.get(k)) for k in
                            ("segment.start.time", "segment.end.time", "segment.time.unit"))
        if start is not None and end is not None and unit is not None:
            factor = UNIT_MS.get(unit.upper())
            if factor is None:
                raise ApiError(500, f"Exception while uploading segment: invalid time unit {unit}")
            start_ms, end_ms = int(int(start) * factor), int(int(end) * factor)
            if not (VALID_MIN_MS <= start_ms <= VALID_MAX_MS and VALID_MIN_MS <= end_ms <= VALID_MAX_MS):
                raise ApiError(403, f"Invalid segment start/end time: {_iso(start_ms)}/{_iso(end_ms)} (in millis: "
                                    f"{start_ms}/{end_ms}) for segment: {name} of table: {table.raw}_OFFLINE, must be "
                                    "between: 1971-01-01T00:00:00.000Z/2071-01-01T00:00:00.000Z")
        else:
            time_column = (table.config.get("segmentsConfig") or {}).get("timeColumnName")
            if time_column:
                raise ApiError(403, f"Failed to find time interval in segment: {name} for table: "
                                    f"{table.raw}_OFFLINE with time column: {time_column}")

    @staticmethod
    def _zk_metadata(name, metadata, creation, download_uri, size, *, push_time) -> dict[str, str]:
        crc, creation_time, data_crc = creation
        zk = {  # the ZNRecord's simple fields; its id (the segment name) is the answer's key, not a field
            "segment.crc": str(crc),
            "segment.data.crc": str(data_crc if data_crc != LONG_MIN else -1),
            "segment.creation.time": str(creation_time),
            "segment.total.docs": as_text(metadata.get("segment.total.docs")),
            "segment.index.version": as_text(metadata.get("segment.index.version")) or "v1",
            "segment.download.url": download_uri,
            "segment.size.in.bytes": str(size),
        }
        start, end, unit = (as_text(metadata.get(k)) for k in
                            ("segment.start.time", "segment.end.time", "segment.time.unit"))
        if start is not None and end is not None and unit is not None and unit.upper() in UNIT_MS:
            # SegmentZKMetadataUtils: the interval in millis, unit MILLISECONDS; a negative value is left out
            for key, value in (("segment.start.time", start), ("segment.end.time", end)):
                millis = int(int(value) * UNIT_MS[unit.upper()])
                if millis >= 0:
                    zk[key] = str(millis)
            zk["segment.time.unit"] = "MILLISECONDS"
            time_column = as_text(metadata.get("segment.time.column.name"))
            low, high = (as_text(metadata.get(f"column.{time_column}.{k}")) for k in ("minValue", "maxValue"))
            if time_column and low is not None and high is not None:  # the time column's own min / max
                zk["segment.start.time.raw"], zk["segment.end.time.raw"] = low, high
        # without a time interval Pinot stores no start, end or unit (setStartTime(-1), setTimeUnit(null))
        if push_time is not None:
            zk["segment.push.time"] = str(push_time)
        custom = {k[len("custom."):]: as_text(v) for k, v in metadata.items() if k.startswith("custom.")}
        if custom:
            zk["custom.map"] = json.dumps(custom)
        return zk

    # --- delete ------------------------------------------------------------------------------------------

    def _delete(self, table: Table, names: list[str]) -> dict:
        everything = not names  # Pinot: no `segments` parameter deletes every segment of the table
        if everything:
            names = list(table.segments)
        if self.lineage_exclusive_delete:
            self._reject_lineage_locked(table, names)
        if everything:
            for name in names:
                table.segments.pop(name, None)
            return {"status": f"All segments of table {table.raw}_OFFLINE deleted"}
        for name in names:
            table.segments.pop(name, None)  # unknown names are ignored, as removeSegmentsFromIdealState does
        if len(names) <= 5:
            return {"status": f"Deleted segments: [{', '.join(names)}] from table: {table.raw}_OFFLINE"}
        return {"status": f"Deleted {len(names)} segments from table: {table.raw}_OFFLINE"}

    @staticmethod
    def _reject_lineage_locked(table: Table, names: list[str]) -> None:
        """``controller.lineage.exclusive.delete.enabled`` (default true): segments of a live lineage entry
        (IN_PROGRESS: from and to; COMPLETED: from) cannot be deleted; the whole batch is refused."""
        blocked: set[str] = set()
        for entry in table.lineage.values():
            if entry.state == "IN_PROGRESS":
                blocked.update(entry.segments_from, entry.segments_to)
            elif entry.state == "COMPLETED":
                blocked.update(entry.segments_from)
        blocking = [n for n in names if n in blocked]
        if blocking:
            raise ApiError(500, f"Failed to delete segments from table: {table.raw}_OFFLINE, error message: Cannot "
                                f"delete segments from table: {table.raw}_OFFLINE because they participate in a live "
                                "segment lineage entry. Use the lineage lifecycle (endReplaceSegments / "
                                "revertReplaceSegments with forceRevert=true) to clean them up. Blocking segments: "
                                f"[{', '.join(blocking)}]")

    # --- lineage -----------------------------------------------------------------------------------------

    def _start_replace(self, table: Table, q: dict[str, str], body: dict | None) -> dict:
        body = body or {}
        segments_from = list(body.get("segmentsFrom") or [])
        segments_to = list(body.get("segmentsTo") or [])
        force_cleanup = q.get("forceCleanup", "false").lower() == "true"
        live = set(self._listing(table, exclude_replaced=True))
        for segment in segments_from:
            if segment not in live:
                raise ApiError(500, f"Segment: {segment} from 'segmentsFrom' does not exist in table: {table.raw}_OFFLINE")
        for segment in segments_to:
            if segment in live:
                raise ApiError(500, f"Segment: {segment} from 'segmentsTo' exists in table: {table.raw}_OFFLINE")
        clean_up: list[str] = []
        with _lineage_update("startReplaceSegments", table, f"segmentsFrom = [{', '.join(segments_from)}], "
                                                            f"segmentsTo = [{', '.join(segments_to)}]"):
            self._check_other_entries(table, segments_from, segments_to, force_cleanup, clean_up)
        entry_id = str(uuid.uuid4())
        self._check_lineage(table, entry_id, LineageEntry(segments_from, segments_to, "IN_PROGRESS", 0),
                            "startReplaceSegments", f", segmentsFrom = {_listed(segments_from)}, segmentsTo = "
                                                    f"{_listed(segments_to)}")
        table.lineage[entry_id] = LineageEntry(segments_from, segments_to, "IN_PROGRESS", int(time.time() * 1000))
        for segment in clean_up:  # deleteSegmentsForLineageCleanup: no lineage lock check
            table.segments.pop(segment, None)
        return {"segmentLineageEntryId": entry_id}

    @staticmethod
    def _check_other_entries(table: Table, segments_from: list[str], segments_to: list[str], force_cleanup: bool,
                             clean_up: list[str]) -> None:
        """startReplaceSegments' checks against the other entries, inside Pinot's lineage update (so a refusal
        answers only the generic "Failed to update the segment lineage" text; the detail goes to its log)."""
        refresh_table = ((table.config.get("ingestionConfig") or {}).get("batchIngestionConfig") or {}) \
            .get("segmentIngestionType", "APPEND").upper() == "REFRESH"
        for entry_id, entry in list(table.lineage.items()):
            if entry.state == "REVERTED":
                if force_cleanup:
                    clean_up.extend(entry.segments_to)
                continue
            if force_cleanup:
                overlaps = bool(set(segments_from) & set(entry.segments_from) or
                                set(segments_to) & set(entry.segments_to))
                if entry.state == "IN_PROGRESS" and overlaps:
                    # A failed earlier attempt: revert it (or drop it when all its segmentsTo are being reused).
                    remaining = [s for s in entry.segments_to if s not in segments_to]
                    if not remaining:
                        del table.lineage[entry_id]
                    else:
                        entry.segments_to, entry.state = remaining, "REVERTED"
                        entry.timestamp = int(time.time() * 1000)
                    clean_up.extend(remaining)
                elif entry.state == "COMPLETED" and refresh_table and sorted(segments_from) == sorted(entry.segments_to):
                    clean_up.extend(entry.segments_from)  # REFRESH tables keep at most two snapshots
                continue
            for segment in segments_from:
                if segment in entry.segments_from:
                    raise ApiError(500, f"Segment: {segment} from 'segmentsFrom' exists in table: {table.raw}_OFFLINE, "
                                        f"entry id: {entry_id} as 'segmentsFrom' (replacing a replaced segment)")
            for segment in segments_to:
                if segment in entry.segments_to:
                    raise ApiError(500, f"Segment: {segment} from 'segmentsTo' exists in table: {table.raw}_OFFLINE, "
                                        f"entry id: {entry_id} as 'segmentTo' (name conflict)")

    def apply_retention(self, table: str = "events", periods_passed: bool = True) -> None:
        """One run of Pinot's retention manager once every retention period has passed
        (``DefaultLineageManager.updateLineageForRetention``): a COMPLETED entry's replaced segments are deleted,
        and the entry itself once none of them is left; a REVERTED entry's new segments likewise.
        ``periods_passed=False``: a run before the replaced segments' and a stale entry's periods end: a COMPLETED
        entry none of whose replaced segments is left (an append's) is dropped, a REVERTED one's new segments
        deleted, the rest kept."""
        with self._lock:
            t = self.tables[table]
            for entry_id, entry in list(t.lineage.items()):
                if entry.state == "COMPLETED":
                    left = [n for n in entry.segments_from if n in t.segments]
                elif entry.state == "IN_PROGRESS" and not periods_passed:
                    continue
                else:
                    left = [n for n in entry.segments_to if n in t.segments]
                if not left:
                    del t.lineage[entry_id]
                if entry.state == "COMPLETED" and not periods_passed:
                    continue
                for name in left:
                    t.segments.pop(name, None)

    # --- ZooKeeper record sizes ------------------------------------------------------------------------

    def lineage_size(self, table: str = "events", extra: tuple[str, LineageEntry] | None = None) -> int:
        """The bytes Helix would write for the table's lineage record (with ``extra`` added or replaced)."""
        entries = {i: e.to_json() for i, e in self.tables[table].lineage.items()}
        if extra is not None:
            entries[extra[0]] = dict(extra[1].to_json(), timestamp=int(time.time() * 1000))
        return written_size(lineage_record(f"{table}_OFFLINE", entries), self.zk_record_limit).written_bytes

    def ideal_state_size(self, table: str = "events", adding: int = 0) -> int:
        """The bytes Helix would write for the table's ideal state, with ``adding`` more segments."""
        names = list(self.tables[table].segments) + [f"{table}_pending_{i}" for i in range(adding)]
        assignment = {name: {self.instance: "ONLINE"} for name in names}
        return written_size(ideal_state_record(f"{table}_OFFLINE", assignment), self.zk_record_limit).written_bytes

    def _check_lineage(self, table: Table, entry_id: str, entry: LineageEntry, step: str, detail: str) -> None:
        """A lineage write Helix's serializer refuses (``ZkMarshallingError``): Pinot's retries give up and the
        call answers 500; the record stays as it was."""
        size = self.lineage_size(table.raw, (entry_id, entry))
        if size > self.zk_record_limit:
            raise ApiError(500, f"Failed to update the segment lineage during {step}. (tableName = "
                                f"{table.raw}_{table.kind}{detail})")

    def _check_ideal_state(self, table: Table, adding: int) -> None:
        """An ideal-state update Helix's serializer refuses: ``IdealStateGroupCommit`` fails, the upload answers
        500 and the segment is not added. Sized exactly when it could be near the limit (a gzipped ideal state
        grows about linearly with its segments; far below the limit the last exact size, scaled, is enough)."""
        count = len(table.segments) + adding
        last_count, last_size = self._ideal_state_sizes.get(table.raw, (0, 0))
        if last_count and count <= 2 * last_count and last_size * count / last_count < 0.7 * self.zk_record_limit:
            return
        size = self.ideal_state_size(table.raw, adding)
        self._ideal_state_sizes[table.raw] = (count, size)
        if size > self.zk_record_limit:
            raise ApiError(500, "Exception while uploading segment: Caught exception while updating ideal state for "
                                f"resource: {table.raw}_{table.kind}")

    def _entry(self, table: Table, q: dict[str, str]) -> tuple[str, LineageEntry]:
        entry_id = q.get("segmentLineageEntryId")
        if not entry_id:
            raise ApiError(500, "'segmentLineageEntryId' should not be null")
        if not table.lineage:
            raise ApiError(500, f"Failed to find segment lineage for table: {table.raw}_OFFLINE")
        entry = table.lineage.get(entry_id)
        if entry is None:
            raise ApiError(500, f"Failed to find entry id: {entry_id} from segment lineage for table: {table.raw}_OFFLINE")
        return entry_id, entry

    def _end_replace(self, table: Table, q: dict[str, str], body: dict | None) -> None:
        entry_id, entry = self._entry(table, q)
        if entry.state == "COMPLETED":
            return None
        if entry.state == "REVERTED":
            raise ApiError(500, "The target lineage entry state is not 'IN_PROGRESS'. Cannot update to 'COMPLETED' "
                                f"state. (tableNameWithType={table.raw}_OFFLINE, segmentLineageEntryId={entry_id}, "
                                f"state={entry.state})")
        missing_from = [segment for segment in entry.segments_from if segment not in table.segments]
        if missing_from:
            raise ApiError(500, "Cannot complete segment replacement: segments from 'segmentsFrom' no longer exist in "
                                "IdealState (likely deleted by a concurrent request). Recover by calling "
                                f"revertReplaceSegments with forceRevert=true. (tableNameWithType={table.raw}_OFFLINE, "
                                f"segmentLineageEntryId={entry_id}, missingSegmentsFrom=[{', '.join(missing_from)}])")
        segments_to = entry.segments_to
        if body and body.get("segmentsTo"):  # an empty list means all of them, as in Pinot
            subset = list(body["segmentsTo"])
            for segment in subset:
                if segment not in entry.segments_to:
                    raise ApiError(500, f"Segment: {segment} from EndReplaceSegmentsRequest does not exist in original "
                                        f"segmentsTo list used while starting segment replacement: {table.raw}_OFFLINE")
            segments_to = subset
            self._check_lineage(table, entry_id, LineageEntry(entry.segments_from, subset, "COMPLETED", 0),
                                "endReplaceSegments", f", segmentLineageEntryId = {entry_id}")
        for segment in segments_to:
            if segment not in table.segments:
                raise ApiError(500, f"Segment: {segment} from 'segmentsTo' does not exist in table: {table.raw}_OFFLINE")
        if any(table.errored.get(segment) for segment in segments_to):
            # Pinot waits for every new segment to be ONLINE in the external view, 10 minutes an attempt and five
            # attempts (waitForSegmentsBecomeOnline), then fails so; here the failure comes without the wait
            raise ApiError(500, "Failed to update the segment lineage during endReplaceSegments. (tableName = "
                                f"{table.raw}_{table.kind}, segmentLineageEntryId = {entry_id})")
        entry.segments_to = list(segments_to)
        entry.state = "COMPLETED"
        entry.timestamp = int(time.time() * 1000)
        if q.get("cleanup", "false").lower() == "true":
            for segment in entry.segments_from:
                table.segments.pop(segment, None)
        return None

    def _reset_segment(self, table: Table, name_with_type: str, segment: str, target: str | None = None) -> dict:
        """``PinotSegmentRestletResource.resetSegment``: the table named with its type; the segment disabled and
        enabled again, so a server holding it in ERROR loads it once more (on ``target`` alone, when named)."""
        if not name_with_type.endswith(("_OFFLINE", "_REALTIME")):
            raise ApiError(404, f"Failed to reset segments in table: {name_with_type}. Must provide table name with "
                                f"type: {name_with_type}")
        if not name_with_type.endswith(f"_{table.kind}"):  # getTableIdealState of the other type: null
            raise ApiError(404, f"Failed to reset segments in table: {name_with_type}. Could not find ideal state "
                                f"for table: {name_with_type}")
        if segment not in table.segments:
            raise ApiError(404, f"Failed to reset segments in table: {name_with_type}. Could not find segment: "
                                f"{segment} in ideal state for table: {name_with_type}")
        down = [server for server in table.down_replicas if target in (None, server)]
        if down:  # resetPartitionAllState: the instance is not live
            raise ApiError(500, f"Failed to reset segment: {segment} of table: {name_with_type}. Reset segment failed "
                                f"for table: {name_with_type}, segment: {segment}, instances: [{', '.join(down)}]")
        if target not in (None, self.instance):
            return {"status": f"Successfully reset segment: {segment} of table: {name_with_type}"}  # not its replica
        table.resets.append(segment)
        if table.errored.get(segment):
            table.errored[segment] -= 1
            table.after_reset[segment] = list(table.reset_shows)
        return {"status": f"Successfully reset segment: {segment} of table: {name_with_type}"}

    def _revert_replace(self, table: Table, q: dict[str, str]) -> None:
        entry_id, entry = self._entry(table, q)
        force = q.get("forceRevert", "false").lower() == "true"
        if entry.state == "REVERTED" or (entry.state == "IN_PROGRESS" and not force):
            raise ApiError(500, "Lineage state is not valid. Cannot update the lineage entry to be 'REVERTED'. "
                                f"(tableNameWithType={table.raw}_OFFLINE, segmentLineageEntryId={entry_id}, "
                                f"segmentLineageEntryState={entry.state}, forceRevert={str(force).lower()})")
        if entry.state == "COMPLETED":
            for segment in entry.segments_from:
                if segment not in table.segments:
                    raise ApiError(500, f"Segment: {segment} from 'segmentsFrom' does not exist in table: "
                                        f"{table.raw}_OFFLINE (reverting a deleted segment)")
        for other_id, other in table.lineage.items():
            if other.state in ("IN_PROGRESS", "COMPLETED"):
                for segment in entry.segments_to:
                    if segment in other.segments_from:
                        raise ApiError(500, f"Segment: {segment} from 'segmentsTo' exists in table: {table.raw}_OFFLINE, "
                                            f"entry id: {other_id} as 'segmentsTo' (reverting a merged segment)")
        entry.state = "REVERTED"
        entry.timestamp = int(time.time() * 1000)
        for segment in entry.segments_to:
            if table.segments.pop(segment, None) is None:
                continue
            if table.linger_reads:
                table.lingering[segment] = table.linger_reads
            if table.load_reads and segment not in table.loaded:  # still loading: it loads, then is dropped
                table.lingering[segment] = max(table.linger_reads, 1)
        return None


# --- time ranges -------------------------------------------------------------------------------------


_FIELD_TYPES = {"dimensionFieldSpecs": "DIMENSION", "metricFieldSpecs": "METRIC", "dateTimeFieldSpecs": "DATE_TIME",
                "complexFieldSpecs": "COMPLEX"}
# What Jackson writes for a fresh IndexingConfig / TableConfig: Pinot serves a created table's config with these
# (recorded from a real controller: tests/fixtures/controller_contract/)
_INDEX_CONFIG_DEFAULTS = {
    "aggregateMetrics": False, "autoGeneratedInvertedIndex": False, "columnMajorSegmentBuilderEnabled": True,
    "compressionStatsEnabled": False, "createInvertedIndexDuringSegmentGeneration": False,
    "enableDefaultStarTree": False, "enableDynamicStarTreeCreation": False, "noDictionarySizeRatioThreshold": 0.85,
    "nullHandlingEnabled": False, "optimizeDictionary": False, "optimizeDictionaryForMetrics": False,
    "optimizeDictionaryType": False, "optimizeNoDictStatsCollection": False, "rangeIndexVersion": 2,
    "skipSegmentPreprocess": False,
}


def _schema_as_served(schema: dict) -> dict:
    """A schema as Pinot stores it: each field spec names its ``fieldType``; null handling is per column."""
    served = dict(schema)
    served.setdefault("enableColumnBasedNullHandling", False)
    for key, kind in _FIELD_TYPES.items():
        if key in served:
            served[key] = [dict(spec, fieldType=spec.get("fieldType", kind)) for spec in served[key]]
    return served


def _table_config_as_served(config: dict) -> dict:
    """A table config as Pinot serves it back: the tenants, flags and index-config defaults filled in."""
    served = dict(config)
    served.setdefault("isDimTable", False)
    served.setdefault("isMaterializedView", False)
    served["tenants"] = {"broker": "DefaultTenant", "server": "DefaultTenant", **(config.get("tenants") or {})}
    served["segmentsConfig"] = {"minimizeDataMovement": False, **(config.get("segmentsConfig") or {})}
    served["tableIndexConfig"] = {**_INDEX_CONFIG_DEFAULTS, **(config.get("tableIndexConfig") or {})}
    served.setdefault("metadata", {})
    return served


class _lineage_update:
    """Pinot runs a lineage change's checks inside its ZK update and answers any refusal there with one generic
    text (the reason is only logged): "Failed to update the segment lineage during <step>. (tableName = ...)"."""

    def __init__(self, step: str, table: Table, detail: str) -> None:
        self.text = f"Failed to update the segment lineage during {step}. (tableName = {table.raw}_OFFLINE, {detail})"

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, error, trace) -> bool:
        if isinstance(error, ApiError) and error.status == 500:
            raise ApiError(500, self.text, error.headers) from error
        return False


def _iso(millis: int) -> str:
    """Joda's ``Interval.toString`` end: ``1970-01-01T00:00:01.000Z``."""
    import datetime

    when = datetime.datetime.fromtimestamp(millis / 1000, tz=datetime.timezone.utc)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{millis % 1000:03d}Z"


def _listed(names: list[str]) -> str:
    """Java's List.toString, shortened past 20 names (Pinot prints them all)."""
    shown = ", ".join(names[:20]) + (f", ... {len(names) - 20} more" if len(names) > 20 else "")
    return f"[{shown}]"


def _zk_millis(zk: dict[str, str], key: str) -> int:
    """``SegmentZKMetadata.getStartTimeMs`` / ``getEndTimeMs``: -1 unless present and positive."""
    text = zk.get(key)
    if text is None or int(text) <= 0:
        return -1
    return int(int(text) * UNIT_MS[(zk.get("segment.time.unit") or "MILLISECONDS").upper()])


def _within(zk: dict[str, str], start: int, end: int, exclude_overlapping: bool) -> bool:
    """``PinotHelixResourceManager.isSegmentWithinTimeStamps``."""
    seg_start, seg_end = _zk_millis(zk, "segment.start.time"), _zk_millis(zk, "segment.end.time")
    if seg_start == -1 and seg_end == -1:
        return True  # no time column: every window selects it
    if seg_start > seg_end:
        return False
    if start <= seg_start and seg_end < end:
        return True
    if seg_end < start or seg_start >= end:
        return False
    return not exclude_overlapping


# --- body parsing helpers ---------------------------------------------------------------------------


def _upload_name(headers: dict, body: bytes) -> str | None:
    """The segment name an upload request carries before its tarball is read: the multipart part's name
    (Pinot's and our clients use the segment name), or the ``DOWNLOAD_URI`` file name."""
    uri = next((v for k, v in headers.items() if k.upper() == "DOWNLOAD_URI"), None)
    content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    if content_type.lower().startswith("multipart/"):
        match = re.search(rb'name="((?:[^"\\]|\\.)*)"', body[:4096])
        if match:
            return match.group(1).decode("utf-8", "replace").replace("\\\\", "\\")
    if uri:
        last = unquote(urlsplit(uri).path.rsplit("/", 1)[-1])
        return last[: -len(".tar.gz")] if last.endswith(".tar.gz") else last
    return None


def _json_body(body: bytes) -> Any:
    if not body or not body.strip():
        return None
    try:
        return json.loads(body)
    except ValueError as exc:
        raise ApiError(400, f"Invalid JSON body: {exc}") from None


def _single_part(content_type: str, body: bytes) -> bytes:
    """Pinot's ``validateMultiPart``: exactly one form field holding exactly one body part.

    Split on the boundary by hand (the stdlib email parser takes ~80 ms per MB); part headers are parsed
    with the email parser."""
    header = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode("latin-1"))
    boundary = header.get_param("boundary")
    if not header.get_content_type() == "multipart/form-data" or not boundary:
        raise ApiError(400, "Invalid multi-part form for segment upload")
    delimiter = b"--" + boundary.encode("latin-1")
    first = body.find(delimiter)
    closing = body.rfind(delimiter + b"--")
    if first < 0 or closing < 0:
        raise ApiError(400, "Invalid multi-part form for segment upload")
    inner = body[first + len(delimiter):closing]
    if not inner.endswith(b"\r\n"):
        raise ApiError(400, "Invalid multi-part form for segment upload")
    segments = inner[:-2].split(b"\r\n" + delimiter)
    parts = []
    for raw in segments:
        raw = raw[2:] if raw.startswith(b"\r\n") else raw
        head, sep, content = raw.partition(b"\r\n\r\n")
        if not sep:
            raise ApiError(400, "Invalid multi-part form for segment upload")
        part_headers = BytesParser(policy=HTTP).parsebytes(head + b"\r\n\r\n")
        name = part_headers.get_param("name", header="content-disposition")
        parts.append((name, content))
    if len(parts) != 1 or parts[0][0] is None:
        raise ApiError(400, "Invalid multi-part form for segment upload")
    return parts[0][1]


_URI_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")


def _fetch(uri: str) -> bytes:
    """Read a DOWNLOAD_URI as Pinot does: parsed by ``java.net.URI`` (which refuses a space, a control
    character or a ``%`` not starting an escape), its path decoded (``URI.getPath()``) for the PinotFS."""
    import fsspec

    bad = next((c for c in _URI_ESCAPE.sub("", uri) if c in " %\"<>\\^`{|}" or ord(c) < 0x21 or ord(c) == 0x7F), None)
    if bad is not None:
        raise ApiError(500, f"Exception while uploading segment: java.net.URISyntaxException: Illegal character "
                            f"{bad!r} in path: {uri}")
    parts = urlsplit(uri)
    path = unquote(parts.path)
    target = path if parts.scheme == "file" else f"{parts.scheme}://{parts.netloc}{path}"
    try:
        if parts.scheme in ("http", "https"):  # fsspec's HTTP needs aiohttp, which the test extra lacks
            import urllib.request

            with urllib.request.urlopen(target, timeout=60) as handle:
                return handle.read()
        with fsspec.open(target, "rb") as handle:
            return handle.read()
    except Exception:  # Pinot's fetcher retries, then says only this (recorded from a real controller)
        raise ApiError(500, "Exception while uploading segment: Operation failed after 1 attempts") from None


def _read_segment(tar_bytes: bytes, *, full: bool, strict: bool) -> tuple[dict, tuple[int, int, int]]:
    """Untar, locate the metadata as Pinot does, check the layout; -> (metadata properties, creation)."""
    # gzip, zstd, LZ4 frame: what TarCompressionUtils (Pinot 1.3+) detects; else commons-compress finds no
    # compressor before any tar reading
    if not tar_bytes.startswith((b"\x1f\x8b", b"\x28\xb5\x2f\xfd", b"\x04\x22\x4d\x18")):
        raise ApiError(500, "Exception while uploading segment: org.apache.commons.compress.compressors."
                            "CompressorException: No Compressor found for the stream signature.")
    try:
        archive = open_tar(io.BytesIO(tar_bytes))  # by magic number, as TarCompressionUtils (gzip, lz4, zstd)
        members = archive.getmembers()
    except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
        raise ApiError(500, f"Exception while uploading segment: cannot untar: {exc}") from None
    if not members:
        raise ApiError(500, "Exception while uploading segment: empty tarball")
    for member in members:
        name = member.name
        if name.startswith("/") or ".." in name.split("/"):
            raise ApiError(500, f"Exception while uploading segment: tar entry {name} is outside the target directory")
    files = {m.name.strip("/"): m for m in members if m.isfile()}

    def read(path: str) -> bytes | None:
        member = files.get(path)
        return archive.extractfile(member).read() if member is not None else None

    first = members[0]
    if first.isdir():
        root = first.name.strip("/")
        base = f"{root}/v3" if any(p.startswith(f"{root}/v3/") for p in files) else root
    elif full and strict:
        raise ApiError(500, "Exception while uploading segment: the first tar entry must be the segment directory, "
                            f"got file {first.name}")
    else:  # metadata-only tarball: top-level files (Pinot flattens them into segment_metadata/)
        base = ""
    prefix = f"{base}/" if base else ""
    metadata_bytes = read(prefix + "metadata.properties")
    if metadata_bytes is None and not first.isdir():
        metadata_bytes = next((read(p) for p in files if p.endswith("metadata.properties")), None)
    if metadata_bytes is None:
        raise ApiError(500, "Exception while uploading segment: metadata.properties not found")
    try:
        metadata = parse_properties(metadata_bytes)
    except Exception as exc:
        raise ApiError(500, f"Exception while uploading segment: unparsable metadata.properties: {exc}") from None
    name = as_text(metadata.get("segment.name"))
    docs = as_text(metadata.get("segment.total.docs"))
    if not name:
        raise ApiError(500, "Exception while uploading segment: segment.name missing from metadata.properties")
    try:
        int(docs)
    except (TypeError, ValueError):
        raise ApiError(500, f"Exception while uploading segment: segment.total.docs is {docs!r}") from None
    creation_bytes = read(prefix + "creation.meta")
    if creation_bytes is None and not first.isdir():
        creation_bytes = next((read(p) for p in files if p.endswith("creation.meta")), None)
    creation = _creation(creation_bytes)
    if full and strict and base.endswith("/v3"):
        _check_v3_layout(read(prefix + "index_map"), files.get(prefix + "columns.psf"))
    return metadata, creation


def _creation(creation_bytes: bytes | None) -> tuple[int, int, int]:
    """creation.meta: (CRC, creation time, data CRC); absent values are Long.MIN_VALUE."""
    if creation_bytes is None:
        return LONG_MIN, LONG_MIN, LONG_MIN
    if len(creation_bytes) not in (16, 24):
        raise ApiError(500, f"Exception while uploading segment: creation.meta has {len(creation_bytes)} bytes")
    crc, created = struct.unpack(">qq", creation_bytes[:16])
    data_crc = struct.unpack(">q", creation_bytes[16:24])[0] if len(creation_bytes) == 24 else LONG_MIN
    return crc, created, data_crc


def _check_v3_layout(index_map: bytes | None, columns_psf) -> None:
    """What a server needs to load a v3 segment: index_map entries inside columns.psf."""
    if index_map is None or columns_psf is None:
        raise ApiError(500, "segment would not load on a server: v3/index_map or v3/columns.psf missing")
    entries = parse_properties(index_map)
    size = columns_psf.size
    for key, value in entries.items():
        if key.endswith(".startOffset"):
            stem = key[: -len(".startOffset")]
            length = entries.get(stem + ".size")
            if length is None or int(value) < 0 or int(value) + int(as_text(length)) > size:
                raise ApiError(500, f"segment would not load on a server: index_map entry {stem} "
                                    f"({value} + {length}) is outside columns.psf ({size} bytes)")


class _Handler(BaseHTTPRequestHandler):
    controller: FakeController
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: avoid the 40 ms delayed-ACK stall

    def log_message(self, format, *args) -> None:  # keep pytest output clean
        pass

    def _dispatch(self) -> None:
        controller = self.controller
        split = urlsplit(self.path)
        query = parse_qs(split.query, keep_blank_values=True)
        headers = {k: v for k, v in self.headers.items()}
        length = int(self.headers.get("Content-Length") or 0)
        record = Received(self.command, split.path, query, headers, length)
        with controller._lock:
            controller.received.append(record)
            down = time.monotonic() < controller._down_until
        if down:
            record.status = -1
            self._reset()
            return
        fault = controller._take_fault(self.command, split.path)
        if fault is not None and fault.kind == "reset":
            self.rfile.read(fault.after_bytes if fault.after_bytes is not None else length // 2)
            record.status = -1
            self._reset()
            return
        body = self.rfile.read(length) if length else b""
        if length <= 65536:
            record.body = body
        if fault is not None and fault.kind == "delay":
            time.sleep(fault.seconds)
        if fault is not None and fault.kind == "html":
            record.status = fault.status
            page = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>proxy login</body></html>"
            self.send_response(fault.status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            return
        is_upload = self.command == "POST" and split.path in ("/v2/segments", "/segments", "/segments/batchUpload")
        hold = controller._take_upload_hold(headers, body) if is_upload and "batch" not in split.path else None
        if hold is not None:
            hold.arrived.set()
            hold.released.wait(hold.seconds)
        if is_upload:
            with controller._lock:
                controller._uploads_in_flight += 1
                controller.max_concurrent_uploads = max(controller.max_concurrent_uploads,
                                                        controller._uploads_in_flight)
        try:
            if is_upload and controller.upload_latency_s:
                time.sleep(controller.upload_latency_s)
            if fault is not None and fault.kind == "fail":
                extra = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
                raise ApiError(fault.status, fault.message, extra)
            if fault is not None and fault.kind == "redirect":
                raise ApiError(fault.status, "redirected", {"Location": fault.location + self.path})
            if fault is not None and fault.kind == "error200":  # not applied, yet 200
                status, payload, extra = 200, {"code": 500, "error": fault.message}, None
            else:
                status, payload = controller.handle(self.command, split.path, query, self.headers, body)
                extra = None
        except ApiError as error:
            status, payload, extra = error.status, {"code": error.status, "error": error.message}, error.headers
        except Exception as exc:  # an internal error answers 500, like Jersey would
            status, payload, extra = 500, {"code": 500, "error": f"Exception while processing: {exc!r}"}, None
        finally:
            if is_upload:
                with controller._lock:
                    controller._uploads_in_flight -= 1
            if hold is not None:
                hold.landed.set()  # processed (accepted or refused), before the client hears of it
        if fault is not None and fault.kind == "lose":
            record.status = -status  # done, but the client never hears of it
            if fault.seconds:
                controller.outage(fault.seconds)
            self._reset()
            return
        record.status = status  # before answering: the client may look at it as soon as it has the answer
        self._send(status, payload, extra, trickle=fault if fault is not None and fault.kind == "trickle" else None)

    def _send(self, status: int, payload: Any, extra_headers: dict | None = None, trickle: Fault | None = None) -> None:
        if isinstance(payload, bytes):
            data, content_type = payload, "application/octet-stream"
        elif isinstance(payload, str):
            data, content_type = payload.encode(), "text/plain"
        elif payload is None:
            data, content_type = b"", "application/json"
        else:
            data, content_type = json.dumps(payload).encode(), "application/json"
        if trickle is not None:
            self._trickle(status, data, content_type, trickle)
            return
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for key, value in (extra_headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (timeout): as on a real server, work is done

    def _trickle(self, status: int, data: bytes, content_type: str, fault: Fault) -> None:
        if fault.phase == "body":
            data = data + b" " * 2000  # JSON allows trailing whitespace
        head = (f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(data)}\r\n").encode("latin-1")
        if fault.phase == "headers":
            head += b"X-Trickle: " + b"." * 2000 + b"\r\n"
        head += b"\r\n"
        whole = head + data
        slow_from = 0 if fault.phase == "headers" else len(head)
        self.close_connection = True
        ends = time.monotonic() + 120
        try:
            self.wfile.write(whole[:slow_from])
            self.wfile.flush()
            for index in range(slow_from, len(whole)):
                if self.controller._server is None or time.monotonic() > ends:
                    break
                self.wfile.write(whole[index:index + 1])
                self.wfile.flush()
                time.sleep(fault.seconds)
        except OSError:  # the client gave up
            pass

    def _reset(self) -> None:
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass

    do_GET = do_POST = do_DELETE = do_PUT = _dispatch


def _fake_controller():
    """A running FakeController with an ``events`` table (time column ``ts``); stopped after the test."""
    controller = FakeController().start()
    controller.add_simple_table("events")
    try:
        yield controller
    finally:
        controller.stop()


if pytest is not None:
    fake_controller = pytest.fixture(_fake_controller, name="fake_controller")


def _serve_main() -> None:
    """``python tests/fake_controller.py [--upload-latency-ms N]``: serve an ``events`` table until stdin
    closes, after printing the URL (used by bench/upload.py to keep the server out of the client's process)."""
    import argparse
    import sys

    parser = argparse.ArgumentParser()
    parser.add_argument("--upload-latency-ms", type=float, default=0.0)
    parser.add_argument("--port", type=int, default=0, help="listen on this port (default: any free one)")
    parser.add_argument("--serve", action="store_true",
                        help="serve until interrupted (Ctrl-C), not until stdin closes: the README's quick start")
    args = parser.parse_args()
    controller = FakeController(port=args.port).start()
    controller.add_simple_table("events")
    controller.upload_latency_s = args.upload_latency_ms / 1000
    print(controller.url, flush=True)
    try:
        if args.serve:
            threading.Event().wait()
        else:
            sys.stdin.read()
    except KeyboardInterrupt:
        pass
    controller.stop()


if __name__ == "__main__":
    _serve_main()
