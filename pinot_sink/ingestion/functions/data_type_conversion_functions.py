"""``cast`` (DataTypeConversionFunctions) and the Timestamp / ISO-8601 functions of DateTimeFunctions.

``CAST(x AS INT)`` converts with ``PinotDataType``'s rules, except text into INT / LONG: an integer, else
the truncated double (``(int) Double.parseDouble``); text into LONG / TIMESTAMP may also be a timestamp
(``TimestampUtils``: epoch millis or ``yyyy-MM-dd HH:mm:ss[.f]`` / ISO text, UTC; type_mapping/java_timestamp.py);
a multi-value is refused (cast takes an Object, never an array).
"""
from __future__ import annotations

import datetime as _dt
import decimal
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.big_decimal_bytes import BigDecimalError, deserialize, serialize
from type_mapping.joda_calendar import calendar_field, outside_arrow_range
from type_mapping.joda_format import print_pattern
from type_mapping.java_numbers import java_double_to_int, java_double_to_long
from type_mapping.java_text import parse_big_decimal, to_decimal
from type_mapping.java_text import java_parse_long
from type_mapping.java_timestamp import java_trim, timestamp_utils_millis

from ..java_objects import is_object, object_array, objects
from ..values import (arrow_java_type, as_numpy_mask, broadcast, Const, Context, IngestionError, null_mask,
                      to_boolean, to_double, to_float, to_long, to_string, Value, with_nulls)
from .registry import scalar_function
from .rowwise import JavaThrows, per_row
from .string_functions_bytes import to_bytes

_TARGETS = {"INT": "INT", "INTEGER": "INT", "UTINYINT": "INT", "USMALLINT": "INT", "LONG": "LONG",
            "BIGINT": "LONG", "UINTEGER": "LONG", "FLOAT": "FLOAT", "DOUBLE": "DOUBLE", "BOOLEAN": "BOOLEAN",
            "STRING": "STRING", "VARCHAR": "STRING", "TIMESTAMP": "TIMESTAMP", "DECIMAL": "BIG_DECIMAL",
            "BIG_DECIMAL": "BIG_DECIMAL"}
_OUT_TYPES = {"INT": pa.int32(), "LONG": pa.int64(), "TIMESTAMP": pa.int64(), "FLOAT": pa.float32(),
              "DOUBLE": pa.float64(), "BOOLEAN": pa.bool_(), "STRING": pa.string(), "BIG_DECIMAL": pa.string()}


def _check_cast(args: list) -> None:
    if len(args) > 1 and isinstance(args[1], str) and args[1].upper() not in _TARGETS:
        raise ValueError(f"CAST to {args[1]!r} is not supported here (supported: {', '.join(sorted(_TARGETS))})")


@scalar_function("cast", arity=2, literal_args=(1,), check=_check_cast)
def _cast(ctx: Context, args: list[Value]) -> Value:
    target = args[1]
    if str(target.value).upper() not in _TARGETS:
        raise IngestionError(f"{ctx.where}: the CAST type must be one of {sorted(_TARGETS)}")
    kind = _TARGETS[str(target.value).upper()]
    value = broadcast(args[0], ctx.num_rows) if isinstance(args[0], Const) else args[0]
    if arrow_java_type(value.type) == "ARRAY":  # cast's parameter is an Object: no first element taken
        ctx.fail(value.is_valid(), "IllegalArgumentException: class [Ljava.lang.Object; must not be an array type",
                 value)
        return pa.nulls(len(value), _OUT_TYPES[kind])
    text = arrow_java_type(value.type) == "STRING"
    if kind in ("INT", "LONG", "TIMESTAMP") and text:
        return _text_to_whole(ctx, value.cast(pa.string()), kind)
    if kind in ("INT", "LONG", "TIMESTAMP"):
        converted = to_long(value, ctx)
        return converted.cast(pa.int32(), safe=False) if kind == "INT" else converted
    if kind == "FLOAT":
        return to_float(value, ctx)
    if kind == "DOUBLE":
        return to_double(value, ctx)
    if kind == "BOOLEAN":
        return to_boolean(value, ctx)
    return to_string(value, ctx)  # STRING, and BIG_DECIMAL as its text (new BigDecimal(String))


