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

Beside it, one module per stage it calls: ``conversion_context`` (the options and the per-column context errors
name their row through), ``json_text`` (Jackson's compact JSON), ``sanitise`` (step 3).
"""
from __future__ import annotations

import decimal
import time
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import datetime_formats as dtf
from .compat import ConversionError, check_convertible, datetime_format, type_family
from .conversion_context import ConversionContext, ConversionOptions, as_array, first_true, null_rows, null_where
from .java_numbers import java_double_value, java_float_value
from .java_text import big_decimal_plain_string, big_decimal_string, big_decimal_text_array, from_decimal, java_float_str
from .json_text import normalise_json_text, json_text
from .pinot_schema import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN, FieldSpec, PinotSchema
from .sanitise import sanitise_bytes, sanitise_text
from .stored import PinotColumns, arrow_type_for, fill_defaults, fill_list_rows, filled_nbytes

if TYPE_CHECKING:
    from .reconcile import WritePlan

MILLIS_PER_DAY = dtf.MILLIS_PER_DAY
_VALID_TIME_MILLIS = (dtf.VALID_MIN_TIME_MS, dtf.VALID_MAX_TIME_MS)


# --- per-type conversions (values may be null; nulls are filled later) ----------------------------


def _to_integer(values: pa.Array, ctx: ConversionContext, fmt: dtf.DateTimeFormat | None) -> pa.Array:
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


def _range_checked(values: pa.Array, ctx: ConversionContext, target: pa.DataType) -> pa.Array:
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
        values = null_where(values, bad)
    return values.cast(target, safe=False)


def _float_to_integer(values: pa.Array, ctx: ConversionContext, target: pa.DataType) -> pa.Array:
    values = values.cast(pa.float64())
    lo, hi = _bounds(target)
    nan = pc.is_nan(values)
    values = null_where(values, nan)  # NaN is no number: null, like the special-value transformer
    # float(2**63) rounds up to 2**63 itself, so ">=" is the exact LONG test.
    over = pc.or_(pc.less(values, float(lo)), pc.greater_equal(values, float(hi) + 1.0))
    if pc.any(over).as_py():
        if ctx.options.on_overflow == "error":
            ctx.fail(over, f"is out of range for Pinot {ctx.spec.data_type} [{lo}, {hi}]", values,
                     "set option 'convert.on-overflow'=null to store such values as null")
        values = null_where(values, over)
    truncated = pc.trunc(values)
    fraction = pc.not_equal(truncated, values)
    if pc.any(fraction).as_py():
        if ctx.options.on_fraction == "error":
            ctx.fail(fraction, f"has a fraction and Pinot {ctx.spec.data_type} holds integers", values,
                     "set option 'convert.on-fraction'=truncate or null, or round it first")
        if ctx.options.on_fraction == "null":
            truncated = null_where(truncated, fraction)
    return truncated.cast(target, safe=False)


def _decimal_to_integer(values: pa.Array, ctx: ConversionContext, target: pa.DataType) -> pa.Array:
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
                truncated = null_where(truncated, fraction)
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


def _parse_integers(values: pa.Array, ctx: ConversionContext) -> pa.Array:
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


def _millis(values: pa.Array, ctx: ConversionContext) -> pa.Array:
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


def _to_floating(values: pa.Array, ctx: ConversionContext) -> pa.Array:
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
            values = null_where(values, over)
    # Pinot's special values: NaN is null, -0.0 is 0.0 (IEEE addition: -0.0 + 0.0 is 0.0, every other
    # value plus 0.0 is itself, so one pass rewrites it).
    nan = pc.is_nan(values)
    if pc.any(nan).as_py():
        values = null_where(values, nan)
    return pc.add(values, pa.scalar(0.0, target))


def _parses_float(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _to_big_decimal(values: pa.Array, ctx: ConversionContext) -> pa.Array:
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


def _to_boolean(values: pa.Array, ctx: ConversionContext) -> pa.Array:
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
    return null_where(true.cast(pa.int32()), text.is_null())


def _to_timestamp(values: pa.Array, ctx: ConversionContext) -> pa.Array:
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


def _to_string(values: pa.Array, ctx: ConversionContext, fmt: dtf.DateTimeFormat | None) -> pa.Array:
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


# Arrow field metadata an ingestion pipeline puts on a JSON column it made (pinot_sink/ingestion/pipeline.py): the
# text is what Pinot's DataTypeTransformer stores (Jackson's of a Map, a List, an array; a String's read again
# there), so it is not read again here (reading it with BigDecimals would write 1.0E10 as 1.0E+10)
JSON_STORED = b"pinot_sink.json_stored"


def _to_json(values: pa.Array, ctx: ConversionContext) -> pa.Array:
    """JSON text as Pinot's ``toJson`` leaves it: strings holding JSON are re-serialised compactly,
    other strings become JSON strings, structs/maps/lists are serialised."""
    family = type_family(values.type)
    if ctx.json_stored and family == "string":
        return values.cast(pa.string())
    out: list[str | None] = []
    if family == "string":
        for text in values.cast(pa.string()).to_pylist():
            out.append(None if text is None else normalise_json_text(text))
    elif family == "map":
        for value in values.to_pylist():
            out.append(None if value is None else json_text(dict(value)))
    else:
        for value in values.to_pylist():
            out.append(None if value is None else json_text(value))
    return pa.array(out, pa.string())



def _to_bytes(values: pa.Array, ctx: ConversionContext) -> pa.Array:
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


def _convert_values(values: pa.Array, ctx: ConversionContext) -> pa.Array:
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
        return sanitise_text(_to_string(values, ctx, fmt), ctx)
    if data_type == "JSON":
        return sanitise_text(_to_json(values, ctx), ctx)
    if data_type == "BYTES":
        return sanitise_bytes(_to_bytes(values, ctx), ctx)
    raise ConversionError(f"column {spec.name!r}: unsupported Pinot type {data_type}")  # pragma: no cover



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
                   keep_chunks: bool = False, json_stored: bool = False) -> tuple[pa.Array | pa.ChunkedArray, np.ndarray]:
    """One source column -> (stored values without nulls, bool mask of the rows that were null).
    ``fill=False``: the null rows keep no value (a null, or an empty list), for ``PinotColumns.defaults``.
    ``keep_chunks``: the stored values of a column whose conversion writes every value anew come back in the
    source's chunks (``_writes_every_value``), for a caller whose rows are joined later anyway (the builder)."""
    options = options or ConversionOptions()
    if not (keep_chunks and isinstance(array, pa.ChunkedArray) and _writes_every_value(array.type, spec)):
        array = as_array(array)
    check_convertible(array.type, spec, source_name)
    ctx = ConversionContext(spec, options, row_offset, source_name or spec.name, json_stored=json_stored)
    if not spec.single_value:
        return _convert_multi_value(array, ctx, time_default, fill)
    values = _convert_values(array, ctx)
    if not values.null_count:  # the common case: no Arrow bool -> numpy conversion, value by value
        return _without_validity(values), np.zeros(len(values), dtype=np.bool_)
    values = as_array(values)  # (chunks of _writes_every_value's: the mask reads one validity bitmap)
    null_mask = null_rows(values)
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


def _convert_multi_value(array: pa.Array, ctx: ConversionContext, time_default: Any | None,
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
        flat = as_array(pc.list_flatten(array))
    ctx.element_offsets = offsets
    values = _convert_values(flat, ctx)
    if values.null_count:  # null and NaN elements are dropped
        keep = ~null_rows(values)
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
    time_column = plan.time_column
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
            refuse_missing_time_column(schema, plan, options)
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
                    index = first_true(nulls)
                    what = "NaN" if nan and column[index].is_valid else "null"
                    raise ConversionError(
                        f"column {spec.name!r}, row {row_offset + index}: the table's time column is {what} and its "
                        f"default null value {spec.default_null_value!r} is outside 1971..2071, where Pinot "
                        f"writes the ingestion time instead (set option 'convert.on-null-time'=pinot for that, or give the "
                        f"column a defaultNullValue in range)"
                    )
                time_default = _now_in_format(spec)
            defer = defer_defaults and spec.name != time_column and _defers(spec)
            metadata = batch.schema.field(source).metadata or {}
            values, mask = convert_column(column, spec, options=options, row_offset=row_offset,
                                          source_name=source, time_default=time_default, fill=not defer,
                                          keep_chunks=True, json_stored=JSON_STORED in metadata)
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


def refuse_missing_time_column(schema: PinotSchema, plan: WritePlan, options: ConversionOptions) -> None:
    """A time column the data lacks whose default Pinot would replace by the ingestion time: an error unless
    ``convert.on-null-time=pinot``. The driver asks it of the plan, before any task runs; the conversion again."""
    column = plan.time_column
    if not column or plan.source_for(column) is not None or options.on_null_time != "error":
        return
    spec = next((s for s in schema if s.name == column), None)
    if spec is not None and _time_column_default(spec) is None:
        raise ConversionError(
            f"column {spec.name!r} is the table's time column and is missing from the data; its default "
            f"null value {spec.default_null_value!r} is outside 1971..2071, where Pinot would write the "
            f"ingestion time (set option 'convert.on-null-time'=pinot for that)"
        )


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
