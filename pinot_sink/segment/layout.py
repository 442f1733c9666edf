"""Segment directory layouts, ``creation.meta`` and the two CRCs (SEGMENT_FORMAT.md 1.2-1.5, 3).

* v1: one file per index, ``<column><extension>``, plus ``metadata.properties`` and ``creation.meta``.
* v3: ``v3/columns.psf`` (every index buffer after an 8-byte magic marker, ordered by column in
  ``String.compareTo`` order and then by index id, packed without padding), ``v3/index_map``,
  ``v3/metadata.properties`` and ``v3/creation.meta``.

CRC = Adler-32 over the concatenated bytes of every file but ``creation.meta``, in path order, taken
over the final layout; data CRC = Adler-32 over the v1 ``.fwd`` / ``.dict`` files in name order.
"""
from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from .metadata import java_sort_key
from .properties import PropertiesWriter

MAGIC_MARKER = bytes.fromhex("deadbeefdeafbead")
METADATA_FILE = "metadata.properties"
CREATION_META_FILE = "creation.meta"

# StandardIndexes ids -> v1 file extension (the forward index extension depends on the column).
EXTENSIONS = {
    "dictionary": ".dict",
    "inverted_index": ".bitmap.inv",
    "range_index": ".bitmap.range",
    "bloom_filter": ".bloom",
    "nullvalue_vector": ".bitmap.nullvalue",
}


@dataclass
class IndexEntry:
    column: str
    index_id: str  # StandardIndexes id: dictionary, forward_index, inverted_index, ...
    extension: str  # v1 file extension, e.g. ".sv.unsorted.fwd"
    payload: bytes

    @property
    def file_name(self) -> str:
        return self.column + self.extension


@dataclass
class SegmentFiles:
    """The segment directory's files (relative paths, in the order they are tarred) and its CRCs."""

    directories: list[str]
    files: dict[str, bytes]
    crc: int
    data_crc: int


def adler32(chunks) -> int:
    value = 1
    for chunk in chunks:
        value = zlib.adler32(chunk, value)
    return value & 0xFFFFFFFF


def data_crc(entries: list[IndexEntry]) -> int:
    data_files = sorted(
        (e for e in entries if e.file_name.endswith((".fwd", ".dict"))), key=lambda e: java_sort_key(e.file_name)
    )
    return adler32(e.payload for e in data_files)


def creation_meta(crc: int, creation_time_ms: int, data_crc_value: int) -> bytes:
    return struct.pack(">qqq", crc, creation_time_ms, data_crc_value)


def v3_columns(entries: list[IndexEntry]) -> tuple[bytes, bytes]:
    """``columns.psf`` and ``index_map`` bytes."""
    ordered = sorted(entries, key=lambda e: (java_sort_key(e.column), e.index_id))
    index_map = PropertiesWriter()
    parts: list[bytes] = []
    offset = 0
    for entry in ordered:
        size = len(MAGIC_MARKER) + len(entry.payload)
        index_map.put(f"{entry.column}.{entry.index_id}.startOffset", offset)
        index_map.put(f"{entry.column}.{entry.index_id}.size", size)
        parts.append(MAGIC_MARKER)
        parts.append(entry.payload)
        offset += size
    return b"".join(parts), index_map.render()


def segment_files(
    entries: list[IndexEntry], metadata: bytes, version: str, creation_time_ms: int
) -> SegmentFiles:
    names = [e.file_name for e in entries]
    if len(set(names)) != len(names):
        raise ValueError("two indexes map to the same file name")
    if version == "v3":
        psf, index_map = v3_columns(entries)
        files = {"v3/columns.psf": psf, "v3/index_map": index_map, f"v3/{METADATA_FILE}": metadata}
        prefix, directories = "v3/", ["v3/"]
    else:
        files = {e.file_name: e.payload for e in entries}
        files[METADATA_FILE] = metadata
        prefix, directories = "", []
    ordered = sorted(files, key=java_sort_key)
    crc = adler32(files[name] for name in ordered)
    data = data_crc(entries)
    files[prefix + CREATION_META_FILE] = creation_meta(crc, creation_time_ms, data)
    return SegmentFiles(directories, {name: files[name] for name in sorted(files, key=java_sort_key)}, crc, data)
