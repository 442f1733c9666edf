"""Hash functions (HashFunctions): digests as lower-case hex text, checksums and Murmur / FNV hashes as Java ints
and longs (signed), 128-bit hashes as bytes.

Their parameter is ``byte[]``: a STRING argument is hex-decoded first (``binary.to_bytes``), as Pinot converts
it, so ``md5(name)`` of a text column fails on text that is not hex; ``murmurHash2UTF8`` and the ``...UTF8``
FNV functions take the text's UTF-8 bytes instead. ``sha224`` is SHA3-224 (``DigestUtils.sha3_224Hex``), not
SHA-224. ``murmurHash3X64Bit64`` returns the 32-bit value widened, as Pinot's does. Murmur2, Murmur3 x86_32,
FNV and Pinot's own x64 Murmur3 use the partition functions' implementations (``type_mapping.java_hash``).
"""
from __future__ import annotations

import hashlib
import zlib

import pyarrow as pa
from cityhash import CityHash32, CityHash64, CityHash64WithSeed, CityHash64WithSeeds, CityHash128
from Crypto.Hash import MD2

from type_mapping.java_hash import hash_bytes, murmur3_x64, murmur3_x64_32

from ..values import Const, Context, Value, broadcast, java_utf8, to_int, to_long, to_string
from .string_functions_bytes import to_bytes
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
        data = (java_utf8(broadcast(to_string(args[0], ctx), ctx.num_rows, pa.string())) if utf8
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


_register("murmurHash3Bit64", lambda b, s: _s64(int.from_bytes(murmur3_128(b, s)[:8], "little")), pa.int64(),
          seed="int", arity=2)
_register("murmurHash3Bit128", murmur3_128, pa.binary(), seed="int", arity=2)


_register("murmurHash3X64Bit32", murmur3_x64_32, pa.int32(), seed="int", arity=2)
_register("murmurHash3X64Bit64", murmur3_x64_32, pa.int64(), seed="int", arity=2)  # Pinot returns the 32-bit hash
_register("murmurHash3X64Bit128", lambda b, s: b"".join(h.to_bytes(8, "big") for h in murmur3_x64(b, s)),
          pa.binary(), seed="int", arity=2)


def _vectorised(name: str, function: str, *, utf8: bool = False, seeded: bool = False):
    """A hash with a numpy kernel shared with the partition functions (``type_mapping.java_hash.hash_bytes``)."""
    def impl(ctx: Context, args: list[Value]) -> Value:
        data = (java_utf8(broadcast(to_string(args[0], ctx), ctx.num_rows, pa.string())) if utf8
                else to_bytes(args[0], ctx))
        seed = 0
        if seeded:
            seed = to_int(args[1], ctx)
            if not isinstance(seed, Const):  # a per-row seed: one row at a time
                return per_row(ctx, lambda b, s: int(hash_bytes(pa.array([b], pa.binary()), function, s)[0]),
                               pa.int32(), data, seed)
            seed = seed.value
        hashes = hash_bytes(data, function, seed)
        return pa.array(hashes, mask=data.is_null().to_numpy(zero_copy_only=False) if data.null_count else None)

    scalar_function(name, arity=2 if seeded else 1)(impl)


_vectorised("murmurHash2", "murmur2")
_vectorised("murmurHash2UTF8", "murmur2", utf8=True)
_vectorised("murmurHash3Bit32", "murmur3_x86_32", seeded=True)
for _bits in (32, 64):
    for _variant in ("fnv1", "fnv1a"):
        _vectorised(f"{_variant}Hash{_bits}", f"{_variant}_{_bits}")
        _vectorised(f"{_variant}Hash{_bits}UTF8", f"{_variant}_{_bits}", utf8=True)


# CityHash v1.1 (Pinot's CityHashFunctions: Google's C++ algorithm ported) through the ``cityhash`` package's
# binding of Google's C++ code; MD2 (commons-codec's md2Hex) through pycryptodome.
def _city_hash_128(data: bytes) -> bytes:
    value = CityHash128(data)  # (first 64 bits << 64) | second; Pinot writes first, then second, big-endian
    return value.to_bytes(16, "big")


_register("cityHash32", lambda b: _s32(CityHash32(b)), pa.int64())
_register("cityHash64", lambda b: _s64(CityHash64(b)), pa.int64())
_register("cityHash64", lambda b, seed: _s64(CityHash64WithSeed(b, seed & M64)), pa.int64(), seed="long", arity=2)
_register("cityHash64", lambda b, s0, s1: _s64(CityHash64WithSeeds(b, s0 & M64, s1 & M64)), pa.int64(), seed="long",
          arity=3)
_register("cityHash128", _city_hash_128, pa.binary())
_register("md2", lambda b: MD2.new(b).hexdigest(), pa.string())
