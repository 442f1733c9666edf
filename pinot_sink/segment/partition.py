"""Pinot's segment partition functions, computed exactly (``org.apache.pinot.common.partition.function``).

Brokers prune segments by ``column.<c>.partitionValues``; a wrong id hides rows, so every function here
reproduces Java's arithmetic: 32/64-bit wrap-around, Java's ``%`` (sign of the dividend) and each
function's ``PartitionIdNormalizer``. A function sees the value's Java string form, as the stats collectors
build it: ``Integer/Long/Float/Double.toString`` of the stored value, STRING as is, BYTES as lower-case hex,
BIG_DECIMAL ``toPlainString``.

| name (case-insensitive)  | hash of the string form                                   | default normalizer |
| ------------------------ | --------------------------------------------------------- | ------------------ |
| ``Murmur`` / ``Murmur2`` | Kafka murmur2 of the UTF-8 (``useRawBytes``: hex-decoded)  | MASK               |
| ``Murmur3``              | murmur3 x86_32 (``variant`` x64_32: Pinot's Infinispan variant), ``seed`` | MASK |
| ``FNV``                  | FNV-1a 32 (``variant`` fnv1_32 / fnv1_64 / fnv1a_64)        | MASK               |
| ``Modulo``               | ``Long.parseLong``                                         | POSITIVE_MODULO    |
| ``HashCode``             | ``String.hashCode`` (UTF-16 code units)                    | PRE_MODULO_ABS     |
| ``ByteArray``            | ``Arrays.hashCode`` of the UTF-8 bytes (signed bytes)      | PRE_MODULO_ABS     |
| ``BoundedColumnValue``   | position in ``columnValues`` (ignoring case) + 1, else 0   | (none)             |

``functionConfig.partitionIdNormalizer`` overrides the normalizer. Hashing runs once per distinct value and
is vectorised over values of equal length with numpy (uint32/uint64 arithmetic wraps like Java's).
"""
from __future__ import annotations

from typing import Callable, Iterator, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.pinot_schema import FieldSpec

from type_mapping.java_text import big_decimal_plain_string, java_code_units, java_float_str, java_parse_long

from . import bigdecimal

Values = pa.Array | pa.ChunkedArray


class PartitionFunctionError(ValueError):
    """An unknown function, a bad config, or a value the function cannot take (names the column)."""


# --- string forms --------------------------------------------------------------------------------


def java_string_forms(values: pa.Array, spec: FieldSpec) -> pa.Array:
    """The string each stats collector hands to ``PartitionFunction.getPartition``."""
    stored = spec.stored_type
    if stored in ("INT", "LONG"):
        return pc.cast(values, pa.string())  # same digits as Integer/Long.toString
    if stored in ("FLOAT", "DOUBLE"):
        return pa.array([java_float_str(v, float32=stored == "FLOAT") for v in values.to_pylist()], pa.string())
    if stored == "BIG_DECIMAL":
        return pa.array([big_decimal_plain_string(v) for v in values.to_pylist()], pa.string())
    if stored == "BYTES":
        return pa.array([v.hex() for v in values.to_pylist()], pa.string())
    return values.cast(pa.string()) if values.type != pa.string() else values


# --- byte-string plumbing --------------------------------------------------------------------------


