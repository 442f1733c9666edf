"""Where a table's live segments are: one interface, ``SegmentStore``, and its folder implementation:

* ``DirectoryStore``: a folder of ``<segmentName>.tar.gz`` (embedded mode's ``output-uri``, a deep store);
  its listing is the folder's tarballs, a delete removes files, time ranges come from each tarball's
  ``metadata.properties``.

The other implementation, a controller's table, is ``pinot_sink.controller.store.ControllerStore``, one floor
up (storage imports nothing of the controller; the controller's push copies into a deep store through
``files``); ``pinot_sink.controller.store.open_store`` chooses between the two once, when a write is prepared.
Callers never ask which one they hold: a store even picks its own way of publishing a commit
(``SegmentStore.publication``).
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Protocol

from pinot_sink.segment.format import tarball_name

from .files import list_segment_uris
from .layout import local_path, segment_uri, table_uri, uri_to_fs
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

    def publication(self, publications: Any) -> Any:
        """This store's own way of making a commit's segments live, picked from the ways a committer offers
        (``publications.into_folder``, ``publications.through_controller``: ``pinot_sink.commit``), so the
        committer never asks which store it holds."""


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
            uri = segment_uri(self.root_uri, self.table, name)
            target = local_path(uri)
            try:
                if target is not None:  # without fsspec: a compaction deletes thousands (~0.07 ms of its each)
                    try:
                        os.remove(target)
                    except FileNotFoundError:
                        pass
                    continue
                fs, target = uri_to_fs(uri, self.storage_options)
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

    def publication(self, publications: Any) -> Any:
        return publications.into_folder
