"""Raw (no-dictionary) forward index, read side: every chunk format Pinot has written.

Fixed-byte versions 1-6, var-byte versions 1-3 and V4/V5/V6 (SEGMENT_FORMAT.md 5.4-5.6); the layouts and
constants are those of the writer, ``pinot_sink.segment.raw_forward``. Values come back as Arrow arrays
in the stored type; vectorised with numpy, except BIG_DECIMAL (per value).
"""
from __future__ import annotations

import struct

import numpy as np
import pyarrow as pa

from type_mapping.java_text import big_decimal_string
from type_mapping.pinot_schema import FIXED_WIDTH_STORED, STORED_TYPE, FieldSpec

from .. import bigdecimal
from ..codecs import PASS_THROUGH, SNAPPY, decompress, decompress_joined
from ..raw_forward import (_ARROW_VALUE_TYPE, _BIG_ENDIAN, _NATIVE, HUGE_CHUNK_FLAG, INT_MAX, VAR_BYTE_V4_HEADER_SIZE,
                           RawForwardIndexError)


def read_raw_forward(
    buf: bytes | memoryview, spec_or_stored_type: FieldSpec | str, single_value: bool, num_docs: int
) -> pa.Array:
    """Decode a raw forward index into an Arrow array of the stored type (MV: a list array).

    Handles fixed-byte chunk versions 1-4 (SV numbers), var-byte versions 1-3 and V4/V5/V6. ``num_docs``
    is the segment's total docs (version-1 files and V4+ files do not record it).
    """
    stored = _stored_type_of(spec_or_stored_type)
    buf = memoryview(buf).cast("B")
    version = struct.unpack_from(">i", buf, 0)[0]
    if single_value and stored in FIXED_WIDTH_STORED:
        return _read_fixed_byte(buf, stored, version, num_docs)
    if version >= 4:
        data, offsets = _read_var_byte_v4(buf, version)
    else:
        data, offsets = _read_var_byte_old(buf, version, num_docs)
    if len(offsets) - 1 != num_docs:
        raise RawForwardIndexError(f"forward index holds {len(offsets) - 1} docs, expected {num_docs}")
    return _rows_to_arrow(data, offsets, stored, single_value, with_count=version != 5 and version != 6)


def _stored_type_of(spec_or_stored_type: FieldSpec | str) -> str:
    if isinstance(spec_or_stored_type, FieldSpec):
        return spec_or_stored_type.stored_type
    name = str(spec_or_stored_type).upper()
    if name not in STORED_TYPE:
        raise RawForwardIndexError(f"unknown Pinot data type {spec_or_stored_type!r}")
    return STORED_TYPE[name]


def _chunk_table(buf: memoryview, version: int) -> tuple[int, int, int, int, int, np.ndarray, int]:
    """Header of the fixed-width-style chunk formats (fixed-byte 1-4, var-byte 1-3)."""
    num_chunks, docs_per_chunk, entry_size = struct.unpack_from(">3i", buf, 4)
    if version == 1:
        total_docs, codec, table_start = -1, SNAPPY, 16
    else:
        total_docs, codec, table_start = struct.unpack_from(">3i", buf, 16)
    offset_type = ">i4" if version <= 2 else ">i8"
    chunk_offsets = np.frombuffer(buf, dtype=offset_type, count=num_chunks, offset=table_start).astype(np.int64)
    return num_chunks, docs_per_chunk, entry_size, total_docs, codec, chunk_offsets, table_start


def _chunk_payloads(buf: memoryview, chunk_offsets: np.ndarray) -> list[memoryview]:
    ends = list(chunk_offsets[1:]) + [len(buf)]
    return [buf[int(start) : int(end)] for start, end in zip(chunk_offsets, ends)]


