"""The random keys the partition-id fixtures were asked of Pinot with, regenerated from a documented seed.

``tests/fixtures/partition_ids/pinot_ids.json`` holds, per key type and function config, what Pinot's
``PartitionFunctionFactory`` answered for ``COUNT`` keys drawn here (``tools/pinot_partition_ids``): the
SHA-256 of the ids (one byte each, in key order), their histogram and the first ``SAMPLE`` ids. Python's
``random.Random`` (Mersenne Twister, ``getrandbits`` / ``randrange`` / ``choice``) is stable across Python
versions, so the keys are the same wherever the test runs.
"""
from __future__ import annotations

import random
import struct

import pyarrow as pa

SEED = 34_000_034
COUNT = 1_000_000
SAMPLE = 2_000
# ASCII, Latin-1, Greek, CJK and astral characters (UTF-16 surrogate pairs matter to String.hashCode)
ALPHABET = "abcXYZ019 -_" + "éüß" + "ΔΩλ" + "中文字" + "\U0001F600\U00010348"
BOUNDED_VALUES = ("alpha", "Beta", "gamma", "Δelta")


def keys(kind: str, count: int = COUNT) -> list:
    """``count`` keys of Pinot stored type ``kind`` (INT, LONG, FLOAT, DOUBLE, STRING, BYTES)."""
    rnd = random.Random(f"{SEED}:{kind}")
    if kind == "INT":
        return [rnd.randrange(-1000, 1000) if rnd.random() < 0.3 else rnd.getrandbits(32) - 2**31
                for _ in range(count)]
    if kind == "LONG":
        return [rnd.randrange(-10**6, 10**6) if rnd.random() < 0.3 else rnd.getrandbits(64) - 2**63
                for _ in range(count)]
    if kind == "FLOAT":
        return [_float32(rnd) for _ in range(count)]
    if kind == "DOUBLE":
        return [_float64(rnd) for _ in range(count)]
    if kind == "STRING":
        out = []
        for _ in range(count):
            if rnd.random() < 0.2:  # BoundedColumnValue's configured values, in any case
                word = rnd.choice(BOUNDED_VALUES)
                out.append("".join(c.upper() if rnd.random() < 0.5 else c.lower() for c in word))
            else:
                out.append("".join(rnd.choice(ALPHABET) for _ in range(rnd.randrange(0, 21))))
        return out
    if kind == "BYTES":
        return [rnd.getrandbits(8 * n).to_bytes(n, "little") if n else b""
                for n in (rnd.randrange(0, 21) for _ in range(count))]
    raise ValueError(kind)


def _float32(rnd: random.Random) -> float:
    if rnd.random() < 0.3:  # decimals of a few digits, the common case
        return struct.unpack("<f", struct.pack("<f", rnd.randrange(-10**6, 10**6) / 10 ** rnd.randrange(0, 5)))[0]
    bits = rnd.getrandbits(32)
    value = struct.unpack("<f", bits.to_bytes(4, "little"))[0]
    return value if value == value else float("nan")


def _float64(rnd: random.Random) -> float:
    if rnd.random() < 0.3:
        return rnd.randrange(-10**9, 10**9) / 10 ** rnd.randrange(0, 7)
    value = struct.unpack("<d", rnd.getrandbits(64).to_bytes(8, "little"))[0]
    return value if value == value else float("nan")


def arrow_keys(kind: str, values: list) -> pa.Array:
    types = {"INT": pa.int32(), "LONG": pa.int64(), "FLOAT": pa.float32(), "DOUBLE": pa.float64(),
             "STRING": pa.string(), "BYTES": pa.binary()}
    return pa.array(values, types[kind])


def key_lines(kind: str, values: list) -> list[str]:
    """Each key as ``PartitionIds.java`` reads it (decimal, IEEE bits in hex, or hex of the bytes)."""
    if kind in ("INT", "LONG"):
        return [str(v) for v in values]
    if kind == "FLOAT":
        return [struct.pack(">f", v).hex() for v in values]
    if kind == "DOUBLE":
        return [struct.pack(">d", v).hex() for v in values]
    if kind == "STRING":
        return [v.encode("utf-8").hex() for v in values]
    return [v.hex() for v in values]


_COMMON = [
    ("Murmur", 16, {}), ("Murmur", 10, {"partitionIdNormalizer": "POSITIVE_MODULO"}),
    ("Murmur3", 16, {}), ("Murmur3", 13, {"seed": "9001", "variant": "x64_32"}),
    ("Murmur3", 8, {"seed": "-7", "variant": "x86_32", "partitionIdNormalizer": "ABS"}),
    ("FNV", 16, {}), ("FNV", 11, {"variant": "fnv1_32"}), ("FNV", 11, {"variant": "fnv1_64"}),
    ("FNV", 12, {"variant": "fnv1a_64", "partitionIdNormalizer": "PRE_MODULO_ABS"}),
    ("HashCode", 16, {}), ("HashCode", 7, {"partitionIdNormalizer": "MASK"}),
    ("ByteArray", 16, {}), ("ByteArray", 7, {"partitionIdNormalizer": "ABS"}),
]
SPECS = {
    "INT": _COMMON + [("Modulo", 16, {}), ("Modulo", 7, {"partitionIdNormalizer": "ABS"}),
                      ("Modulo", 9, {"partitionIdNormalizer": "MASK"})],
    "LONG": _COMMON + [("Modulo", 16, {}), ("Modulo", 7, {"partitionIdNormalizer": "PRE_MODULO_ABS"})],
    "FLOAT": _COMMON,
    "DOUBLE": _COMMON,
    "STRING": _COMMON + [("BoundedColumnValue", 5, {"columnValues": ",".join(BOUNDED_VALUES),
                                                    "columnValuesDelimiter": ","})],
    "BYTES": _COMMON + [("Murmur", 16, {"useRawBytes": "true"}), ("Murmur3", 16, {"useRawBytes": "true"}),
                        ("FNV", 16, {"useRawBytes": "true"}), ("ByteArray", 16, {"useRawBytes": "true"})],
}


def spec_line(name: str, n: int, config: dict) -> str:
    return f"{name}|{n}|{';'.join(f'{k}={v}' for k, v in config.items())}"
