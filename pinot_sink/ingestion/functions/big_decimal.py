"""``bigDecimalToBytes`` / ``bytesToBigDecimal`` (DataTypeConversionFunctions): ``BigDecimalUtils.serialize`` /
``deserialize``, the bytes Pinot stores a BIG_DECIMAL as (``type_mapping.big_decimal_bytes``, one home).

The ``BigDecimal`` parameter is the argument's Java text read by ``new BigDecimal(text.trim())`` (a number's
``toString``: ``BigDecimal.valueOf`` of an integer, ``new BigDecimal(Double.toString(d))``), so text that Java's
grammar rejects fails the row. ``bytesToBigDecimal`` keeps each value's scale: a batch of one scale is an Arrow decimal
column; one of several scales a ``JAVA_OBJECT`` column of ``BigDecimal``s (``java_objects``), each converted with
its own scale where it is stored (the bytes and ``toPlainString`` depend on it).
"""
from __future__ import annotations

import pyarrow as pa

from type_mapping.big_decimal_bytes import BigDecimalError, deserialize, serialize
from type_mapping.java_text import parse_big_decimal, to_decimal

from ..java_objects import object_array
from ..values import Context, Value, to_string
from .string_functions_bytes import to_bytes
from .registry import scalar_function
from .rowwise import JavaThrows, per_row


def _serialize(text: str) -> bytes:
    try:
        return serialize(parse_big_decimal(text.strip()))
    except BigDecimalError as exc:
        raise JavaThrows(f"NumberFormatException: {exc}") from None


@scalar_function("bigDecimalToBytes", arity=1)
def _big_decimal_to_bytes(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, _serialize, pa.binary(), to_string(args[0], ctx))


def _parts(data: bytes) -> tuple[int, int]:
    try:
        return deserialize(data)
    except BigDecimalError as exc:  # fewer than 3 bytes: Java reads past the end
        raise JavaThrows(f"ArrayIndexOutOfBoundsException: {exc}") from None


@scalar_function("bytesToBigDecimal", arity=1)
def _bytes_to_big_decimal(ctx: Context, args: list[Value]) -> Value:
    texts = per_row(ctx, lambda b: "%d:%d" % _parts(b), pa.string(), to_bytes(args[0], ctx))
    pairs = [None if t is None else tuple(int(x) for x in t.split(":")) for t in texts.to_pylist()]
    scales = sorted({p[1] for p in pairs if p is not None})
    scale = scales[0] if scales else 0
    digits = max((len(str(abs(p[0]))) for p in pairs if p is not None), default=1)
    if len(scales) == 1 and max(digits, scale) <= 76:
        arrow_type = pa.decimal128(38, scale) if max(digits, scale) <= 38 else pa.decimal256(76, scale)
        try:
            return pa.array([None if p is None else to_decimal(*p) for p in pairs], arrow_type)
        except pa.ArrowInvalid:  # (an exponent beyond Arrow's reach: any bytes give a BigDecimal, 1E+3941 too)
            pass
    # several scales (one Arrow decimal column holds one), more than 76 digits or an exponent Arrow cannot
    # hold: each BigDecimal as the Java object it is
    return object_array([None if p is None else to_decimal(*p) for p in pairs])
