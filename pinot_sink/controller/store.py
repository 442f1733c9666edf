"""A controller's table as a segment store (``pinot_sink.storage.stores.SegmentStore``), and the choice
between it and a folder, made once when a write is prepared, as ``requests`` chooses its adapter once per URL.

* ``ControllerStore``: the listing leaves out segments a lineage entry replaced, time ranges come from the
  segments' ZK metadata. It opens one controller client, when first asked, and keeps it until ``close`` (a
  store crosses to executors pickled: the client stays behind).

On the controller's floor, above storage (which knows nothing of the controller).
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from pinot_sink.storage.stores import DirectoryStore, SegmentStore
from pinot_sink.storage.tarballs import NO_TIME_MS
from type_mapping.datetime_formats import UNIT_MILLIS, stored_to_millis

from .client import ControllerClient
from .config import ClientConfig


def open_store(table: str, *, client_config: ClientConfig | None = None, root_uri: str | None = None,
               storage_options: Mapping[str, Any] | None = None) -> SegmentStore:
    """The table's store: its controller when there is one, else the ``<root>/<table>`` folder."""
    if client_config is not None:
        return ControllerStore(table, client_config)
    return DirectoryStore(table, root_uri, storage_options)


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

    def publication(self, publications: Any) -> Any:
        """``SegmentStore.publication``: through this controller (a lineage entry, or a refresh)."""
        return publications.through_controller


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
