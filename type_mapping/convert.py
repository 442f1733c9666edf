"""Arrow batches -> Pinot stored values and null masks (``PinotColumns``), vectorised.

Per Pinot column: pick the source array (per the ``WritePlan``), convert it to the stored type
(``stored.ARROW_STORED_TYPE``), then apply Pinot's ingestion normalisation (SEGMENT_FORMAT.md section 9):

1. type conversion (BOOLEAN -> 0/1, TIMESTAMP -> epoch millis, DATE -> the column's dateTime format, ...);
   values that do not fit raise ``ConversionError`` naming the column and the first bad row, unless a
   ``ConversionOptions`` field chooses another documented behaviour;
2. special values: FLOAT/DOUBLE ``-0.0`` -> ``0.0`` and ``NaN`` -> null; BIG_DECIMAL trailing zeros
   stripped unless ``allowTrailingZeros``;
3. sanitisation: STRING cut at the first NUL, then held to ``maxLength``;
4. multi-value: null elements and NaN elements dropped (``DataTypeTransformerUtils.standardize``,
   ``SpecialValueTransformerUtils``), an array left empty is null;
5. null -> the field's default null value (MV: ``[default]``), recorded in the column's null mask.

Primitive types are converted with pyarrow.compute / numpy only. Per-value Python is used where Pinot's
rule is per value by nature and the types are not primitive: JSON text, BIG_DECIMAL exponent spellings,
FLOAT/DOUBLE -> STRING (Java's ``Double.toString``), and error paths that look for the bad row.
"""
from __future__ import annotations

import base64
import datetime as _dt
import decimal
import json
import math
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import datetime_formats as dtf
from .compat import ConversionError, check_convertible, datetime_format, type_family
from .java_numbers import java_double_value, java_float_value
from .java_text import (big_decimal_plain_string, big_decimal_string, big_decimal_text_array, from_decimal, java_float_str,
                        java_substring)
from .pinot_schema import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN, FieldSpec, PinotSchema
from .stored import PinotColumns, arrow_type_for, fill_defaults, fill_list_rows, filled_nbytes, offsets_and_data
from .table_config import time_column_name

if TYPE_CHECKING:
    from .reconcile import WritePlan

MILLIS_PER_DAY = dtf.MILLIS_PER_DAY
_VALID_TIME_MILLIS = (dtf.VALID_MIN_TIME_MS, dtf.VALID_MAX_TIME_MS)

ON_OVERFLOW = ("error", "null")
ON_FRACTION = ("error", "truncate", "null")
ON_OVERSIZE = ("error", "pinot")
ON_SUB_MILLISECOND = ("floor", "error")
ON_NULL_TIME = ("error", "pinot")


@dataclass(frozen=True)
class ConversionOptions:
    """What to do with values that do not fit; every default is an error naming column and row.

    ``on_overflow``: a number outside the Pinot type's range (LONG into INT, 1e40 into FLOAT, ...):
        ``"error"`` or ``"null"`` (the value becomes null, i.e. the default null value, and is masked).
    ``on_fraction``: a FLOAT/DOUBLE/DECIMAL with a fraction into an INT/LONG column: ``"error"``,
        ``"truncate"`` (toward zero, like Java's narrowing cast that Pinot applies) or ``"null"``.
    ``on_oversize_string``: a STRING longer than ``maxLength`` when the Pinot schema does not set
        ``maxLengthExceedStrategy`` (Pinot's implicit TRIM_LENGTH): ``"error"`` or ``"pinot"`` (apply the
        column's effective strategy). A strategy written in the schema is always honoured.
    ``on_sub_millisecond``: a timestamp with microseconds into a millisecond column: ``"floor"``
        (what ``java.sql.Timestamp.getTime`` gives Pinot) or ``"error"``.
    ``on_null_time``: a null in the table's time column whose default is outside 1971..2071 (where
        Pinot substitutes the ingestion time): ``"error"`` or ``"pinot"`` (the current time).
    """

    on_overflow: str = "error"
    on_fraction: str = "error"
    on_oversize_string: str = "error"
    on_sub_millisecond: str = "floor"
    on_null_time: str = "error"

    def __post_init__(self) -> None:
        for name, allowed in (
            ("on_overflow", ON_OVERFLOW),
            ("on_fraction", ON_FRACTION),
            ("on_oversize_string", ON_OVERSIZE),
            ("on_sub_millisecond", ON_SUB_MILLISECOND),
            ("on_null_time", ON_NULL_TIME),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")


# --- source type families ------------------------------------------------------------------------


# --- errors and masks ------------------------------------------------------------------------------


@dataclass
class _Context:
    spec: FieldSpec
    options: ConversionOptions
    row_offset: int
    source_name: str
    element_offsets: np.ndarray | None = None  # for MV: where each row's elements start (num_rows + 1)

    def row(self, index: int) -> int:
        if self.element_offsets is not None:  # the last row starting at or before the element
            index = int(np.searchsorted(self.element_offsets, index, side="right")) - 1
        return self.row_offset + index

    def fail(self, bad: np.ndarray | pa.Array, problem: str, values: pa.Array | None = None,
             hint: str = "") -> None:
        """Raise for the first ``True`` in ``bad`` (a bool mask over the converted values)."""
        index = _first_true(bad)
        if index is None:
            return
        shown = ""
        if values is not None:
            value = values[index].as_py()
            shown = f" {_short(value)}"
        source = f" (from {self.source_name!r})" if self.source_name != self.spec.name else ""
        raise ConversionError(
            f"column {self.spec.name!r}{source}, row {self.row(index)}: value{shown} {problem}"
            + (f"; {hint}" if hint else "")
        )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _first_true(mask: np.ndarray | pa.Array | pa.ChunkedArray) -> int | None:
    if isinstance(mask, (pa.Array, pa.ChunkedArray)):
        mask = pc.fill_null(mask, False).to_numpy(zero_copy_only=False)
    if not mask.any():
        return None
    return int(np.argmax(mask))


def _np_mask(mask: pa.Array) -> np.ndarray:
    return pc.fill_null(mask, False).to_numpy(zero_copy_only=False).astype(np.bool_, copy=False)


def _null_mask(values: pa.Array) -> np.ndarray:
    """The rows of ``values`` that are null, as numpy bools: its validity bitmap unpacked (Arrow's boolean ->
    numpy conversion goes value by value, ~15 instructions each)."""
    validity = values.buffers()[0]
    if validity is None:  # no bitmap: no null, or (the null type) all null
        return np.full(len(values), values.null_count > 0, dtype=np.bool_)
    valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), count=values.offset + len(values),
                          bitorder="little")[values.offset:]
    return valid == 0


