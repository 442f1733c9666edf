"""Bloom filter (``<column>.bloom``) exactly as Pinot's ``OnHeapGuavaBloomFilterCreator`` writes it.

A bloom filter prunes segments: a bit that Java would set and we do not makes the broker skip a segment
that holds the value, so rows silently vanish from results. Everything here follows Guava's
``BloomFilter.create(Funnels.stringFunnel(UTF_8), cardinality, fpp)`` with strategy MURMUR128_MITZ_64
(SEGMENT_FORMAT.md 7.2):

* file: int32 BE type (1), int32 BE version (1), then ``BloomFilter.writeTo``: strategy ordinal byte (1),
  number of hash functions byte, int32 BE number of longs, the longs big-endian;
* items: the value's Java string form (``toString()``; BYTES as lower-case hex), hashed as UTF-8 with
  Murmur3 x64 128 (seed 0, vectorised here with numpy over values of equal length);
* ``m = (long)(-n ln p / (ln 2)^2)`` bits, ``k = max(1, round(m / n * ln 2))``, ``bitSize = 64 * ceil(m / 64)``;
  bit ``i`` of item = ``(h1 + i * h2) & Long.MAX_VALUE) % bitSize`` with 64-bit wrap-around.
"""
from __future__ import annotations

import math
import struct

import numpy as np
import pyarrow as pa

from type_mapping.pinot_schema import FieldSpec

from javalib.hotspot_math import hotspot_log, hotspot_pow
from type_mapping.java_text import big_decimal_string, java_float_str

from . import bigdecimal
from type_mapping.errors import PinotSinkError

TYPE_VALUE = 1  # OnHeapGuavaBloomFilterCreator.TYPE_VALUE
VERSION = 1
MURMUR128_MITZ_64 = 1  # ordinal of Guava's BloomFilterStrategies.MURMUR128_MITZ_64
DEFAULT_FPP = 0.05
_HEADER = struct.Struct(">iibbi")
_LONG_MAX = (1 << 63) - 1
_MASK64 = (1 << 64) - 1


class BloomFilterError(PinotSinkError, ValueError):
    pass


def java_fpp(fpp: float, max_size_in_bytes: int, cardinality: int) -> float:
    """The fpp Pinot actually uses: raised so that the filter fits ``maxSizeInBytes`` when one is set."""
    if max_size_in_bytes > 0:
        bits_per_item = max_size_in_bytes * 8 / cardinality
        fpp = max(fpp, _java_pow(2.0, -(bits_per_item * _java_log(2.0))))  # GuavaBloomFilterReaderUtils.computeFPP
    return fpp


