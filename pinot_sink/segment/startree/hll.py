"""clearspring stream-lib's ``HyperLogLog`` (the DISTINCTCOUNTHLL star-tree metric) and its serialised form.

Facts (stream-lib 2.9.8, which Pinot uses; checked against the jar):

* a value is hashed with ``MurmurHash.hash(Object)``: Integer / Long through ``hashLong`` (of the long value),
  Float through ``hashLong(floatToRawIntBits)``, Double through ``hashLong(doubleToRawLongBits)``, String through
  the 32-bit MurmurHash2 of its UTF-8 bytes with seed -1 (the tail bytes sign-extended, as Java's ``byte`` is),
  byte[] likewise, anything else through its ``toString()``;
* register ``j`` = the hash's top ``log2m`` bits; rank = leading zeros of ``(hash << log2m) | (1 << (log2m - 1))
  + 1`` plus 1; a register keeps its maximum;
* the registers are 5 bits each, six to a 32-bit word (bits 0-29), ``count / 6 + 1`` words (``count / 6`` when
  that is a multiple of 32);
* ``getBytes()``: big-endian int ``log2m``, int ``4 * words``, then the words big-endian.
"""
from __future__ import annotations

import struct

import numpy as np

DEFAULT_LOG2M = 8  # CommonConstants.Helix.DEFAULT_HYPERLOGLOG_LOG2M
_M = 0x5BD1E995
_MASK = 0xFFFFFFFF


def _i32(x: int) -> int:
    x &= _MASK
    return x - (1 << 32) if x & 0x80000000 else x


def hash_long(data: int) -> int:
    """``MurmurHash.hashLong``: both 32-bit halves of the long, as unsigned 32-bit result."""
    k = ((data & _MASK) * _M) & _MASK
    k ^= k >> 24
    h = (k * _M) & _MASK
    k = (((data >> 32) & _MASK) * _M) & _MASK
    k ^= k >> 24
    h = (h * _M) & _MASK
    h ^= (k * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return h


def hash_bytes(data: bytes, seed: int = -1) -> int:
    """``MurmurHash.hash(byte[], length, seed)`` as unsigned 32-bit."""
    length = len(data)
    h = (seed ^ length) & _MASK
    whole = length >> 2
    for i in range(whole):
        k = int.from_bytes(data[4 * i: 4 * i + 4], "little")
        k = (k * _M) & _MASK
        k ^= k >> 24
        k = (k * _M) & _MASK
        h = (h * _M) & _MASK
        h ^= k
    left = length - (whole << 2)
    if left:
        def signed(b: int) -> int:  # Java's byte, widened to int
            return (b - 256 if b > 127 else b) & _MASK
        if left >= 3:
            h ^= (signed(data[length - 3]) << 16) & _MASK
        if left >= 2:
            h ^= (signed(data[length - 2]) << 8) & _MASK
        h ^= signed(data[length - 1])
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return h


def register_words(log2m: int) -> int:
    """``RegisterSet.getSizeForCount(1 << log2m)``."""
    bits = (1 << log2m) // 6
    if bits == 0:
        return 1
    return bits if bits % 32 == 0 else bits + 1


def serialized_size(log2m: int) -> int:
    return 8 + 4 * register_words(log2m)


def rank_of(hashes: np.ndarray, log2m: int) -> tuple[np.ndarray, np.ndarray]:
    """Registers and ranks of unsigned 32-bit hashes (vectorised ``offerHashed``)."""
    hashes = hashes.astype(np.uint32)
    index = (hashes >> np.uint32(32 - log2m)).astype(np.int64)
    w = ((hashes << np.uint32(log2m)) | np.uint32((1 << (log2m - 1)) + 1)).astype(np.uint32)
    # leading zeros of a non-zero 32-bit value: 31 - floor(log2(w))
    lz = 31 - np.floor(np.log2(w.astype(np.float64))).astype(np.int64)
    return index, (lz + 1).astype(np.uint8)


def registers_from_hashes(hashes: np.ndarray, log2m: int) -> np.ndarray:
    registers = np.zeros(1 << log2m, dtype=np.uint8)
    if len(hashes):
        index, ranks = rank_of(np.asarray(hashes, dtype=np.uint32), log2m)
        np.maximum.at(registers, index, ranks)
    return registers


def serialize(registers: np.ndarray, log2m: int) -> bytes:
    """``HyperLogLog.getBytes()`` of the registers (uint8, one per register)."""
    words = register_words(log2m)
    padded = np.zeros(words * 6, dtype=np.uint32)
    padded[: len(registers)] = registers
    grid = padded.reshape(words, 6)
    packed = np.zeros(words, dtype=np.uint32)
    for slot in range(6):
        packed |= grid[:, slot] << np.uint32(5 * slot)
    return struct.pack(">ii", log2m, 4 * words) + packed.astype(">u4").tobytes()


def deserialize(data: bytes) -> tuple[np.ndarray, int]:
    log2m, size = struct.unpack_from(">ii", data, 0)
    packed = np.frombuffer(data, dtype=">u4", count=size // 4, offset=8).astype(np.uint32)
    registers = np.empty((len(packed), 6), dtype=np.uint8)
    for slot in range(6):
        registers[:, slot] = (packed >> np.uint32(5 * slot)) & np.uint32(0x1F)
    return registers.reshape(-1)[: 1 << log2m].copy(), log2m