def _null_where(values: pa.Array, mask: np.ndarray | pa.Array) -> pa.Array:
    mask = pa.array(mask, pa.bool_()) if isinstance(mask, np.ndarray) else pc.fill_null(mask, False)
    return pc.if_else(mask, pa.scalar(None, values.type), values)


def _as_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if pa.types.is_string_view(values.type):
        values = values.cast(pa.string())
    if pa.types.is_binary_view(values.type):
        values = values.cast(pa.binary())
    return values


# --- per-type conversions (values may be null; nulls are filled later) ----------------------------


def _to_integer(values: pa.Array, ctx: _Context, fmt: dtf.DateTimeFormat | None) -> pa.Array:
    spec = ctx.spec
    target = pa.int32() if spec.data_type == "INT" else pa.int64()
    family = type_family(values.type)
    if fmt is not None and family in ("date", "timestamp"):
        if family == "date":
            out = dtf.days_to_format(_days(values), fmt)
        else:
            out = dtf.millis_to_format(_millis(values, ctx), fmt)
        if fmt.is_string:  # e.g. INT yyyyMMdd
            out = _parse_integers(out, ctx)
        return _range_checked(out, ctx, target)
    if family == "null":
        return pa.nulls(len(values), target)
    if family == "bool":
        return values.cast(target)
    if family == "date":  # days since epoch
        return _range_checked(_days(values), ctx, target)
    if family == "timestamp":  # plain LONG: epoch millis
        return _range_checked(_millis(values, ctx), ctx, target)
    if family == "time":  # millis of day
        return _range_checked(_time_millis(values), ctx, target)
    if family == "int":
        return _range_checked(values, ctx, target)
    if family == "float":
        return _float_to_integer(values, ctx, target)
    if family == "decimal":
        return _decimal_to_integer(values, ctx, target)
    if family == "string":
        return _range_checked(_parse_integers(values, ctx), ctx, target)
    raise ConversionError(f"column {spec.name!r}: {values.type} cannot be converted to {spec.data_type}")


def _bounds(target: pa.DataType) -> tuple[int, int]:
    return (INT_MIN, INT_MAX) if target == pa.int32() else (LONG_MIN, LONG_MAX)


def _range_checked(values: pa.Array, ctx: _Context, target: pa.DataType) -> pa.Array:
    """Integers of any width -> ``target``, out-of-range values per ``on_overflow``."""
    if values.type == target:
        return values
    lo, hi = _bounds(target)
    if pa.types.is_unsigned_integer(values.type):
        fits = values.type.bit_width < target.bit_width
        bad = None if fits else pc.greater(values, pa.scalar(hi, pa.uint64()))
    elif values.type.bit_width > target.bit_width:
        bad = pc.or_(pc.less(values, pa.scalar(lo, values.type)), pc.greater(values, pa.scalar(hi, values.type)))
    else:
        bad = None
    if bad is not None and pc.any(bad).as_py():
        if ctx.options.on_overflow == "error":
            ctx.fail(bad, f"is out of range for Pinot {ctx.spec.data_type} [{lo}, {hi}]", values,
                     "set option 'convert.on-overflow'=null to store such values as null")
        values = _null_where(values, bad)
    return values.cast(target, safe=False)


def _float_to_integer(values: pa.Array, ctx: _Context, target: pa.DataType) -> pa.Array:
    values = values.cast(pa.float64())
    lo, hi = _bounds(target)
    nan = pc.is_nan(values)
    values = _null_where(values, nan)  # NaN is no number: null, like the special-value transformer
    # float(2**63) rounds up to 2**63 itself, so ">=" is the exact LONG test.
    over = pc.or_(pc.less(values, float(lo)), pc.greater_equal(values, float(hi) + 1.0))
    if pc.any(over).as_py():
        if ctx.options.on_overflow == "error":
            ctx.fail(over, f"is out of range for Pinot {ctx.spec.data_type} [{lo}, {hi}]", values,
                     "set option 'convert.on-overflow'=null to store such values as null")
        values = _null_where(values, over)
    truncated = pc.trunc(values)
    fraction = pc.not_equal(truncated, values)
    if pc.any(fraction).as_py():
        if ctx.options.on_fraction == "error":
            ctx.fail(fraction, f"has a fraction and Pinot {ctx.spec.data_type} holds integers", values,
                     "set option 'convert.on-fraction'=truncate or null, or round it first")
        if ctx.options.on_fraction == "null":
            truncated = _null_where(truncated, fraction)
    return truncated.cast(target, safe=False)


