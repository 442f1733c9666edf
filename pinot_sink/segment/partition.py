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
| ``ByteArray``            | ``Arrays.hashCode`` of the UTF-8 (signed; no useRawBytes) | PRE_MODULO_ABS     |
| ``BoundedColumnValue``   | position in ``columnValues`` (ignoring case) + 1, else 0   | (none)             |

``functionConfig.partitionIdNormalizer`` overrides the normalizer. Hashing runs once per distinct value and
is vectorised over values of equal length with numpy (uint32/uint64 arithmetic wraps like Java's).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.pinot_schema import FieldSpec

from type_mapping.java_text import big_decimal_plain_string, java_float_str, java_parse_long

from type_mapping.java_hash import (arrays_hash_code, fnv, hash_each, java_hash_code, murmur2, murmur3_x64_32,
                                      murmur3_x86_32, utf8_buffers, utf16_units)

from . import bigdecimal
from type_mapping.errors import PinotSinkError

Values = pa.Array | pa.ChunkedArray


class PartitionFunctionError(PinotSinkError, ValueError):
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


# --- byte strings ------------------------------------------------------------------------------------


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
    return utf8_buffers(array)


_HEX = set("0123456789abcdefABCDEF")


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
        data, offsets = utf16_units(strings)
        return _normalize(hash_each(data, offsets, np.int32, java_hash_code), normalizer, num_partitions)
    # ByteArray has no useRawBytes key: Pinot hashes the UTF-8 of the string form whatever the config says
    decode = raw_bytes and name != "bytearray"
    data, offsets = _hex_decoded(strings, column) if decode else utf8_buffers(strings)
    if name == "murmur":
        hashes = hash_each(data, offsets, np.int32, murmur2)
    elif name == "bytearray":
        hashes = hash_each(data.view(np.int8), offsets, np.int32, arrays_hash_code)
    elif name == "fnv":
        variant = (config.get("variant") or "fnv1a_32").strip().lower()
        kernels = {"fnv1_32": (32, False), "fnv1a_32": (32, True), "fnv1_64": (64, False), "fnv1a_64": (64, True)}
        if variant not in kernels:
            raise PartitionFunctionError(f"column {column!r}: FNV variant must be one of {', '.join(kernels)}")
        bits, xor_first = kernels[variant]
        hashes = hash_each(data, offsets, np.int32 if bits == 32 else np.int64, fnv(bits, xor_first))
    else:  # murmur3
        try:
            seed = _java_int(config.get("seed") or "0")
        except ValueError:
            raise PartitionFunctionError(f"column {column!r}: Murmur3 seed {config.get('seed')!r} is not an int") from None
        variant = config.get("variant") or "x86_32"
        if variant not in ("x86_32", "x64_32"):
            raise PartitionFunctionError(f"column {column!r}: Murmur3 variant must be either x86_32 or x64_32")
        if variant == "x86_32":
            hashes = hash_each(data, offsets, np.int32, murmur3_x86_32(seed))
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
