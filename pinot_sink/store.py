"""Where segments live: a controller table or a directory of tarballs, and the staging area of a write.

Layout (the deep store's, owned by ``pinot_sink.controller.deep_store``): a table's tarballs are
``<root>/<rawTable>/<segmentName>.tar.gz``. A write stages its tasks' tarballs under

    <root>/<rawTable>/_staging/<write tag>_<run tag>/p<partition>_a<task attempt>/<segmentName>.tar.gz

one folder per task attempt, so two attempts of one partition (a retry, a speculative copy, a straggler
still running after the job) never write the same file. The driver publishes only the files that the
committed attempts reported, and deletes the run's staging folder afterwards. Listings of the table see
tarballs only (so not ``_staging`` or ``_manifests``), as Pinot's batch jobs skip non-tarballs, and skip
hidden files (``.``).
"""
from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping
from urllib.parse import unquote, urlsplit

from pinot_sink.controller import ClientConfig, ControllerClient, redact_text
from pinot_sink.controller.deep_store import child_uri, segment_uri, table_uri, uri_to_fs
from pinot_sink.segment.format import TARBALL_EXTENSION, segment_name_of_tarball, tarball_name

from .time_window import tarball_time_range, zk_time_range

log = logging.getLogger("pinot_sink")

STAGING_DIR = "_staging"


def local_path(uri: str) -> str | None:
    """The local path behind a ``file://`` URI (None for remote stores)."""
    if uri.startswith("file://"):
        return unquote(urlsplit(uri).path)
    return None


def staging_uri(root_uri: str, table: str, run_folder: str) -> str:
    """The folder of one run's staged tarballs."""
    return child_uri(child_uri(table_uri(root_uri, table), STAGING_DIR), run_folder)


def attempt_folder(partition_id: int, task_attempt: int) -> str:
    return f"p{partition_id}_a{task_attempt}"


def _fs(uri: str, storage_options: Mapping[str, Any] | None = None):
    return uri_to_fs(uri, storage_options)


@dataclass(frozen=True)
class SegmentStore:
    """A place holding segments by name: a controller table, or a directory of ``<name>.tar.gz``."""

    table: str
    client_config: ClientConfig | None = None
    directory_uri: str | None = None  # <output-uri>/<table>
    storage_options: Mapping[str, Any] | None = field(default=None, repr=False)  # fsspec kwargs (secrets)

    def describe(self) -> str:
        if self.client_config is not None:
            return f"controller {self.client_config.url}"
        return self.directory_uri or "?"

    def list(self) -> set[str]:
        """The segments a query sees (for a controller: replaced ones excluded)."""
        if self.client_config is not None:
            with ControllerClient.from_config(self.client_config) as client:
                return set(client.list_segments(self.table, exclude_replaced=True))
        fs, path = _fs(self.directory_uri, self.storage_options)
        if not fs.exists(path):
            return set()
        names = set()
        for entry in fs.ls(path, detail=False):
            base = os.path.basename(str(entry).rstrip("/"))
            # Hidden files only: a segment name may start with "_" (a table "_ev", a prefix "_bak"), and
            # _staging / _manifests are folders, never tarballs.
            if base.endswith(TARBALL_EXTENSION) and not base.startswith("."):
                names.add(segment_name_of_tarball(base))  # files are named verbatim (deep_store's rule)
        return names

    def delete(self, names: Iterable[str]) -> list[str]:
        """Delete ``names``; returns the ones that could not be deleted (the error is logged)."""
        names = sorted(set(names))
        if not names:
            return []
        if self.client_config is not None:
            with ControllerClient.from_config(self.client_config) as client:
                client.delete_segments(self.table, names)
            return []
        fs, _ = _fs(self.directory_uri, self.storage_options)
        left = []
        for name in names:
            _, target = _fs(segment_uri(self._root(), self.table, name), self.storage_options)
            try:
                if fs.exists(target):
                    fs.rm(target)
            except OSError as exc:
                log.error("pinot_sink: could not delete %s: %s", target, exc)
                left.append(name)
        return left

    def time_ranges(self, names: Iterable[str]) -> dict[str, tuple[int, int]]:
        """Each segment's time range in epoch millis, -1 for none: a controller's ZK metadata, or the
        ``metadata.properties`` inside each tarball of the directory (streamed, nothing extracted)."""
        names = set(names)
        if self.client_config is not None:
            with ControllerClient.from_config(self.client_config) as client:
                zk = client.segment_zk_metadata(self.table)
            return {name: zk_time_range(zk.get(name) or {}) for name in names}
        ranges = {}
        for name in names:
            fs, target = _fs(segment_uri(self._root(), self.table, name), self.storage_options)
            with fs.open(target, "rb") as handle:
                ranges[name] = tarball_time_range(handle, f"{self.directory_uri}/{tarball_name(name)}")
        return ranges

    def _root(self) -> str:
        return self.directory_uri.rsplit("/", 1)[0]


