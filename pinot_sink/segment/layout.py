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
from dataclasses import dataclass, field

from pinot_sink.segment.fast_zlib import fast_zlib as isal_zlib  # Adler-32 2-3x faster than zlib's; same values

from type_mapping.java_text import java_sort_key

from .format import (COLUMNS_FILE, CREATION_META_FILE, DATA_FILE_SUFFIXES, INDEX_MAP_FILE, METADATA_FILE, V3_DIR,
                     V3_MAGIC_MARKER)
from .properties import PropertiesWriter



@dataclass
class IndexEntry:
    column: str
    index_id: str  # StandardIndexes id: dictionary, forward_index, inverted_index, ...
    extension: str  # v1 file extension, e.g. ".sv.unsorted.fwd"
    # bytes-like; index writers hand over views of their arrays without a copy. A build given a spill file swaps
    # it for a ``spill.FileSpan`` (the bytes on disk) once ``adler`` is taken: only the tarball reads it then.
    payload: bytes | memoryview
    _adler: int | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def file_name(self) -> str:
        return self.column + self.extension

    @property
    def adler(self) -> int:
        """Adler-32 of the payload, computed once (column workers compute it in parallel)."""
        if self._adler is None:
            self._adler = isal_zlib.adler32(self.payload) & 0xFFFFFFFF
        return self._adler


@dataclass
class SegmentFiles:
    """The segment directory's files (relative paths, in the order they are tarred) and its CRCs.

    ``files`` maps each path to its bytes (``segment_files``) or, from ``segment_file_parts``, to the
    list of buffers that make it up back to back (``columns.psf`` is never joined into one copy).
    """

    directories: list[str]
    files: dict[str, bytes] | dict[str, list[bytes]]
    crc: int
    data_crc: int


def adler32(chunks) -> int:
    value = 1
    for chunk in chunks:
        value = isal_zlib.adler32(chunk, value)
    return value & 0xFFFFFFFF


_ADLER_BASE = 65521  # the largest prime below 2**16


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """Adler-32 of A + B from adler32(A), adler32(B) and len(B) (zlib's adler32_combine, derived from
    the definition: A's sum of bytes carries into B's running sums len(B) times, B's seed 1 drops out)."""
    base = _ADLER_BASE
    a1, b1 = first & 0xFFFF, first >> 16
    a2, b2 = second & 0xFFFF, second >> 16
    low = (a1 + a2 - 1) % base
    high = (b1 + b2 + (a1 - 1) * (second_length % base)) % base
    return (high << 16) | low


def _combined(parts: list[tuple[int, int]]) -> int:
    """Adler-32 over consecutive pieces given as (adler32, length)."""
    value = 1
    for adler, length in parts:
        value = adler32_combine(value, adler, length)
    return value


_MARKER_ADLER = isal_zlib.adler32(V3_MAGIC_MARKER)


def data_crc(entries: list[IndexEntry]) -> int:
    data_files = sorted(
        (e for e in entries if e.file_name.endswith(DATA_FILE_SUFFIXES)), key=lambda e: java_sort_key(e.file_name)
    )
    return _combined([(e.adler, len(e.payload)) for e in data_files])


def creation_meta(crc: int, creation_time_ms: int, data_crc_value: int) -> bytes:
    return struct.pack(">qqq", crc, creation_time_ms, data_crc_value)


def _v3_order(entries: list[IndexEntry]) -> list[IndexEntry]:
    return sorted(entries, key=lambda e: (java_sort_key(e.column), e.index_id))


def v3_column_parts(entries: list[IndexEntry]) -> tuple[list[bytes], bytes]:
    """``columns.psf`` as the list of its buffers (marker, payload, ...) and the ``index_map`` bytes."""
    index_map = PropertiesWriter()
    parts: list[bytes] = []
    offset = 0
    for entry in _v3_order(entries):
        size = len(V3_MAGIC_MARKER) + len(entry.payload)
        index_map.put(f"{entry.column}.{entry.index_id}.startOffset", offset)
        index_map.put(f"{entry.column}.{entry.index_id}.size", size)
        parts.append(V3_MAGIC_MARKER)
        parts.append(entry.payload)
        offset += size
    return parts, index_map.render()


def v3_columns(entries: list[IndexEntry]) -> tuple[bytes, bytes]:
    """``columns.psf`` and ``index_map`` bytes."""
    parts, index_map = v3_column_parts(entries)
    return b"".join(parts), index_map


def segment_file_parts(
    entries: list[IndexEntry], metadata: bytes, version: str, creation_time_ms: int,
    extra_files: dict[str, list[bytes]] | None = None,
) -> SegmentFiles:
    """The segment's files as lists of buffers, without copying index payloads; CRCs combined from
    each payload's own Adler-32. ``extra_files``: files beside the indexes in the segment directory
    (the star-tree's), by name."""
    names = [e.file_name for e in entries]
    if len(set(names)) != len(names):
        raise ValueError("two indexes map to the same file name")
    files: dict[str, list[bytes]]
    if version == "v3":
        psf, index_map = v3_column_parts(entries)
        prefix, directories = f"{V3_DIR}/", [f"{V3_DIR}/"]
        files = {prefix + COLUMNS_FILE: psf, prefix + INDEX_MAP_FILE: [index_map], prefix + METADATA_FILE: [metadata]}
        pieces = {prefix + COLUMNS_FILE: [piece for e in _v3_order(entries)
                                     for piece in ((_MARKER_ADLER, len(V3_MAGIC_MARKER)), (e.adler, len(e.payload)))]}
    else:
        files = {e.file_name: [e.payload] for e in entries}
        files[METADATA_FILE] = [metadata]
        pieces = {e.file_name: [(e.adler, len(e.payload))] for e in entries}
        prefix, directories = "", []
    for name, parts in (extra_files or {}).items():
        files[prefix + name] = list(parts)
    for name, parts in files.items():  # the small files: index_map, metadata.properties
        if name not in pieces:
            pieces[name] = [(adler32(parts), sum(map(len, parts)))]
    crc = _combined([piece for name in sorted(files, key=java_sort_key) for piece in pieces[name]])
    data = data_crc(entries)
    files[prefix + CREATION_META_FILE] = [creation_meta(crc, creation_time_ms, data)]
    return SegmentFiles(directories, {name: files[name] for name in sorted(files, key=java_sort_key)}, crc, data)


def segment_files(
    entries: list[IndexEntry], metadata: bytes, version: str, creation_time_ms: int
) -> SegmentFiles:
    """``segment_file_parts`` with every file joined into one ``bytes``."""
    layout = segment_file_parts(entries, metadata, version, creation_time_ms)
    layout.files = {name: b"".join(parts) for name, parts in layout.files.items()}
    return layout
