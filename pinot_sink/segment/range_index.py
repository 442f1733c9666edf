"""Range index version 2 (``<column>.bitmap.range``): Pinot's ``BitSlicedRangeIndexCreator``.

File: int32 BE version (2), int64 BE ``minValue``, then a RoaringBitmap ``RangeBitmap`` as
``RangeBitmap.Appender.serialize`` writes it (RoaringBitmap 1.x, little-endian throughout):

* header: u16 cookie ``0xF00D``, u8 base (2), u8 slice count (bit length of the max value), u16 number of
  65 536-row blocks, u32 number of rows;
* per block, ``ceil(slices / 8)`` bytes of a mask: bit ``i`` set when the block has a row whose value has
  bit ``i`` clear;
* per block, for each slice in the mask, one container of the block's rows (low 16 bits) whose value has
  that bit clear: type byte (0 bitmap, 1 run, 2 array), then bitmap: u16 cardinality + 1024 u64 words;
  run: u16 run count + (start, length - 1) u16 pairs; array: u16 cardinality + u16 values.

Container choice follows the appender: slices 0-4 start as bitmap containers and ``runOptimize`` turns them
into run containers when that is smaller (never into arrays); slices from 5 start as run containers and
become the smallest of run / array / bitmap (run wins ties).

Values: dictIds for dictionary columns (min 0, max cardinality - 1); for raw INT/LONG ``value - min``; for
raw FLOAT/DOUBLE an order-preserving unsigned ordinal of the bits (``FPOrdering``).
"""
from __future__ import annotations

import struct

import numpy as np
import pyarrow as pa

from type_mapping.pinot_schema import FieldSpec
from type_mapping.errors import PinotSinkError

VERSION = 2
COOKIE = 0xF00D
BITMAP, RUN, ARRAY = 0, 1, 2
BLOCK_ROWS = 1 << 16
_BITMAP_BYTES = 8192
_ARRAY_MAX = 4096  # ArrayContainer.DEFAULT_MAX_SIZE
_FIRST_RUN_SLICE = 5  # Appender.containerForSlice: bitmap containers below, run containers from here
_U64 = (1 << 64) - 1


class RangeIndexError(PinotSinkError, ValueError):
    pass


def build_range_index(dict_ids: np.ndarray, cardinality: int) -> bytes:
    """The ``.bitmap.range`` file of a single-value dictionary column from its per-doc dictIds."""
    dict_ids = np.asarray(dict_ids)
    if len(dict_ids) and (int(dict_ids.min()) < 0 or int(dict_ids.max()) >= cardinality):
        raise RangeIndexError(f"dictIds must lie in [0, {cardinality})")
    return _file(0, serialize_range_bitmap(dict_ids.astype(np.uint64), max(cardinality - 1, 0)))


def build_raw_range_index(values: pa.Array | pa.ChunkedArray, spec: FieldSpec) -> bytes:
    """The ``.bitmap.range`` file of a raw (no-dictionary) single-value INT/LONG/FLOAT/DOUBLE column."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    stored = spec.stored_type
    if not spec.single_value or stored not in ("INT", "LONG", "FLOAT", "DOUBLE"):
        raise RangeIndexError(f"column {spec.name!r}: a raw range index needs a single-value number column")
    numbers = values.to_numpy(zero_copy_only=False)
    if stored in ("INT", "LONG"):
        numbers = numbers.astype(np.int64)
        minimum = int(numbers.min()) if len(numbers) else 0
        maximum = int(numbers.max()) if len(numbers) else 0
        shifted = (numbers - np.int64(minimum)).view(np.uint64)  # Java long arithmetic, wraps the same way
        return _file(minimum, serialize_range_bitmap(shifted, (maximum - minimum) & _U64))
    if stored == "FLOAT":
        return _file(0, serialize_range_bitmap(float_ordinals(numbers.astype(np.float32)), 0xFFFFFFFF))
    return _file(0, serialize_range_bitmap(double_ordinals(numbers.astype(np.float64)), _U64))


def float_ordinals(values: np.ndarray) -> np.ndarray:
    """``FPOrdering.ordinalOf(float)``: -inf and NaN -> 0, +inf -> 0xFFFFFFFF, -0.0 and 0.0 equal."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    negative = (bits & 0x80000000) != 0
    ordinals = np.where(negative, np.where(bits == 0x80000000, bits, ~bits & 0xFFFFFFFF), bits ^ 0x80000000)
    ordinals = np.where(np.isposinf(values), 0xFFFFFFFF, ordinals)
    ordinals = np.where(np.isneginf(values) | np.isnan(values), 0, ordinals)
    return ordinals.astype(np.uint64)


def double_ordinals(values: np.ndarray) -> np.ndarray:
    """``FPOrdering.ordinalOf(double)`` as unsigned 64-bit ordinals."""
    bits = values.astype(np.float64).view(np.uint64)
    sign = np.uint64(1 << 63)
    negative = (bits & sign) != 0
    ordinals = np.where(negative, np.where(bits == sign, bits, ~bits), bits ^ sign)
    ordinals = np.where(np.isposinf(values), np.uint64(_U64), ordinals)
    ordinals = np.where(np.isneginf(values) | np.isnan(values), np.uint64(0), ordinals)
    return ordinals.astype(np.uint64)


def _file(minimum: int, range_bitmap: bytes) -> bytes:
    return struct.pack(">iq", VERSION, minimum) + range_bitmap


def _slice_count(max_value: int) -> int:
    return (max_value | 1).bit_length()  # RangeBitmap.Appender.rangeMask: -1L >>> lz(max | 1)


