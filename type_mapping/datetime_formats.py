"""Pinot dateTime formats and granularities, and vectorised conversion of instants into them.

A Pinot ``DATE_TIME`` field has a ``format`` (``DateTimeFormatSpec``) in one of two spellings:

* colon: ``size:UNIT:EPOCH``, ``size:UNIT:TIMESTAMP``, ``size:UNIT:SIMPLE_DATE_FORMAT:pattern[ tz(Zone)]``
* pipe:  ``EPOCH[|UNIT[|size]]``, ``TIMESTAMP``, ``SIMPLE_DATE_FORMAT[|pattern[|Zone]]``

and a ``granularity`` ``size:UNIT`` or ``UNIT[|size]``. Conversion follows ``fromMillisToFormat``:
EPOCH is ``TimeUnit.convert(millis) / size`` with Java's integer division (truncation toward zero,
which differs from flooring only before 1970), TIMESTAMP is epoch millis, SIMPLE_DATE_FORMAT prints a
Joda pattern in the format's zone (UTC unless given) with an English locale. ``parse_simple_date`` is the
reverse, Joda's ``parseMillis`` (segment start/end times, normalizedDate names).

Time zones follow ``DateTimeFormatPatternSpec``: ``java.util.TimeZone.getTimeZone(id)`` then Joda's
``DateTimeZone.forTimeZone`` (``java_time_zone``). So region ids (``America/New_York``), custom
``GMT+7`` / ``GMT+0700`` / ``GMT-07:00`` offsets and Joda's old three-letter aliases (``CST`` is
``America/Chicago``, ``EST`` is ``America/New_York``) work, and an id Java does not know silently means
UTC (``TimeZone.getTimeZone`` answers GMT), as in Pinot: a warning is logged here.

Java patterns are compiled into a list of Arrow string pieces (year, zero-padded month, literal, ...)
joined element-wise, so printing is vectorised; pattern letters without a vectorised meaning raise.

The Joda-Time parts live beside this module, one job each: joda_format.py (patterns printed and parsed),
joda_zones.py (zone ids, instants to and from local time), joda_calendar.py (the ISO chronology's fields).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .java_numbers import java_long_div, saturating_multiply
from .joda_calendar import MILLIS_PER_DAY
from .joda_format import DateTimeFormatError, compile_pattern, parse_millis, print_pattern
from .joda_parse import JodaParseError, parse_millis as joda_parse_millis
# named here too for type_mapping.convert (dtf.java_timestamp_string)
from .joda_format import java_timestamp_string  # noqa: F401
from .joda_zones import java_time_zone

MILLIS_PER_UNIT: dict[str, int] = {
    "NANOSECONDS": 0,  # finer than a millisecond: see SUB_MILLIS_PER_MILLI
    "MICROSECONDS": 0,
    "MILLISECONDS": 1,
    "SECONDS": 1_000,
    "MINUTES": 60_000,
    "HOURS": 3_600_000,
    "DAYS": 86_400_000,
}
SUB_MILLIS_PER_MILLI = {"NANOSECONDS": 1_000_000, "MICROSECONDS": 1_000}
# Milliseconds in one unit, fractional below a millisecond: segment start/end times in any unit -> millis.
UNIT_MILLIS: dict[str, float] = {**MILLIS_PER_UNIT, "NANOSECONDS": 1e-6, "MICROSECONDS": 1e-3}
# TimeUtils.VALID_MIN_TIME_MILLIS / VALID_MAX_TIME_MILLIS: Pinot only takes segment times in 1971..2071 (UTC).
VALID_MIN_TIME_MS = 31_536_000_000
VALID_MAX_TIME_MS = 3_187_296_000_000



@dataclass(frozen=True)
class DateTimeFormat:
    """A parsed Pinot dateTime format."""

    kind: str  # "EPOCH", "TIMESTAMP" or "SIMPLE_DATE_FORMAT"
    unit: str = "MILLISECONDS"
    size: int = 1
    pattern: str | None = None  # SIMPLE_DATE_FORMAT only; None means ISO dateTimeNoMillis
    time_zone: str = "UTC"  # as java_time_zone resolved it: "UTC", a region id or "+hh:mm"

    @property
    def is_epoch(self) -> bool:
        return self.kind == "EPOCH"

    @property
    def is_string(self) -> bool:
        return self.kind == "SIMPLE_DATE_FORMAT"

    def to_pipe(self) -> str:
        if self.kind == "EPOCH":
            return f"EPOCH|{self.unit}|{self.size}"
        if self.kind == "TIMESTAMP":
            return "TIMESTAMP"
        parts = ["SIMPLE_DATE_FORMAT", self.pattern or ""]
        if self.time_zone != "UTC":
            parts.append(self.time_zone)
        return "|".join(parts)


# DateTimeFormatPatternSpec.SDF_PATTERN_WITH_TIMEZONE, matched with find(): "yyyyMMdd tz(America/Chicago)".
_TZ_SUFFIX = re.compile(r"^(.+)( tz *\((.+)\)) *")


def parse_format(text: str) -> DateTimeFormat:
    """Parse a Pinot dateTime ``format`` string (both spellings)."""
    if not text:
        raise DateTimeFormatError("a dateTime field needs a format")
    if text[0].isdigit():
        tokens = text.split(":", 3)
        if len(tokens) < 3:
            raise DateTimeFormatError(f"invalid dateTime format {text!r}: expected 'size:UNIT:FORMAT[:pattern]'")
        size_text, unit, kind = tokens[0], tokens[1], tokens[2]
        if kind == "EPOCH":
            return DateTimeFormat("EPOCH", _unit(unit, text), _size(size_text, text))
        if kind == "TIMESTAMP":
            return DateTimeFormat("TIMESTAMP")
        if kind == "SIMPLE_DATE_FORMAT":
            return _sdf_with_tz(tokens[3] if len(tokens) > 3 else None, text)
        raise DateTimeFormatError(f"invalid time format {kind!r} in dateTime format {text!r}")
    tokens = text.split("|", 2)
    kind = tokens[0]
    if kind == "EPOCH":
        unit = _unit(tokens[1], text) if len(tokens) > 1 else "MILLISECONDS"
        size = _size(tokens[2], text) if len(tokens) > 2 else 1
        return DateTimeFormat("EPOCH", unit, size)
    if kind == "TIMESTAMP":
        return DateTimeFormat("TIMESTAMP")
    if kind == "SIMPLE_DATE_FORMAT":
        if len(tokens) > 2:  # SIMPLE_DATE_FORMAT|pattern|zone: the pattern is taken as it is
            return _sdf(tokens[1], tokens[2], text)
        return _sdf_with_tz(tokens[1] if len(tokens) > 1 else None, text)
    raise DateTimeFormatError(f"invalid time format {kind!r} in dateTime format {text!r}")


def _sdf_with_tz(pattern: str | None, text: str) -> DateTimeFormat:
    """A pattern that may end in `` tz(zone)`` (the colon spelling, and the pipe one without a zone)."""
    match = _TZ_SUFFIX.match(pattern) if pattern else None
    if match:
        return _sdf(match.group(1).strip(), match.group(3).strip(), text)
    return _sdf(pattern, "UTC", text)


def _sdf(pattern: str | None, zone: str, text: str) -> DateTimeFormat:
    fmt = DateTimeFormat("SIMPLE_DATE_FORMAT", pattern=pattern or None, time_zone=java_time_zone(zone))
    if fmt.pattern:
        compile_pattern(fmt.pattern, printing=True)  # fail at planning time, not in a task
    return fmt


def _unit(unit: str, text: str) -> str:
    if unit not in MILLIS_PER_UNIT:
        raise DateTimeFormatError(
            f"time unit {unit!r} in dateTime format {text!r} is not supported "
            f"(supported: {', '.join(MILLIS_PER_UNIT)})"
        )
    return unit


def _size(size_text: str, text: str) -> int:
    try:
        size = int(size_text)
    except ValueError:
        raise DateTimeFormatError(f"invalid size {size_text!r} in dateTime format {text!r}") from None
    if size <= 0:
        raise DateTimeFormatError(f"invalid size {size} in dateTime format {text!r}: must be positive")
    return size


def parse_granularity(text: str) -> tuple[int, str]:
    """``size:UNIT`` or ``UNIT[|size]`` -> (size, unit)."""
    if not text:
        raise DateTimeFormatError("a dateTime field needs a granularity")
    if text[0].isdigit():
        size_text, _, unit = text.partition(":")
    else:
        unit, _, size_text = text.partition("|")
        size_text = size_text or "1"
    if unit not in MILLIS_PER_UNIT:
        raise DateTimeFormatError(f"invalid time unit {unit!r} in granularity {text!r}")
    try:
        size = int(size_text)
    except ValueError:
        raise DateTimeFormatError(f"invalid size {size_text!r} in granularity {text!r}") from None
    if size <= 0:
        raise DateTimeFormatError(f"invalid size {size} in granularity {text!r}: must be positive")
    return size, unit

# --- millis -> format ------------------------------------------------------------------------------


def millis_to_format(millis: pa.Array, fmt: DateTimeFormat) -> pa.Array:
    """Epoch millis (int64, nulls kept) -> the format's values: int64 for EPOCH/TIMESTAMP, else string."""
    millis = millis.cast(pa.int64())
    if fmt.kind == "TIMESTAMP":
        return millis
    if fmt.kind == "EPOCH":
        return _millis_to_epoch(millis, fmt)
    instants = millis.cast(pa.timestamp("ms", tz="UTC"))
    if fmt.pattern is None:  # ISODateTimeFormat.dateTimeNoMillis in UTC
        return print_pattern(instants, "yyyy-MM-dd'T'HH:mm:ss'Z'", "UTC")
    return print_pattern(instants, fmt.pattern, fmt.time_zone)


