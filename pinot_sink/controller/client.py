"""``ControllerClient``: the Pinot controller's REST endpoints a segment writer needs.

Endpoints, headers and status codes follow ``shared/pinot-format/CONTROLLER_API.md``. A client speaks for
one table type (``ClientConfig.table_type``: OFFLINE, or REALTIME for uploaded real-time segments of upsert
and dedup tables); table names are accepted raw (``events``) or typed (``events_OFFLINE``). The HTTP itself
(session, retries, deadlines, error mapping) is ``transport.py``; the push modes and consistent push are
policy built on these calls (``push.py``, ``consistent_push.py``), never called from here. The client
pickles as its ``ClientConfig`` (Spark ships it to executors) and rebuilds its HTTP session on arrival.
"""
from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Mapping
from urllib.parse import quote

import requests

from ..segment.format import raw_table_name
from .config import ClientConfig
from .errors import (ControllerError, ControllerNotFoundError, ControllerRequestError, ControllerUnavailableError,
                     RetryRefusedError)
from .retry import RetryPolicy
from .transport import MULTIPART_CHUNK, MultipartFile, Transport

REALTIME_SUFFIX = "_REALTIME"
DELETE_BATCH = 100  # segment names per DELETE request (keeps the URL short)


def offline_raw_name(table: str, table_type: str = "OFFLINE") -> str:
    """``events`` or ``events_OFFLINE`` -> ``events``; a name typed other than ``table_type`` is refused
    (a client speaks for one table type: OFFLINE, or REALTIME for uploaded real-time segments).
    The suffix rule itself is Pinot's ``TableNameBuilder``, kept in ``segment.format.raw_table_name``."""
    if not table or not table.strip():
        raise ControllerRequestError("table name is empty")
    table = table.strip()
    other = REALTIME_SUFFIX if table_type == "OFFLINE" else "_OFFLINE"
    if table.endswith(other):
        raise ControllerRequestError(f"this client writes {table_type} tables (option 'table-type')", table=table)
    return raw_table_name(table)


def _refuse_if_being_replaced(raw: str, segments_from: list[str], lineage: Mapping[str, Any], *,
                              recover: str = "") -> None:
    """A start refused because another lineage entry, IN_PROGRESS, replaces one of our segments: a write or
    compaction running now, or one that was killed. Retrying cannot help; say which entry, in one line."""
    wanted = set(segments_from)
    for entry_id, entry in lineage.items():
        held = wanted & set(entry.get("segmentsFrom") or [])
        if entry.get("state") == "IN_PROGRESS" and held:
            since = entry.get("timestamp")
            when = (time.strftime(" since %Y-%m-%dT%H:%M:%SZ", time.gmtime(int(since) / 1000))
                    if isinstance(since, (int, str)) and str(since).isdigit() else "")
            segment = sorted(held)[0]
            raise RetryRefusedError(
                f"segment {segment} (of {len(segments_from)} to replace) is being replaced by lineage entry {entry_id} "
                f"(IN_PROGRESS{when}): another write or compaction is running, or was killed (`pinot-sink recover "
                f"{recover or f'--table {raw}'}` settles a killed one); nothing was started",
                operation="start segment replacement",
                table=raw, segment=segment)