def guava_sizing(expected_insertions: int, fpp: float) -> tuple[int, int]:
    """``(numHashFunctions, numLongs)`` of ``BloomFilter.create(funnel, expectedInsertions, fpp)``."""
    if not 0.0 < fpp < 1.0:
        raise BloomFilterError(f"false positive probability must be in (0, 1), got {fpp}")
    n = max(expected_insertions, 1)  # Guava treats 0 expected insertions as 1
    num_bits = int(-n * _java_log(fpp) / (_java_log(2.0) * _java_log(2.0)))  # Java (long) cast truncates
    num_hashes = max(1, _java_round(num_bits / n * _java_log(2.0)))
    if num_bits <= 0:  # LockFreeBitArray rejects an empty bit array
        raise BloomFilterError(f"fpp {fpp} leaves no bits for {n} values (Guava refuses such a filter)")
    return num_hashes, -(-num_bits // 64)


# Guava and Pinot size the filter with Math.log / Math.pow: HotSpot's x86_64 stubs, not the platform's libm, whose
# last bit may differ and, at a truncation's edge, change the number of bits (javalib.hotspot_math)
def _java_log(value: float) -> float:
    return float(hotspot_log(np.array([value], np.float64))[0])


def _java_pow(x: float, y: float) -> float:
    return float(hotspot_pow(np.array([x], np.float64), np.array([y], np.float64))[0])


def _java_round(value: float) -> int:
    return math.floor(value + 0.5)


def java_strings(values: pa.Array, spec: FieldSpec) -> list[str]:
    """The strings Pinot puts into the filter: ``value.toString()`` of the stored value, BYTES as hex."""
    stored = spec.stored_type
    if stored == "BYTES":
        return [v.hex() for v in values.to_pylist()]
    if stored in ("FLOAT", "DOUBLE"):
        return [java_float_str(v, float32=stored == "FLOAT") for v in values.to_pylist()]
    if stored == "BIG_DECIMAL":
        return [big_decimal_string(v) for v in values.to_pylist()]  # BigDecimal.toString
    if stored in ("INT", "LONG"):
        return [str(v) for v in values.to_pylist()]
    return values.to_pylist()


_C1, _C2 = np.uint64(0x87C37B91114253D5), np.uint64(0x4CF5AD432745937F)


def _rotl64(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


def _fmix64(k: np.ndarray) -> np.ndarray:
    k = k ^ (k >> np.uint64(33))
    k = k * np.uint64(0xFF51AFD7ED558CCD)
    k = k ^ (k >> np.uint64(33))
    k = k * np.uint64(0xC4CEB9FE1A85EC53)
    return k ^ (k >> np.uint64(33))


def _little_endian_word(columns: np.ndarray) -> np.ndarray:
    """Up to 8 byte columns as one little-endian uint64 per row."""
    if columns.shape[1] == 8:
        return np.ascontiguousarray(columns).view("<u8").ravel().astype(np.uint64)
    word = np.zeros(len(columns), dtype=np.uint64)
    for index in range(columns.shape[1]):
        word |= columns[:, index].astype(np.uint64) << np.uint64(8 * index)
    return word


def murmur3_x64_128(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Guava ``Hashing.murmur3_128()`` (seed 0) of every row of an (n, length) uint8 matrix: (h1, h2)."""
    count, length = matrix.shape
    h1 = np.zeros(count, dtype=np.uint64)
    h2 = np.zeros(count, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for block in range(length // 16):
            k1 = _little_endian_word(matrix[:, 16 * block : 16 * block + 8])
            k2 = _little_endian_word(matrix[:, 16 * block + 8 : 16 * block + 16])
            h1 ^= _rotl64(k1 * _C1, 31) * _C2
            h1 = (_rotl64(h1, 27) + h2) * np.uint64(5) + np.uint64(0x52DCE729)
            h2 ^= _rotl64(k2 * _C2, 33) * _C1
            h2 = (_rotl64(h2, 31) + h1) * np.uint64(5) + np.uint64(0x38495AB5)
        tail = matrix[:, length - length % 16 :]
        if tail.shape[1] > 8:
            h2 ^= _rotl64(_little_endian_word(tail[:, 8:]) * _C2, 33) * _C1
        if tail.shape[1] > 0:
            h1 ^= _rotl64(_little_endian_word(tail[:, :8]) * _C1, 31) * _C2
        h1 ^= np.uint64(length)
        h2 ^= np.uint64(length)
        h1 = h1 + h2
        h2 = h2 + h1
        h1, h2 = _fmix64(h1), _fmix64(h2)
        h1 = h1 + h2
        h2 = h2 + h1
    return h1, h2


def _hashes(items: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """murmur3_128 of every binary item, vectorised over the items of each length."""
    _, offset_buffer, data_buffer = items.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=np.int32)[items.offset : items.offset + len(items) + 1]
    offsets = offsets.astype(np.int64)
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.empty(0, np.uint8)
    lengths = np.diff(offsets)
    h1 = np.empty(len(items), dtype=np.uint64)
    h2 = np.empty(len(items), dtype=np.uint64)
    for length in np.unique(lengths):
        rows = np.flatnonzero(lengths == length)
        matrix = data[offsets[rows][:, None] + np.arange(length)] if length else np.zeros((len(rows), 0), np.uint8)
        h1[rows], h2[rows] = murmur3_x64_128(matrix)
    return h1, h2


def _bit_positions(items: pa.Array, num_hashes: int, bit_size: int) -> np.ndarray:
    """Every bit each item (binary: the UTF-8 of the value's string form) sets, vectorised."""
    if not len(items):
        return np.empty(0, dtype=np.uint64)
    h1, h2 = _hashes(items)
    steps = np.arange(num_hashes, dtype=np.uint64)
    combined = h1[:, None] + steps[None, :] * h2[:, None]  # uint64 arithmetic wraps like Java longs
    return (combined & np.uint64(_LONG_MAX)) % np.uint64(bit_size)


def build_bloom_filter(
    dictionary_values: pa.Array, spec: FieldSpec, fpp: float = DEFAULT_FPP, max_size_in_bytes: int = 0
) -> bytes:
    """The ``.bloom`` file for a column whose distinct values are ``dictionary_values``."""
    if isinstance(dictionary_values, pa.ChunkedArray):
        dictionary_values = dictionary_values.combine_chunks()
    cardinality = len(dictionary_values)
    try:
        if spec.stored_type == "STRING":  # the UTF-8 bytes are already in the Arrow buffers
            items = dictionary_values.cast(pa.binary())
        elif spec.stored_type in ("INT", "LONG"):  # Arrow prints integers as Java's toString does
            items = dictionary_values.cast(pa.string()).cast(pa.binary())
        else:
            items = pa.array(java_strings(dictionary_values, spec), pa.string()).cast(pa.binary())
        num_hashes, num_longs = guava_sizing(cardinality, java_fpp(fpp, max_size_in_bytes, max(cardinality, 1)))
    except (BloomFilterError, bigdecimal.BigDecimalError) as exc:
        raise BloomFilterError(f"column {spec.name!r}: bloom filter: {exc}") from exc
    is_set = np.zeros(64 * num_longs, dtype=bool)
    is_set[_bit_positions(items, num_hashes, 64 * num_longs).ravel().astype(np.intp)] = True
    # bit b of long w is flag 64w + b: little-endian bit packing gives exactly the longs' LE bytes
    words = np.packbits(is_set, bitorder="little").view("<u8")
    header = _HEADER.pack(TYPE_VALUE, VERSION, MURMUR128_MITZ_64, num_hashes, num_longs)
    return header + words.astype(">u8").tobytes()


def bloom_might_contain(buf: bytes, value_string: str) -> bool:
    """Guava's ``mightContain`` for a value's Java string form (what a query pruner asks)."""
    type_value, version, strategy, num_hashes, num_longs = _HEADER.unpack_from(buf, 0)
    if (type_value, version, strategy) != (TYPE_VALUE, VERSION, MURMUR128_MITZ_64):
        raise BloomFilterError(f"unknown bloom filter (type {type_value}, version {version}, strategy {strategy})")
    words = np.frombuffer(buf, dtype=">u8", count=num_longs, offset=_HEADER.size)
    bits = _bit_positions(pa.array([value_string.encode("utf-8")], pa.binary()), num_hashes, 64 * num_longs).ravel()
    return bool(np.all((words[(bits >> np.uint64(6)).astype(np.intp)] >> (bits & np.uint64(63))) & np.uint64(1)))
