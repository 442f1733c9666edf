"""Column dictionaries: the distinct values in Pinot's order, dictIds per value, and the ``.dict`` bytes.

Order per stored type (SEGMENT_FORMAT.md 4.1): numeric for INT/LONG/FLOAT/DOUBLE, ``BigDecimal.compareTo``
for BIG_DECIMAL, ``String.compareTo`` (UTF-16 code units) for STRING, unsigned lexicographic for BYTES.
Layouts: fixed-width big-endian numbers (4.2), NUL-padded fixed-width entries (4.3) and the ``.vl;``
var-length layout (4.4).
"""
from __future__ import annotations

import decimal
import struct
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

NUMPY_BIG_ENDIAN = {"INT": ">i4", "LONG": ">i8", "FLOAT": ">f4", "DOUBLE": ">f8"}
NUMPY_NATIVE = {"INT": np.int32, "LONG": np.int64, "FLOAT": np.float32, "DOUBLE": np.float64}
VAR_LENGTH_MAGIC = b".vl;"
VAR_LENGTH_VERSION = 1


class ColumnValueError(ValueError):
    """A value Pinot cannot store; the message names the column (and the row where known)."""


@dataclass
class Dictionary:
    """Distinct values of a column (flattened for multi-value) in Pinot's order.

    ``values`` is an Arrow array of the stored type (BIG_DECIMAL: the canonical decimal text),
    ``dict_ids`` the dictId of every (flattened) value, ``serialized_lengths`` the byte length each
    distinct value takes in a dictionary or raw index (None for fixed-width types), and
    ``serialized`` the per-value bytes for BIG_DECIMAL (whose bytes are not the text).
    """

    stored_type: str
    values: pa.Array
    dict_ids: np.ndarray
    serialized_lengths: np.ndarray | None = None
    serialized: list[bytes] | None = None

    @property
    def cardinality(self) -> int:
        return len(self.values)


def build_dictionary(flat: pa.Array, stored_type: str, column: str) -> Dictionary:
    """Distinct values and dictIds of ``flat`` (one stored-type array, no nulls)."""
    if stored_type in NUMPY_NATIVE:
        return _numeric(flat, stored_type, column)
    if stored_type == "BIG_DECIMAL":
        return _big_decimal(flat, column)
    if stored_type in ("STRING", "BYTES"):
        return _binary_like(flat, stored_type, column)
    raise ColumnValueError(f"column {column!r}: stored type {stored_type} has no dictionary support")


def _numeric(flat: pa.Array, stored_type: str, column: str) -> Dictionary:
    values = np.asarray(flat.to_numpy(zero_copy_only=False), dtype=NUMPY_NATIVE[stored_type])
    if stored_type in ("FLOAT", "DOUBLE"):
        nan = np.isnan(values)
        if nan.any():
            raise ColumnValueError(
                f"column {column!r}: NaN at value #{int(np.argmax(nan))}; Pinot stores NaN as null "
                f"(the type mapping must turn it into the default null value)"
            )
        values = values + values.dtype.type(0.0)  # -0.0 -> 0.0, as Pinot's ingestion does
    distinct, inverse = np.unique(values, return_inverse=True)
    return Dictionary(stored_type, pa.array(distinct), inverse.astype(np.int32, copy=False))


def _ranks(order: np.ndarray) -> np.ndarray:
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    return rank


def _has_supplementary(strings: pa.Array) -> bool:
    """True if any string holds a code point above U+FFFF (a 4-byte UTF-8 sequence, lead byte >= 0xF0)."""
    if len(strings) == 0:
        return False
    data = strings.buffers()[2]
    if data is None:
        return False
    return bool((np.frombuffer(data, dtype=np.uint8) >= 0xF0).any())


def _has_nul(strings: pa.Array) -> bool:
    data = strings.buffers()[2] if len(strings) else None
    return data is not None and bool((np.frombuffer(data, dtype=np.uint8) == 0).any())


