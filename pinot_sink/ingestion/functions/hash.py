"""Hash functions (HashFunctions): digests as lower-case hex text, checksums and Murmur / FNV hashes as Java ints
and longs (signed), 128-bit hashes as bytes.

Their parameter is ``byte[]``: a STRING argument is hex-decoded first (``binary.to_bytes``), as Pinot converts
it, so ``md5(name)`` of a text column fails on text that is not hex; ``murmurHash2UTF8`` and the ``...UTF8``
FNV functions take the text's UTF-8 bytes instead. ``sha224`` is SHA3-224 (``DigestUtils.sha3_224Hex``), not
SHA-224. ``murmurHash3X64Bit64`` returns the 32-bit value widened, as Pinot's does.
"""
from __future__ import annotations

import hashlib
import zlib

import pyarrow as pa

from ..values import Context, Value, broadcast, to_int, to_long, to_string
from .binary import to_bytes
from .registry import scalar_function
from .rowwise import per_row

M64 = 2**64 - 1
M32 = 2**32 - 1


def _s32(v: int) -> int:
    v &= M32
    return v - 2**32 if v >= 2**31 else v


def _s64(v: int) -> int:
    v &= M64
    return v - 2**64 if v >= 2**63 else v


def _register(name: str, fn, out_type: pa.DataType, *, utf8: bool = False, seed: str | None = None,
              arity: int = 1):
    """``name(input[, seed])`` -> ``fn(bytes[, seed])``; ``seed`` is ``int`` or ``long``."""
    def impl(ctx: Context, args: list[Value]) -> Value:
        data = (broadcast(to_string(args[0], ctx), ctx.num_rows, pa.string()).cast(pa.binary()) if utf8
                else to_bytes(args[0], ctx))
        rest = [(to_int if seed == "int" else to_long)(a, ctx) for a in args[1:]]
        return per_row(ctx, fn, out_type, data, *rest)

    scalar_function(name, arity=arity)(impl)


for _name, _algorithm in (("sha", "sha1"), ("sha224", "sha3_224"), ("sha256", "sha256"), ("sha512", "sha512"),
                          ("md5", "md5")):
    _register(_name, lambda b, _a=_algorithm: hashlib.new(_a, b).hexdigest(), pa.string())

_register("adler32", lambda b: _s32(zlib.adler32(b)), pa.int32())
_register("crc32", lambda b: _s32(zlib.crc32(b)), pa.int32())


