"""Copying segment tarballs to a deep store through ``fsspec``.

Layout: ``<output-uri>/<rawTable>/<segmentName>.tar.gz`` with the segment name percent-encoded (as Pinot's
batch jobs do), e.g. ``s3://bucket/pinot/events/events_2024_0.tar.gz``. ``file://`` always works;
``s3://``, ``gs://``, ``hdfs://`` need the matching fsspec package (``s3fs``, ``gcsfs``, ``pyarrow``'s HDFS)
on every executor. The copy streams from the local file; on local paths it writes a temporary name and
renames, on object stores the object only appears once its upload completes, so a reader never sees half
a tarball.
"""
from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import quote

from .errors import DeepStoreError

FILESYSTEM_PACKAGES = {"s3": "s3fs", "s3a": "s3fs", "gs": "gcsfs", "gcs": "gcsfs", "hdfs": "pyarrow",
                       "abfs": "adlfs", "az": "adlfs"}


def normalise_uri(uri: str) -> str:
    """A bare local path becomes a ``file://`` URI (servers need a scheme); the trailing slash goes."""
    uri = uri.strip()
    if not uri:
        raise DeepStoreError("deep store URI is empty")
    if "://" not in uri:
        uri = Path(uri).resolve().as_uri()
    return uri.rstrip("/")


def segment_destination(output_uri: str, raw_table: str, segment_name: str) -> str:
    """The documented layout ``<output-uri>/<rawTable>/<segmentName>.tar.gz``."""
    return f"{normalise_uri(output_uri)}/{quote(raw_table, safe='')}/{quote(segment_name, safe='')}.tar.gz"


def _filesystem(uri: str, options: Mapping[str, Any] | None):
    import fsspec

    try:
        return fsspec.core.url_to_fs(uri, **dict(options or {}))
    except ImportError as exc:
        scheme = uri.split("://", 1)[0]
        package = FILESYSTEM_PACKAGES.get(scheme, "the fsspec implementation for this scheme")
        raise DeepStoreError(f"cannot write to {scheme}:// URIs: install {package} ({exc})") from None
    except ValueError as exc:
        raise DeepStoreError(f"unsupported deep store URI {uri!r}: {exc}") from None


def copy_to_deep_store(
    tar_path: str | os.PathLike,
    dest_uri: str,
    *,
    options: Mapping[str, Any] | None = None,
    segment: str | None = None,
    table: str | None = None,
) -> int:
    """Copy the local tarball to ``dest_uri``; returns the bytes written. I/O errors are retryable."""
    fs, path = _filesystem(dest_uri, options)
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
        raise DeepStoreError(
            f"copy to {dest_uri} failed: {type(exc).__name__}: {exc}", segment=segment, table=table,
            retryable=True, operation="deep store copy",
        ) from None
    return size


def _is_local(fs) -> bool:
    protocol = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
    return "file" in protocol or "local" in protocol


def delete_from_deep_store(uri: str, *, options: Mapping[str, Any] | None = None) -> None:
    """Best-effort removal (used to clean up after a failed METADATA or URI push)."""
    fs, path = _filesystem(uri, options)
    try:
        if fs.exists(path):
            fs.rm(path)
    except (OSError, IOError):
        pass
