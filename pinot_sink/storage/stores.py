"""Where a table's live segments are: one interface, ``SegmentStore``, and its two implementations, chosen
once (``open_store``) when a write is prepared, as ``requests`` chooses its adapter once per URL:

* ``DirectoryStore``: a folder of ``<segmentName>.tar.gz`` (embedded mode's ``output-uri``, a deep store);
  its listing is the folder's tarballs, a delete removes files, time ranges come from each tarball's
  ``metadata.properties``;
* ``ControllerStore``: a controller's table; the listing leaves out segments a lineage entry replaced, time
  ranges come from the segments' ZK metadata. It opens one controller client, when first asked, and keeps it
  until ``close`` (a store crosses to executors pickled: the client stays behind).

Callers never ask which one they hold.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Protocol

from pinot_sink.controller.client import ControllerClient
from pinot_sink.controller.config import ClientConfig
from pinot_sink.segment.format import tarball_name
from type_mapping.datetime_formats import UNIT_MILLIS, stored_to_millis

from .files import list_segment_uris
from .layout import segment_uri, table_uri, uri_to_fs
from .tarballs import NO_TIME_MS, tarball_custom_metadata, tarball_time_range

log = logging.getLogger("pinot_sink")
_CUSTOM_READ: dict[str, dict[str, str]] = {}  # a tarball's custom metadata by URI (DirectoryStore.custom_metadata)


class SegmentStore(Protocol):
    """A place holding a table's segments by name."""

    table: str

    def describe(self) -> str:
        """For people: where this is."""

    def list(self) -> set[str]:
        """The segments a query sees."""

    def delete(self, names: Iterable[str]) -> list[str]:
        """Delete ``names``; returns the ones that could not be deleted."""

    def time_ranges(self, names: Iterable[str]) -> dict[str, tuple[int, int]]:
        """Each segment's time range in epoch millis, -1 for none."""

    def custom_metadata(self, names: Iterable[str]) -> dict[str, dict[str, str]]:
        """Each segment's ``custom.*`` metadata (keys without ``custom.``); a missing segment is left out."""

    def close(self) -> None:
        """Let go of what the store holds open (nothing, for a directory)."""


def open_store(table: str, *, client_config: ClientConfig | None = None, root_uri: str | None = None,
               storage_options: Mapping[str, Any] | None = None) -> SegmentStore:
    """The table's store: its controller when there is one, else the ``<root>/<table>`` folder."""
    if client_config is not None:
        return ControllerStore(table, client_config)
    return DirectoryStore(table, root_uri, storage_options)


@dataclass(frozen=True)
class DirectoryStore:
    """The tarballs of ``<root>/<table>/`` (``pinot_sink.storage.layout``)."""

    table: str
    root_uri: str  # normalised; the table's folder is <root_uri>/<table>
    storage_options: Mapping[str, Any] | None = field(default=None, repr=False)  # fsspec kwargs (secrets)

    @property
    def folder_uri(self) -> str:
        return table_uri(self.root_uri, self.table)

    def describe(self) -> str:
        return self.folder_uri

    def list(self) -> set[str]:
        # Hidden files only are skipped: a segment name may start with "_" (a table "_ev", a prefix "_bak"),
        # and _staging / _manifests are folders, never tarballs.
        return set(list_segment_uris(self.root_uri, self.table, self.storage_options))

    def delete(self, names: Iterable[str]) -> list[str]:
        """Delete ``names``; returns the ones that could not be deleted (the error is logged)."""
        left = []
        for name in sorted(set(names)):
            fs, target = uri_to_fs(segment_uri(self.root_uri, self.table, name), self.storage_options)
            try:
                if fs.exists(target):
                    fs.rm(target)
            except OSError as exc:
                log.error("pinot_sink: could not delete %s: %s", target, exc)
                left.append(name)
        return left

    def time_ranges(self, names: Iterable[str]) -> dict[str, tuple[int, int]]:
        """From the ``metadata.properties`` inside each tarball (streamed, nothing extracted)."""
        ranges = {}
        for name in set(names):
            fs, target = uri_to_fs(segment_uri(self.root_uri, self.table, name), self.storage_options)
            with fs.open(target, "rb") as handle:
                ranges[name] = tarball_time_range(handle, f"{self.folder_uri}/{tarball_name(name)}")
        return ranges

    def custom_metadata(self, names: Iterable[str]) -> dict[str, dict[str, str]]:
        """From the ``metadata.properties`` inside each tarball (streamed). A name is never reused for other
        bytes (run-tagged names), so what was read once is kept for the process's life."""
        found = {}
        for name in set(names):
            uri = segment_uri(self.root_uri, self.table, name)
            if uri not in _CUSTOM_READ:
                fs, target = uri_to_fs(uri, self.storage_options)
                try:
                    with fs.open(target, "rb") as handle:
                        _CUSTOM_READ[uri] = tarball_custom_metadata(handle, f"{self.folder_uri}/{tarball_name(name)}")
                except FileNotFoundError:
                    continue
            found[name] = _CUSTOM_READ[uri]
        return found

    def close(self) -> None:
        pass