def _read_fixed_byte(buf: memoryview, stored: str, version: int, num_docs: int) -> pa.Array:
    if not 1 <= version <= 6:  # a configured writer version 5 or 6 is written as-is into this header
        raise RawForwardIndexError(f"unknown fixed-byte raw forward index version {version}")
    _, docs_per_chunk, entry_size, total_docs, codec, chunk_offsets, _ = _chunk_table(buf, version)
    size = FIXED_WIDTH_STORED[stored]
    if entry_size != size:
        raise RawForwardIndexError(f"entry size {entry_size} does not match stored type {stored}")
    if total_docs >= 0 and total_docs != num_docs:
        raise RawForwardIndexError(f"forward index holds {total_docs} docs, expected {num_docs}")
    if codec == PASS_THROUGH and len(chunk_offsets) and chunk_offsets[0] >= 0 and (np.diff(chunk_offsets) >= 0).all():
        joined = buf[int(chunk_offsets[0]):]  # the chunks back to back as they lie: their join, not copied
    else:
        joined = decompress_joined(codec, _chunk_payloads(buf, chunk_offsets), docs_per_chunk * size)
    raw = np.frombuffer(joined, dtype=_BIG_ENDIAN[stored])
    if len(raw) < num_docs:
        raise RawForwardIndexError(f"forward index holds {len(raw)} values, expected {num_docs}")
    return pa.array(raw[:num_docs].astype(_NATIVE[stored]), type=_ARROW_VALUE_TYPE[stored])


def _read_var_byte_old(buf: memoryview, version: int, num_docs: int) -> tuple[np.ndarray, np.ndarray]:
    """Versions 1-3: fixed docs per chunk, a big-endian int32 offset table of docsPerChunk slots."""
    if not 1 <= version <= 3:
        raise RawForwardIndexError(f"unknown var-byte raw forward index version {version}")
    num_chunks, docs_per_chunk, entry_size, total_docs, codec, chunk_offsets, _ = _chunk_table(buf, version)
    if total_docs >= 0 and total_docs != num_docs:
        raise RawForwardIndexError(f"forward index holds {total_docs} docs, expected {num_docs}")
    bound = docs_per_chunk * (4 + entry_size)
    datas, lengths = [], []
    for index, payload in enumerate(_chunk_payloads(buf, chunk_offsets)):
        chunk = decompress(codec, bytes(payload), bound)
        docs = min(docs_per_chunk, num_docs - index * docs_per_chunk)
        starts = np.frombuffer(chunk, dtype=">i4", count=docs).astype(np.int64)
        ends = np.append(starts[1:], len(chunk))
        datas.append(np.frombuffer(chunk, dtype=np.uint8)[starts[0] : len(chunk)] if docs else np.empty(0, np.uint8))
        lengths.append(ends - starts)
    return _join_chunks(datas, lengths)


def _read_var_byte_v4(buf: memoryview, version: int) -> tuple[np.ndarray, np.ndarray]:
    if version not in (4, 5, 6):
        raise RawForwardIndexError(f"unknown var-byte raw forward index version {version}")
    _, chunk_size, codec, chunks_start = struct.unpack_from(">4i", buf, 0)
    num_chunks = (chunks_start - VAR_BYTE_V4_HEADER_SIZE) // 8
    table = np.frombuffer(buf, dtype="<u4", count=2 * num_chunks, offset=VAR_BYTE_V4_HEADER_SIZE).reshape(-1, 2)
    starts = chunks_start + table[:, 1].astype(np.int64)
    ends = np.append(starts[1:], len(buf))
    sizes_in_header = version == 6 and codec != 0
    datas, lengths = [], []
    for (doc_flag, _), start, end in zip(table, starts, ends):
        chunk = decompress(codec, bytes(buf[start:end]), chunk_size)
        if int(doc_flag) & HUGE_CHUNK_FLAG:
            datas.append(np.frombuffer(chunk, dtype=np.uint8))
            lengths.append(np.array([len(chunk)], dtype=np.int64))
            continue
        count = struct.unpack_from("<i", chunk, 0)[0]
        entries = np.frombuffer(chunk, dtype="<i4", count=count, offset=4).astype(np.int64)
        if sizes_in_header:  # V6 stores each value's size instead of its offset
            value_lengths = entries
        else:
            value_lengths = np.diff(np.append(entries, len(chunk)))
        data_start = 4 * (count + 1)
        datas.append(np.frombuffer(chunk, dtype=np.uint8)[data_start : data_start + int(value_lengths.sum())])
        lengths.append(value_lengths)
    return _join_chunks(datas, lengths)