def _binary_like(flat: pa.Array, stored_type: str, column: str) -> Dictionary:
    encoded = pc.dictionary_encode(flat)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    distinct = encoded.dictionary
    if pa.types.is_large_string(distinct.type) or pa.types.is_large_binary(distinct.type):
        distinct = distinct.cast(pa.string() if stored_type == "STRING" else pa.binary())
    if stored_type == "STRING" and _has_nul(distinct):
        # Dictionaries pad with NUL and readers cut at it; Pinot's ingestion truncates at the first NUL.
        bad = next(v for v in distinct.to_pylist() if "\0" in v)
        raise ColumnValueError(f"column {column!r}: value {bad[:40]!r} contains a NUL character, which Pinot "
                               "cannot store (its ingestion cuts the string at the first NUL)")
    # Arrow sorts strings by UTF-8 bytes (= code point order) and binaries as unsigned bytes, which
    # equals Java's order except for strings mixing supplementary and U+E000..U+FFFF characters.
    if stored_type == "STRING" and _has_supplementary(distinct):
        texts = distinct.to_pylist()
        order = np.array(
            sorted(range(len(texts)), key=lambda i: texts[i].encode("utf-16-be", "surrogatepass")),
            dtype=np.int64,
        )
    else:
        order = pc.sort_indices(distinct).to_numpy()
    rank = _ranks(order)
    indices = encoded.indices.to_numpy(zero_copy_only=False)
    values = distinct.take(pa.array(order))
    lengths = pc.binary_length(values).to_numpy(zero_copy_only=False).astype(np.int64)
    return Dictionary(stored_type, values, rank[indices], lengths)


# --- BIG_DECIMAL -----------------------------------------------------------------------------------


def parse_big_decimal(text: str, column: str) -> decimal.Decimal:
    try:
        value = decimal.Decimal(text)
    except decimal.InvalidOperation:
        raise ColumnValueError(f"column {column!r}: {text!r} is not a BIG_DECIMAL") from None
    if not value.is_finite():
        raise ColumnValueError(f"column {column!r}: {text!r} is not a finite BIG_DECIMAL")
    if value.is_zero() and value.is_signed():
        value = value.copy_abs()  # BigDecimal has no negative zero: "-0.00" is 0.00
    return value


def java_big_decimal_str(value: decimal.Decimal) -> str:
    """``BigDecimal.toString``: Python's scientific-string rules are the same as Java's."""
    return str(value)


def java_plain_str(value: decimal.Decimal) -> str:
    """``BigDecimal.toPlainString``."""
    return format(value, "f")


def serialize_big_decimal(value: decimal.Decimal, column: str = "?") -> bytes:
    """``BigDecimalUtils.serialize``: int16 BE scale + ``BigInteger.toByteArray()`` of the unscaled value."""
    sign, digits, exponent = value.as_tuple()
    scale = -int(exponent)
    if not -(2**15) <= scale < 2**15:
        raise ColumnValueError(f"column {column!r}: BIG_DECIMAL {value} has a scale Pinot cannot store")
    unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    length = (unscaled + (unscaled < 0)).bit_length() // 8 + 1  # minimal two's complement, as Java
    return struct.pack(">h", scale) + unscaled.to_bytes(length, "big", signed=True)


def _big_decimal(flat: pa.Array, column: str) -> Dictionary:
    encoded = pc.dictionary_encode(flat)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    texts = encoded.dictionary.to_pylist()
    parsed = [parse_big_decimal(t, column) for t in texts]
    # Distinct by BigDecimal.equals (value and scale): the canonical text identifies it.
    canonical = [java_big_decimal_str(v) for v in parsed]
    by_text: dict[str, decimal.Decimal] = {}
    for text, value in zip(canonical, parsed):
        by_text.setdefault(text, value)
    ordered = sorted(by_text, key=lambda t: (by_text[t], by_text[t].as_tuple().exponent))
    position = {text: i for i, text in enumerate(ordered)}
    rank = np.array([position[t] for t in canonical], dtype=np.int32)
    serialized = [serialize_big_decimal(by_text[t], column) for t in ordered]
    lengths = np.array([len(b) for b in serialized], dtype=np.int64)
    indices = encoded.indices.to_numpy(zero_copy_only=False)
    return Dictionary("BIG_DECIMAL", pa.array(ordered, pa.string()), rank[indices], lengths, serialized)


