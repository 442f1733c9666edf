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


# --- HyperLogLogPlus (DISTINCTCOUNTHLLPLUS), normal representation only (sp = 0) ----------------------
#
# stream-lib 2.9.8's ``HyperLogLogPlus(p, 0)`` (checked against the jar): ``offer(o)`` hashes
# ``o.toString()``'s bytes (for a String, the string) with ``MurmurHash.hash64`` (MurmurHash64A, seed
# 0xe17a1465); register = the hash's top p bits, rank = leading zeros of ``(hash << p) | (1 << (p - 1))`` plus
# 1 (64-bit); registers packed as ``HyperLogLog``'s. ``getBytes()``: int -2 (the version), unsigned varints p,
# sp, 0 (NORMAL) and the register bytes' length, then the words big-endian.

DEFAULT_HLLPLUS_P = 14  # CommonConstants.Helix.DEFAULT_HYPERLOGLOG_PLUS_P
_M64 = 0xC6A4A7935BD1E995
_MASK64 = (1 << 64) - 1


def hash64(data: bytes, seed: int = 0xE17A1465) -> int:
    """``MurmurHash.hash64(byte[], length)``: MurmurHash64A, as an unsigned 64-bit int."""
    length = len(data)
    h = (seed & 0xFFFFFFFF) ^ ((length * _M64) & _MASK64)
    whole = length // 8
    for i in range(whole):
        k = int.from_bytes(data[8 * i: 8 * i + 8], "little")
        k = (k * _M64) & _MASK64
        k ^= k >> 47
        k = (k * _M64) & _MASK64
        h ^= k
        h = (h * _M64) & _MASK64
    rest = length & 7
    if rest:
        tail = data[length - rest:]
        for j in range(rest - 1, -1, -1):
            h ^= tail[j] << (8 * j)
        h = (h * _M64) & _MASK64
    h ^= h >> 47
    h = (h * _M64) & _MASK64
    h ^= h >> 47
    return h


def plus_registers(hashes: list[int], p: int) -> np.ndarray:
    registers = np.zeros(1 << p, dtype=np.uint8)
    for x in hashes:
        index = x >> (64 - p)
        w = ((x << p) & _MASK64) | (1 << (p - 1))
        rank = 64 - w.bit_length() + 1
        if rank > registers[index]:
            registers[index] = rank
    return registers


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= 0xFFFFFFFF
    while value & ~0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def plus_serialize(registers: np.ndarray, p: int, sp: int = 0) -> bytes:
    words = register_words(p)
    body = serialize(registers, p)[8:]  # the packed words, as HyperLogLog packs them
    return struct.pack(">i", -2) + _varint(p) + _varint(sp) + _varint(0) + _varint(4 * words) + body


def plus_deserialize(data: bytes) -> tuple[np.ndarray, int]:
    """Registers and p of a normal-representation ``HyperLogLogPlus``."""
    pos = 4
    fields = []
    for _ in range(4):
        value, shift = 0, 0
        while True:
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        fields.append(value)
    p, sp, fmt, size = fields
    if struct.unpack_from(">i", data, 0)[0] != -2 or fmt != 0:
        raise ValueError("not a normal-representation HyperLogLogPlus")
    registers, _ = deserialize(struct.pack(">ii", p, size) + data[pos: pos + size])
    return registers, p