def serialize_range_bitmap(values: np.ndarray, max_value: int) -> bytes:
    """``RangeBitmap.appender(maxValue)``, ``add`` of every value in row order, ``serialize``."""
    values = np.asarray(values, dtype=np.uint64)
    slices = _slice_count(max_value)
    range_mask = np.uint64((1 << slices) - 1)
    if len(values) and bool((values & ~range_mask).any()):
        raise RangeIndexError(f"a value exceeds the range index's maximum {max_value}")
    if len(values) >= 1 << 32:
        raise RangeIndexError("a range index holds at most 2^32 - 1 rows")
    bytes_per_mask = (slices + 7) // 8
    num_blocks = -(-len(values) // BLOCK_ROWS)
    masks, containers = [], []
    for block in range(num_blocks):
        block_values = values[block * BLOCK_ROWS : (block + 1) * BLOCK_ROWS]
        zero_bits = ~block_values & range_mask
        mask = int(np.bitwise_or.reduce(zero_bits)) if len(block_values) else 0
        masks.append(mask.to_bytes(8, "little")[:bytes_per_mask])
        for index in range(slices):
            if mask >> index & 1:
                rows = ((zero_bits >> np.uint64(index)) & np.uint64(1)).astype(bool)
                containers.append(_container(rows, index))
    header = struct.pack("<HBBHI", COOKIE, 2, slices, num_blocks, len(values))
    return b"".join([header, *masks, *containers])


def _container(rows: np.ndarray, slice_index: int) -> bytes:
    """One slice of one block: the rows (bool per row of the block) whose bit is clear."""
    positions = np.flatnonzero(rows)
    cardinality = len(positions)
    run_breaks = np.flatnonzero(np.diff(positions) != 1) + 1
    starts = positions[np.concatenate(([0], run_breaks))]
    ends = positions[np.concatenate((run_breaks - 1, [cardinality - 1]))]
    run_size = 2 + 4 * len(starts)
    if slice_index < _FIRST_RUN_SLICE:
        kind = RUN if run_size < _BITMAP_BYTES else BITMAP  # BitmapContainer.runOptimize
    elif run_size <= min(_BITMAP_BYTES, 2 * cardinality + 2):  # RunContainer.toEfficientContainer
        kind = RUN
    else:
        kind = ARRAY if cardinality <= _ARRAY_MAX else BITMAP
    if kind == RUN:
        pairs = np.empty((len(starts), 2), dtype="<u2")
        pairs[:, 0] = starts
        pairs[:, 1] = ends - starts
        return struct.pack("<BH", RUN, len(starts)) + pairs.tobytes()
    if kind == ARRAY:
        return struct.pack("<BH", ARRAY, cardinality) + positions.astype("<u2").tobytes()
    full = np.zeros(BLOCK_ROWS, dtype=bool)
    full[: len(rows)] = rows
    return struct.pack("<BH", BITMAP, cardinality & 0xFFFF) + np.packbits(full, bitorder="little").tobytes()


# --- reading (tests, inspect) -----------------------------------------------------------------------


def read_range_index(buf: bytes | memoryview) -> tuple[int, np.ndarray]:
    """``(minValue, per-row appended values)`` of a version-2 range index file."""
    version, minimum = struct.unpack_from(">iq", buf, 0)
    if version != VERSION:
        raise RangeIndexError(f"range index version {version} is not the bit-sliced version 2")
    return minimum, decode_range_bitmap(memoryview(buf)[12:])


def decode_range_bitmap(buf: bytes | memoryview) -> np.ndarray:
    """Every row's value back from a serialised ``RangeBitmap`` (uint64 per row)."""
    cookie, base, slices, num_blocks, num_rows = struct.unpack_from("<HBBHI", buf, 0)
    if cookie != COOKIE or base != 2:
        raise RangeIndexError(f"not a RangeBitmap (cookie {cookie:#x}, base {base})")
    bytes_per_mask = (slices + 7) // 8
    position = 10
    masks = []
    for _ in range(num_blocks):
        masks.append(int.from_bytes(bytes(buf[position : position + bytes_per_mask]), "little"))
        position += bytes_per_mask
    full_value = np.uint64((1 << slices) - 1)
    values = np.full(num_rows, full_value, dtype=np.uint64)
    for block, mask in enumerate(masks):
        block_values = values[block * BLOCK_ROWS : (block + 1) * BLOCK_ROWS]  # a view
        for index in range(slices):
            if not mask >> index & 1:
                continue
            kind, count = struct.unpack_from("<BH", buf, position)
            position += 3
            if kind == BITMAP:
                words = np.frombuffer(buf, dtype=np.uint8, count=_BITMAP_BYTES, offset=position)
                rows = np.flatnonzero(np.unpackbits(words, bitorder="little"))
                position += _BITMAP_BYTES
            elif kind == RUN:
                pairs = np.frombuffer(buf, dtype="<u2", count=2 * count, offset=position).reshape(-1, 2)
                lengths = pairs[:, 1].astype(np.int64) + 1
                rows = np.repeat(pairs[:, 0].astype(np.int64) - np.concatenate(([0], np.cumsum(lengths)[:-1])),
                                 lengths) + np.arange(int(lengths.sum()))
                position += 4 * count
            elif kind == ARRAY:
                rows = np.frombuffer(buf, dtype="<u2", count=count, offset=position).astype(np.int64)
                position += 2 * count
            else:
                raise RangeIndexError(f"unknown RangeBitmap container type {kind}")
            block_values[rows] &= ~np.uint64(1 << index)
    return values


def rows_less_or_equal(buf: bytes | memoryview, threshold: int) -> np.ndarray:
    """``RangeBitmap.lte(threshold)`` over a range index file: the matching docIds."""
    _, values = read_range_index(buf)
    return np.flatnonzero(values <= np.uint64(threshold))