def _millis_to_epoch(millis: pa.Array, fmt: DateTimeFormat) -> pa.Array:
    values = pc.fill_null(millis, 0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    out = java_long_div(millis_to_unit(values, fmt.unit), fmt.size)
    mask = millis.is_null().to_numpy(zero_copy_only=False) if millis.null_count else None
    return pa.array(out, type=pa.int64(), mask=mask)


def unit_to_millis(values: np.ndarray, unit: str) -> np.ndarray:
    """``TimeUnit.<unit>.toMillis``: a product that saturates from coarser units, a truncating quotient from
    finer ones."""
    if unit in SUB_MILLIS_PER_MILLI:
        return java_long_div(values, SUB_MILLIS_PER_MILLI[unit])
    factor = MILLIS_PER_UNIT[unit]
    return values if factor == 1 else saturating_multiply(values, factor)


def stored_to_millis(value: int | np.ndarray, unit: str) -> int | np.ndarray:
    """Epoch value(s) in ``unit`` -> epoch millis, by Java's ``TimeUnit.<unit>.toMillis``: from finer units a
    quotient truncated toward zero (-1500 microseconds is -1 ms, not -2), from coarser ones a saturating
    product. How Pinot turns a segment's start/end time (metadata, ZK metadata) into millis, and the one home
    of that rule here: an int for an int, an int64 array for an array."""
    if isinstance(value, np.ndarray):
        return unit_to_millis(value.astype(np.int64, copy=False), unit)
    return int(unit_to_millis(np.array([int(value)], dtype=np.int64), unit)[0])


def range_to_millis(start: int, end: int, unit: str) -> tuple[int, int]:
    """``stored_to_millis`` of a segment's start and end time."""
    return stored_to_millis(start, unit), stored_to_millis(end, unit)


def millis_to_unit(millis: np.ndarray, unit: str) -> np.ndarray:
    """``TimeUnit.<unit>.convert(millis, MILLISECONDS)``: a truncating quotient into coarser units, a product
    that saturates into finer ones."""
    if unit in SUB_MILLIS_PER_MILLI:
        return saturating_multiply(millis, SUB_MILLIS_PER_MILLI[unit])
    divisor = MILLIS_PER_UNIT[unit]
    return millis if divisor == 1 else java_long_div(millis, divisor)


def days_to_format(days: pa.Array, fmt: DateTimeFormat) -> pa.Array:
    """Days since epoch (a DATE) -> the format, as midnight UTC of that day."""
    millis = pc.multiply(days.cast(pa.int64()), pa.scalar(MILLIS_PER_DAY, pa.int64()))
    return millis_to_format(millis, fmt)


def parse_simple_date(text: str, fmt: DateTimeFormat) -> int:
    """Epoch millis of a SIMPLE_DATE_FORMAT value (``DateTimeFormatSpec.fromFormatToMillis``): Joda's
    ``parseMillis`` with the format's pattern, zone and English locale (joda_parse.py; without a pattern
    joda_format.parse_millis, the ISO parser)."""
    if fmt.kind != "SIMPLE_DATE_FORMAT":
        raise DateTimeFormatError(f"{fmt.kind} values are numbers, not dates")
    if fmt.pattern is not None:
        try:
            return joda_parse_millis(str(text), fmt.pattern, fmt.time_zone)
        except JodaParseError as exc:
            raise DateTimeFormatError(f"{text!r} does not match date pattern {fmt.pattern!r}: {exc}") from None
    return parse_millis(text, None, fmt.time_zone)