def public_file_mode() -> int:
    """What a new file gets under the process umask (0644 under 022): published tarballs must be readable
    by Pinot's servers, which run as another user. Staged files keep the builder's private 0600."""
    with _UMASK_LOCK:  # os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


_UMASK_LOCK = threading.Lock()


def publish_into_directory(root_uri: str, table: str, staged: dict[str, str],
                           storage_options: Mapping[str, Any] | None = None) -> None:
    """Move staged tarballs (``name -> staged uri``) to their place in the table's folder. Each move is
    a rename on local disks (atomic) and a copy-then-delete on object stores (the object appears whole);
    local files get the umask's normal mode as they are published."""
    mode = public_file_mode()
    for name, source in staged.items():
        target = segment_uri(root_uri, table, name)
        fs, source_path = _fs(source, storage_options)
        _, target_path = _fs(target, storage_options)
        fs.makedirs(os.path.dirname(target_path), exist_ok=True)
        if local_path(source) is not None:
            os.chmod(source_path, mode)
            os.replace(source_path, target_path)
        else:
            fs.mv(source_path, target_path)


def write_text(uri: str, text: str, storage_options: Mapping[str, Any] | None = None) -> None:
    """A small file (a manifest) written whole: a temp name and a rename on local disks."""
    fs, path = _fs(uri, storage_options)
    fs.makedirs(os.path.dirname(path), exist_ok=True)
    if local_path(uri) is not None:
        temporary = f"{path}.tmp-{os.getpid()}-{threading.get_ident()}"
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temporary, public_file_mode())
        os.replace(temporary, path)
    else:
        with fs.open(path, "w") as handle:
            handle.write(text)


def read_text(uri: str, storage_options: Mapping[str, Any] | None = None) -> str | None:
    """A small file's text, or None when there is none."""
    fs, path = _fs(uri, storage_options)
    try:
        with fs.open(path, "r") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def list_files(uri: str, suffix: str, storage_options: Mapping[str, Any] | None = None) -> list[str]:
    """The URIs of the files directly in folder ``uri`` whose names end with ``suffix`` (none: no folder)."""
    fs, path = _fs(uri, storage_options)
    if not fs.exists(path):
        return []
    names = sorted(os.path.basename(str(entry).rstrip("/")) for entry in fs.ls(path, detail=False))
    return [child_uri(uri, name) for name in names if name.endswith(suffix)]


def remove_tree(uri: str, storage_options: Mapping[str, Any] | None = None) -> bool:
    """Delete a staging folder and everything under it; False (logged) when it could not be."""
    try:
        fs, path = _fs(uri, storage_options)
        if fs.exists(path):
            fs.rm(path, recursive=True)
        return True
    except Exception as exc:  # noqa: BLE001 - object stores raise their own errors (gcsfs HttpError, ...);
        # this runs after a commit or an abort, whose outcome a leftover folder must not change
        log.warning("pinot_sink: could not remove staging folder %s: %s", redact_text(uri), exc)
        return False