def _decimal_to_integer(values: pa.Array, ctx: _Context, target: pa.DataType) -> pa.Array:
    whole_digits = values.type.precision - values.type.scale
    if whole_digits <= 18:  # the integer part fits int64: vectorised
        if whole_digits == 0:  # decimal(p, p): |v| < 1, and Arrow's trunc has no digit left to round into
            truncated = pc.if_else(values.is_valid(), pa.scalar(0, values.type), pa.scalar(None, values.type))
        else:
            truncated = pc.trunc(values)
        fraction = pc.not_equal(truncated, values)
        if pc.any(fraction).as_py():
            if ctx.options.on_fraction == "error":
                ctx.fail(fraction, f"has a fraction and Pinot {ctx.spec.data_type} holds integers", values,
                         "set option 'convert.on-fraction'=truncate or null, or round it first")
            if ctx.options.on_fraction == "null":
                truncated = _null_where(truncated, fraction)
        whole = truncated.cast(pa.decimal128(max(whole_digits, 1), 0), safe=False).cast(pa.int64())
        return _range_checked(whole, ctx, target)
    # wider decimals need exact arithmetic beyond int64: per value, on Python ints
    lo, hi = _bounds(target)
    out: list[int | None] = []
    for index, value in enumerate(values.to_pylist()):
        if value is None:
            out.append(None)
            continue
        whole = int(value)  # toward zero
        if not lo <= whole <= hi:
            if ctx.options.on_overflow == "error":
                ctx.fail(_one_hot(len(values), index), f"is out of range for Pinot {ctx.spec.data_type} "
                         f"[{lo}, {hi}]", values, "set option 'convert.on-overflow'=null to store such values as null")
            out.append(None)
            continue
        if whole != value:
            if ctx.options.on_fraction == "error":
                ctx.fail(_one_hot(len(values), index), f"has a fraction and Pinot {ctx.spec.data_type} "
                         "holds integers", values, "set option 'convert.on-fraction'=truncate or null, or round it first")
            if ctx.options.on_fraction == "null":
                out.append(None)
                continue
        out.append(whole)
    return pa.array(out, target)


def _one_hot(size: int, index: int) -> np.ndarray:
    mask = np.zeros(size, dtype=np.bool_)
    mask[index] = True
    return mask


def _parse_integers(values: pa.Array, ctx: _Context) -> pa.Array:
    text = pc.utf8_trim_whitespace(values.cast(pa.string()))
    bad = pc.invert(pc.match_substring_regex(text, r"^[+-]?[0-9]+$"))
    ctx.fail(bad, f"is not an integer (Pinot {ctx.spec.data_type})", values)
    try:
        return text.cast(pa.int64())
    except pa.ArrowInvalid:
        too_big = [_int_overflows(v) for v in text.to_pylist()]
        ctx.fail(np.array(too_big, dtype=np.bool_), f"is out of range for Pinot {ctx.spec.data_type}", values)
        raise


def _int_overflows(text: str | None) -> bool:
    return text is not None and not LONG_MIN <= int(text) <= LONG_MAX


def _days(values: pa.Array) -> pa.Array:
    """DATE (date32/date64) -> days since epoch (int32)."""
    if pa.types.is_date64(values.type):
        values = values.cast(pa.date32())
    return values.cast(pa.int32())


def _millis(values: pa.Array, ctx: _Context) -> pa.Array:
    """TIMESTAMP (any unit, any zone: Arrow holds UTC instants) -> epoch millis, sub-millis per option."""
    unit = values.type.unit
    raw = values.cast(pa.int64())
    per_milli = {"s": 0, "ms": 1, "us": 1_000, "ns": 1_000_000}[unit]
    if per_milli == 0:
        return pc.multiply_checked(raw, 1000)
    if per_milli == 1:
        return raw
    filled = pc.fill_null(raw, 0) if raw.null_count else raw  # (Arrow's fill_null joins the chunks: a copy)
    if ctx.options.on_sub_millisecond == "error":
        ctx.fail(np.mod(filled.to_numpy(zero_copy_only=False), per_milli) != 0,
                 "has sub-millisecond precision; Pinot stores epoch milliseconds",
                 values, "set option 'convert.on-sub-millisecond'=floor or truncate it first")
    floored = np.empty(len(filled), dtype=np.int64)
    at = 0  # chunks (_writes_every_value) floored into one array: no join of them first
    for chunk in filled.chunks if isinstance(filled, pa.ChunkedArray) else [filled]:
        np.floor_divide(chunk.to_numpy(zero_copy_only=False), per_milli, out=floored[at:at + len(chunk)])
        at += len(chunk)
    del filled
    mask = raw.is_null().to_numpy(zero_copy_only=False) if raw.null_count else None
    return pa.array(floored, pa.int64(), mask=mask)


def _time_millis(values: pa.Array) -> pa.Array:
    """TIME of day -> millis of day (sub-millis floored)."""
    unit = values.type.unit
    raw = values.cast(pa.int32() if values.type.bit_width == 32 else pa.int64()).cast(pa.int64())
    if unit == "s":
        return pc.multiply(raw, 1000)
    if unit == "ms":
        return raw
    return pc.divide(raw, 1_000 if unit == "us" else 1_000_000)  # non-negative: division floors


