"""Date/time functions (DateTimeFunctions, DateTimePatternHandler), vectorised.

Epoch conversions follow ``java.util.concurrent.TimeUnit``: towards coarser units a division truncated
toward zero (``toEpochDays(-1)`` is 0, not -1), towards finer units a multiplication that saturates at
Long.MIN/MAX. Calendar fields use Joda's ISO chronology in the given zone (UTC by default): proleptic
Gregorian, ISO weeks (Monday first), ``dayOfWeek`` 1 (Monday) to 7. ``toDateTime`` prints Joda patterns
through ``type_mapping.datetime_formats.print_pattern``; ``fromDateTime`` parses them with a regular
expression per pattern applied to the whole column, a local time in a DST gap moving forward by the gap
(Pinot's ``parseWithDstGapFallback``) and an ambiguous one taking the earlier instant.
"""
from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.datetime_formats import DateTimeFormatError
from type_mapping.joda_calendar import calendar_field, floor_local, outside_arrow_range
from type_mapping.joda_format import compile_pattern, print_pattern
from type_mapping.joda_parse import JodaParseError, parse_millis as joda_parse_millis, _elements as joda_elements
from type_mapping.joda_zones import ZoneError, from_local, joda_zone, pinot_zone_key, to_local
from type_mapping.java_numbers import java_long_div, saturating_multiply

from ..values import (Const, Context, IngestionError, RowFailure, Value, broadcast, null_mask, per_distinct, to_long,
                      to_string, with_nulls)
from .registry import scalar_function

MILLIS = {"SECONDS": 1000, "MINUTES": 60_000, "HOURS": 3_600_000, "DAYS": 86_400_000}
_UNIT_NAMES = {"Seconds": "SECONDS", "Minutes": "MINUTES", "Hours": "HOURS", "Days": "DAYS"}