class ControllerStore:
    """A controller's table; one client from the first call to ``close``."""

    def __init__(self, table: str, client_config: ClientConfig) -> None:
        self.table, self.client_config = table, client_config
        self._client: ControllerClient | None = None
        self._owns_client = True

    @classmethod
    def over(cls, client: ControllerClient, table: str) -> "ControllerStore":
        """The store over a client its caller opened and closes (``close`` leaves it open)."""
        store = cls(table, client.config)
        store._client, store._owns_client = client, False
        return store

    def __repr__(self) -> str:
        return f"ControllerStore({self.table!r}, {self.client_config.url!r})"

    def __getstate__(self) -> dict:  # pickled to executors: a client (sockets, a pool) stays on the driver
        return {"table": self.table, "client_config": self.client_config, "_client": None, "_owns_client": True}

    @property
    def client(self) -> ControllerClient:
        if self._client is None:
            self._client = ControllerClient.from_config(self.client_config)
        return self._client

    def describe(self) -> str:
        return f"controller {self.client_config.url}"

    def list(self) -> set[str]:
        """Replaced segments (a lineage entry's ``segmentsFrom``) left out."""
        return set(self.client.list_segments(self.table, exclude_replaced=True))

    def delete(self, names: Iterable[str]) -> list[str]:
        names = sorted(set(names))
        if names:
            self.client.delete_segments(self.table, names)
        return []

    def time_ranges(self, names: Iterable[str]) -> dict[str, tuple[int, int]]:
        """From the segments' ZK metadata."""
        names = set(names)
        zk = self.client.segment_zk_metadata(self.table)
        return {name: zk_time_range(zk.get(name) or {}) for name in names}

    def custom_metadata(self, names: Iterable[str]) -> dict[str, dict[str, str]]:
        """From the segments' ZK metadata (``custom.map``: the controller copies a segment's ``custom.*``
        metadata there when it is uploaded)."""
        names = set(names)
        zk = self.client.segment_zk_metadata(self.table) if names else {}
        found = {}
        for name in names & set(zk):
            text = (zk[name] or {}).get("custom.map")
            found[name] = {str(k): str(v) for k, v in json.loads(text).items()} if text else {}
        return found

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None and self._owns_client:
            client.close()
        self._owns_client = True  # a later call opens its own


def zk_time_range(zk: Mapping[str, Any]) -> tuple[int, int]:
    """A segment's range in millis from its ZK metadata, as ``SegmentZKMetadata.getStartTimeMs`` reads it:
    ``segment.start.time`` / ``end.time`` in ``segment.time.unit`` (uploads store MILLISECONDS; old entries
    other units), -1 when missing or not positive."""
    unit = str(zk.get("segment.time.unit") or "MILLISECONDS").upper()

    def millis(key: str) -> int:
        value = int(zk.get(key) or NO_TIME_MS)
        if value <= 0:
            return NO_TIME_MS
        return stored_to_millis(value, unit if unit in UNIT_MILLIS else "MILLISECONDS")

    return millis("segment.start.time"), millis("segment.end.time")
