"""Moving files in storage through ``fsspec``: tarballs copied in (a deep store, a staging folder), staged
tarballs published into a table's folder, small text files (manifests) written whole, folders listed and
removed. Paths come from ``pinot_sink.storage.layout``.

The copy streams from the local file; on local paths it writes a temporary name and renames, on object stores
the object only appears once its upload completes, so a reader never sees half a tarball. Published tarballs
and manifests get the umask's normal mode (Pinot's servers run as another user); staged files keep the
builder's private 0600.
"""
from __future__ import annotations

import logging
import os
import shutil
import threading
import uuid
from datetime import datetime
from typing import Any, Mapping

from type_mapping.errors import redact_text

from .layout import (TARBALL_SUFFIX, StorageError, child_uri, local_path, segment_name_from_uri, segment_uri, table_uri,
                     tarball_uri, uri_to_fs)

log = logging.getLogger("pinot_sink")


def list_segment_uris(root: str, raw_table: str, options: Mapping[str, Any] | None = None) -> dict[str, str]:
    """``{segment name: segment_uri}`` of the tarballs under ``<root>/<rawTable>/`` (none if it is missing);
    hidden files and unfinished copies (temporary names) are skipped."""
    fs, path = uri_to_fs(table_uri(root, raw_table), options)
    try:
        if not fs.exists(path):
            return {}
        entries = fs.ls(path, detail=False)
    except (OSError, IOError) as exc:
        raise StorageError(f"deep store listing, table {raw_table!r}: cannot list {table_uri(root, raw_table)}: "
                           f"{type(exc).__name__}: {exc}", retryable=True) from None
    found = {}
    folder = table_uri(root, raw_table)  # once: a compaction lists 2000 tarballs, three times in its commit
    for entry in entries:
        base = os.path.basename(str(entry).rstrip("/"))
        if base.endswith(TARBALL_SUFFIX) and not base.startswith("."):
            name = base[: -len(TARBALL_SUFFIX)]
            found[name] = tarball_uri(folder, name)
    return found


def copy_to_deep_store(
    tar_path: str | os.PathLike,
    dest_uri: str,
    *,
    options: Mapping[str, Any] | None = None,
    segment: str | None = None,
    table: str | None = None,
) -> int:
    """Copy the local tarball to ``dest_uri``; returns the bytes written. I/O errors are retryable."""
    fs, path = uri_to_fs(dest_uri, options)
    size = os.path.getsize(tar_path)
    try:
        parent = path.rsplit("/", 1)[0] if "/" in path else ""
        if parent:
            fs.makedirs(parent, exist_ok=True)
        if _is_local(fs):
            temp = f"{path}.{uuid.uuid4().hex}.tmp"
            try:
                shutil.copyfile(tar_path, temp)
                os.replace(temp, path)
            finally:
                if os.path.exists(temp):
                    os.unlink(temp)
        else:
            fs.put_file(os.fspath(tar_path), path)
    except (OSError, IOError) as exc:
        where = "".join(f", {what} {name!r}" for what, name in (("segment", segment), ("table", table)) if name)
        raise StorageError(f"deep store copy{where}: copy to {dest_uri} failed: {type(exc).__name__}: {exc}",
                           retryable=True) from None
    return size


def _is_local(fs) -> bool:
    protocol = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
    return "file" in protocol or "local" in protocol


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
        fs, source_path = uri_to_fs(source, storage_options)
        _, target_path = uri_to_fs(target, storage_options)
        fs.makedirs(os.path.dirname(target_path), exist_ok=True)
        if local_path(source) is not None:
            os.chmod(source_path, mode)
            os.replace(source_path, target_path)
        else:
            fs.mv(source_path, target_path)


def write_text(uri: str, text: str, storage_options: Mapping[str, Any] | None = None) -> None:
    """A small file (a manifest) written whole: a temp name and a rename on local disks (there without
    fsspec: a compaction of 2000 segments rewrites their 2000 manifests, ~0.05 ms of fsspec's each)."""
    path = local_path(uri)
    if path is not None:
        temporary = f"{path}.tmp-{os.getpid()}-{threading.get_ident()}"
        _write_new(temporary, text.encode("utf-8"))
        os.replace(temporary, path)
        return
    fs, path = uri_to_fs(uri, storage_options)
    fs.makedirs(os.path.dirname(path), exist_ok=True)
    with fs.open(path, "w") as handle:
        handle.write(text)