class ControllerClient:
    """A Pinot controller at ``url`` (``http(s)://host:port``). Keyword options are ``ClientConfig``
    fields (``auth``, ``headers``, ``database``, ``verify``, ``cert``, ``connect_timeout``,
    ``read_timeout``, ``retry``, ``pool_size``); their defaults live there."""

    def __init__(self, url: str, **options: Any) -> None:
        self.config = ClientConfig(url=url, **options)
        self._transport = Transport(self.config)

    # --- construction, pickling, lifecycle ---------------------------------------------------------

    @classmethod
    def from_config(cls, config: ClientConfig) -> "ControllerClient":
        client = cls.__new__(cls)
        client.config = config
        client._transport = Transport(config)
        return client

    def with_retry(self, retry: RetryPolicy) -> "ControllerClient":
        return ControllerClient.from_config(replace(self.config, retry=retry))

    def __getstate__(self):
        return {"config": self.config}

    def __setstate__(self, state) -> None:
        self.config = state["config"]
        self._transport = Transport(self.config)

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> "ControllerClient":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ControllerClient({self.config.url!r}, auth={self.config.auth!r})"

    @property
    def url(self) -> str:
        return self.config.url

    @property
    def table_type(self) -> str:
        return self.config.table_type

    def _raw(self, table: str) -> str:
        return offline_raw_name(table, self.config.table_type)

    def request(self, method: str, path: str, **kwargs) -> requests.Response:
        """One logical call (see ``Transport.request``)."""
        return self._transport.request(method, path, **kwargs)

    def _get_json(self, path: str, *, operation: str, table: str | None = None, **kwargs) -> Any:
        # A body that is not JSON raises ControllerResponseError, naming the URL and status (the transport's).
        return self.request("GET", path, operation=operation, table=table, **kwargs).json()

    # --- table config and schema --------------------------------------------------------------------

    def get_table_config(self, table: str) -> dict:
        """The table config as the controller serves it (``GET /tables/{t}?type=offline``, or realtime)."""
        raw = self._raw(table)
        body = self._get_json(
            f"/tables/{quote(raw, safe='')}", params={"type": self.table_type.lower()}, operation="get table config",
            table=raw)
        config = body.get(self.table_type) if isinstance(body, dict) else None
        if not config:
            raise ControllerNotFoundError(f"table {raw}_{self.table_type} does not exist", status=404, table=raw)
        return config

    def get_schema(self, table: str) -> dict:
        raw = self._raw(table)
        return self._get_json(f"/tables/{quote(raw, safe='')}/schema", operation="get schema", table=raw)

    def add_schema(self, schema: Mapping[str, Any]) -> dict:
        """``POST /schemas?override=false``: create a schema. A schema of that name already there is a 409
        (``ControllerRequestError``, status 409: "Schema: X already exists"), not retried."""
        name = str(schema.get("schemaName") or "")
        response = self.request("POST", "/schemas", params={"override": "false"}, json_body=dict(schema),
                                operation="add schema", table=name, conflict_retryable=False)
        return response.json()

    def add_table(self, table_config: Mapping[str, Any]) -> dict:
        """``POST /tables``: create a table from its config; its schema (named as the raw table) must exist.
        A table already there is a 409 ("Table config for X_OFFLINE already exists ..."), not retried."""
        raw = self._raw(str(table_config.get("tableName") or ""))
        response = self.request("POST", "/tables", json_body=dict(table_config), operation="add table", table=raw,
                                conflict_retryable=False)
        return response.json()

    # --- segment listing ----------------------------------------------------------------------------

    def list_segments(self, table: str, exclude_replaced: bool = True) -> list[str]:
        """Segment names of the OFFLINE table; ``exclude_replaced`` hides segments replaced by completed
        lineage entries (what a consistent push must replace)."""
        raw = self._raw(table)
        body = self._get_json(
            f"/segments/{quote(raw, safe='')}",
            params={"type": self.table_type, "excludeReplacedSegments": "true" if exclude_replaced else "false"},
            operation="list segments",
            table=raw,
        )
        return _offline_names(body, self.table_type)

    def segment_crcs(self, table: str) -> dict[str, int]:
        raw = self._raw(table)
        body = self._get_json(f"/segments/{quote(raw, safe='')}/crc", operation="get segment CRCs", table=raw)
        return {name: int(crc) for name, crc in body.items()}

    def segment_zk_metadata(self, table: str) -> dict[str, dict]:
        raw = self._raw(table)
        body = self._get_json(
            f"/segments/{quote(raw, safe='')}/zkmetadata",
            params={"type": self.table_type},
            operation="get segment ZK metadata",
            table=raw,
        )
        if not isinstance(body, dict) or not all(isinstance(v, dict) for v in body.values()):
            # Not "no time range anywhere": a 200 with an error body ({"code": 500, ...}) read that way made a
            # window overwrite that includes straddling segments replace every day of the table.
            raise ControllerUnavailableError(f"the ZK metadata answer is not Pinot's: {str(body)[:200]!r}",
                                             operation="get segment ZK metadata", table=raw)
        return body

    def get_lineage(self, table: str, *, retry: RetryPolicy | None = None) -> dict[str, dict]:
        """Lineage entries by id: ``{"segmentsFrom", "segmentsTo", "state", "timestamp"}`` (none: ``{}``)."""
        raw = self._raw(table)
        response = self.request(
            "GET", f"/segments/{quote(raw, safe='')}/lineage", params={"type": self.table_type},
            operation="get segment lineage", table=raw, retry=retry,
        )
        return _lineage_entries(response, raw)

    def get_ideal_state(self, table: str) -> dict[str, dict[str, str]]:
        """The table's ideal state (of the client's table type), segment -> {instance: state}
        (``GET /tables/{t}/idealstate``). Pinot answers 404 for a type the table lacks: asking a REALTIME
        table's for ``offline`` failed every REALTIME write's commit on a real cluster."""
        raw = self._raw(table)
        kind = self.table_type
        body = self._get_json(f"/tables/{quote(raw, safe='')}/idealstate", params={"tableType": kind.lower()},
                              operation="get ideal state", table=raw)
        if not isinstance(body, dict) or not isinstance(body.get(kind) or {}, dict):
            raise ControllerUnavailableError(f"the ideal state answer is not Pinot's: {str(body)[:200]!r}",
                                             operation="get ideal state", table=raw)
        return dict(body.get(kind) or {})

    def download_segment(self, table: str, segment: str, dest: str | os.PathLike) -> Path:
        """Fetch a stored tarball (``GET /segments/{t}/{segment}``), streamed to ``dest``."""
        raw = self._raw(table)
        response = self.request(
            "GET", f"/segments/{quote(raw, safe='')}/{quote(segment, safe='')}",
            operation="download segment", table=raw, segment=segment,
            # The endpoint produces application/octet-stream only: the session's JSON Accept gets a 406.
            headers={"Accept": "application/octet-stream"},
        )
        dest = Path(dest)
        with open(dest, "wb") as handle:
            for chunk in response.iter_content(MULTIPART_CHUNK):
                handle.write(chunk)
        return dest

    # --- upload -------------------------------------------------------------------------------------

    def upload_params(self, table: str, *, parallel_push_protection: bool = False) -> dict[str, str]:
        """Query parameters of ``POST /v2/segments``. The upload endpoints do not apply the ``database``
        header to ``tableName``, so a database-scoped table name is qualified here."""
        raw = self._raw(table)
        qualified = f"{self.config.database}.{raw}" if self.config.database and "." not in raw else raw
        params = {"tableName": qualified, "tableType": self.table_type}
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
        on_retry=None,
    ) -> str:
        """``POST /v2/segments`` with a one-part multipart body (the tarball, or the metadata tarball for
        ``upload_type="METADATA"``). Returns the controller's status message."""
        raw = self._raw(table)
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
            conflict_retryable=True, on_retry=on_retry,
        )
        return _status_message(response)

    def post_segments_batch(self, table: str, uber_tarball: bytes, *, first_segment: str,
                            copy_to_deep_store: bool = False, parallel_push_protection: bool = False,
                            on_retry=None) -> str:
        """``POST /segments/batchUpload``: a metadata push of many segments in one request. The one multipart
        part is a gzipped tar of ``<segment>.metadata.properties`` and ``<segment>.creation.meta`` per segment
        and ``all_segments_metadata`` (``push.metadata_batch_tarball``); the controller adds them to the ideal
        state in one update. Pinot 1.2+; older controllers answer 404 or 405."""
        raw = offline_raw_name(table)
        headers = {"UPLOAD_TYPE": "METADATA"}
        if copy_to_deep_store:
            headers["COPY_SEGMENT_TO_DEEP_STORE"] = "true"

        def body():
            multipart = MultipartFile(uber_tarball, "noopKey")
            return multipart, multipart.content_type

        response = self.request(
            "POST", "/segments/batchUpload",
            params=self.upload_params(raw, parallel_push_protection=parallel_push_protection),
            headers=headers, body_factory=body, operation="batch upload of segments", table=raw,
            segment=first_segment, conflict_retryable=True, on_retry=on_retry,
        )
        return _status_message(response)

    def post_segment_uri(
        self, table: str, segment: str, download_uri: str, *, parallel_push_protection: bool = False,
        on_retry=None,
    ) -> str:
        """``UPLOAD_TYPE: URI``: the controller downloads the tarball from ``download_uri`` itself."""
        raw = self._raw(table)
        response = self.request(
            "POST", "/v2/segments",
            params=self.upload_params(raw, parallel_push_protection=parallel_push_protection),
            headers={"UPLOAD_TYPE": "URI", "DOWNLOAD_URI": download_uri},
            body_factory=lambda: (b"", "application/json"),
            operation="upload segment", table=raw, segment=segment, conflict_retryable=True, on_retry=on_retry,
        )
        return _status_message(response)

    # --- delete -------------------------------------------------------------------------------------

    def delete_segments(self, table: str, names: Iterable[str], *, retention: str | None = None) -> None:
        """Delete the named segments (missing names are ignored by the controller). An empty list does
        nothing: Pinot's DELETE without ``segments`` would drop every segment of the table. Segments of a
        live lineage entry cannot be deleted (Pinot refuses the whole batch); batches are of 100 names."""
        raw = self._raw(table)
        names = [n for n in dict.fromkeys(names) if n]
        for start in range(0, len(names), DELETE_BATCH):
            batch = names[start : start + DELETE_BATCH]
            params: list[tuple[str, str]] = [("type", self.table_type)] + [("segments", n) for n in batch]
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
        raw = self._raw(table)
        segments_from, segments_to = list(segments_from), list(segments_to)
        body: dict[str, Any] = {"segmentsFrom": segments_from, "segmentsTo": segments_to}
        if custom_map:
            body["customMap"] = dict(custom_map)

        def existing_entry():
            lineage = self._lineage_single_attempt(raw)
            for entry_id, entry in lineage.items():
                if (
                    entry.get("state") == "IN_PROGRESS"
                    and sorted(entry.get("segmentsFrom") or []) == sorted(segments_from)
                    and sorted(entry.get("segmentsTo") or []) == sorted(segments_to)
                ):
                    return _Resolved({"segmentLineageEntryId": entry_id})
            if not force_cleanup:  # Pinot refuses (500) to replace a segment another IN_PROGRESS entry replaces
                typed = raw if self.table_type == "OFFLINE" else f"{raw}{REALTIME_SUFFIX}"
                _refuse_if_being_replaced(raw, segments_from, lineage, recover=f"--table {typed} --url {self.url}")
            # No entry: was it refused for good? Pinot checks first that every segmentsFrom segment is live
            # (a rerun or compaction that replaced one wins) and answers 500, as for a lost ZooKeeper race.
            live = set(self.list_segments(raw, exclude_replaced=True)) if segments_from else set()
            gone = [s for s in segments_from if s not in live]
            if gone:
                raise RetryRefusedError(
                    f"segment {gone[0]} (of {len(gone)} to replace) is no longer in table {raw}: another write, "
                    f"compaction or delete replaced it first; nothing was started", operation="start segment "
                    "replacement", table=raw, segment=gone[0])
            return None

        response = self.request(
            "POST", f"/segments/{quote(raw, safe='')}/startReplaceSegments",
            params={"type": self.table_type, "forceCleanup": "true" if force_cleanup else "false"},
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
        raw = self._raw(table)
        params = {"type": self.table_type, "segmentLineageEntryId": lineage_id, "cleanup": "true" if cleanup else "false"}
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
        raw = self._raw(table)

        def already_reverted():
            entry = self._lineage_single_attempt(raw).get(lineage_id)
            return _Resolved({}) if entry and entry.get("state") == "REVERTED" else None

        self.request(
            "POST", f"/segments/{quote(raw, safe='')}/revertReplaceSegments",
            params={"type": self.table_type, "segmentLineageEntryId": lineage_id,
                    "forceRevert": "true" if force else "false"},
            body_factory=lambda: (b"", "application/json"),
            operation="revert segment replacement", table=raw, on_retry=already_reverted,
        )

    def external_view(self, table: str) -> dict[str, dict[str, str]]:
        """What the servers hold: segment -> {server: state} (``GET /tables/{t}/externalview``)."""
        raw = self._raw(table)
        body = self._get_json(f"/tables/{quote(raw, safe='')}/externalview", params={"tableType": self.table_type},
                              operation="get external view", table=raw)
        view = body.get(self.table_type) if isinstance(body, dict) else None
        return view if isinstance(view, dict) else {}

    def reset_segment(self, table: str, segment: str, server: str | None = None) -> None:
        """Have the servers load a segment once more (``POST /segments/{t}_{TYPE}/{segment}/reset``: Pinot disables
        it, waits for the external view, enables it again): a server holding it in ERROR, e.g. after a failed
        download, fetches it anew. ``server`` (``targetInstance``) resets that replica alone: without it Pinot
        resets every replica the external view does not show OFFLINE, and fails on one whose server is down."""
        raw = self._raw(table)
        self.request("POST", f"/segments/{quote(f'{raw}_{self.table_type}', safe='')}/{quote(segment, safe='')}/reset",
                     params={"targetInstance": server} if server else None,
                     body_factory=lambda: (b"", "application/json"), operation="reset segment", table=raw,
                     segment=segment)

    def reload_segments(self, table: str) -> None:
        """Ask the servers to reload every segment of the table (``POST /segments/{t}/reload``; asynchronous:
        the controller answers once the messages are sent)."""
        raw = self._raw(table)
        self.request("POST", f"/segments/{quote(raw, safe='')}/reload", params={"type": self.table_type},
                     body_factory=lambda: (b"", "application/json"), operation="reload segments", table=raw)

    def _lineage_single_attempt(self, raw: str) -> dict[str, dict]:
        """Lineage lookup used inside another call's retry loop (so it must not loop itself)."""
        response = self.request(
            "GET", f"/segments/{quote(raw, safe='')}/lineage", params={"type": self.table_type},
            operation="get segment lineage", table=raw, retry=RetryPolicy.none(),
        )
        return _lineage_entries(response, raw)


def _lineage_entries(response, raw: str) -> dict[str, dict]:
    if not response.content:
        return {}
    # A body that is not JSON raises ControllerResponseError (the transport's, naming the URL and status).
    body = response.json()
    if body is None:  # JSON null: a table that never had a lineage entry
        return {}
    if not isinstance(body, dict) or not isinstance(body.get("lineageEntries"), dict):
        # Unreadable is not "no entries": a caller deciding a commit's outcome must not take it for one. Pinot's
        # record (SegmentLineage.toJsonObject) always has "lineageEntries"; a 200 carrying an error body
        # ({"code": 500, "error": ...}, from a proxy or a half-failed controller) has not.
        raise ControllerUnavailableError(f"the lineage answer is not Pinot's: {response.text[:200]!r}",
                                         operation="get segment lineage", table=raw)
    return dict(body.get("lineageEntries") or {})


class _Resolved:
    """Stands in for a response when a retry finds the work already done."""

    status_code = 200

    def __init__(self, payload: dict) -> None:
        self._payload = payload
        self.content = b"{}"

    def json(self) -> dict:
        return self._payload


def _offline_names(body: Any, table_type: str = "OFFLINE") -> list[str]:
    """``[{"OFFLINE": [names]}]`` (or ``REALTIME``), the listing shape of ``/segments/{t}`` and ``/select``."""
    if not isinstance(body, list):
        # Not "no segments": a 200 with an error body ({"code": 500, ...}) taken for an empty table made an
        # overwrite replace nothing and keep the old rows.
        raise ControllerUnavailableError(f"the segment listing is not Pinot's: {str(body)[:200]!r}",
                                         operation="list segments")
    names: list[str] = []
    for element in body:
        if isinstance(element, dict):
            names.extend(element.get(table_type, []))
    return names


def _status_message(response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    return str(body.get("status", "")) if isinstance(body, dict) else ""