def _to_floating(values: pa.Array, ctx: _Context) -> pa.Array:
    spec = ctx.spec
    target = pa.float32() if spec.data_type == "FLOAT" else pa.float64()
    family = type_family(values.type)
    if family == "null":
        return pa.nulls(len(values), target)
    source = values
    if family == "string":
        source = pc.utf8_trim_whitespace(values.cast(pa.string()))
        try:
            values = source.cast(target)  # parsed straight to the target type: Float.parseFloat rounds once
        except pa.ArrowInvalid:
            bad = [v is not None and not _parses_float(v) for v in source.to_pylist()]
            ctx.fail(np.array(bad, dtype=np.bool_), f"is not a number (Pinot {spec.data_type})", source)
            raise
    elif family == "bool":
        values = values.cast(target)
    else:  # Number.floatValue() / doubleValue(): the nearest float / double to the exact value, rounded once
        values = java_float_value(values) if target == pa.float32() else java_double_value(values)
    if target == pa.float32():
        # FLOAT's range: a finite value whose nearest float is infinite (Java would store Infinity)
        over = pc.is_inf(values)
        if family == "float":
            over = pc.and_(over, pc.is_finite(source))
        elif family == "string":
            over = pc.and_(over, pc.invert(pc.match_substring_regex(source, "(?i)inf")))
        if pc.any(over).as_py():
            if ctx.options.on_overflow == "error":
                ctx.fail(over, "is out of range for Pinot FLOAT", source,
                         "set option 'convert.on-overflow'=null to store such values as null")
            values = _null_where(values, over)
    # Pinot's special values: NaN is null, -0.0 is 0.0 (IEEE addition: -0.0 + 0.0 is 0.0, every other
    # value plus 0.0 is itself, so one pass rewrites it).
    nan = pc.is_nan(values)
    if pc.any(nan).as_py():
        values = _null_where(values, nan)
    return pc.add(values, pa.scalar(0.0, target))