def _text_to_whole(ctx: Context, text: pa.Array, kind: str) -> pa.Array:
    """Pinot's cast of text (``value.toString().trim()``, Java's trim): INT by ``Integer.parseInt``, else
    ``(int) Double.parseDouble``; LONG by ``TimestampUtils.toMillisSinceEpoch`` (whole millis or a timestamp's
    text), else ``(long) Double.parseDouble``; TIMESTAMP by ``TimestampUtils.toTimestamp`` alone."""
    from ..values import per_distinct

    out = per_distinct(text, _java_int if kind == "INT" else timestamp_utils_millis, pa.int64())
    rest = pc.and_(out.is_null(), text.is_valid())
    if kind == "TIMESTAMP":
        ctx.fail(rest, "IllegalArgumentException: Invalid timestamp", text)
        return out
    if pc.any(rest).as_py():
        remaining = pc.if_else(rest, text, pa.scalar(None, pa.string()))
        doubles = per_distinct(remaining, _java_double, pa.float64())
        ctx.fail(pc.and_(doubles.is_null(), remaining.is_valid()), "NumberFormatException (not a number)", text)
        data = pc.fill_null(doubles, 0.0).to_numpy(zero_copy_only=False)
        truncated = java_double_to_int(data).astype(np.int64) if kind == "INT" else java_double_to_long(data)
        out = pc.coalesce(out, pa.array(truncated, pa.int64(), mask=null_mask(doubles)))
    if kind == "INT":
        return out.cast(pa.int32())  # (every value is in the int range)
    return out


def _java_int(text: str | None) -> int | None:
    """``Integer.parseInt(text.trim())`` (any script's digits), or None where it throws."""
    try:
        value = java_parse_long(java_trim(text)) if text is not None else None
    except ValueError:
        return None
    return value if value is not None and -2**31 <= value < 2**31 else None


def _java_double(text: str | None) -> float | None:
    """``Double.parseDouble(text.trim())``: ASCII only, and no other blank than Java's trim takes at the ends."""
    from ..values import java_parse_double

    if text is None:
        return None
    trimmed = java_trim(text)
    return java_parse_double(trimmed) if trimmed.isascii() and trimmed == trimmed.strip() else None


def _iso_millis(text: str | None, shape: re.Pattern) -> int | None:
    """Epoch millis of ISO-like text of the given shape (UTC when it has no offset), None otherwise."""
    if text is None or not shape.match(text):
        return None
    try:
        parsed = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=_dt.timezone.utc)
    return (parsed - _EPOCH) // _dt.timedelta(milliseconds=1)


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_OFFSET_DATE_TIME = re.compile(
    r"^[+-]?\d{4,9}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}(:\d{2})?)$")


@scalar_function("toTimestamp", arity=1)
def _to_timestamp(ctx: Context, args: list[Value]) -> Value:
    return broadcast(to_long(args[0], ctx), ctx.num_rows, pa.int64()).cast(pa.timestamp("ms", tz="UTC"))


# PinotDataType.toTimestamp by the argument's Java type: a Long, Double (longValue), BigDecimal, Timestamp or
# LocalDate converts; an Integer, Float, Boolean or bytes throws UnsupportedOperationException (an INT column,
# a small literal such as fromTimestamp(0), an int function's result: the row fails); text is
# TimestampUtils.toTimestamp (a whole number, or a timestamp's text)
_TIMESTAMP_FROM = {"LONG", "DOUBLE", "BIG_DECIMAL", "TIMESTAMP", "DATE", "OBJECT", "NULL"}


def timestamp_argument(value: Value, ctx: Context) -> pa.Array:
    """A value converted for a ``java.sql.Timestamp`` parameter, as epoch millis (int64)."""
    array = broadcast(value, ctx.num_rows, _LITERAL_TYPES.get(value.java_type) if isinstance(value, Const) else None)
    jt = arrow_java_type(array.type)
    if jt == "ARRAY":  # a multi-value: its first element
        from ..values import first_elements

        return timestamp_argument(first_elements(array, ctx), ctx)
    if jt == "STRING":  # (Java's trim, Timestamp.valueOf, Long.parseLong, then ISO text: java_timestamp)
        from ..values import per_distinct

        out = per_distinct(array.cast(pa.string()), timestamp_utils_millis, pa.int64())
        ctx.fail(pc.and_(array.is_valid(), out.is_null()), "IllegalArgumentException: Invalid timestamp", array)
        return out
    if jt not in _TIMESTAMP_FROM:
        ctx.fail(array.is_valid(), f"UnsupportedOperationException: Cannot convert value from {jt} to TIMESTAMP",
                 array)
        return pa.nulls(len(array), pa.int64())
    return broadcast(to_long(array, ctx), ctx.num_rows, pa.int64())


_LITERAL_TYPES = {"INT": pa.int32(), "LONG": pa.int64(), "DOUBLE": pa.float64(), "FLOAT": pa.float32(),
                  "STRING": pa.string(), "BOOLEAN": pa.bool_()}


@scalar_function("fromTimestamp", arity=1)
def _from_timestamp(ctx: Context, args: list[Value]) -> Value:
    return timestamp_argument(args[0], ctx)