# --- serialisation ---------------------------------------------------------------------------------


def value_bytes(dictionary: Dictionary) -> tuple[np.ndarray, np.ndarray]:
    """All distinct values' bytes back to back and their offsets (var-width types)."""
    if dictionary.serialized is not None:
        data = np.frombuffer(b"".join(dictionary.serialized), dtype=np.uint8)
        offsets = np.zeros(len(dictionary.serialized) + 1, dtype=np.int64)
        np.cumsum(dictionary.serialized_lengths, out=offsets[1:])
        return data, offsets
    values = dictionary.values
    if values.offset or len(values) == 0:
        values = pa.concat_arrays([values]) if len(values) else values
    offsets_buf, data_buf = values.buffers()[1], values.buffers()[2]
    offsets = np.frombuffer(offsets_buf, dtype=np.int32)[: len(values) + 1].astype(np.int64)
    if len(values) == 0 or data_buf is None:
        return np.zeros(0, dtype=np.uint8), np.zeros(len(values) + 1, dtype=np.int64)
    data = np.frombuffer(data_buf, dtype=np.uint8)[offsets[0] : offsets[-1]]
    return data, offsets - offsets[0]


def uses_var_length(dictionary: Dictionary, configured: bool, optimize_type: bool) -> bool:
    """Pinot's choice (``DictionaryIndexType.shouldUseVarLengthDictionary`` and ``optimizeDictionaryType``)."""
    if dictionary.serialized_lengths is None:
        return False
    if configured:
        return True
    lengths = dictionary.serialized_lengths
    unequal = len(lengths) > 0 and lengths.min() != lengths.max()
    if dictionary.stored_type in ("BYTES", "BIG_DECIMAL"):
        return bool(unequal)
    return bool(optimize_type and unequal)


def entry_width(dictionary: Dictionary) -> int:
    """``lengthOfEachEntry``: 0 for fixed-width numbers, else the longest serialized value."""
    lengths = dictionary.serialized_lengths
    if lengths is None:
        return 0
    return int(lengths.max()) if len(lengths) else 0


def serialize_dictionary(dictionary: Dictionary, var_length: bool) -> bytes:
    if dictionary.stored_type in NUMPY_BIG_ENDIAN:
        return dictionary.values.to_numpy(zero_copy_only=False).astype(
            NUMPY_BIG_ENDIAN[dictionary.stored_type]
        ).tobytes()
    data, offsets = value_bytes(dictionary)
    if var_length:
        return var_length_bytes(data, offsets)
    return padded_bytes(data, offsets, entry_width(dictionary))


def var_length_bytes(data: np.ndarray, offsets: np.ndarray) -> bytes:
    """``VarLengthValueWriter``: magic, version, count, data start 16, absolute int32 offsets, values."""
    count = len(offsets) - 1
    header_size = 16 + 4 * (count + 1)
    header = VAR_LENGTH_MAGIC + struct.pack(">iii", VAR_LENGTH_VERSION, count, 16)
    absolute = (offsets + header_size).astype(">i4")
    return header + absolute.tobytes() + data.tobytes()


def padded_bytes(data: np.ndarray, offsets: np.ndarray, width: int) -> bytes:
    """Each value left-aligned in ``width`` bytes, right-padded with NUL (vectorised scatter)."""
    count = len(offsets) - 1
    matrix = np.zeros((count, width), dtype=np.uint8)
    lengths = np.diff(offsets)
    if data.size:
        rows = np.repeat(np.arange(count), lengths)
        cols = np.arange(data.size) - np.repeat(offsets[:-1], lengths)
        matrix[rows, cols] = data
    return matrix.tobytes()