def _write_new(path: str, data: bytes) -> None:
    """``data`` as a new file at ``path`` of the umask's normal mode (``public_file_mode``: what ``O_CREAT``
    with 0o666 gives), its folder made if missing; a file left there (a killed process's temporary of the same
    name) is replaced. By ``os.open`` / ``os.write``, with no folder made unless missing: ~15 against ~45 us of
    user CPU a manifest beside ~65 of system (a compaction of 2000 inputs rewrites their 2000 manifests)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(path, flags, 0o666)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle = os.open(path, flags, 0o666)
    except FileExistsError:
        os.unlink(path)
        handle = os.open(path, flags, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(handle, view):]
    finally:
        os.close(handle)


def read_text(uri: str, storage_options: Mapping[str, Any] | None = None) -> str | None:
    """A small file's text, or None when there is none (a local one read without fsspec, as written)."""
    path = local_path(uri)
    try:
        if path is not None:
            with open(path, encoding="utf-8") as handle:
                return handle.read()
        fs, path = uri_to_fs(uri, storage_options)
        with fs.open(path, "r") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def list_files(folder_uri: str, suffix: str, storage_options: Mapping[str, Any] | None = None) -> list[str]:
    """URIs of the files directly in ``folder_uri`` whose names end with ``suffix`` (none: no folder)."""
    fs, path = uri_to_fs(folder_uri, storage_options)
    if not fs.exists(path):
        return []
    return sorted(child_uri(folder_uri, os.path.basename(str(e).rstrip("/"))) for e in fs.ls(path, detail=False)
                  if str(e).endswith(suffix))


def list_folders(folder_uri: str, storage_options: Mapping[str, Any] | None = None) -> list[str]:
    """Names of the folders directly in ``folder_uri`` (none: no folder)."""
    fs, path = uri_to_fs(folder_uri, storage_options)
    if not fs.exists(path):
        return []
    return sorted(os.path.basename(str(e["name"]).rstrip("/")) for e in fs.ls(path, detail=True)
                  if e.get("type") == "directory")


def staged_tarballs(staging_uri: str, storage_options: Mapping[str, Any] | None = None) -> dict[str, list[str]]:
    """``{segment name: [staged URI, ...]}`` of a run's staging folder, every task attempt's copy (two attempts
    of one partition stage the same name, not always the same bytes)."""
    found: dict[str, list[str]] = {}
    for attempt in list_folders(staging_uri, storage_options):
        for uri in list_files(child_uri(staging_uri, attempt), TARBALL_SUFFIX, storage_options):
            found.setdefault(segment_name_from_uri(uri), []).append(uri)
    return found


def last_changed(uri: str, storage_options: Mapping[str, Any] | None = None) -> float | None:
    """When a file, or anything under a folder, last changed (epoch seconds); None when the store does not say
    (or there is nothing). Stores name the time differently: ``mtime`` (local, HDFS), ``LastModified`` (S3),
    ``updated`` (GCS), ``last_modified`` (Azure)."""
    fs, path = uri_to_fs(uri, storage_options)
    try:
        infos = [fs.info(path)] if fs.isfile(path) else list(fs.find(path, detail=True, withdirs=True).values())
    except FileNotFoundError:
        return None
    times = [t for t in (_changed_at(info) for info in infos) if t is not None]
    return max(times) if times else None


def _changed_at(info: Mapping[str, Any]) -> float | None:
    for key in ("mtime", "LastModified", "updated", "last_modified", "modified"):
        value = info.get(key)
        if value is None:
            continue
        if isinstance(value, (int, float)):
            return float(value)
        if hasattr(value, "timestamp"):  # datetime
            return value.timestamp()
        try:
            return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
        except ValueError:
            continue
    return None


def remove_tree(uri: str, storage_options: Mapping[str, Any] | None = None) -> bool:
    """Delete a staging folder and everything under it; False (logged) when it could not be."""
    try:
        fs, path = uri_to_fs(uri, storage_options)
        if fs.exists(path):
            fs.rm(path, recursive=True)
        return True
    except Exception as exc:  # noqa: BLE001 - object stores raise their own errors (gcsfs HttpError, ...);
        # this runs after a commit or an abort, whose outcome a leftover folder must not change
        log.warning("pinot_sink: could not remove staging folder %s: %s", redact_text(uri), exc)
        return False

