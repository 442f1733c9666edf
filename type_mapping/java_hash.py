"""Java's hash functions over byte strings, exactly: Kafka's murmur2, murmur3 (x86_32, and the x64 variants
Pinot uses), FNV-1 / FNV-1a (32 and 64 bits), ``String.hashCode`` over UTF-16 code units and
``Arrays.hashCode`` over signed bytes. 32/64-bit wrap-around as Java's ``int`` / ``long``; vectorised with numpy
over the values of one length, each distinct value hashed once by the callers.

A rule both floors above use: the segment partition functions (``pinot_sink.segment.partition``) and the
ingestion's scalar hash functions (``pinot_sink.ingestion.functions.hash_functions``).
"""
from __future__ import annotations

from typing import Callable, Iterator

import numpy as np
import pyarrow as pa

from .java_text import java_code_units


# --- byte strings --------------------------------------------------------------------------


def by_length(data: np.ndarray, offsets: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Group variable-length items into ``(indices, items as an (n, length) matrix)`` per length."""
    lengths = np.diff(offsets)
    for length in np.unique(lengths):
        indices = np.flatnonzero(lengths == length)
        positions = offsets[indices][:, None] + np.arange(length)
        yield indices, data[positions] if length else np.zeros((len(indices), 0), dtype=data.dtype)


def utf8_buffers(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    binary = strings.cast(pa.binary())
    _, offsets, data = binary.buffers()
    offsets = np.frombuffer(offsets, dtype=np.int32)[binary.offset : binary.offset + len(binary) + 1]
    data = np.frombuffer(data, dtype=np.uint8) if data is not None else np.empty(0, np.uint8)
    return data, offsets.astype(np.int64)


def utf16_units(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """UTF-16 code units of every string (what ``String.hashCode`` iterates), with offsets.

    ASCII strings are their UTF-8 bytes; only strings holding non-ASCII characters are re-encoded.
    """
    data, offsets = utf8_buffers(strings)
    data = data[offsets[0] : offsets[-1]]
    offsets = offsets - offsets[0]
    non_ascii = np.flatnonzero(data >= 0x80)
    if not len(non_ascii):
        return data.astype(np.uint16), offsets
    owners = np.unique(np.searchsorted(offsets, non_ascii, side="right") - 1)
    texts = strings.to_pylist()
    pieces, lengths = [], np.diff(offsets)
    start = 0
    for row in owners:  # keep ASCII runs as they are, re-encode the rows with non-ASCII characters
        pieces.append(data[offsets[start] : offsets[row]].astype(np.uint16))
        units = java_code_units(texts[row])
        pieces.append(units)
        lengths[row] = len(units)
        start = row + 1
    pieces.append(data[offsets[start] :].astype(np.uint16))
    new_offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_offsets[1:])
    return np.concatenate(pieces), new_offsets


def hash_each(data: np.ndarray, offsets: np.ndarray, dtype, kernel) -> np.ndarray:
    out = np.empty(len(offsets) - 1, dtype=dtype)
    for indices, matrix in by_length(data, offsets):
        out[indices] = kernel(matrix)
    return out


# --- hash kernels (one row per value, all values of one length) -------------------------------------

_M2 = np.uint32(0x5BD1E995)


def murmur2(matrix: np.ndarray) -> np.ndarray:
    """Kafka ``Utils.murmurHash2`` (seed 0x9747b28c), as Pinot copied it."""
    count, length = matrix.shape
    h = np.full(count, 0x9747B28C ^ length, dtype=np.uint32)
    with np.errstate(over="ignore"):
        for word in range(length // 4):
            k = np.ascontiguousarray(matrix[:, 4 * word : 4 * word + 4]).view("<u4").ravel().astype(np.uint32)
            k *= _M2
            k ^= k >> np.uint32(24)
            k *= _M2
            h *= _M2
            h ^= k
        tail = length & ~3
        remainder = length % 4
        if remainder == 3:
            h ^= matrix[:, tail + 2].astype(np.uint32) << np.uint32(16)
        if remainder >= 2:
            h ^= matrix[:, tail + 1].astype(np.uint32) << np.uint32(8)
        if remainder >= 1:
            h ^= matrix[:, tail].astype(np.uint32)
            h *= _M2
        h ^= h >> np.uint32(13)
        h *= _M2
        h ^= h >> np.uint32(15)
    return h.view(np.int32)


def murmur3_x86_32(seed: int) -> Callable[[np.ndarray], np.ndarray]:
    """Guava ``Hashing.murmur3_32_fixed(seed)`` of byte rows (standard MurmurHash3_x86_32)."""
    c1, c2 = np.uint32(0xCC9E2D51), np.uint32(0x1B873593)

    def rotl(x: np.ndarray, r: int) -> np.ndarray:
        return (x << np.uint32(r)) | (x >> np.uint32(32 - r))

    def kernel(matrix: np.ndarray) -> np.ndarray:
        count, length = matrix.shape
        h = np.full(count, seed & 0xFFFFFFFF, dtype=np.uint32)
        with np.errstate(over="ignore"):
            for word in range(length // 4):
                k = np.ascontiguousarray(matrix[:, 4 * word : 4 * word + 4]).view("<u4").ravel().astype(np.uint32)
                h ^= rotl(k * c1, 15) * c2
                h = rotl(h, 13) * np.uint32(5) + np.uint32(0xE6546B64)
            tail = matrix[:, length - length % 4 :]
            if tail.shape[1]:
                k = np.zeros(count, dtype=np.uint32)
                for index in range(tail.shape[1]):
                    k ^= tail[:, index].astype(np.uint32) << np.uint32(8 * index)
                h ^= rotl(k * c1, 15) * c2
            h ^= np.uint32(length & 0xFFFFFFFF)
            h ^= h >> np.uint32(16)
            h *= np.uint32(0x85EBCA6B)
            h ^= h >> np.uint32(13)
            h *= np.uint32(0xC2B2AE35)
            h ^= h >> np.uint32(16)
        return h.view(np.int32)

    return kernel


def java_hash_code(matrix: np.ndarray, initial: int = 0) -> np.ndarray:
    """``h = 31 * h + x`` over the columns: ``String.hashCode`` (UTF-16 code units, h starts at 0) or
    ``Arrays.hashCode(byte[])`` (signed bytes, h starts at 1)."""
    h = np.full(len(matrix), initial, dtype=np.uint32)
    with np.errstate(over="ignore"):
        for column in range(matrix.shape[1]):
            h = h * np.uint32(31) + matrix[:, column].astype(np.int64).astype(np.uint32)
    return h.view(np.int32)


def arrays_hash_code(matrix: np.ndarray) -> np.ndarray:
    return java_hash_code(matrix, initial=1)


def fnv(bits: int, xor_first: bool) -> Callable[[np.ndarray], np.ndarray]:
    dtype = np.uint32 if bits == 32 else np.uint64
    basis = dtype(0x811C9DC5 if bits == 32 else 0xCBF29CE484222325)
    prime = dtype(0x01000193 if bits == 32 else 0x100000001B3)

    def kernel(matrix: np.ndarray) -> np.ndarray:
        h = np.full(len(matrix), basis, dtype=dtype)
        with np.errstate(over="ignore"):
            for column in range(matrix.shape[1]):
                byte = matrix[:, column].astype(dtype)
                if xor_first:
                    h = (h ^ byte) * prime
                else:
                    h = (h * prime) ^ byte
        return h.view(np.int32 if bits == 32 else np.int64)

    return kernel


_MASK64 = (1 << 64) - 1


def _to_signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def murmur3_x64_32(data: bytes, seed: int) -> int:
    """``MurmurHashFunctions.murmurHash3X64Bit32``: Pinot's (Infinispan's) 32-bit x64 murmur3 variant."""
    return _to_signed(murmur3_x64(data, seed)[0] >> 32, 32)


def murmur3_x64(data: bytes, seed: int) -> tuple[int, int]:
    """``MurmurHashFunctions.murmurHash3X64``'s state (h1, h2) as unsigned 64-bit values, which the 32- and
    128-bit forms read. Not the standard 128-bit algorithm: c1/c2 evolve per block, tail bytes are
    sign-extended.
    """
    h1 = (0x9368E53C2F6AF274 ^ seed) & _MASK64
    h2 = (0x586DCD208F7CD3FD ^ seed) & _MASK64
    c1, c2 = 0x87C37B91114253D5, 0x4CF5AD432745937F

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (64 - r))) & _MASK64

    def bmix(k1: int, k2: int) -> None:
        nonlocal h1, h2, c1, c2
        k1 = rotl(k1 * c1 & _MASK64, 23) * c2 & _MASK64
        h1 ^= k1
        h1 = (h1 + h2) & _MASK64
        h2 = rotl(h2, 41)
        k2 = rotl(k2 * c2 & _MASK64, 23) * c1 & _MASK64
        h2 ^= k2
        h2 = (h2 + h1) & _MASK64
        h1 = (h1 * 3 + 0x52DCE729) & _MASK64
        h2 = (h2 * 3 + 0x38495AB5) & _MASK64
        c1 = (c1 * 5 + 0x7B7D159C) & _MASK64
        c2 = (c2 * 5 + 0x6BCE6396) & _MASK64

    def fmix(k: int) -> int:
        k ^= k >> 33
        k = k * 0xFF51AFD7ED558CCD & _MASK64
        k ^= k >> 33
        k = k * 0xC4CEB9FE1A85EC53 & _MASK64
        return k ^ (k >> 33)

    length = len(data)
    full = length - length % 16
    for i in range(0, full, 16):
        bmix(int.from_bytes(data[i : i + 8], "little"), int.from_bytes(data[i + 8 : i + 16], "little"))
    tail = data[full:]
    if tail:
        k1 = k2 = 0
        for index, byte in enumerate(tail):  # Java: (long) key[i] << shift, with the byte sign-extended
            extended = (byte - 256 if byte >= 128 else byte) << (8 * (index % 8))
            if index < 8:
                k1 ^= extended & _MASK64
            else:
                k2 ^= extended & _MASK64
        bmix(k1, k2)
    h2 ^= length
    h1 = (h1 + h2) & _MASK64
    h2 = (h2 + h1) & _MASK64
    h1, h2 = fmix(h1), fmix(h2)
    h1 = (h1 + h2) & _MASK64
    return h1, (h2 + h1) & _MASK64


HASH_KERNELS = {"murmur2": (np.int32, lambda seed: murmur2), "murmur3_x86_32": (np.int32, murmur3_x86_32),
            "fnv1_32": (np.int32, lambda seed: fnv(32, False)), "fnv1a_32": (np.int32, lambda seed: fnv(32, True)),
            "fnv1_64": (np.int64, lambda seed: fnv(64, False)), "fnv1a_64": (np.int64, lambda seed: fnv(64, True))}


def hash_bytes(values: pa.Array, function: str, seed: int = 0) -> np.ndarray:
    """The Java hash ``function`` (a key of ``HASH_KERNELS``) of each binary value, vectorised over values of one
    length; the scalar functions (``murmurHash2``, ``fnv1aHash32``...) use the partition functions' kernels."""
    dtype, kernel = HASH_KERNELS[function]
    data, offsets = utf8_buffers(values)
    return hash_each(data, offsets, dtype, kernel(seed))