def _crc32c_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli), as Guava's ``Hashing.crc32c``."""
    crc = M32
    for byte in data:
        crc = _CRC32C[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ M32


_register("crc32c", lambda b: _s32(crc32c(b)), pa.int32())


def murmur_hash2(data: bytes) -> int:
    """Pinot's ``MurmurHashFunctions.murmurHash2`` (seed 0x9747b28c), a Java int."""
    m, length = 0x5BD1E995, len(data)
    h = (0x9747B28C ^ length) & M32
    for i in range(0, length - length % 4, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * m) & M32
        k ^= k >> 24
        k = (k * m) & M32
        h = ((h * m) & M32) ^ k
    tail = data[length - length % 4:]
    if tail:
        for i in range(len(tail) - 1, -1, -1):
            h ^= tail[i] << (8 * i)
        h = (h * m) & M32
    h ^= h >> 13
    h = (h * m) & M32
    h ^= h >> 15
    return _s32(h)


def murmur_hash2_64(data: bytes, seed: int = 0xE17A1465) -> int:
    """``MurmurHashFunctions.murmurHash2Bit64`` (MurmurHash64A), a Java long."""
    m, length = 0xC6A4A7935BD1E995, len(data)
    h = ((seed & M32) ^ (length * m)) & M64
    for i in range(0, length - length % 8, 8):
        k = int.from_bytes(data[i:i + 8], "little")
        k = (k * m) & M64
        k ^= k >> 47
        k = (k * m) & M64
        h = ((h ^ k) * m) & M64
    tail = data[length - length % 8:]
    if tail:
        h ^= int.from_bytes(tail, "little")
        h = (h * m) & M64
    h ^= h >> 47
    h = (h * m) & M64
    h ^= h >> 47
    return _s64(h)


_register("murmurHash2", murmur_hash2, pa.int32())
_register("murmurHash2UTF8", murmur_hash2, pa.int32(), utf8=True)
_register("murmurHash2Bit64", murmur_hash2_64, pa.int64())
_register("murmurHash2Bit64", murmur_hash2_64, pa.int64(), seed="int", arity=2)


def _rotl(v: int, r: int, bits: int) -> int:
    mask = (1 << bits) - 1
    return ((v << r) | (v >> (bits - r))) & mask


def _fmix64(k: int) -> int:
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & M64
    return k ^ (k >> 33)


def murmur3_32(data: bytes, seed: int) -> int:
    """MurmurHash3 x86_32 (Guava's ``murmur3_32_fixed``), a Java int."""
    c1, c2 = 0xCC9E2D51, 0x1B873593
    h = seed & M32
    length = len(data)
    for i in range(0, length - length % 4, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (_rotl((k * c1) & M32, 15, 32) * c2) & M32
        h = (_rotl(h ^ k, 13, 32) * 5 + 0xE6546B64) & M32
    tail = data[length - length % 4:]
    if tail:
        k = int.from_bytes(tail, "little")
        h ^= (_rotl((k * c1) & M32, 15, 32) * c2) & M32
    h ^= length
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M32
    return _s32(h ^ (h >> 16))


def murmur3_128(data: bytes, seed: int) -> bytes:
    """MurmurHash3 x64_128 (Guava's ``murmur3_128``; an int seed is sign-extended to both halves), as Guava's
    16 bytes (h1 then h2, little-endian)."""
    c1, c2 = 0x87C37B91114253D5, 0x4CF5AD432745937F
    h1 = h2 = seed & M64
    length = len(data)

    def mix_k1(k):
        return (_rotl((k * c1) & M64, 31, 64) * c2) & M64

    def mix_k2(k):
        return (_rotl((k * c2) & M64, 33, 64) * c1) & M64

    for i in range(0, length - length % 16, 16):
        k1 = int.from_bytes(data[i:i + 8], "little")
        k2 = int.from_bytes(data[i + 8:i + 16], "little")
        h1 ^= mix_k1(k1)
        h1 = (((_rotl(h1, 27, 64) + h2) & M64) * 5 + 0x52DCE729) & M64
        h2 ^= mix_k2(k2)
        h2 = (((_rotl(h2, 31, 64) + h1) & M64) * 5 + 0x38495AB5) & M64
    tail = data[length - length % 16:]
    if tail:
        h1 ^= mix_k1(int.from_bytes(tail[:8], "little"))
        if len(tail) > 8:
            h2 ^= mix_k2(int.from_bytes(tail[8:], "little"))
    h1 ^= length
    h2 ^= length
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    h1, h2 = _fmix64(h1), _fmix64(h2)
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    return h1.to_bytes(8, "little") + h2.to_bytes(8, "little")


_register("murmurHash3Bit32", murmur3_32, pa.int32(), seed="int", arity=2)
_register("murmurHash3Bit64", lambda b, s: _s64(int.from_bytes(murmur3_128(b, s)[:8], "little")), pa.int64(),
          seed="int", arity=2)
_register("murmurHash3Bit128", murmur3_128, pa.binary(), seed="int", arity=2)


def pinot_murmur3_x64(data: bytes, seed: int) -> tuple[int, int]:
    """``MurmurHashFunctions.murmurHash3X64``: Pinot's own x64 variant (evolving constants; the tail bytes are
    read as *signed* Java bytes); returns (h1, h2) as unsigned 64-bit values."""
    state = {"h1": (0x9368E53C2F6AF274 ^ seed) & M64, "h2": (0x586DCD208F7CD3FD ^ seed) & M64,
             "c1": 0x87C37B91114253D5, "c2": 0x4CF5AD432745937F}

    def bmix(k1: int, k2: int) -> None:
        s = state
        k1 = (k1 * s["c1"]) & M64
        k1 = (_rotl(k1, 23, 64) * s["c2"]) & M64
        s["h1"] = ((s["h1"] ^ k1) + s["h2"]) & M64
        s["h2"] = _rotl(s["h2"], 41, 64)
        k2 = (k2 * s["c2"]) & M64
        k2 = (_rotl(k2, 23, 64) * s["c1"]) & M64
        s["h2"] = ((s["h2"] ^ k2) + s["h1"]) & M64
        s["h1"] = (s["h1"] * 3 + 0x52DCE729) & M64
        s["h2"] = (s["h2"] * 3 + 0x38495AB5) & M64
        s["c1"] = (s["c1"] * 5 + 0x7B7D159C) & M64
        s["c2"] = (s["c2"] * 5 + 0x6BCE6396) & M64

    length = len(data)
    for i in range(0, length - 15, 16):
        bmix(int.from_bytes(data[i:i + 8], "little"), int.from_bytes(data[i + 8:i + 16], "little"))
    tail = data[length & ~15:]
    if tail:
        k1 = k2 = 0
        for i, byte in enumerate(tail):
            signed = (byte - 256 if byte >= 128 else byte) << (8 * (i % 8))
            if i < 8:
                k1 ^= signed & M64
            else:
                k2 ^= signed & M64
        bmix(k1, k2)
    h1, h2 = state["h1"], state["h2"] ^ length
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    h1, h2 = _fmix64(h1), _fmix64(h2)
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    return h1, h2


def _x64_32(data: bytes, seed: int) -> int:
    return _s32(pinot_murmur3_x64(data, seed)[0] >> 32)


_register("murmurHash3X64Bit32", _x64_32, pa.int32(), seed="int", arity=2)
_register("murmurHash3X64Bit64", _x64_32, pa.int64(), seed="int", arity=2)  # Pinot returns the 32-bit hash
_register("murmurHash3X64Bit128",
          lambda b, s: b"".join(h.to_bytes(8, "big") for h in pinot_murmur3_x64(b, s)), pa.binary(),
          seed="int", arity=2)


def _fnv(bits: int, alternate: bool):
    prime, basis, mask = ((0x01000193, 0x811C9DC5, M32) if bits == 32
                          else (0x100000001B3, 0xCBF29CE484222325, M64))

    def fnv(data: bytes) -> int:
        h = basis
        for byte in data:
            h = (((h ^ byte) * prime) if alternate else ((h * prime) ^ byte)) & mask
        return _s32(h) if bits == 32 else _s64(h)

    return fnv


for _bits, _type in ((32, pa.int32()), (64, pa.int64())):
    for _alternate, _variant in ((False, "fnv1"), (True, "fnv1a")):
        _register(f"{_variant}Hash{_bits}", _fnv(_bits, _alternate), _type)
        _register(f"{_variant}Hash{_bits}UTF8", _fnv(_bits, _alternate), _type, utf8=True)