def _by_length(data: np.ndarray, offsets: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Group variable-length items into ``(indices, items as an (n, length) matrix)`` per length."""
    lengths = np.diff(offsets)
    for length in np.unique(lengths):
        indices = np.flatnonzero(lengths == length)
        positions = offsets[indices][:, None] + np.arange(length)
        yield indices, data[positions] if length else np.zeros((len(indices), 0), dtype=data.dtype)


def _utf8(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    binary = strings.cast(pa.binary())
    _, offsets, data = binary.buffers()
    offsets = np.frombuffer(offsets, dtype=np.int32)[binary.offset : binary.offset + len(binary) + 1]
    data = np.frombuffer(data, dtype=np.uint8) if data is not None else np.empty(0, np.uint8)
    return data, offsets.astype(np.int64)


def _hex_decoded(strings: pa.Array, column: str) -> tuple[np.ndarray, np.ndarray]:
    """``BytesUtils.toBytes``: commons-codec hex decoding (either case, even length)."""
    decoded = []
    for text in strings.to_pylist():
        try:
            if len(text) % 2:
                raise ValueError("odd length")
            decoded.append(bytes.fromhex(text) if all(c in _HEX for c in text) else None)
        except ValueError:
            decoded.append(None)
        if decoded[-1] is None:
            raise PartitionFunctionError(f"column {column!r}: value {text!r} is not hex encoded (useRawBytes)")
    array = pa.array(decoded, pa.binary())
    return _utf8(array)


_HEX = set("0123456789abcdefABCDEF")


def _utf16_units(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """UTF-16 code units of every string (what ``String.hashCode`` iterates), with offsets.

    ASCII strings are their UTF-8 bytes; only strings holding non-ASCII characters are re-encoded.
    """
    data, offsets = _utf8(strings)
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


def _hash_each(data: np.ndarray, offsets: np.ndarray, dtype, kernel) -> np.ndarray:
    out = np.empty(len(offsets) - 1, dtype=dtype)
    for indices, matrix in _by_length(data, offsets):
        out[indices] = kernel(matrix)
    return out


# --- hash kernels (one row per value, all values of one length) -------------------------------------

_M2 = np.uint32(0x5BD1E995)


def _murmur2(matrix: np.ndarray) -> np.ndarray:
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


def _murmur3_x86_32(seed: int) -> Callable[[np.ndarray], np.ndarray]:
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


def _java_hash_code(matrix: np.ndarray, initial: int = 0) -> np.ndarray:
    """``h = 31 * h + x`` over the columns: ``String.hashCode`` (UTF-16 code units, h starts at 0) or
    ``Arrays.hashCode(byte[])`` (signed bytes, h starts at 1)."""
    h = np.full(len(matrix), initial, dtype=np.uint32)
    with np.errstate(over="ignore"):
        for column in range(matrix.shape[1]):
            h = h * np.uint32(31) + matrix[:, column].astype(np.int64).astype(np.uint32)
    return h.view(np.int32)


def _arrays_hash_code(matrix: np.ndarray) -> np.ndarray:
    return _java_hash_code(matrix, initial=1)


def _fnv(bits: int, xor_first: bool) -> Callable[[np.ndarray], np.ndarray]:
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


_KERNELS = {"murmur2": (np.int32, lambda seed: _murmur2), "murmur3_x86_32": (np.int32, _murmur3_x86_32),
            "fnv1_32": (np.int32, lambda seed: _fnv(32, False)), "fnv1a_32": (np.int32, lambda seed: _fnv(32, True)),
            "fnv1_64": (np.int64, lambda seed: _fnv(64, False)), "fnv1a_64": (np.int64, lambda seed: _fnv(64, True))}


def hash_bytes(values: pa.Array, function: str, seed: int = 0) -> np.ndarray:
    """The Java hash ``function`` (a key of ``_KERNELS``) of each binary value, vectorised over values of one
    length; the scalar functions (``murmurHash2``, ``fnv1aHash32``...) use the partition functions' kernels."""
    dtype, kernel = _KERNELS[function]
    data, offsets = _utf8(values)
    return _hash_each(data, offsets, dtype, kernel(seed))


# --- normalizers -----------------------------------------------------------------------------------


def _java_rem(values: np.ndarray, n: int) -> np.ndarray:
    return np.fmod(values.astype(np.int64), n)  # Java's % keeps the dividend's sign


def _normalize(hashes: np.ndarray, normalizer: str, n: int) -> np.ndarray:
    wide = hashes.dtype == np.int64
    if normalizer == "MASK":
        if wide:
            return ((hashes.view(np.uint64) & np.uint64(2**63 - 1)) % np.uint64(n)).astype(np.int64)
        return (hashes.astype(np.int64) & 0x7FFFFFFF) % n
    if normalizer == "POSITIVE_MODULO":
        remainder = _java_rem(hashes, n)
        return np.where(remainder < 0, remainder + n, remainder)
    if normalizer == "ABS":
        return np.abs(_java_rem(hashes, n))
    if normalizer == "PRE_MODULO_ABS":
        minimum = np.iinfo(np.int64 if wide else np.int32).min
        safe = np.where(hashes == minimum, 0, hashes)  # Math.abs(MIN_VALUE) overflows; Pinot maps it to 0
        return np.abs(safe.astype(np.int64)) % n if not wide else np.abs(safe) % n
    if normalizer == "NO_OP":
        return hashes.astype(np.int64)
    raise PartitionFunctionError(f"unknown partitionIdNormalizer {normalizer!r}")


# --- functions -------------------------------------------------------------------------------------

_DEFAULT_NORMALIZER = {
    "murmur": "MASK",
    "murmur3": "MASK",
    "fnv": "MASK",
    "modulo": "POSITIVE_MODULO",
    "hashcode": "PRE_MODULO_ABS",
    "bytearray": "PRE_MODULO_ABS",
}
CANONICAL_NAMES = {
    "murmur": "Murmur",
    "murmur2": "Murmur",
    "murmur3": "Murmur3",
    "fnv": "FNV",
    "modulo": "Modulo",
    "hashcode": "HashCode",
    "bytearray": "ByteArray",
    "boundedcolumnvalue": "BoundedColumnValue",
}


def _partition_of_strings(
    strings: pa.Array, column: str, function_name: str, num_partitions: int, config: Mapping[str, str]
) -> np.ndarray:
    name = function_name.strip().lower()
    if name == "murmur2":
        name = "murmur"
    if name not in CANONICAL_NAMES:
        raise PartitionFunctionError(
            f"column {column!r}: unknown partition function {function_name!r} "
            f"(supported: {', '.join(sorted(set(CANONICAL_NAMES.values())))})"
        )
    if num_partitions <= 0:
        raise PartitionFunctionError(f"column {column!r}: numPartitions must be > 0, got {num_partitions}")
    if name == "boundedcolumnvalue":
        return _bounded_column_value(strings, column, num_partitions, config)
    normalizer = (config.get("partitionIdNormalizer") or "").strip().upper() or _DEFAULT_NORMALIZER[name]
    raw_bytes = str(config.get("useRawBytes", "")).strip().lower() == "true"  # Boolean.parseBoolean
    if name == "modulo":
        try:
            numbers = np.array([int(_java_long(s)) for s in strings.to_pylist()], dtype=np.int64)
        except ValueError as exc:
            raise PartitionFunctionError(f"column {column!r}: Modulo partitioning needs integers: {exc}") from None
        return _normalize(numbers, normalizer, num_partitions)
    if name == "hashcode":
        data, offsets = _utf16_units(strings)
        return _normalize(_hash_each(data, offsets, np.int32, _java_hash_code), normalizer, num_partitions)
    data, offsets = _hex_decoded(strings, column) if raw_bytes else _utf8(strings)
    if name == "murmur":
        hashes = _hash_each(data, offsets, np.int32, _murmur2)
    elif name == "bytearray":
        hashes = _hash_each(data.view(np.int8), offsets, np.int32, _arrays_hash_code)
    elif name == "fnv":
        variant = (config.get("variant") or "fnv1a_32").strip().lower()
        kernels = {"fnv1_32": (32, False), "fnv1a_32": (32, True), "fnv1_64": (64, False), "fnv1a_64": (64, True)}
        if variant not in kernels:
            raise PartitionFunctionError(f"column {column!r}: FNV variant must be one of {', '.join(kernels)}")
        bits, xor_first = kernels[variant]
        hashes = _hash_each(data, offsets, np.int32 if bits == 32 else np.int64, _fnv(bits, xor_first))
    else:  # murmur3
        try:
            seed = _java_int(config.get("seed") or "0")
        except ValueError:
            raise PartitionFunctionError(f"column {column!r}: Murmur3 seed {config.get('seed')!r} is not an int") from None
        variant = config.get("variant") or "x86_32"
        if variant not in ("x86_32", "x64_32"):
            raise PartitionFunctionError(f"column {column!r}: Murmur3 variant must be either x86_32 or x64_32")
        if variant == "x86_32":
            hashes = _hash_each(data, offsets, np.int32, _murmur3_x86_32(seed))
        else:  # Pinot's own variant, rarely configured: a scalar port
            items = [bytes(data[offsets[i] : offsets[i + 1]]) for i in range(len(offsets) - 1)]
            hashes = np.array([murmur3_x64_32(item, seed) for item in items], dtype=np.int32)
    return _normalize(hashes, normalizer, num_partitions)


def _java_int(text: str) -> int:
    value = _java_long(text)
    if not -(2**31) <= value < 2**31:
        raise ValueError(f"{text!r} is out of the int range")
    return value


def _java_long(text: str) -> int:
    """``Long.parseLong`` (``type_mapping.java_text.java_parse_long``)."""
    try:
        return java_parse_long(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a long") from None


def _bounded_column_value(strings: pa.Array, column: str, num_partitions: int, config: Mapping[str, str]):
    values_text, delimiter = config.get("columnValues"), config.get("columnValuesDelimiter")
    if values_text is None or delimiter is None:
        raise PartitionFunctionError(
            f"column {column!r}: BoundedColumnValue needs columnValues and columnValuesDelimiter"
        )
    # commons-lang StringUtils.split: any delimiter character splits, empty tokens are dropped
    tokens, current = [], []
    for ch in values_text:
        if ch in delimiter:
            if current:
                tokens.append("".join(current))
            current = []
        else:
            current.append(ch)
    if current:
        tokens.append("".join(current))
    if num_partitions != len(tokens) + 1:
        raise PartitionFunctionError(
            f"column {column!r}: numPartitions must be one more than the {len(tokens)} columnValues"
        )
    lookup: dict[str, int] = {}
    for index, token in enumerate(tokens):
        lookup.setdefault(token.lower(), index + 1)  # equalsIgnoreCase, first match wins
    return np.array([lookup.get(s.lower(), 0) for s in strings.to_pylist()], dtype=np.int64)


# --- public API ------------------------------------------------------------------------------------


def _flat_values(values: Values, spec: FieldSpec) -> pa.Array:
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if not spec.single_value:
        array = array.flatten()
    return array


def partition_ids(
    values: Values,
    spec: FieldSpec,
    function_name: str,
    num_partitions: int,
    function_config: Mapping[str, str] | None = None,
) -> np.ndarray:
    """The partition id of every row (MV: of every value, flattened in row order), as int32."""
    array = _flat_values(values, spec)
    encoded = array.dictionary_encode()
    distinct_ids = _distinct_partitions(encoded.dictionary, spec, function_name, num_partitions, function_config)
    return distinct_ids[encoded.indices.to_numpy(zero_copy_only=False)].astype(np.int32)


def _distinct_partitions(distinct: pa.Array, spec, function_name, num_partitions, function_config) -> np.ndarray:
    config = {str(k): str(v) for k, v in (function_config or {}).items()}
    try:
        strings = java_string_forms(distinct, spec)
    except bigdecimal.BigDecimalError as exc:
        raise PartitionFunctionError(f"column {spec.name!r}: {exc}") from exc
    return _partition_of_strings(strings, spec.name, function_name, num_partitions, config)


def partition_values(
    values: Values,
    spec: FieldSpec,
    function_name: str,
    num_partitions: int,
    function_config: Mapping[str, str] | None = None,
) -> list[int]:
    """Sorted distinct partition ids, i.e. ``column.<c>.partitionValues``.

    Pinot's stats collectors only feed single values to the partition function: a multi-value column
    gets ``partitionFunction`` / ``numPartitions`` but no ``partitionValues``, so this returns ``[]`` for
    MV columns (use ``partition_ids`` for the per-value ids).
    """
    if not spec.single_value:
        return []
    array = _flat_values(values, spec)
    distinct = pc.unique(array)
    return sorted({int(i) for i in _distinct_partitions(distinct, spec, function_name, num_partitions, function_config)})


def canonical_function_name(function_name: str) -> str:
    """The name Pinot writes as ``partitionFunction`` (``PartitionFunction.getName``)."""
    return CANONICAL_NAMES.get(function_name.strip().lower(), function_name)
