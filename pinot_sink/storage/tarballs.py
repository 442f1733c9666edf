"""What a segment tarball says about itself, read as a stream (one pass, nothing extracted, never whole in
memory): its ``metadata.properties`` and ``creation.meta`` (a metadata push sends them), its time range (a
window replace of a directory of tarballs reads it)."""
from __future__ import annotations

import os
import struct
from typing import IO

from pinot_sink.segment.read.segment_metadata import parse_segment_metadata
from pinot_sink.segment.read.tar_source import open_tar_stream
from type_mapping.errors import PinotSinkError

NO_TIME_MS = -1  # Pinot's value for a segment without a time range (ZK metadata, a window's rules)


class SegmentTarballError(PinotSinkError, ValueError):
    """A file that is not a segment tarball where one was expected."""


def metadata_files(tar_path: str | os.PathLike | IO[bytes]) -> dict[str, bytes]:
    """``metadata.properties`` and ``creation.meta`` of a segment tarball (a path or a binary file object).

    Reads the tarball as a stream (one pass; a gzip one never whole in memory, an LZ4 or Zstandard one
    decompressed whole: ``tar_source.open_tar_stream``); the ``v3/`` copies win over v1 ones, as Pinot's reader
    prefers ``v3/``."""
    found: dict[str, tuple[int, bytes]] = {}
    with open_tar_stream(tar_path) as archive:
        for member in archive:
            if not member.isfile():
                continue
            parts = member.name.strip("/").split("/")
            base = parts[-1]
            if base not in ("metadata.properties", "creation.meta"):
                continue
            rank = 1 if len(parts) >= 2 and parts[-2] == "v3" else 0
            if base not in found or rank > found[base][0]:
                handle = archive.extractfile(member)
                found[base] = (rank, handle.read() if handle else b"")
    return {base: data for base, (_, data) in found.items()}


def tarball_custom_metadata(tarball: str | os.PathLike | IO[bytes], where: str | None = None) -> dict[str, str]:
    """A segment tarball's ``custom.*`` metadata (keys without ``custom.``), streamed."""
    properties = metadata_files(tarball).get("metadata.properties")
    if properties is None:
        raise SegmentTarballError(f"{where or os.fspath(tarball)} is not a segment tarball: no metadata.properties")
    return dict(parse_segment_metadata(properties).custom)


def tarball_time_range(tarball: str | os.PathLike | IO[bytes], where: str | None = None) -> tuple[int, int]:
    """A segment tarball's range from its ``metadata.properties`` (streamed, nothing extracted)."""
    properties = metadata_files(tarball).get("metadata.properties")
    if properties is None:
        raise SegmentTarballError(f"{where or os.fspath(tarball)} is not a segment tarball: no metadata.properties")
    meta = parse_segment_metadata(properties)
    return (NO_TIME_MS if meta.start_time_ms is None else meta.start_time_ms,
            NO_TIME_MS if meta.end_time_ms is None else meta.end_time_ms)


def tarball_crc(tarball: str | os.PathLike | IO[bytes]) -> int | None:
    """The segment CRC its ``creation.meta`` records (the first 8 bytes, a big-endian long, as the controller's
    ZK metadata and ``GET /segments/{t}/crc`` give it); None when it has none."""
    meta = metadata_files(tarball).get("creation.meta")
    return struct.unpack(">q", meta[:8])[0] if meta is not None and len(meta) >= 8 else None