@scalar_function("toIso8601", arity=1)
def _to_iso8601(ctx: Context, args: list[Value]) -> Value:
    """``Instant.toString``: the fraction only when it is not zero."""
    millis = broadcast(to_long(args[0], ctx), ctx.num_rows, pa.int64())
    data = pc.fill_null(millis, 0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    if outside_arrow_range(data):  # years beyond 0000..9999 print with a sign ("+292278994-08-17T...")
        return pa.array([None if v is None else _instant_string(v) for v in millis.to_pylist()], pa.string())
    instants = millis.cast(pa.timestamp("ms", tz="UTC"))
    base = print_pattern(instants, "yyyy-MM-dd'T'HH:mm:ss", "UTC")
    ms = pc.millisecond(instants)
    fraction = pc.if_else(pc.equal(ms, 0), "", pc.binary_join_element_wise(
        ".", pc.utf8_lpad(ms.cast(pa.string()), width=3, padding="0"), ""))
    return pc.binary_join_element_wise(base, fraction, "Z", "")


def _instant_string(millis: int) -> str:
    """``Instant.toString`` of any long of millis (Joda's and java.time's calendar agree: proleptic ISO)."""
    one = np.array([millis], np.int64)
    year, month, day, hour, minute, second, ms = (int(calendar_field(one, name)[0]) for name in (
        "year", "month", "day", "hour", "minute", "second", "millisecond"))
    year_text = f"{year:04d}" if 0 <= year <= 9999 else (f"+{year}" if year > 9999 else f"-{-year:04d}")
    fraction = f".{ms:03d}" if ms else ""
    return f"{year_text}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{fraction}Z"


@scalar_function("fromIso8601", arity=1)
def _from_iso8601(ctx: Context, args: list[Value]) -> Value:
    """``OffsetDateTime.parse(text).toInstant().toEpochMilli()``: an offset is required."""
    text = broadcast(to_string(args[0], ctx), ctx.num_rows, pa.string())

    from ..values import per_distinct

    millis = per_distinct(text, lambda s: _iso_millis(s, _OFFSET_DATE_TIME), pa.int64())
    failed = as_numpy_mask(pc.and_(millis.is_null(), text.is_valid()))
    ctx.fail(failed, "not an ISO-8601 date-time with an offset (DateTimeParseException)", text)
    return with_nulls(millis, failed)


# ----------------------------------------------------------------------------------------------------
# ``bigDecimalToBytes`` / ``bytesToBigDecimal`` (DataTypeConversionFunctions): ``BigDecimalUtils.serialize`` /
# ``deserialize``, the bytes Pinot stores a BIG_DECIMAL as (``type_mapping.big_decimal_bytes``, one home).
#
# The ``BigDecimal`` parameter is the argument's Java text read by ``new BigDecimal(text.trim())`` (a number's
# ``toString``: ``BigDecimal.valueOf`` of an integer, ``new BigDecimal(Double.toString(d))``), so text that Java's
# grammar rejects fails the row. ``bytesToBigDecimal`` keeps each value's scale: a batch of one scale is an Arrow decimal
# column; one of several scales a ``JAVA_OBJECT`` column of ``BigDecimal``s (``java_objects``), each converted with
# its own scale where it is stored (the bytes and ``toPlainString`` depend on it).

def _serialize(text: str) -> bytes:
    try:
        return serialize(parse_big_decimal(text.strip()))
    except BigDecimalError as exc:
        raise JavaThrows(f"NumberFormatException: {exc}") from None


@scalar_function("bigDecimalToBytes", arity=1)
def _big_decimal_to_bytes(ctx: Context, args: list[Value]) -> Value:
    if not isinstance(args[0], Const) and is_object(args[0].type):
        # BigDecimal objects (bytesToBigDecimal's of several scales or beyond Arrow) are passed as they are, not
        # through their text, which for an exponent like 1.01E+24857 runs past Python's digit limit
        values = objects(args[0])
        if all(v is None or isinstance(v, decimal.Decimal) for v in values):
            out: list[bytes | None] = []
            failed = np.zeros(len(values), np.bool_)
            for i, v in enumerate(values):
                try:
                    out.append(None if v is None else serialize(v))
                except BigDecimalError:
                    out.append(None)
                    failed[i] = True
            if failed.any():
                ctx.fail(failed, "NumberFormatException: a scale beyond the 2 bytes Pinot stores", args[0])
            return pa.array(out, pa.binary())
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
    if len(scales) == 1 and 0 <= scale and max(digits, scale) <= 76:  # (Arrow prints a negative scale 5E+1)
        arrow_type = pa.decimal128(38, scale) if max(digits, scale) <= 38 else pa.decimal256(76, scale)
        try:
            return pa.array([None if p is None else to_decimal(*p) for p in pairs], arrow_type)
        except pa.ArrowInvalid:  # (an exponent beyond Arrow's reach: any bytes give a BigDecimal, 1E+3941 too)
            pass
    # several scales (one Arrow decimal column holds one), more than 76 digits or an exponent Arrow cannot
    # hold: each BigDecimal as the Java object it is
    return object_array([None if p is None else to_decimal(*p) for p in pairs])