# --- java.util.HashMap iteration order ------------------------------------------------------------------


def string_hash(text: str) -> int:
    """``String.hashCode`` (over UTF-16 code units) as an unsigned 32-bit value."""
    h = 0
    for unit in java_code_units(text).tolist():
        h = (31 * h + unit) & 0xFFFFFFFF
    return h


def hash_map_order(hash_codes: list[int]) -> tuple[list[int], bool]:
    """Indices of keys put in this order (distinct, by their ``hashCode``s) into a ``java.util.HashMap``, in its
    iteration order, and whether a tree bin formed (whose order is not modelled).

    Buckets are ``(h ^ h >>> 16) & (capacity - 1)``, entries within a bucket in insertion order (a resize
    splits a bucket keeping that order). Capacity starts at 16 and doubles when the size passes 3/4 of it, or
    when a bucket reaches 9 entries while the table is under 64 (``treeifyBin``); at 64 and over such a
    bucket becomes a tree bin."""
    hashes = [(h & 0xFFFFFFFF) ^ ((h & 0xFFFFFFFF) >> 16) for h in hash_codes]
    capacity = 16
    counts: dict[int, int] = {}
    tree_bin = False
    for size, h in enumerate(hashes, start=1):
        bucket = h & (capacity - 1)
        existing = counts.get(bucket, 0)
        counts[bucket] = existing + 1
        grow = existing >= 8 and capacity < 64
        tree_bin = tree_bin or (existing >= 8 and capacity >= 64)
        if grow or size > capacity * 3 // 4:
            while grow or size > capacity * 3 // 4:
                capacity *= 2
                grow = False
            counts = {}
            for g in hashes[:size]:
                b = g & (capacity - 1)
                counts[b] = counts.get(b, 0) + 1
    mask = capacity - 1
    return sorted(range(len(hashes)), key=lambda i: (hashes[i] & mask, i)), tree_bin