def _join_chunks(datas: list[np.ndarray], lengths: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    all_lengths = np.concatenate(lengths) if lengths else np.empty(0, np.int64)
    offsets = np.zeros(len(all_lengths) + 1, dtype=np.int64)
    np.cumsum(all_lengths, out=offsets[1:])
    data = np.concatenate(datas) if datas else np.empty(0, np.uint8)
    return data, offsets


def _rows_to_arrow(
    data: np.ndarray, offsets: np.ndarray, stored: str, single_value: bool, with_count: bool
) -> pa.Array:
    if single_value:
        return _binary_to_arrow(data, offsets, stored)
    row_starts = offsets[:-1]
    if stored in FIXED_WIDTH_STORED:
        size = FIXED_WIDTH_STORED[stored]
        if with_count:
            counts = _gather_be_int32(data, row_starts)
            header_positions = (row_starts[:, None] + np.arange(4)).ravel()
        else:  # V5/V6: no count, the row length says how many values
            counts = np.diff(offsets) // size
            header_positions = np.empty(0, np.int64)
        keep = np.ones(len(data), dtype=bool)
        keep[header_positions] = False
        values = data[keep].view(_BIG_ENDIAN[stored]).astype(_NATIVE[stored])
        child = pa.array(values, type=_ARROW_VALUE_TYPE[stored])
    else:
        counts = _gather_be_int32(data, row_starts)
        header_lengths = 4 + 4 * counts
        header_starts = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(header_lengths, out=header_starts[1:])
        header_positions = np.repeat(row_starts - header_starts[:-1], header_lengths) + np.arange(
            header_starts[-1], dtype=np.int64
        )
        words = data[header_positions].view(">i4").astype(np.int64)
        word_starts = header_starts[:-1] // 4
        is_count = np.zeros(len(words), dtype=bool)
        is_count[word_starts] = True
        value_lengths = words[~is_count]
        keep = np.ones(len(data), dtype=bool)
        keep[header_positions] = False
        value_offsets = np.zeros(len(value_lengths) + 1, dtype=np.int64)
        np.cumsum(value_lengths, out=value_offsets[1:])
        child = _binary_to_arrow(data[keep], value_offsets, stored)
    list_offsets = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=list_offsets[1:])
    return pa.ListArray.from_arrays(pa.array(list_offsets, type=pa.int32()), child)


def _gather_be_int32(data: np.ndarray, positions: np.ndarray) -> np.ndarray:
    return data[(positions[:, None] + np.arange(4)).ravel()].view(">i4").astype(np.int64)


def _binary_to_arrow(data: np.ndarray, offsets: np.ndarray, stored: str) -> pa.Array:
    if stored == "BIG_DECIMAL":
        texts = [
            big_decimal_string(bigdecimal.deserialize(data[offsets[i] : offsets[i + 1]]))
            for i in range(len(offsets) - 1)
        ]
        return pa.array(texts, type=pa.string())
    arrow_type = pa.string() if stored == "STRING" else pa.binary()
    base = offsets - offsets[0]
    large = base[-1] > INT_MAX
    if large:
        arrow_type = pa.large_string() if stored == "STRING" else pa.large_binary()
    offset_buffer = pa.py_buffer(base.astype(np.int64 if large else np.int32))
    data_buffer = pa.py_buffer(np.ascontiguousarray(data[offsets[0] : offsets[-1]]))
    array = pa.Array.from_buffers(arrow_type, len(offsets) - 1, [None, offset_buffer, data_buffer])
    if stored == "STRING":
        array.validate(full=True)  # invalid UTF-8 means a corrupt or mis-typed index
    return array
