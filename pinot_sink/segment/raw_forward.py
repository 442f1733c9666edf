"""Raw (no-dictionary) forward index: write it as Pinot's raw index creators do (reading: ``read.raw_forward``).

Writing follows Pinot's defaults (``ForwardIndexConfig``: raw writer version 4, ``targetMaxChunkSize`` 1 MiB,
``targetDocsPerChunk`` 1000), SEGMENT_FORMAT.md sections 5.4-5.6:

* single-value INT/LONG/FLOAT/DOUBLE: fixed-byte chunks, version 4 (``FixedByteChunkForwardIndexWriter``):
  a big-endian header, int64 chunk offsets, docs per chunk rounded up to a power of two (1000 -> 1024),
  each chunk the big-endian values compressed as a whole;
* everything else (single-value STRING/BYTES/BIG_DECIMAL and every multi-value column): var-byte chunk V4
  (``VarByteChunkForwardIndexWriterV4``): chunks filled greedily up to a target decompressed size, values that
  cannot fit an empty chunk written alone as "huge" chunks, LZ4 upgraded to LZ4_LENGTH_PREFIXED.

A configured ``rawIndexWriterVersion`` picks the writers Pinot would pick: 2/3 the fixed-docs-per-chunk
var-byte writer (int32 / int64 chunk offsets), 5 the V5 writer for multi-value numbers (rows without a
count; other columns stay V4), 6 the V6 writer (value sizes instead of offsets in compressed chunks).

Values travel as Arrow arrays in the stored type (``type_mapping.stored``). Everything is
vectorised with numpy over Arrow buffers; the only per-value Python work is BIG_DECIMAL
(de)serialisation, which has no vector form.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Iterator, Union

import numpy as np
import pyarrow as pa

from type_mapping.pinot_schema import FIXED_WIDTH_STORED, FieldSpec

from . import bigdecimal
from .bitpack import byte_view
from .codecs import LZ4, LZ4_LENGTH_PREFIXED, PASS_THROUGH, ChunkCompressor, UnsupportedCodec
from .spill import Pieces
from type_mapping.errors import PinotSinkError

DEFAULT_WRITER_VERSION = 4  # ForwardIndexConfig.DEFAULT_RAW_WRITER_VERSION
DEFAULT_TARGET_MAX_CHUNK_SIZE = 1 << 20  # ForwardIndexConfig.DEFAULT_TARGET_MAX_CHUNK_SIZE (1MB)
DEFAULT_TARGET_DOCS_PER_CHUNK = 1000
MIN_TARGET_CHUNK_SIZE = 4096  # ForwardIndexUtils.TARGET_MIN_CHUNK_SIZE
INT_MAX = 2**31 - 1
HUGE_CHUNK_FLAG = 0x80000000
FIXED_BYTE_HEADER_SIZE = 28  # seven int32 (versions >= 2)
VAR_BYTE_V4_HEADER_SIZE = 16

_BIG_ENDIAN = {"INT": ">i4", "LONG": ">i8", "FLOAT": ">f4", "DOUBLE": ">f8"}
_NATIVE = {"INT": np.int32, "LONG": np.int64, "FLOAT": np.float32, "DOUBLE": np.float64}
_ARROW_VALUE_TYPE = {
    "INT": pa.int32(),
    "LONG": pa.int64(),
    "FLOAT": pa.float32(),
    "DOUBLE": pa.float64(),
    "STRING": pa.string(),
    "BIG_DECIMAL": pa.string(),
    "BYTES": pa.binary(),
}

Values = Union[pa.Array, pa.ChunkedArray]


class RawForwardIndexError(PinotSinkError, ValueError):
    """A raw forward index that cannot be written or decoded; the message names the column if known."""


@dataclass(frozen=True)
class RawColumnStats:
    """The statistics the raw writers size their chunks with (Pinot's stats collector semantics)."""

    length_of_longest_element: int = 0  # SV var-width: longest serialised value in bytes
    max_number_of_multi_values: int = 0  # MV: most values in one row
    max_row_length_in_bytes: int = 0  # MV var-width: largest sum of value lengths in one row
    total_number_of_entries: int = 0

    @classmethod
    def of(cls, values: Values, spec: FieldSpec) -> "RawColumnStats":
        """Compute the statistics from the values (for callers that have none at hand)."""
        array = _combine(values)
        stored = spec.stored_type
        if spec.single_value:
            longest = 0
            if stored not in FIXED_WIDTH_STORED and len(array):
                longest = int(np.diff(_serialized_offsets(array, stored)).max())
            return cls(longest, 0, 0, len(array))
        offsets = array.offsets.to_numpy().astype(np.int64)
        counts = np.diff(offsets)
        max_row = 0
        if stored not in FIXED_WIDTH_STORED and len(array):
            child_offsets = _serialized_offsets(array.values, stored)
            max_row = int((child_offsets[offsets[1:]] - child_offsets[offsets[:-1]]).max())
        return cls(0, int(counts.max(initial=0)), max_row, int(counts.sum()))


def dynamic_target_chunk_size(
    max_length: int,
    target_docs_per_chunk: int = DEFAULT_TARGET_DOCS_PER_CHUNK,
    target_max_chunk_size: int = DEFAULT_TARGET_MAX_CHUNK_SIZE,
) -> int:
    """``ForwardIndexUtils.getDynamicTargetChunkSize``: the V4 target decompressed chunk size."""
    if target_docs_per_chunk < 0 or max_length * target_docs_per_chunk > INT_MAX:
        return max(target_max_chunk_size, MIN_TARGET_CHUNK_SIZE)
    return max(min(max_length * target_docs_per_chunk, target_max_chunk_size), MIN_TARGET_CHUNK_SIZE)


def fixed_byte_docs_per_chunk(target_docs_per_chunk: int = DEFAULT_TARGET_DOCS_PER_CHUNK) -> int:
    """Version 4 fixed-byte chunks hold a power-of-two number of docs (the reader shifts to find a chunk)."""
    if target_docs_per_chunk <= 0:
        raise RawForwardIndexError(f"targetDocsPerChunk must be positive, got {target_docs_per_chunk}")
    return 1 << (target_docs_per_chunk - 1).bit_length()


# --- writing -------------------------------------------------------------------------------------


def write_raw_forward(
    values: Values,
    spec: FieldSpec,
    codec: int,
    stats: Any = None,
    *,
    writer_version: int = DEFAULT_WRITER_VERSION,
    target_max_chunk_size: int = DEFAULT_TARGET_MAX_CHUNK_SIZE,
    target_docs_per_chunk: int = DEFAULT_TARGET_DOCS_PER_CHUNK,
    derive_num_docs_per_chunk: bool = False,
    order: np.ndarray | None = None,
    pieces: bool = False,
) -> bytes | memoryview | Pieces:
    """The bytes of ``<column>.sv.raw.fwd`` / ``.mv.raw.fwd`` as Pinot's raw index creators make them.

    ``values``: the column in its stored Arrow type without nulls (MV as a list array). ``codec``: a
    ``codecs`` id. ``stats``: anything with ``length_of_longest_element``, ``max_number_of_multi_values``,
    ``max_row_length_in_bytes`` (Pinot's stats; they size the chunks); ``None`` computes them from the values.
    The keyword arguments are the forward index config (``rawIndexWriterVersion``, ``targetMaxChunkSize``
    in bytes, ``targetDocsPerChunk``, ``deriveNumDocsPerChunk``); the defaults are Pinot's. ``order`` (a
    single-value fixed-width column only): the rows are ``values[order]``, gathered a block at a time.
    ``pieces``: an uncompressed fixed-width file as ``spill.Pieces``, made a block at a time when written.
    """
    array = _combine(values)
    stored = spec.stored_type
    try:
        if writer_version not in (2, 3, 4, 5, 6):
            raise RawForwardIndexError(f"rawIndexWriterVersion {writer_version} is not one Pinot writes (2-6)")
        if spec.single_value and stored in FIXED_WIDTH_STORED:
            numbers = _fixed_width_numpy(array, stored)
            docs_per_chunk = fixed_byte_docs_per_chunk(target_docs_per_chunk)  # validates it too
            if writer_version < 4:
                docs_per_chunk = target_docs_per_chunk  # only version 4+ rounds up to a power of two
            return _write_fixed_byte(numbers, stored, codec, writer_version, docs_per_chunk, order, pieces)
        if order is not None:
            raise RawForwardIndexError("an order is for single-value fixed-width values only")
        if stats is None:
            stats = RawColumnStats.of(array, spec)
        file_version = _var_byte_file_version(stored, spec.single_value, writer_version)
        with_count = not (file_version in (5, 6) and stored in FIXED_WIDTH_STORED)
        data, offsets = _serialize_rows(array, stored, spec.single_value, with_count)
        max_length = _longest_row_bound(stored, spec.single_value, stats, with_count)
        if file_version < 4:
            docs_per_chunk = target_docs_per_chunk
            if derive_num_docs_per_chunk or (not spec.single_value and stored not in FIXED_WIDTH_STORED):
                # getNumDocsPerChunk; the MV var-width creator always derives
                docs_per_chunk = max(target_max_chunk_size // (max_length + 4), 1)
            return _write_var_byte_old(data, offsets, codec, file_version, docs_per_chunk, max_length)
        chunk_size = dynamic_target_chunk_size(max_length, target_docs_per_chunk, target_max_chunk_size)
        return _write_var_byte_v4(data, offsets, codec, chunk_size, file_version)
    except (RawForwardIndexError, UnsupportedCodec, bigdecimal.BigDecimalError, pa.ArrowException) as exc:
        raise RawForwardIndexError(f"column {spec.name!r}: raw forward index: {exc}") from exc


def _var_byte_file_version(stored: str, single_value: bool, writer_version: int) -> int:
    """Which var-byte writer a creator picks: V5 exists for MV fixed-width only; V6 for all; <4 old."""
    if writer_version < 4 or writer_version == 6:
        return writer_version
    if writer_version == 5 and not single_value and stored in FIXED_WIDTH_STORED:
        return 5
    return 4


def _longest_row_bound(stored: str, single_value: bool, stats: Any, with_count: bool = True) -> int:
    """The ``maxLength`` the Pinot creators pass to the chunk-size formula."""
    if single_value:
        return int(stats.length_of_longest_element)
    max_values = int(stats.max_number_of_multi_values)
    if stored in FIXED_WIDTH_STORED:  # MultiValueFixedByteRawIndexCreator: V5/V6 rows have no count
        return (4 if with_count else 0) + max_values * FIXED_WIDTH_STORED[stored]
    return 4 + 4 * max_values + int(stats.max_row_length_in_bytes)  # getTotalRowStorageBytes


def _chunk_file(header: bytes, version: int, chunks: list[bytes]) -> bytes:
    """Header + chunk offset table (absolute; int32 for version 2, int64 after) + chunks."""
    lengths = np.array([len(c) for c in chunks], dtype=np.int64)
    return b"".join([header, _chunk_table(len(header), version, lengths), *chunks])


def _chunk_table(header_size: int, version: int, lengths: np.ndarray) -> bytes:
    """The chunk offset table of chunks of these sizes after a header of this size."""
    offset_type = ">i4" if version == 2 else ">i8"
    table_size = np.dtype(offset_type).itemsize * len(lengths)
    starts = header_size + table_size + np.cumsum(lengths) - lengths
    if version == 2 and len(lengths) and starts[-1] > INT_MAX:
        raise RawForwardIndexError("chunk offsets overflow version 2's int32 table; use version 3 or 4")
    return np.asarray(starts, dtype=np.int64).astype(offset_type).tobytes()


def _write_fixed_byte(numbers: np.ndarray, stored: str, codec: int, version: int,
                      docs_per_chunk: int, order: np.ndarray | None = None,
                      pieces: bool = False) -> bytes | memoryview | Pieces:
    """``FixedByteChunkForwardIndexWriter``: big-endian values, docsPerChunk per compressed chunk."""
    size = FIXED_WIDTH_STORED[stored]
    num_docs = len(numbers)
    num_chunks = -(-num_docs // docs_per_chunk)
    chunk_bytes = docs_per_chunk * size
    header = struct.pack(
        ">7i", version, num_chunks, docs_per_chunk, size, num_docs, codec, FIXED_BYTE_HEADER_SIZE
    )
    if codec == PASS_THROUGH:
        # Uncompressed chunks are the values back to back: the file is one array the values are byte-swapped
        # into, not chunk copies joined (the join's one large memcpy was a byte-counted rep movsb).
        lengths = np.full(num_chunks, chunk_bytes, dtype=np.int64)
        lengths[-1:] = num_docs * size - chunk_bytes * (num_chunks - 1)
        head = header + _chunk_table(len(header), version, lengths)
        if pieces:  # a 64mb compaction's raw price: its 15 MB file beside its input grew the heap's top
            return Pieces(len(head) + num_docs * size, lambda: _fixed_byte_blocks(head, numbers, stored, order))
        out = np.empty(len(head) + num_docs * size, dtype=np.uint8)
        out[: len(head)] = np.frombuffer(head, dtype=np.uint8)
        values = out[len(head) :].view(_BIG_ENDIAN[stored])
        if order is None:
            values[...] = numbers
        else:
            for first in range(0, num_docs, _GATHER_BLOCK):
                values[first:first + _GATHER_BLOCK] = np.take(numbers, order[first:first + _GATHER_BLOCK], mode="clip")
        return byte_view(out)
    compress = ChunkCompressor(codec)
    chunks = []
    # Big-endian a block of chunks at a time: a whole column's swapped copy was 8 bytes a row of a LONG column
    # beside its values (a 64mb compaction's raw order_id, ~15 MB of the build's worst step).
    block_docs, raw = docs_per_chunk * _SWAP_BLOCK_CHUNKS, None
    for first in range(0, num_docs, block_docs):
        rows = numbers[first:first + block_docs] if order is None else \
            np.take(numbers, order[first:first + block_docs], mode="clip")  # gather()
        raw = rows.astype(_BIG_ENDIAN[stored], copy=False).view(np.uint8)
        chunks.extend(compress(raw[start:start + chunk_bytes]) for start in range(0, len(raw), chunk_bytes))
    del raw
    return _chunk_file(header, version, chunks)


def _fixed_byte_blocks(head: bytes, numbers: np.ndarray, stored: str, order: np.ndarray | None) -> Iterator:
    """An uncompressed fixed-byte file's bytes: its head, then the values big-endian a block at a time."""
    yield head
    for first in range(0, len(numbers), _GATHER_BLOCK):
        rows = numbers[first:first + _GATHER_BLOCK] if order is None else \
            np.take(numbers, order[first:first + _GATHER_BLOCK], mode="clip")  # gather()
        yield rows.astype(_BIG_ENDIAN[stored])


_SWAP_BLOCK_CHUNKS = 64  # fixed-width raw chunks byte-swapped at a time
_GATHER_BLOCK = 1 << 18  # values gathered by an order at a time (uncompressed)


def _write_var_byte_old(
    data: np.ndarray, offsets: np.ndarray, codec: int, version: int, docs_per_chunk: int, max_length: int
) -> bytes:
    """``VarByteChunkForwardIndexWriter`` (versions 2 and 3): a fixed docsPerChunk, each chunk a table of
    docsPerChunk big-endian int32 value offsets (unused slots 0) followed by the values."""
    num_docs = len(offsets) - 1
    num_chunks = -(-num_docs // docs_per_chunk)
    header = struct.pack(">7i", version, num_chunks, docs_per_chunk, max_length, num_docs, codec,
                         FIXED_BYTE_HEADER_SIZE)
    table_bytes = 4 * docs_per_chunk
    compress = ChunkCompressor(codec)
    chunks = []
    for index in range(num_chunks):
        start, end = index * docs_per_chunk, min((index + 1) * docs_per_chunk, num_docs)
        table = np.zeros(docs_per_chunk, dtype=">i4")
        table[: end - start] = offsets[start:end] - offsets[start] + table_bytes
        chunks.append(compress(table.tobytes() + data[offsets[start] : offsets[end]].tobytes()))
    return _chunk_file(header, version, chunks)


def _write_var_byte_v4(data: np.ndarray, offsets: np.ndarray, codec: int, chunk_size: int, version: int = 4) -> bytes:
    """Rows (``data[offsets[i]:offsets[i+1]]``) into V4/V5/V6 chunks, with the writer's greedy fill rule.

    V6 with a compressing codec stores each value's size instead of its offset in the chunk header.
    """
    sizes_in_header = version == 6 and codec != PASS_THROUGH
    if codec == LZ4:
        codec = LZ4_LENGTH_PREFIXED  # getCompressor(type, upgradeToLengthPrefixed=true)
    num_docs = len(offsets) - 1
    # In a regular chunk every doc costs 4 bytes of offset plus its bytes; the chunk also holds numDocs.
    cost = np.zeros(num_docs + 1, dtype=np.int64)
    np.cumsum(np.diff(offsets) + 4, out=cost[1:])
    metadata: list[tuple[int, int]] = []
    chunks: list[bytes] = []
    compress = ChunkCompressor(codec, length_byte_order="little")  # the V4 writer's LE buffers
    # A regular chunk (its header and values, at most chunk_size bytes) is assembled here, in one copy.
    body = np.empty(chunk_size, dtype=np.uint8)
    chunk_offset = 0
    start = 0
    while start < num_docs:
        if chunk_offset >= 1 << 32:
            raise RawForwardIndexError("more than 4GB of compressed chunks (Pinot's V4 limit)")
        end = int(np.searchsorted(cost, cost[start] + chunk_size - 4, side="right")) - 1
        if end <= start:  # not even alone in an empty chunk: a "huge" chunk without header
            payload = compress(data[offsets[start] : offsets[start + 1]])
            metadata.append((start | HUGE_CHUNK_FLAG, chunk_offset))
            end = start + 1
        else:
            count = end - start
            header_size = 4 * (count + 1)
            header = body[:header_size].view("<i4")
            header[0] = count
            if sizes_in_header:
                header[1:] = np.diff(offsets[start : end + 1])
            else:
                header[1:] = offsets[start:end] - offsets[start] + header_size
            size = header_size + int(offsets[end] - offsets[start])
            body[header_size:size] = data[offsets[start] : offsets[end]]
            payload = compress(body[:size])
            metadata.append((start, chunk_offset))
        chunks.append(payload)
        chunk_offset += len(payload)
        start = end
    chunks_start = VAR_BYTE_V4_HEADER_SIZE + 8 * len(metadata)
    header = struct.pack(">4i", version, chunk_size, codec, chunks_start)
    table = np.array(metadata, dtype=np.uint64).reshape(-1, 2).astype("<u4").tobytes()
    return b"".join([header, table, *chunks])


def _serialize_rows(
    array: pa.Array, stored: str, single_value: bool, with_count: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Every row's serialised bytes: a flat uint8 buffer and int64 row offsets into it (n + 1).

    ``with_count=False``: MV fixed-width rows without their leading count (V5/V6 writers)."""
    if single_value:
        if stored == "BIG_DECIMAL":
            return _serialize_big_decimals(array)
        return _binary_buffers(array)
    list_offsets = array.offsets.to_numpy().astype(np.int64)
    counts = np.diff(list_offsets)
    child = array.values
    first, last = int(list_offsets[0]), int(list_offsets[-1])
    if stored in FIXED_WIDTH_STORED:
        # ArraySerDeUtils.serialize*ArrayWithLength: [int32 count][values], big-endian
        size = FIXED_WIDTH_STORED[stored]
        numbers = _fixed_width_numpy(child.slice(first, last - first), stored)
        payload = numbers.astype(_BIG_ENDIAN[stored], copy=False).view(np.uint8)
        if not with_count:  # serialize*ArrayWithoutLength: the rows are the values back to back
            row_offsets = np.zeros(len(counts) + 1, dtype=np.int64)
            np.cumsum(counts * size, out=row_offsets[1:])
            return payload, row_offsets
        return _assemble_rows(counts, np.ones(len(counts), dtype=np.int64), payload, counts * size)
    if stored == "BIG_DECIMAL":
        child_data, child_offsets = _serialize_big_decimals(child)
    else:
        child_data, child_offsets = _binary_buffers(child)
    # serializeStringArray / serializeBytesArray: [int32 count][int32 length]...[bytes]...
    value_lengths = np.diff(child_offsets[first : last + 1])
    words_per_row = counts + 1
    word_starts = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(words_per_row, out=word_starts[1:])
    words = np.empty(int(word_starts[-1]), dtype=np.int64)
    is_count = np.zeros(len(words), dtype=bool)
    is_count[word_starts[:-1]] = True
    words[is_count] = counts
    words[~is_count] = value_lengths
    row_payload = child_offsets[list_offsets[1:]] - child_offsets[list_offsets[:-1]]
    payload = child_data[child_offsets[first] : child_offsets[last]]
    return _assemble_rows(words, words_per_row, payload, row_payload)


def _assemble_rows(
    header_words: np.ndarray, words_per_row: np.ndarray, payload: np.ndarray, payload_per_row: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Interleave per-row big-endian int32 headers with the rows' payload bytes (both in row order)."""
    header_bytes = 4 * words_per_row
    offsets = np.zeros(len(words_per_row) + 1, dtype=np.int64)
    np.cumsum(header_bytes + payload_per_row, out=offsets[1:])
    header_starts = np.zeros(len(words_per_row) + 1, dtype=np.int64)
    np.cumsum(header_bytes, out=header_starts[1:])
    header_positions = np.repeat(offsets[:-1] - header_starts[:-1], header_bytes) + np.arange(
        header_starts[-1], dtype=np.int64
    )
    out = np.empty(int(offsets[-1]), dtype=np.uint8)
    is_payload = np.ones(len(out), dtype=bool)
    is_payload[header_positions] = False
    out[header_positions] = header_words.astype(">i4").view(np.uint8)
    out[is_payload] = payload
    return out, offsets


def _serialize_big_decimals(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    texts = array.to_pylist()
    try:
        encoded = [bigdecimal.serialize(text) for text in texts]
    except bigdecimal.BigDecimalError as exc:
        bad = next(i for i, t in enumerate(texts) if not _is_big_decimal(t))
        raise RawForwardIndexError(f"value {bad} {texts[bad]!r}: {exc}") from exc
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets


def _is_big_decimal(text: Any) -> bool:
    try:
        bigdecimal.serialize(text)
        return True
    except bigdecimal.BigDecimalError:
        return False


def _serialized_offsets(array: pa.Array, stored: str) -> np.ndarray:
    if stored == "BIG_DECIMAL":
        return _serialize_big_decimals(array)[1]
    return _binary_buffers(array)[1]


def _binary_buffers(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Zero-copy views of a (large) string/binary array: data bytes and absolute int64 offsets."""
    if not (pa.types.is_string(array.type) or pa.types.is_binary(array.type)
            or pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type)):
        raise RawForwardIndexError(f"expected string or binary values, got {array.type}")
    _, offset_buffer, data_buffer = array.buffers()
    large = pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type)
    offsets = np.frombuffer(offset_buffer, dtype=np.int64 if large else np.int32)
    offsets = offsets[array.offset : array.offset + len(array) + 1].astype(np.int64)
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.empty(0, np.uint8)
    return data, offsets


def _fixed_width_numpy(array: pa.Array, stored: str) -> np.ndarray:
    expected = _ARROW_VALUE_TYPE[stored]
    if array.type != expected:
        raise RawForwardIndexError(f"expected {expected} values for stored type {stored}, got {array.type}")
    if array.null_count:
        raise RawForwardIndexError("values contain nulls; the type mapping must fill defaults")
    return array.to_numpy(zero_copy_only=False)


def _combine(values: Values) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    return values