def _longs(ctx: Context, value: Value) -> np.ndarray:
    array = broadcast(to_long(value, ctx), ctx.num_rows, pa.int64())
    return pc.fill_null(array, 0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def _result(ctx: Context, data: np.ndarray, args: list[Value], dtype=pa.int64()) -> pa.Array:
    mask = np.zeros(ctx.num_rows, dtype=np.bool_)
    for a in args:
        if not isinstance(a, Const):
            mask |= null_mask(a)
    return pa.array(data, dtype, mask=mask if mask.any() else None)


def _divisor(ctx: Context, value: Value, what: str) -> np.ndarray:
    """A bucket / rounding argument; 0 throws ArithmeticException in Java."""
    if isinstance(value, Const):
        number = to_long(value, ctx).value
        if number == 0:
            raise IngestionError(f"{ctx.where}: {what} 0 divides by zero (ArithmeticException in Pinot)")
        return np.int64(number)
    divisor = _longs(ctx, value)
    ctx.fail(divisor == 0, f"{what} 0 divides by zero (ArithmeticException)")
    return divisor


def _register_epoch_functions() -> None:
    for suffix, unit in _UNIT_NAMES.items():
        factor = MILLIS[unit]

        def to_epoch(ctx, args, factor=factor):
            return _result(ctx, java_long_div(_longs(ctx, args[0]), factor), args)

        def to_epoch_rounded(ctx, args, factor=factor):
            step = _divisor(ctx, args[1], "roundToNearest")
            units = java_long_div(_longs(ctx, args[0]), factor)
            with np.errstate(over="ignore"):
                return _result(ctx, java_long_div(units, step) * step, args)

        def to_epoch_bucket(ctx, args, factor=factor):
            bucket = _divisor(ctx, args[1], "bucket")
            return _result(ctx, java_long_div(java_long_div(_longs(ctx, args[0]), factor), bucket), args)

        def from_epoch(ctx, args, factor=factor):
            return _result(ctx, saturating_multiply(_longs(ctx, args[0]), factor), args)

        def from_epoch_bucket(ctx, args, factor=factor):
            with np.errstate(over="ignore"):  # value * bucket wraps like Java's long multiplication
                product = _longs(ctx, args[0]) * _longs(ctx, args[1])
            return _result(ctx, saturating_multiply(product, factor), args)

        scalar_function(f"toEpoch{suffix}", arity=1)(to_epoch)
        scalar_function(f"toEpoch{suffix}Rounded", arity=2)(to_epoch_rounded)
        scalar_function(f"toEpoch{suffix}Bucket", arity=2)(to_epoch_bucket)
        scalar_function(f"fromEpoch{suffix}", arity=1)(from_epoch)
        scalar_function(f"fromEpoch{suffix}Bucket", arity=2)(from_epoch_bucket)


_register_epoch_functions()


@scalar_function("round", arity=2)
def _round(ctx: Context, args: list[Value]) -> Value:
    step = _divisor(ctx, args[1], "roundToNearest")
    with np.errstate(over="ignore"):
        return _result(ctx, java_long_div(_longs(ctx, args[0]), step) * step, args)


# --- zones and calendar fields ----------------------------------------------------------------------


def zone_id(ctx: Context, value: Const, rule=None) -> str:
    """The zone argument as Pinot resolves it: ``DateTimeZone.forID`` (``joda_zone``), or for ``dateTrunc``
    Pinot's ``TimeZoneKey`` (``pinot_zone_key``); a rejected id fails every row that reaches it."""
    text = to_string(value, ctx).value
    try:
        return (rule or joda_zone)(text)
    except ZoneError as exc:
        raise IngestionError(f"{ctx.where}: IllegalArgumentException: {exc}") from None


def _local_timestamps(ctx: Context, value: Value, zone: str = "UTC") -> pa.Array:
    """Wall-clock times in ``zone`` as naive timestamps (for the calendar field kernels)."""
    millis = broadcast(to_long(value, ctx), ctx.num_rows, pa.int64())
    data = pc.fill_null(millis, 0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    return pa.array(to_local(data, zone), pa.timestamp("ms"), mask=null_mask(millis) if millis.null_count else None)


def _instants(ctx: Context, value: Value, zone: str = "UTC") -> pa.Array:
    millis = broadcast(to_long(value, ctx), ctx.num_rows, pa.int64())
    return millis.cast(pa.timestamp("ms")).cast(pa.timestamp("ms", tz=zone))


def _field(extract, name):
    def run(ctx, value, zone):
        millis = broadcast(to_long(value, ctx), ctx.num_rows, pa.int64())
        data = pc.fill_null(millis, 0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
        local = to_local(data, zone)
        mask = null_mask(millis) if millis.null_count else None
        if outside_arrow_range(local):  # Joda's calendar over the whole long range
            return pa.array(calendar_field(local, name).astype(np.int32), pa.int32(), mask=mask)
        return extract(pa.array(local, pa.timestamp("ms"), mask=mask)).cast(pa.int32())

    def one_arg(ctx, args):
        return run(ctx, args[0], "UTC")

    def two_args(ctx, args):
        return run(ctx, args[0], zone_id(ctx, args[1]))

    return one_arg, two_args


def _register_fields() -> None:
    fields = {
        ("year",): (pc.year, "year"),
        ("yearOfWeek", "yow"): (pc.iso_year, "iso_year"),
        ("quarter",): (pc.quarter, "quarter"),
        ("month", "monthOfYear"): (pc.month, "month"),
        ("week", "weekOfYear"): (pc.iso_week, "iso_week"),
        ("dayOfYear", "doy"): (pc.day_of_year, "day_of_year"),
        ("dayOfMonth", "day"): (pc.day, "day"),
        ("dayOfWeek", "dow"): (lambda t: pc.day_of_week(t, count_from_zero=False, week_start=1), "day_of_week"),
        ("hour",): (pc.hour, "hour"),
        ("minute",): (pc.minute, "minute"),
        ("second",): (pc.second, "second"),
        ("millisecond",): (pc.millisecond, "millisecond"),
    }
    runners = {}
    for names, (extract, name) in fields.items():
        one, two = _field(extract, name)
        scalar_function(*names, arity=1)(one)
        scalar_function(*names, arity=2, literal_args=(1,))(two)
        runners[names[0]] = one

    # EXTRACT(unit FROM t) (the parser's form of extract('UNIT', t)): DateTimeUtils.extract, in UTC, with the
    # unit looked up by ExtractFieldType.valueOf (exact upper-case names: 'year' fails as in Pinot).
    extract_fields = {"YEAR": "year", "QUARTER": "quarter", "MONTH": "month", "WEEK": "week", "DAY": "dayOfMonth",
                      "DOY": "dayOfYear", "DOW": "dayOfWeek", "HOUR": "hour", "MINUTE": "minute", "SECOND": "second"}

    @scalar_function("extract", arity=2, literal_args=(0,))
    def _extract(ctx: Context, args: list[Value]) -> Value:
        unit = str(to_string(args[0], ctx).value)
        if unit not in extract_fields:
            raise IngestionError(f"{ctx.where}: No enum constant ExtractFieldType.{unit} (EXTRACT takes "
                                 f"{', '.join(extract_fields)})")
        return runners[extract_fields[unit]](ctx, args[1:])


_register_fields()


# --- dateTrunc ----------------------------------------------------------------------------------------

_TRUNC_UNITS = {"millisecond", "second", "minute", "hour", "day", "week", "month", "quarter", "year"}
_TIME_UNITS = {"NANOSECONDS": (1, 1_000_000), "MICROSECONDS": (1, 1000), "MILLISECONDS": (1, 1),
               "SECONDS": (1000, 1), "MINUTES": (60_000, 1), "HOURS": (3_600_000, 1), "DAYS": (86_400_000, 1)}


def _time_unit(ctx: Context, value: Const) -> tuple[int, int]:
    unit = to_string(value, ctx)
    if str(unit.value).upper() not in _TIME_UNITS:
        raise IngestionError(f"{ctx.where}: {unit.value!r} is not a java TimeUnit name")
    return _TIME_UNITS[str(unit.value).upper()]


def _to_millis(values: np.ndarray, unit: tuple[int, int]) -> np.ndarray:
    multiply, divide = unit
    if divide > 1:
        return java_long_div(values, divide)
    return saturating_multiply(values, multiply) if multiply > 1 else values


def _from_millis(values: np.ndarray, unit: tuple[int, int]) -> np.ndarray:
    multiply, divide = unit
    if multiply > 1:
        return java_long_div(values, multiply)
    return saturating_multiply(values, divide) if divide > 1 else values


@scalar_function("dateTrunc", arity=(2, 3, 4, 5), literal_args=(0, 2, 3, 4))
def _date_trunc(ctx: Context, args: list[Value]) -> Value:
    unit = to_string(args[0], ctx)
    if str(unit.value).lower() not in _TRUNC_UNITS:
        raise IngestionError(f"{ctx.where}: {unit.value!r} is not a valid Timestamp field")
    input_unit = _time_unit(ctx, args[2]) if len(args) > 2 else _TIME_UNITS["MILLISECONDS"]
    zone = zone_id(ctx, args[3], pinot_zone_key) if len(args) > 3 else "UTC"
    output_unit = _time_unit(ctx, args[4]) if len(args) > 4 else input_unit
    millis = _to_millis(_longs(ctx, args[1]), input_unit)
    local = to_local(millis, zone)
    name = str(unit.value).lower()
    if outside_arrow_range(local):
        floored = floor_local(local, name)
    else:
        options = {"week_starts_monday": True} if name == "week" else {}
        floored = pc.floor_temporal(pa.array(local, pa.timestamp("ms")), unit=name, **options).cast(
            pa.int64()).to_numpy(zero_copy_only=False)
    # Joda's ZonedDateTimeField.roundFloor: a time field (unit under 12 hours) floors instant + offset and takes
    # the same offset off again (the original's, even where the floored local time had another); a date field
    # converts the floored local time back, keeping the original's offset when it is valid there
    if name in ("millisecond", "second", "minute", "hour"):
        truncated = floored - (local - millis)
    else:
        truncated = from_local(floored, zone, millis)
    return _result(ctx, _from_millis(truncated, output_unit), args[1:2])


# --- toDateTime / fromDateTime ------------------------------------------------------------------------


def _pattern(ctx: Context, value: Const) -> str:
    return to_string(value, ctx).value


def _check_print_pattern(args: list) -> None:
    if len(args) > 1 and isinstance(args[1], str):
        compile_pattern(args[1], printing=True)


@scalar_function("toDateTime", arity=(2, 3), literal_args=(1, 2), check=_check_print_pattern)
def _to_date_time(ctx: Context, args: list[Value]) -> Value:
    pattern = _pattern(ctx, args[1])
    zone = zone_id(ctx, args[2]) if len(args) == 3 else "UTC"
    named = to_string(args[2], ctx).value if len(args) == 3 else "UTC"  # (a zone's names go by its given id)
    try:
        tokens = compile_pattern(pattern, printing=True)
        millis = broadcast(to_long(args[0], ctx), ctx.num_rows, pa.int64())
        data = pc.fill_null(millis, 0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
        distinct = _distinct_instants(data, tokens, zone)
        if distinct is not None:  # print each distinct text once (e.g. one per day for yyyy-MM-dd)
            representatives, inverse = distinct
            texts = _print(ctx, pa.array(representatives, pa.int64()), pattern, tokens, zone, named)
            return with_nulls(_take_texts(texts, inverse), null_mask(millis))
        return _print(ctx, millis, pattern, tokens, zone, named)
    except DateTimeFormatError as exc:
        raise IngestionError(f"{ctx.where}: {exc}") from None


def _take_texts(texts: pa.Array, inverse: np.ndarray) -> pa.Array:
    """``texts.take(inverse)``; texts of one byte length (numeric patterns) are gathered as fixed-width byte
    strings, twice as fast as Arrow's variable-length take (bench/transforms.py)."""
    offsets = np.frombuffer(texts.buffers()[1], np.int32)[texts.offset:texts.offset + len(texts) + 1]
    widths = np.diff(offsets)
    if (texts.null_count or not len(widths) or (widths != widths[0]).any() or widths[0] == 0
            or int(widths[0]) * len(inverse) >= 2**31):  # int32 offsets
        return texts.take(pa.array(inverse))
    width = int(widths[0])
    rows = np.frombuffer(texts.buffers()[2], np.uint8)[offsets[0]:offsets[-1]].view(f"S{width}")
    gathered = np.take(rows, inverse).view(np.uint8)  # fixed-width byte strings: one memcpy-sized move each
    out_offsets = np.arange(0, width * (len(inverse) + 1), width, dtype=np.int32)
    return pa.StringArray.from_buffers(len(inverse), pa.py_buffer(out_offsets), pa.py_buffer(gathered))


# The smallest unit each pattern letter shows: rows in one such bucket (of local time) print the same text.
_LETTER_UNIT = {"S": 1, "s": 1000, "m": 60_000, "H": 3_600_000, "k": 3_600_000, "K": 3_600_000,
                "h": 3_600_000, "a": 3_600_000, "Z": 1000, "z": 1000}


def _distinct_instants(data: np.ndarray, tokens, zone: str) -> tuple[np.ndarray, np.ndarray] | None:
    if len(data) < 1024:
        return None
    unit = min((_LETTER_UNIT.get(t.letter, 86_400_000) for t in tokens if t.letter), default=86_400_000)
    if unit == 1:
        return None
    local = to_local(data, zone)
    low, high = int(local.min()), int(local.max())
    base = low // unit * unit  # the start of the first bucket, in exact integers
    if (high - base) // unit < len(data) // 8:
        # Few buckets between the first and the last: a bucket's number is its offset from the first, found
        # by a (non-negative, hence flooring) division; buckets no row falls in print a text nobody takes.
        inverse = pc.divide(pa.array(local - np.int64(base)), pa.scalar(unit, pa.int64())).to_numpy()
        if zone == "UTC":  # local time is the instant: a bucket's start represents it, no scatter needed
            return base + np.arange((high - base) // unit + 1, dtype=np.int64) * unit, inverse
        representatives = np.zeros((high - base) // unit + 1, dtype=np.int64)
    else:
        encoded = pc.dictionary_encode(pa.array(np.floor_divide(local, unit)))  # hashing: cheaper than sorting
        if len(encoded.dictionary) * 2 > len(data):
            return None
        inverse = encoded.indices.to_numpy(zero_copy_only=False)
        representatives = np.empty(len(encoded.dictionary), dtype=np.int64)
    representatives[inverse] = data  # any instant of a bucket prints the bucket's text
    return representatives, inverse


def _print(ctx: Context, millis: pa.Array, pattern: str, tokens, zone: str, named: str | None = None) -> pa.Array:
    try:
        instants = millis.cast(pa.timestamp("ms")).cast(pa.timestamp("ms", tz=zone))
        return print_pattern(instants, pattern, zone, named)
    except DateTimeFormatError as exc:
        raise IngestionError(f"{ctx.where}: {exc}") from None


_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                "october", "november", "december"]
_NUMERIC = set("cCxyYdhHmsSeDFwWkKM")  # DateTimeFormat.isNumericToken


# the letters the vectorised parse handles; a pattern with another (a day name, week fields, a century, a two-digit
# or era year, zone names), or without a year (Joda then reads a month or day in the year 2000), goes to
# type_mapping/joda_parse.py one distinct text at a time
_VECTOR_LETTERS = set("yMdHkKhmsSaZ")
# Joda's most digits of a number (DateTimeFormatterBuilder.append*): greedy, so before another number it takes
# exactly these many (a run longer than this: its letter count)
_MOST_DIGITS = {"M": 2, "d": 2, "H": 2, "k": 2, "K": 2, "h": 2, "m": 2, "s": 2}


class _ParsePlan:
    """A Joda pattern compiled to one regular expression with a group per field (``vectorized``), or left to
    the one-text-at-a-time parse (``vectorized`` False)."""

    def __init__(self, pattern: str) -> None:
        tokens = compile_pattern(pattern, printing=True)
        joda_elements(pattern)  # (letters Joda refuses: refused here when the config is read)
        letters = {t.letter for t in tokens if t.letter}
        self.vectorized = letters <= _VECTOR_LETTERS and "y" in letters and not any(
            (t.letter == "y" and t.count == 2) or (t.letter == "Z" and t.count > 2) for t in tokens) and (
            "a" not in letters or letters & set("hK"))  # (AM / PM alone moves the time by 12 hours: Joda's)
        parts: list[str] = []
        self.fields: list[tuple[str, int]] = []
        for i, token in enumerate(tokens if self.vectorized else []):
            if not token.letter:  # (Joda compares a literal ignoring case)
                parts.append(f"(?i:{re.escape(token.text)})")
                continue
            letter, n = token.letter, token.count
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            adjacent = following is not None and following.letter in _NUMERIC and not (
                following.letter == "M" and following.count >= 3)
            group = f"f{len(self.fields)}"
            if letter == "y":
                body = rf"\d{{{n}}}" if adjacent else r"[-+]?\d{1,9}"
            elif letter == "M" and n >= 3:  # English names as they are, in lower or in upper case (Joda's)
                names = [m.capitalize() for m in _MONTH_NAMES + _MONTHS]
                body = "|".join(sorted({f for m in names for f in (m, m.lower(), m.upper())}, key=lambda f: -len(f)))
            elif letter == "S":  # (Joda's fraction takes at most its letter count of digits)
                body = rf"\d{{{min(n, 18)}}}" if adjacent else rf"\d{{1,{min(n, 18)}}}"
            elif letter in _MOST_DIGITS:
                most = max(n, _MOST_DIGITS[letter])
                body = rf"\d{{{most}}}" if adjacent else rf"\d{{1,{most}}}"
            elif letter == "a":
                body = "AM|PM|am|pm"
            else:  # Z, ZZ
                body = r"Z|z|[+-]\d{2}:?\d{2}"
            parts.append(f"(?P<{group}>{body})")
            self.fields.append((letter, n))
        self.regex = "^" + "".join(parts) + "$"


def _check_parse_pattern(args: list) -> None:
    if len(args) > 1 and isinstance(args[1], str):
        _ParsePlan(args[1])


def _days_from_civil(y: np.ndarray, m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 of a proleptic Gregorian date (vectorised)."""
    y = y - (m <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    mp = (m + 9) % 12
    doy = (153 * mp + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _days_in_month(y: np.ndarray, m: np.ndarray) -> np.ndarray:
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    table = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
    return table[np.clip(m, 0, 12)] + ((m == 2) & leap)


def parse_date_time(ctx: Context, text: pa.Array, pattern: str, zone: str, default: int | None = None) -> pa.Array:
    """Joda ``DateTimeFormat.forPattern(pattern).withZone(zone).parseMillis`` over a whole string column."""
    try:
        plan = _ParsePlan(pattern)
    except DateTimeFormatError as exc:
        raise IngestionError(f"{ctx.where}: {exc}") from None
    if not plan.vectorized:
        return _parse_each(ctx, text, pattern, zone, default)
    n = len(text)
    matched = pc.extract_regex(text, pattern=plan.regex)
    ok = pc.fill_null(matched.is_valid(), False).to_numpy(zero_copy_only=False) & ~null_mask(text)
    year = np.full(n, 1970, np.int64)
    month = np.ones(n, np.int64)
    day = np.ones(n, np.int64)
    hour = np.zeros(n, np.int64)
    hour12: np.ndarray | None = None
    pm: np.ndarray | None = None
    minute = np.zeros(n, np.int64)
    second = np.zeros(n, np.int64)
    millis = np.zeros(n, np.int64)
    offset: np.ndarray | None = None
    bad = np.zeros(n, np.bool_)
    for i, (letter, count) in enumerate(plan.fields):
        raw = pc.struct_field(matched, [i])
        raw = pc.if_else(pa.array(ok), raw, pa.scalar(None, pa.string()))
        if letter == "M" and count >= 3:
            lowered = pc.utf8_slice_codeunits(pc.utf8_lower(raw), 0, 3)
            month = pc.fill_null(pc.add(pc.index_in(lowered, value_set=pa.array(_MONTHS)), 1), 1).to_numpy(
                zero_copy_only=False).astype(np.int64)
            continue
        if letter == "a":
            pm = pc.fill_null(pc.equal(pc.utf8_lower(raw), "pm"), False).to_numpy(zero_copy_only=False)
            continue
        if letter == "Z":
            sign = pc.if_else(pc.starts_with(raw, "-"), -1, 1)
            digits = pc.replace_substring_regex(raw, r"[^0-9]", "")
            hh = _int_or_zero(pc.utf8_slice_codeunits(digits, 0, 2))
            mm = _int_or_zero(pc.utf8_slice_codeunits(digits, 2, 4))
            offset = (hh * 3_600_000 + mm * 60_000) * pc.fill_null(sign, 1).to_numpy(zero_copy_only=False)
            continue
        values = _int_or_zero(raw)
        if letter == "y":
            year = values
        elif letter == "M":
            month = values
        elif letter == "d":
            day = values
        elif letter == "H":
            hour = values
        elif letter == "k":
            bad |= ok & ((values < 1) | (values > 24))
            hour = np.where(values == 24, 0, values)
        elif letter in "hK":
            hour12 = np.where(values == 12, 0, values) if letter == "h" else values
            bad |= ok & ((values > 12) | ((values < 1) if letter == "h" else (values > 11)))
        elif letter == "m":
            minute = values
        elif letter == "s":
            second = values
        elif letter == "S":
            width = pc.utf8_length(raw).to_numpy(zero_copy_only=False)
            width = np.where(np.isnan(width.astype(np.float64)), 3, width).astype(np.int64) \
                if raw.null_count else width.astype(np.int64)
            millis = (values * 1000 // (10 ** width)).astype(np.int64)
    if hour12 is not None:
        hour = hour12 + (np.where(pm, 12, 0) if pm is not None else 0)
    bad |= ok & ((month < 1) | (month > 12) | (day < 1) | (day > _days_in_month(year, month)) | (hour > 23)
                 | (minute > 59) | (second > 59))
    local = (_days_from_civil(year, month, day) * 86_400_000 + hour * 3_600_000 + minute * 60_000
             + second * 1000 + millis)
    if offset is not None:
        utc = local - offset
    else:
        utc = from_local(np.where(ok & ~bad, local, 0), zone)
    failed = (~ok & ~null_mask(text)) | bad
    return _parsed(ctx, text, pattern, utc, failed, default)


def _parsed(ctx: Context, text: pa.Array, pattern: str, utc: np.ndarray, failed: np.ndarray,
            default: int | None) -> pa.Array:
    """The parsed instants: the rows that failed fail (or take the 4-argument form's default)."""
    if default is not None:
        utc = np.where(failed, default, utc)
    else:
        ctx.fail(failed, f"cannot parse with the pattern {pattern!r} (IllegalArgumentException)", text)
    mask = null_mask(text) | (failed if default is None else False)
    return pa.array(utc.astype(np.int64), pa.int64(), mask=mask if np.any(mask) else None)


def _parse_each(ctx: Context, text: pa.Array, pattern: str, zone: str, default: int | None) -> pa.Array:
    """parse_date_time of a pattern the vectorised plan leaves out: Joda's own parse, once per distinct text."""
    def one(value: str) -> int | None:
        try:
            return joda_parse_millis(value, pattern, zone)
        except (JodaParseError, DateTimeFormatError, ValueError, OverflowError):
            return None
    parsed = per_distinct(text, one, pa.int64()) if len(text) else pa.array([], pa.int64())
    failed = parsed.is_null().to_numpy(zero_copy_only=False) & ~null_mask(text)
    utc = pc.fill_null(parsed, 0).to_numpy(zero_copy_only=False)
    return _parsed(ctx, text, pattern, utc, failed, default)


def _int_or_zero(raw: pa.Array) -> np.ndarray:
    cleaned = pc.fill_null(pc.utf8_ltrim(raw, characters="+"), "0")
    cleaned = pc.if_else(pc.equal(cleaned, ""), "0", cleaned)
    return pc.cast(cleaned, pa.int64()).to_numpy(zero_copy_only=False)


@scalar_function("fromDateTime", arity=(2, 3), literal_args=(1, 2), check=_check_parse_pattern)
def _from_date_time(ctx: Context, args: list[Value]) -> Value:
    text = broadcast(to_string(args[0], ctx), ctx.num_rows, pa.string())
    zone = zone_id(ctx, args[2]) if len(args) == 3 else "UTC"
    return parse_date_time(ctx, text, _pattern(ctx, args[1]), zone)


@scalar_function("fromDateTime", arity=4, literal_args=(1, 2, 3), check=_check_parse_pattern)
def _from_date_time_default(ctx: Context, args: list[Value]) -> Value:
    text = broadcast(to_string(args[0], ctx), ctx.num_rows, pa.string())
    default = to_long(args[3], ctx).value
    try:
        return parse_date_time(ctx, text, _pattern(ctx, args[1]), zone_id(ctx, args[2]), default)
    except (IngestionError, DateTimeFormatError):  # Pinot's 4-argument form catches everything: a pattern or
        # a zone (from a column) it cannot use gives the default on those rows
        return pa.array(np.full(ctx.num_rows, default, np.int64), pa.int64())


# --- dateTimeConvert (DateTimeConvert) ------------------------------------------------------------------


def _check_date_time_convert(args: list) -> None:
    from type_mapping.datetime_formats import parse_format, parse_granularity

    for i in (1, 2):
        if len(args) > i and isinstance(args[i], str):
            parse_format(args[i])
    if len(args) > 3 and isinstance(args[3], str):
        parse_granularity(args[3])


def _format_to_millis(ctx: Context, value: Value, fmt) -> np.ndarray:
    """``DateTimeFormatSpec.fromFormatToMillis``: EPOCH ``unit.toMillis(value * size)``, TIMESTAMP millis,
    SIMPLE_DATE_FORMAT parsed with its pattern in its zone."""
    if fmt.kind == "SIMPLE_DATE_FORMAT":
        if not fmt.pattern:
            raise IngestionError(f"{ctx.where}: an input SIMPLE_DATE_FORMAT needs a pattern here")
        text = broadcast(to_string(value, ctx), ctx.num_rows, pa.string())
        parsed = parse_date_time(ctx, text, fmt.pattern, fmt.time_zone or "UTC")
        return pc.fill_null(parsed, 0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    values = _longs(ctx, value)
    if fmt.kind == "TIMESTAMP":
        return values
    with np.errstate(over="ignore"):
        scaled = values * np.int64(fmt.size)
    return _to_millis(scaled, _TIME_UNITS[fmt.unit])


def _truncate_local(local: np.ndarray, size: int, unit: str) -> np.ndarray:
    """DateTimeConvert.truncateDateTime on wall-clock millis: the unit's field floored to a multiple of size
    (days of the month counted from 1), the finer fields zeroed."""
    if unit == "MILLISECONDS":
        ms = np.mod(local, 1000)
        return local - ms + ms // size * size
    if unit == "SECONDS":
        minute = np.floor_divide(local, 60_000) * 60_000
        return minute + (np.mod(local, 60_000) // 1000) // size * size * 1000
    if unit == "MINUTES":
        hour = np.floor_divide(local, 3_600_000) * 3_600_000
        return hour + (np.mod(local, 3_600_000) // 60_000) // size * size * 60_000
    if unit == "HOURS":
        day = np.floor_divide(local, 86_400_000) * 86_400_000
        return day + (np.mod(local, 86_400_000) // 3_600_000) // size * size * 3_600_000
    if unit == "DAYS":
        day = np.floor_divide(local, 86_400_000)
        dom = calendar_field(local, "day")
        return (day - ((dom - 1) - (dom - 1) // size * size)) * 86_400_000
    return local  # coarser units are left as they are (DateTimeConvert's switch has no case for them)


@scalar_function("dateTimeConvert", arity=(4, 5), literal_args=(1, 2, 3, 4), check=_check_date_time_convert)
def _date_time_convert(ctx: Context, args: list[Value]) -> Value:
    from type_mapping.datetime_formats import DateTimeFormatError, MILLIS_PER_UNIT, parse_format, parse_granularity

    try:
        texts = [to_string(a, ctx) for a in args[1:]]
        input_format, output_format = parse_format(texts[0].value), parse_format(texts[1].value)
        size, unit = parse_granularity(texts[2].value)
    except DateTimeFormatError as exc:
        raise IngestionError(f"{ctx.where}: {exc}") from None
    millis = _format_to_millis(ctx, args[0], input_format)
    nulls = null_mask(args[0]) if not isinstance(args[0], Const) else np.zeros(ctx.num_rows, np.bool_)
    output_unit = _TIME_UNITS[output_format.unit] if output_format.kind == "EPOCH" else _TIME_UNITS["MILLISECONDS"]
    output_size = output_format.size if output_format.kind == "EPOCH" else 1
    if len(args) == 5 or output_format.kind == "SIMPLE_DATE_FORMAT":
        if len(args) == 5:
            zone = zone_id(ctx, texts[3])
        else:
            zone = output_format.time_zone or "UTC"
        truncated = from_local(_truncate_local(to_local(millis, zone), size, unit), zone)
        if output_format.kind == "SIMPLE_DATE_FORMAT":
            if not output_format.pattern:
                raise IngestionError(f"{ctx.where}: an output SIMPLE_DATE_FORMAT needs a pattern here")
            out_zone = output_format.time_zone or "UTC"
            text = _print(ctx, pa.array(truncated, pa.int64()), output_format.pattern,
                          compile_pattern(output_format.pattern, printing=True), out_zone)
            return with_nulls(text, nulls)
        converted = java_long_div(_from_millis(truncated, output_unit), output_size)
        return pa.array(converted, pa.int64(), mask=nulls if nulls.any() else None)
    granularity = size * (MILLIS_PER_UNIT[unit] or 1)
    rounded = java_long_div(millis, granularity) * granularity
    if output_format.kind == "TIMESTAMP":
        return pa.array(rounded, pa.int64(), mask=nulls if nulls.any() else None).cast(pa.timestamp("ms", tz="UTC"))
    converted = java_long_div(_from_millis(rounded, output_unit), output_size)
    return pa.array(converted, pa.int64(), mask=nulls if nulls.any() else None)


# --- now() / ago(period): the write's own instant -------------------------------------------------------------
# Pinot reads System.currentTimeMillis() per row, so a Spark task retried or a segment rebuilt would store
# another value; here both read the instant the write chose once on the driver (Context.instant_ms, passed in
# as a value by the data source's WriteRun and by the CLI's build start), so every task and every retry of one
# write stores the same value (docs/ingestion.md).

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
# java.time.Duration.parse's grammar (JDK 17), case-insensitive, ASCII digits only
_DURATION = re.compile(r"([-+]?)P(?:([-+]?[0-9]+)D)?"
                       r"(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?",
                       re.IGNORECASE | re.ASCII)


def _exact(value: int, what: str = "overflow") -> int:
    """Math.addExact / multiplyExact: an ArithmeticException beyond a long."""
    if not _LONG_MIN <= value <= _LONG_MAX:
        from .rowwise import JavaThrows
        raise JavaThrows(f"DateTimeParseException: Text cannot be parsed to a Duration: {what}")
    return value


def duration_millis(text: str) -> int:
    """``Duration.parse(text).toMillis()`` as JDK 17 computes it: each field times its seconds with
    ``multiplyExact``, summed with ``addExact`` (minutes + seconds, hours + that, days + that), the fraction's
    nanoseconds signed like the seconds, a leading ``-`` negating the whole; ``toMillis`` rounds the nanoseconds
    toward zero after borrowing a second from a negative duration. Anything else throws, as Java does."""
    from .rowwise import JavaThrows

    match = _DURATION.fullmatch(text)
    # (a "T" with no time after it is refused, but Java compares it case-sensitively: a lone "t" passes)
    if match is None or match.group(3) == "T" \
            or not any(match.group(i) is not None for i in (2, 4, 5, 6)):
        raise JavaThrows(f"DateTimeParseException: Text cannot be parsed to a Duration: {text!r}")

    def number(group: int, seconds: int, what: str) -> int:
        digits = match.group(group)
        if digits is None:
            return 0
        value = int(digits)  # Long.parseLong: a sign, then digits
        if not _LONG_MIN <= value <= _LONG_MAX or not _LONG_MIN <= value * seconds <= _LONG_MAX:
            raise JavaThrows(f"DateTimeParseException: Text cannot be parsed to a Duration: {what}")
        return value * seconds

    days, hours, minutes = number(2, 86_400, "days"), number(4, 3_600, "hours"), number(5, 60, "minutes")
    seconds = number(6, 1, "seconds")
    fraction = match.group(7) or ""
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    if match.group(6) is not None and match.group(6).startswith("-"):
        nanos = -nanos
    total = _exact(days + _exact(hours + _exact(minutes + seconds)))
    # Duration.ofSeconds(total, nanos): the nanoseconds folded into [0, 1e9)
    secs, nos = _exact(total + nanos // 1_000_000_000), nanos % 1_000_000_000
    if match.group(1) == "-":  # negated(): the exact value times -1, which must fit a Duration again
        exact = -(secs * 1_000_000_000 + nos)
        secs, nos = exact // 1_000_000_000, exact % 1_000_000_000
        if not _LONG_MIN <= secs <= _LONG_MAX:
            raise JavaThrows("ArithmeticException: Exceeds capacity of Duration")
    if secs < 0:  # toMillis: borrow a second so that Long.MIN_VALUE seconds still multiplies
        secs, nos = secs + 1, nos - 1_000_000_000
    millis = secs * 1000
    if not _LONG_MIN <= millis <= _LONG_MAX:
        raise JavaThrows("ArithmeticException: long overflow")
    millis += int(nos / 1_000_000) if nos >= 0 else -((-nos) // 1_000_000)
    if not _LONG_MIN <= millis <= _LONG_MAX:
        raise JavaThrows("ArithmeticException: long overflow")
    return millis


def _write_instant(ctx: Context, name: str) -> int:
    if ctx.instant_ms is None:  # (a wiring fault, not a row's: raised through the failure path)
        raise RowFailure(f"{ctx.where}: {name} reads the write's instant, and none was given (an ingestion "
                             f"pipeline applied outside a write: pass instant_ms to IngestionPipeline.apply)")
    return int(ctx.instant_ms)


@scalar_function("sleep", arity=1)
def _sleep(ctx: Context, args: list[Value]) -> Value:
    # DateTimeFunctions.sleep pauses only where Java's assertions are on (FunctionUtils.isAssertEnabled, never
    # in a Pinot server or ingestion job) and returns its argument: the value without the pause
    return to_long(args[0], ctx)


@scalar_function("now", arity=0)
def _now(ctx: Context, args: list[Value]) -> Value:
    return Const(_write_instant(ctx, "now()"), "LONG")


@scalar_function("ago", arity=1)
def _ago(ctx: Context, args: list[Value]) -> Value:
    from .rowwise import JavaThrows, per_row

    instant = _write_instant(ctx, "ago()")

    def one(text: str) -> int:  # a long subtraction in Java: it wraps
        return (instant - duration_millis(text) + 2**63) % 2**64 - 2**63

    period = to_string(args[0], ctx)
    if isinstance(period, Const):
        if period.value is None:
            return Const(None, "LONG")
        try:
            return Const(one(period.value), "LONG")
        except JavaThrows as exc:
            ctx.fail(np.ones(ctx.num_rows, dtype=np.bool_), str(exc), [period.value] * ctx.num_rows)
            return pa.nulls(ctx.num_rows, pa.int64())
    return per_row(ctx, one, pa.int64(), period)