def _parses_float(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _to_big_decimal(values: pa.Array, ctx: _Context) -> pa.Array:
    strip = not ctx.spec.allow_trailing_zeros
    family = type_family(values.type)
    if family == "null":
        return pa.nulls(len(values), pa.string())
    if family in ("decimal", "int"):
        return big_decimal_text_array(values.cast(pa.string()), strip)
    if family == "float":  # BigDecimal.valueOf(double): the digits of Double.toString
        floats = values.cast(pa.float64())
        bad = pc.invert(pc.is_finite(floats))
        ctx.fail(bad, "is not finite and BIG_DECIMAL has no NaN or Infinity", floats)
        return pa.array([None if v is None else big_decimal_string(from_decimal(decimal.Decimal(repr(v))), strip)
                         for v in floats.to_pylist()], pa.string())
    # strings: parsed per value (text is not a primitive, and each value has its own scale)
    out: list[str | None] = []
    for index, text in enumerate(values.cast(pa.string()).to_pylist()):
        if text is None:
            out.append(None)
            continue
        try:
            number = decimal.Decimal(text.strip())
        except decimal.InvalidOperation:
            number = None
        if number is None or not number.is_finite():
            ctx.fail(_one_hot(len(values), index), "is not a decimal number (Pinot BIG_DECIMAL)", values)
        out.append(big_decimal_string(from_decimal(number), strip))
    return pa.array(out, pa.string())


def _to_boolean(values: pa.Array, ctx: _Context) -> pa.Array:
    family = type_family(values.type)
    if family == "null":
        return pa.nulls(len(values), pa.int32())
    if family == "bool":
        return values.cast(pa.int32())
    if family == "int":
        return pc.not_equal(values, pa.scalar(0, values.type)).cast(pa.int32())
    text = pc.utf8_lower(pc.utf8_trim_whitespace(values.cast(pa.string())))
    true = pc.is_in(text, pa.array(["true", "1"]))
    false = pc.is_in(text, pa.array(["false", "0"]))
    ctx.fail(pc.and_(pc.invert(pc.or_(true, false)), pc.is_valid(text)),
             "is not a boolean (true/false/1/0)", values)
    return _null_where(true.cast(pa.int32()), text.is_null())


def _to_timestamp(values: pa.Array, ctx: _Context) -> pa.Array:
    family = type_family(values.type)
    if family == "null":
        return pa.nulls(len(values), pa.int64())
    if family == "timestamp":
        return _millis(values, ctx)
    if family == "date":
        return pc.multiply(_days(values).cast(pa.int64()), MILLIS_PER_DAY)
    if family == "int":
        return _range_checked(values, ctx, pa.int64())
    text = pc.utf8_trim_whitespace(values.cast(pa.string()))
    numeric = pc.match_substring_regex(text, r"^[+-]?[0-9]+$")
    millis = pc.if_else(numeric, text, pa.scalar(None, pa.string())).cast(pa.int64())
    dates = pc.if_else(numeric, pa.scalar(None, pa.string()), text)
    try:
        parsed = _parse_instants(dates)
    except pa.ArrowInvalid:
        bad = [v is not None and not _parses_instant(v) for v in dates.to_pylist()]
        ctx.fail(np.array(bad, dtype=np.bool_), "is not a timestamp (epoch millis or ISO 8601)", values)
        raise
    return pc.coalesce(millis, _millis(parsed, ctx))


def _parse_instants(text: pa.Array) -> pa.Array:
    """ISO 8601 text (``2020-01-01 10:00:00.5``, ``...T...Z``, ``...+02:00``); without a zone it is UTC."""
    has_zone = pc.match_substring_regex(text, r"(Z|[+-][0-9]{2}:?[0-9]{2})$")
    local = pc.if_else(has_zone, pa.scalar(None, pa.string()), text).cast(pa.timestamp("ns"))
    zoned = pc.if_else(has_zone, text, pa.scalar(None, pa.string())).cast(pa.timestamp("ns", tz="UTC"))
    return pc.coalesce(local.cast(pa.int64()), zoned.cast(pa.int64())).cast(pa.timestamp("ns"))


def _parses_instant(text: str) -> bool:
    try:
        _parse_instants(pa.array([text]))
        return True
    except pa.ArrowInvalid:
        return False


def _to_string(values: pa.Array, ctx: _Context, fmt: dtf.DateTimeFormat | None) -> pa.Array:
    family = type_family(values.type)
    if family == "null":
        return pa.nulls(len(values), pa.string())
    if family == "string":
        return values.cast(pa.string())
    if family in ("date", "timestamp"):
        millis = pc.multiply(_days(values).cast(pa.int64()), MILLIS_PER_DAY) if family == "date" \
            else _millis(values, ctx)
        if fmt is not None and fmt.kind == "SIMPLE_DATE_FORMAT":
            return dtf.millis_to_format(millis, fmt)
        if fmt is not None and fmt.is_epoch:
            return dtf.millis_to_format(millis, fmt).cast(pa.string())
        if family == "date":
            return values.cast(pa.date32()).cast(pa.string())  # ISO yyyy-MM-dd
        return dtf.java_timestamp_string(millis)  # what Pinot's TIMESTAMP.toString gives
    if family == "bool":
        return pc.if_else(values, "true", "false")
    if family == "int":
        return values.cast(pa.string())
    if family == "decimal":  # BigDecimal.toPlainString
        text = values.cast(pa.string())
        exponent = pc.match_substring(text, "E")
        if not pc.any(exponent).as_py():
            return text
        return pa.array([None if v is None else big_decimal_plain_string(from_decimal(v)) for v in values.to_pylist()],
                        pa.string())
    if family == "float":  # Java's Float/Double.toString spelling, per value
        float32 = values.type == pa.float32()
        return pa.array([None if v is None else java_float_str(v, float32) for v in values.to_pylist()],
                        pa.string())
    raise ConversionError(f"column {ctx.spec.name!r}: {values.type} cannot be converted to STRING")


def _to_json(values: pa.Array, ctx: _Context) -> pa.Array:
    """JSON text as Pinot's ``toJson`` leaves it: strings holding JSON are re-serialised compactly,
    other strings become JSON strings, structs/maps/lists are serialised."""
    family = type_family(values.type)
    out: list[str | None] = []
    if family == "string":
        for text in values.cast(pa.string()).to_pylist():
            out.append(None if text is None else _normalise_json_text(text))
    elif family == "map":
        for value in values.to_pylist():
            out.append(None if value is None else json_text(dict(value)))
    else:
        for value in values.to_pylist():
            out.append(None if value is None else json_text(value))
    return pa.array(out, pa.string())


def _normalise_json_text(text: str) -> str:
    try:
        parsed = json.loads(text, parse_float=decimal.Decimal, parse_constant=_reject_constant)
    except (ValueError, _NotJson):
        return json_text(text)  # not JSON: Pinot stores it as a JSON string
    return json_text(parsed)


class _NotJson(Exception):
    pass


def _reject_constant(name: str) -> Any:
    raise _NotJson(name)  # NaN/Infinity are not JSON to Jackson


_JSON_CONTROL = re.compile(r"\\u00[0-9a-f]{2}")


def _json_string(text: str) -> str:
    # Jackson: non-ASCII kept, control characters as \uXXXX with upper-case hex (Python: lower-case).
    out = json.dumps(text, ensure_ascii=False)
    return _JSON_CONTROL.sub(lambda m: "\\u" + m.group(0)[2:].upper(), out) if "\\u" in out else out


def json_text(value: Any) -> str:
    """Compact JSON as Jackson writes it: BigDecimal via ``toString``, doubles via ``Double.toString``,
    NaN/Infinity as strings, bytes as base64, dates as ISO text, timestamps as epoch millis."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, decimal.Decimal):
        return big_decimal_string(from_decimal(value))
    if isinstance(value, float):
        text = java_float_str(value)
        return text if math.isfinite(value) else f'"{text}"'
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{_json_string(str(k))}:{json_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(json_text(v) for v in value) + "]"
    if isinstance(value, (bytes, bytearray)):
        return '"' + base64.b64encode(bytes(value)).decode("ascii") + '"'
    if isinstance(value, _dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)
        return str((aware - _EPOCH) // _dt.timedelta(milliseconds=1))
    if isinstance(value, (_dt.date, _dt.time)):
        return _json_string(value.isoformat())
    if isinstance(value, _dt.timedelta):
        raise TypeError("an INTERVAL inside a JSON value has no JSON form")
    return _json_string(str(value))


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def _to_bytes(values: pa.Array, ctx: _Context) -> pa.Array:
    family = type_family(values.type)
    if family == "null":
        return pa.nulls(len(values), pa.binary())
    if family == "binary":
        return values.cast(pa.binary())
    # Pinot reads a STRING into BYTES as hex.
    out: list[bytes | None] = []
    for index, text in enumerate(values.cast(pa.string()).to_pylist()):
        if text is None:
            out.append(None)
            continue
        try:
            out.append(bytes.fromhex(text))
        except ValueError:
            ctx.fail(_one_hot(len(values), index), "is not hex text (Pinot reads STRING into BYTES as hex)",
                     values)
    return pa.array(out, pa.binary())


def _convert_values(values: pa.Array, ctx: _Context) -> pa.Array:
    """Source values (no lists) -> stored-type values, before sanitisation; nulls kept."""
    spec = ctx.spec
    fmt = datetime_format(spec)
    data_type = spec.data_type
    if data_type in ("INT", "LONG"):
        return _to_integer(values, ctx, fmt)
    if data_type in ("FLOAT", "DOUBLE"):
        return _to_floating(values, ctx)
    if data_type == "BIG_DECIMAL":
        return _to_big_decimal(values, ctx)
    if data_type == "BOOLEAN":
        return _to_boolean(values, ctx)
    if data_type == "TIMESTAMP":
        return _to_timestamp(values, ctx)
    if data_type == "STRING":
        return _sanitise_text(_to_string(values, ctx, fmt), ctx)
    if data_type == "JSON":
        return _sanitise_text(_to_json(values, ctx), ctx)
    if data_type == "BYTES":
        return _sanitise_bytes(_to_bytes(values, ctx), ctx)
    raise ConversionError(f"column {spec.name!r}: unsupported Pinot type {data_type}")  # pragma: no cover


# --- sanitisation (SanitizationTransformerUtils) ---------------------------------------------------


def _length_strategy(ctx: _Context) -> str:
    spec = ctx.spec
    if spec.max_length_exceed_strategy:  # the table owner chose: honour it
        return spec.max_length_exceed_strategy.upper()
    if spec.data_type == "STRING" and ctx.options.on_oversize_string == "error":
        return "ERROR"
    return spec.effective_max_length_strategy


def _sanitise_text(values: pa.Array, ctx: _Context) -> pa.Array:
    spec = ctx.spec
    strategy = _length_strategy(ctx)
    if spec.data_type != "STRING" and strategy == "NO_ACTION":
        return values  # Pinot sanitises JSON only when a strategy is set
    # Pre-checks on the raw buffers, a few ms per million values: no zero byte means no NUL, and no value
    # of more than maxLength UTF-8 bytes means none of more than maxLength UTF-16 code units (a character
    # takes at least as many UTF-8 bytes as code units). Only a column failing one is scanned per value.
    offsets, data = offsets_and_data(values)
    if data.size and int(data.min()) == 0:
        has_nul = pc.match_substring(values, "\x00")
        if pc.any(has_nul).as_py():
            if strategy == "ERROR":
                ctx.fail(has_nul, "contains a NUL character, which Pinot cuts strings at", values,
                         "remove it, or set maxLengthExceedStrategy in the Pinot schema")
            values = pc.replace_substring_regex(values, "(?s)\x00.*$", "")
            offsets, data = offsets_and_data(values)
    if strategy == "NO_ACTION" or len(values) == 0 or int(np.diff(offsets).max()) <= spec.max_length:
        return values
    # Java's String.length(): UTF-16 code units, so a character beyond U+FFFF counts twice.
    astral = pc.count_substring_regex(values, _ASTRAL)
    too_long = pc.greater(pc.add(pc.utf8_length(values), astral), spec.max_length)
    if not pc.any(too_long).as_py():
        return values
    if strategy == "ERROR":
        ctx.fail(too_long, f"is longer than the column's maxLength {spec.max_length}", values,
                 "raise maxLength in the Pinot schema, or set option 'convert.on-oversize-string'=pinot to truncate "
                 "as Pinot would")
    if strategy == "TRIM_LENGTH":
        trimmed = pc.if_else(too_long, pc.utf8_slice_codeunits(values, 0, spec.max_length), values)
        tricky = pc.and_(too_long, pc.greater(astral, 0))
        if not pc.any(tricky).as_py():
            return trimmed
        # rows with characters beyond U+FFFF: Java's substring, per value (rare)
        texts = trimmed.to_pylist()
        cut = np.zeros(len(values), dtype=np.bool_)
        for index in np.flatnonzero(_np_mask(tricky)):
            text = values[int(index)].as_py()
            cut[index] = _cuts_a_pair(text, spec.max_length)
            texts[index] = java_substring(text, spec.max_length)
        # Pinot's substring then leaves half a surrogate pair, on which its builder's statistics pass fails (a
        # mirror, docs/ingestion.md: with continueOnError too, or a corrupt segment)
        ctx.fail(cut, f"is cut at maxLength {spec.max_length} inside a surrogate pair (an emoji cut in half), "
                      f"on which Pinot's build fails (IllegalArgumentException: Unpaired surrogate at index "
                      f"{spec.max_length - 1})", values,
                 "raise maxLength in the Pinot schema, or cut the text where a character begins")
        return pa.array(texts, pa.string())
    if strategy == "SUBSTITUTE_DEFAULT_VALUE":
        return pc.if_else(too_long, pa.scalar(str(spec.default_null_value), pa.string()), values)
    raise ConversionError(f"column {spec.name!r}: unknown maxLengthExceedStrategy {strategy}")


_ASTRAL = r"[\x{10000}-\x{10FFFF}]"


def _cuts_a_pair(text: str, units: int) -> bool:
    """Whether Java's ``text.substring(0, units)`` ends between the two halves of a surrogate pair."""
    used = 0
    for ch in text:
        width = 2 if ord(ch) > 0xFFFF else 1
        if used + width > units:
            return used < units
        used += width
    return False


def _sanitise_bytes(values: pa.Array, ctx: _Context) -> pa.Array:
    spec = ctx.spec
    strategy = _length_strategy(ctx)
    if strategy == "NO_ACTION":
        return values
    too_long = pc.greater(pc.binary_length(values), spec.max_length)
    if not pc.any(too_long).as_py():
        return values
    if strategy == "ERROR":
        ctx.fail(too_long, f"is longer than the column's maxLength {spec.max_length} bytes", values)
    if strategy == "TRIM_LENGTH":
        return pc.if_else(too_long, pc.binary_slice(values, 0, spec.max_length), values)
    if strategy == "SUBSTITUTE_DEFAULT_VALUE":
        return pc.if_else(too_long, pa.scalar(spec.default_null_value, pa.binary()), values)
    raise ConversionError(f"column {spec.name!r}: unknown maxLengthExceedStrategy {strategy}")


# --- columns ---------------------------------------------------------------------------------------


def _default_scalar(spec: FieldSpec, value: Any | None = None) -> pa.Scalar:
    value = spec.default_null_value if value is None else value
    stored = arrow_type_for(spec)
    value_type = stored if spec.single_value else stored.value_type
    if spec.data_type == "BIG_DECIMAL":
        value = big_decimal_string(from_decimal(decimal.Decimal(value)), not spec.allow_trailing_zeros)
    return pa.scalar(value, value_type)


def default_column(spec: FieldSpec, num_rows: int, default: Any | None = None) -> pa.Array:
    """A column of the default null value (MV: ``[default]`` per row)."""
    scalar = _default_scalar(spec, default)
    if spec.single_value:
        return pa.repeat(scalar, num_rows)
    offsets = pa.array(np.arange(num_rows + 1, dtype=np.int32))
    return pa.ListArray.from_arrays(offsets, pa.repeat(scalar, num_rows))


def convert_column(array: pa.Array | pa.ChunkedArray, spec: FieldSpec, *,
                   options: ConversionOptions | None = None, row_offset: int = 0,
                   source_name: str | None = None, time_default: Any | None = None, fill: bool = True,
                   keep_chunks: bool = False) -> tuple[pa.Array | pa.ChunkedArray, np.ndarray]:
    """One source column -> (stored values without nulls, bool mask of the rows that were null).
    ``fill=False``: the null rows keep no value (a null, or an empty list), for ``PinotColumns.defaults``.
    ``keep_chunks``: the stored values of a column whose conversion writes every value anew come back in the
    source's chunks (``_writes_every_value``), for a caller whose rows are joined later anyway (the builder)."""
    options = options or ConversionOptions()
    if not (keep_chunks and isinstance(array, pa.ChunkedArray) and _writes_every_value(array.type, spec)):
        array = _as_array(array)
    check_convertible(array.type, spec, source_name)
    ctx = _Context(spec, options, row_offset, source_name or spec.name)
    if not spec.single_value:
        return _convert_multi_value(array, ctx, time_default, fill)
    values = _convert_values(array, ctx)
    if not values.null_count:  # the common case: no Arrow bool -> numpy conversion, value by value
        return _without_validity(values), np.zeros(len(values), dtype=np.bool_)
    values = _as_array(values)  # (chunks of _writes_every_value's: the mask reads one validity bitmap)
    null_mask = _null_mask(values)
    if not fill:
        return values, null_mask
    return fill_defaults(values, null_mask, _default_scalar(spec, time_default)), null_mask


def _without_validity(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Kept chunks without nulls, without a validity bitmap. Arrow's kernels give each chunk of a ChunkedArray
    an all-valid bitmap that the same kernel over a plain Array leaves out; it would add a bit per row to the
    column's nbytes, so the buffer's max-size would cut a segment at other rows than for the joined column."""
    if isinstance(values, pa.Array) or all(chunk.buffers()[0] is None for chunk in values.chunks):
        return values
    return pa.chunked_array([chunk if chunk.buffers()[0] is None else
                             pa.Array.from_buffers(chunk.type, len(chunk), [None, *chunk.buffers()[1:]], 0,
                                                   chunk.offset)
                             for chunk in values.chunks], values.type)


def _writes_every_value(source: pa.DataType, spec: FieldSpec) -> bool:
    """Whether converting a column of ``source`` into ``spec`` writes each value anew, chunk by chunk as given:
    then the chunks (a conversion group's batches) are not joined first, a copy of the column the conversion's
    own output makes needless (1.6 M instructions per 200k values). DOUBLE from a floating type (NaN and -0.0
    are rewritten by a pass over every value) and TIMESTAMP from a timestamp finer than millis (floored)."""
    if not spec.single_value:
        return False
    if spec.data_type == "DOUBLE":
        return pa.types.is_floating(source)
    return spec.data_type == "TIMESTAMP" and pa.types.is_timestamp(source) and source.unit in ("us", "ns")


def _convert_multi_value(array: pa.Array, ctx: _Context, time_default: Any | None,
                         fill: bool = True) -> tuple[pa.Array, np.ndarray]:
    spec = ctx.spec
    num_rows = len(array)
    if type_family(array.type) != "list":  # a scalar feeds a one-element array (Pinot's standardize)
        offsets = np.arange(num_rows + 1, dtype=np.int64)
        flat = array
    else:
        if pa.types.is_fixed_size_list(array.type) or pa.types.is_list_view(array.type) \
                or pa.types.is_large_list_view(array.type):
            array = array.cast(pa.large_list(array.type.value_type))
        lengths = pc.fill_null(pc.list_value_length(array), 0).to_numpy(zero_copy_only=False)
        offsets = np.zeros(num_rows + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        flat = _as_array(pc.list_flatten(array))
    ctx.element_offsets = offsets
    values = _convert_values(flat, ctx)
    if values.null_count:  # null and NaN elements are dropped
        keep = ~_null_mask(values)
        values = values.filter(pa.array(keep))
        row_of = np.repeat(np.arange(num_rows, dtype=np.int64), np.diff(offsets))
        kept_per_row = np.bincount(row_of[keep], minlength=num_rows).astype(np.int64)
        del row_of
        offsets = np.zeros(num_rows + 1, dtype=np.int64)
        np.cumsum(kept_per_row, out=offsets[1:])
    else:
        kept_per_row = np.diff(offsets)
    null_mask = kept_per_row == 0  # null, empty or emptied arrays -> [default]
    if not fill:
        # The unfilled rows stay empty; the list's offsets are of the type the filled column would have.
        if offsets[-1] + int(np.count_nonzero(null_mask)) <= INT_MAX:
            return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values), null_mask
        return pa.LargeListArray.from_arrays(pa.array(offsets), values), null_mask
    filler = _default_scalar(spec, time_default) if null_mask.any() else None
    return fill_list_rows(offsets, values, null_mask, filler), null_mask


def to_pinot_columns(batch: pa.RecordBatch | pa.Table, schema: PinotSchema, plan: "WritePlan", *,
                     options: ConversionOptions | None = None, row_offset: int = 0,
                     defer_defaults: bool = False) -> PinotColumns:
    """Convert one batch into Pinot's stored form, per ``plan`` (``reconcile.plan_write``, made once per
    job: it says which source column feeds each Pinot column, and carries the table config).

    ``row_offset`` is added to row numbers in error messages (rows already seen in the partition).
    Every column with a null gets a mask; Pinot columns the plan fills get an all-true mask.
    ``defer_defaults``: leave the null rows of the columns where writing the default costs most unfilled
    (``_defers``), named in ``PinotColumns.defaults``, for a caller that hands the rows to the builder.
    """
    options = options or ConversionOptions()
    if isinstance(batch, pa.RecordBatch):
        batch = pa.Table.from_batches([batch])
    time_column = time_column_name(plan.table_config)
    num_rows = batch.num_rows
    arrays: list[pa.Array] = []
    masks: dict[str, np.ndarray] = {}
    defaults: dict[str, pa.Scalar] = {}
    fill_nbytes = 0
    for spec in schema:
        source = plan.source_for(spec.name)
        time_default = None
        if spec.name == time_column:
            time_default = _time_column_default(spec)
        if source is None:
            if spec.name == time_column and time_default is None and options.on_null_time == "error":
                raise ConversionError(
                    f"column {spec.name!r} is the table's time column and is missing from the data; its default "
                    f"null value {spec.default_null_value!r} is outside 1971..2071, where Pinot would write the "
                    f"ingestion time (set option 'convert.on-null-time'=pinot for that)"
                )
            values = default_column(spec, num_rows, time_default if time_default is not None
                                    else _now_in_format(spec) if spec.name == time_column else None)
            masks[spec.name] = np.ones(num_rows, dtype=np.bool_)
        else:
            if source not in batch.column_names:
                raise ConversionError(
                    f"column {spec.name!r}: its source column {source!r} is not in the batch (columns: "
                    f"{batch.column_names}); the write plan was made for another schema"
                )
            column = batch.column(source)
            needs_now = spec.name == time_column and time_default is None
            # NaN counts as null (docs/type-mapping.md), in the time column as anywhere
            nan = pa.types.is_floating(column.type) and bool(pc.any(pc.is_nan(column)).as_py())
            if needs_now and (column.null_count or nan):
                if options.on_null_time == "error":
                    nulls = pc.or_kleene(column.is_null(), pc.is_nan(column)) if nan else column.is_null()
                    index = _first_true(nulls)
                    what = "NaN" if nan and column[index].is_valid else "null"
                    raise ConversionError(
                        f"column {spec.name!r}, row {row_offset + index}: the table's time column is {what} and its "
                        f"default null value {spec.default_null_value!r} is outside 1971..2071, where Pinot "
                        f"writes the ingestion time instead (set option 'convert.on-null-time'=pinot for that, or give the "
                        f"column a defaultNullValue in range)"
                    )
                time_default = _now_in_format(spec)
            defer = defer_defaults and spec.name != time_column and _defers(spec)
            values, mask = convert_column(column, spec, options=options, row_offset=row_offset,
                                          source_name=source, time_default=time_default, fill=not defer,
                                          keep_chunks=True)
            if mask.any():
                masks[spec.name] = mask
                if defer:
                    defaults[spec.name] = default = _default_scalar(spec)
                    fill_nbytes += filled_nbytes(values, mask, default) - values.nbytes
        arrays.append(values)
    table = pa.Table.from_arrays(arrays, names=schema.column_names) if arrays else pa.table({})
    return PinotColumns(table, masks, defaults, fill_nbytes)


def _defers(spec: FieldSpec) -> bool:
    """Whether ``defer_defaults`` leaves this column's null rows unfilled: multi-value columns (a ``take`` of
    every value to make room for ``[default]``) and single-value STRING / BYTES (``fill_null`` copies them
    all); not BIG_DECIMAL, converted value by value in Python anyway (the fill is no part of its cost)."""
    if spec.stored_type == "BIG_DECIMAL":
        return False
    return not spec.single_value or spec.stored_type in ("STRING", "BYTES")


def _time_column_default(spec: FieldSpec) -> Any | None:
    """The time column's default if Pinot would use it (in 1971..2071), else None."""
    fmt = datetime_format(spec)
    value = spec.default_null_value
    try:
        if fmt is None or fmt.kind == "TIMESTAMP" or spec.data_type == "TIMESTAMP":
            millis = int(value)
        elif fmt.is_epoch:  # fromFormatToMillis: value * size in the unit, as millis
            millis = dtf.stored_to_millis(int(value) * fmt.size, fmt.unit)
        else:
            return None  # a pattern default ("null") never parses
    except (TypeError, ValueError):
        return None
    lo, hi = _VALID_TIME_MILLIS
    return value if lo <= millis <= hi else None


def _now_in_format(spec: FieldSpec) -> Any:
    now = pa.array([int(time.time() * 1000)], pa.int64())
    fmt = datetime_format(spec)
    if fmt is None or spec.data_type == "TIMESTAMP":
        return now[0].as_py()
    value = dtf.millis_to_format(now, fmt)[0].as_py()
    return int(value) if spec.data_type in ("INT", "LONG") else value
