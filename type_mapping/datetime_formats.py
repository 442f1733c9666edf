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
"""
from __future__ import annotations

import datetime as _dt
import functools
import logging
import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .java_numbers import java_long_div, saturating_multiply
from .errors import PinotSinkError

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
MILLIS_PER_DAY = 86_400_000
# Milliseconds in one unit, fractional below a millisecond: segment start/end times in any unit -> millis.
UNIT_MILLIS: dict[str, float] = {**MILLIS_PER_UNIT, "NANOSECONDS": 1e-6, "MICROSECONDS": 1e-3}
# TimeUtils.VALID_MIN_TIME_MILLIS / VALID_MAX_TIME_MILLIS: Pinot only takes segment times in 1971..2071 (UTC).
VALID_MIN_TIME_MS = 31_536_000_000
VALID_MAX_TIME_MS = 3_187_296_000_000

log = logging.getLogger(__name__)


class DateTimeFormatError(PinotSinkError, ValueError):
    """A dateTime format, granularity or pattern this package cannot handle."""


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
        compile_pattern(fmt.pattern)  # fail at planning time, not in a task
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


# --- time zones ------------------------------------------------------------------------------------

# Joda's DateTimeZone.getConvertedId: the old three-letter ids java.util.TimeZone still knows.
_JODA_OLD_IDS = {
    "GMT": "UTC", "WET": "WET", "CET": "CET", "MET": "CET", "ECT": "CET", "EET": "EET",
    "MIT": "Pacific/Apia", "HST": "Pacific/Honolulu", "AST": "America/Anchorage", "PST": "America/Los_Angeles",
    "MST": "America/Denver", "PNT": "America/Phoenix", "CST": "America/Chicago", "EST": "America/New_York",
    "IET": "America/Indiana/Indianapolis", "PRT": "America/Puerto_Rico", "CNT": "America/St_Johns",
    "AGT": "America/Argentina/Buenos_Aires", "BET": "America/Sao_Paulo", "ART": "Africa/Cairo",
    "CAT": "Africa/Harare", "EAT": "Africa/Addis_Ababa", "NET": "Asia/Yerevan", "PLT": "Asia/Karachi",
    "IST": "Asia/Kolkata", "BST": "Asia/Dhaka", "VST": "Asia/Ho_Chi_Minh", "CTT": "Asia/Shanghai",
    "JST": "Asia/Tokyo", "ACT": "Australia/Darwin", "AET": "Australia/Sydney", "SST": "Pacific/Guadalcanal",
    "NST": "Pacific/Auckland",
}
# java.util.TimeZone custom ids: GMT, a sign, hours (1-2 digits) and optional minutes ("GMT+7", "GMT-0730").
_CUSTOM_ID = re.compile(r"GMT([+-])(\d{1,2})(?::(\d{2})|(\d{2}))?")


@functools.lru_cache(maxsize=256)
def java_time_zone(zone: str) -> str:
    """The zone Pinot uses for ``zone`` (``TimeZone.getTimeZone`` then Joda's ``forTimeZone``), as a name
    Arrow and ``zoneinfo`` take: ``UTC``, a region id, or a fixed ``+hh:mm`` offset."""
    if zone in ("UTC", "GMT", "UTC0", "Etc/UTC", "Etc/GMT", "Zulu", "Universal"):
        return "UTC"
    if zone in _JODA_OLD_IDS:
        return _JODA_OLD_IDS[zone]
    custom = _CUSTOM_ID.fullmatch(zone)
    if custom:
        sign, hours, minutes = custom.group(1), int(custom.group(2)), int(custom.group(3) or custom.group(4) or 0)
        if hours <= 23 and minutes <= 59:
            return "UTC" if hours == minutes == 0 else f"{sign}{hours:02d}:{minutes:02d}"
    else:
        try:
            from zoneinfo import ZoneInfo

            ZoneInfo(zone)
            return zone
        except (ValueError, OSError, LookupError):
            pass
    log.warning("time zone %r is not a Java time zone id; Pinot (TimeZone.getTimeZone) takes it as UTC", zone)
    return "UTC"


class ZoneError(PinotSinkError, ValueError):
    """A zone id Joda (or Pinot's TimeZoneKey) rejects: ``IllegalArgumentException`` in Pinot."""


# Files of the system's tz database that are no zone of Joda's compiled database.
_NOT_JODA_ZONES = ("Factory", "localtime", "posixrules", "posix/", "right/", "SystemV/")
_JODA_OFFSET = re.compile(r"([+-])(\d\d)(?::?(\d\d)(?::?(\d\d)(?:\.?(\d{3}))?)?)?")


# Ids that Joda's own tz database (2.14, tzdata 2024b+) makes links to a region, where an older system tz
# database still has the fixed-rule zone (EST: -05:00 always; America/Panama: its local mean time before 1908).
_JODA_LINKS = {"EST": "America/Panama", "MST": "America/Phoenix", "HST": "Pacific/Honolulu",
               "EST5EDT": "America/New_York", "CST6CDT": "America/Chicago", "MST7MDT": "America/Denver",
               "PST8PDT": "America/Los_Angeles"}


@functools.lru_cache(maxsize=1)
def _tz_database_ids() -> frozenset[str]:
    from zoneinfo import available_timezones

    return frozenset(z for z in available_timezones() if not z.startswith(_NOT_JODA_ZONES))


@functools.lru_cache(maxsize=512)
def joda_zone(zone: str) -> str:
    """``DateTimeZone.forID(zone)`` (the zone of Pinot's calendar functions, ``toDateTime``, ``fromDateTime``...),
    as a name Arrow and ``zoneinfo`` take (``UTC``, a region id or ``+hh:mm``); ``ZoneError`` where Joda throws.

    Joda's rules: ``UTC``; an id of the tz database, case-sensitive (``EST``, ``Etc/GMT+1``, ``Z``-less); ``Z``
    is UTC; ``UTC``/``GMT`` followed by an offset, or an offset alone: a sign, two-digit hours, then optional
    minutes, seconds and millis, colons optional (``UTC+01:00``, ``+0130``, ``+01``; not ``GMT+1``, ``+1``).
    So ``'utc'``, ``'PST'`` and ``''`` are rejected."""
    if not isinstance(zone, str):
        raise ZoneError(f"The datetime zone id {zone!r} is not recognised")
    if zone in ("UTC", "Z", "UT"):
        return "UTC"
    if zone in _JODA_LINKS:
        return _JODA_LINKS[zone]
    if zone in _tz_database_ids():
        return "UTC" if zone in ("Etc/UTC", "Etc/UCT", "UCT", "Universal", "Zulu", "Etc/Universal", "Etc/Zulu") else zone
    text = zone[3:] if zone[:4] in ("UTC+", "UTC-", "GMT+", "GMT-") else zone
    match = _JODA_OFFSET.fullmatch(text)
    if match is None or int(match.group(2)) > 23 or int(match.group(3) or 0) > 59 or int(match.group(4) or 0) > 59:
        raise ZoneError(f"The datetime zone id {zone!r} is not recognised")
    sign, hours, minutes = match.group(1), int(match.group(2)), int(match.group(3) or 0)
    if int(match.group(4) or 0) or int(match.group(5) or 0):
        raise ZoneError(f"the zone offset {zone!r} has seconds: Joda accepts it, this package does not (Arrow's "
                        f"fixed offsets are whole minutes)")
    return "UTC" if hours == minutes == 0 else f"{sign}{hours:02d}:{minutes:02d}"


@functools.lru_cache(maxsize=512)
def pinot_zone_key(zone: str) -> str:
    """``TimeZoneKey.getTimeZoneKey(zone)`` then Joda (what ``dateTrunc`` with a zone uses): only the ids of
    Pinot's zone index, case-insensitive, with its normalisations (``utc``/``z``/``gmt0``... are UTC, ``UTC+1``
    is ``+01:00``, ``Etc/GMT+1`` is ``-01:00``); ``EST``, ``PST`` and ``''`` are rejected (not in the index)."""
    from .pinot_zone_index import ZONE_INDEX_IDS

    if not isinstance(zone, str) or not zone:
        raise ZoneError("Zone id is an empty string")
    by_lower = _zone_index_by_lower(ZONE_INDEX_IDS)
    found = by_lower.get(zone.lower()) or by_lower.get(_normalize_zone_key(zone))
    if found is None:
        raise ZoneError(f"Timezone {zone} not supported")
    return joda_zone(found)


@functools.lru_cache(maxsize=1)
def _zone_index_by_lower(ids: frozenset[str]) -> dict[str, str]:
    table = {i.lower(): i for i in ids}
    table["utc"] = "UTC"
    return table


_UTC_NAMES = {"utc", "z", "ut", "uct", "gmt", "gmt0", "greenwich", "universal", "zulu"}


def _normalize_zone_key(original: str) -> str:
    """``TimeZoneKey.normalizeZoneId``: UTC's names, ``UTC``/``GMT``/``UT`` prefixes, ``+H``/``+HH`` hours."""
    zone = original.lower()
    etc = zone.startswith("etc/")
    if etc:
        zone = zone[4:]
    if zone in _UTC_NAMES:
        return "utc"
    etc_gmt = False
    if len(zone) > 3 and zone.startswith(("utc", "gmt")):
        etc_gmt = etc and zone.startswith("gmt")
        zone = zone[3:]
    elif len(zone) > 2 and zone.startswith("ut"):
        zone = zone[2:]
    if zone in ("+00:00", "-00:00"):
        return "utc"
    if len(zone) == 6 and zone[3] == ":":
        return zone
    if len(zone) not in (2, 3) or zone[0] not in "+-":
        return original
    sign = ("+" if zone[0] == "-" else "-") if etc_gmt else zone[0]
    tens, ones = ("0", zone[1]) if len(zone) == 2 else (zone[1], zone[2])
    if not (tens.isdigit() and ones.isdigit() and tens.isascii() and ones.isascii()):
        return original
    return "utc" if tens == ones == "0" else f"{sign}{tens}{ones}:00"


def _tzinfo(zone: str) -> _dt.tzinfo:
    if zone == "UTC":
        return _dt.timezone.utc
    if zone[0] in "+-":
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        offset = _dt.timedelta(hours=hours, minutes=minutes)
        return _dt.timezone(-offset if zone[0] == "-" else offset)
    from zoneinfo import ZoneInfo

    return ZoneInfo(zone)


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


# --- Joda / SimpleDateFormat patterns, vectorised --------------------------------------------------

_SUPPORTED_LETTERS = "GyYMdHkKhmsSaEDZz"
# printed, not parsed here: weekyear, week of weekyear, day of week as a number, century of era (Joda's ISO weeks)
_PRINTED_LETTERS = "xweC"


@dataclass(frozen=True)
class _Token:
    letter: str  # "" for literal text
    count: int = 0
    text: str = ""


def compile_pattern(pattern: str, printing: bool = False) -> list[_Token]:
    """Split a Java date pattern into letter runs and literals; raise on letters not supported (``printing``:
    also the letters only printed here)."""
    if not pattern:  # DateTimeFormat.forPattern("")
        raise DateTimeFormatError("Invalid pattern specification (an empty date pattern)")
    tokens: list[_Token] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "'":
            end = i + 1
            literal = []
            while True:
                if end >= len(pattern):
                    raise DateTimeFormatError(f"unterminated quote in date pattern {pattern!r}")
                if pattern[end] == "'":
                    if end + 1 < len(pattern) and pattern[end + 1] == "'":
                        literal.append("'")
                        end += 2
                        continue
                    break
                literal.append(pattern[end])
                end += 1
            tokens.append(_Token("", text="".join(literal) if end > i + 1 else "'"))
            i = end + 1
        elif ch.isascii() and ch.isalpha():
            if ch not in _SUPPORTED_LETTERS and not (printing and ch in _PRINTED_LETTERS):
                raise DateTimeFormatError(
                    f"date pattern letter {ch!r} in {pattern!r} is not supported "
                    f"(supported: {' '.join(_SUPPORTED_LETTERS)})"
                )
            run = i
            while run < len(pattern) and pattern[run] == ch:
                run += 1
            tokens.append(_Token(ch, run - i))
            i = run
        else:
            tokens.append(_Token("", text=ch))
            i += 1
    return tokens


def _padded(values: pa.Array, width: int) -> pa.Array:
    text = values.cast(pa.string())
    return pc.utf8_lpad(text, width=width, padding="0") if width > 1 else text


# --- time zones: Arrow's tables, then the zone's rule ----------------------------------------------

# Arrow's time zone conversions know a zone's transitions only up to 2037 (its compiled tzdata tables);
# Joda keeps applying the zone's DST rule, and so does Python's zoneinfo. Instants from 2037-12-01 on go
# through zoneinfo, in a year of the same 400-year Gregorian cycle between 2400 and 2800 when they lie
# beyond Python's year 9999 (the rule and the calendar repeat exactly every 400 years).
ARROW_ZONE_LIMIT_MS = 2_143_238_400_000
_FIXED_ZONE = re.compile(r"^(UTC|GMT|Z|[+-]\d{2}:?\d{2})$")
_CYCLE_MS = 146_097 * MILLIS_PER_DAY  # 400 Gregorian years
_YEAR_2400_MS = 13_569_465_600_000


def _past_arrow_tables(millis: np.ndarray, zone: str) -> np.ndarray | None:
    if _FIXED_ZONE.match(zone):
        return None
    late = millis >= ARROW_ZONE_LIMIT_MS
    return late if late.any() else None


def _rule_offsets_ms(millis: np.ndarray, zone: str, wall_clock: bool) -> np.ndarray:
    """The zone's UTC offset, by zoneinfo, at each instant (or, ``wall_clock``, at each local time: before a
    gap the offset before it, in an overlap the earlier one: ``fold=0``). Once per distinct value."""
    import datetime as _dt
    from zoneinfo import ZoneInfo

    tz = ZoneInfo(zone)
    distinct, inverse = np.unique(millis, return_inverse=True)
    cycles = np.maximum((distinct - _YEAR_2400_MS) // _CYCLE_MS, 0)
    shifted = distinct - cycles * _CYCLE_MS
    epoch = _dt.datetime(1970, 1, 1)
    offsets = np.empty(len(distinct), dtype=np.int64)
    for i, value in enumerate(shifted.tolist()):
        when = epoch + _dt.timedelta(milliseconds=value)
        if wall_clock:
            offset = when.replace(tzinfo=tz, fold=0).utcoffset()
        else:
            offset = when.replace(tzinfo=_dt.timezone.utc).astimezone(tz).utcoffset()
        offsets[i] = int(offset.total_seconds() * 1000)
    return offsets[inverse]


# --- the proleptic Gregorian calendar over the whole long range (Joda's ISO chronology) ----------------
# Arrow's calendar kernels go through nanoseconds and wrap outside ~1677..2262 (year(Long.MIN_VALUE) would be
# 1535); these do the same in 64-bit integers for any long (year(Long.MIN_VALUE) is -292275055, as in Joda).

ARROW_SAFE_MS = 9_000_000_000_000  # |millis| below this (1684..2255): Arrow's kernels are exact (nanoseconds inside)


def outside_arrow_range(local: np.ndarray) -> bool:
    return bool(local.size) and (int(local.min()) <= -ARROW_SAFE_MS or int(local.max()) >= ARROW_SAFE_MS)


def civil_from_days(days: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(year, month, day) of days since 1970-01-01, proleptic Gregorian with a year 0 (ISO)."""
    z = days.astype(np.int64) + 719_468
    era = np.floor_divide(z, 146_097)
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = np.where(mp < 10, mp + 3, mp - 9)
    return yoe + era * 400 + (month <= 2), month, day


def days_from_civil(year: np.ndarray, month: np.ndarray, day: np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 of a proleptic Gregorian date (the inverse of ``civil_from_days``)."""
    year = year.astype(np.int64) - (month <= 2)
    era = np.floor_divide(year, 400)
    yoe = year - era * 400
    mp = np.where(month > 2, month - 3, month + 9)
    doy = (153 * mp + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


def calendar_field(local: np.ndarray, name: str) -> np.ndarray:
    """A calendar field of wall-clock millis, any long: ``year month day hour minute second millisecond
    quarter day_of_year day_of_week (1 = Monday) iso_week iso_year``."""
    days = np.floor_divide(local, MILLIS_PER_DAY)
    in_day = local - days * MILLIS_PER_DAY
    if name in ("hour", "minute", "second", "millisecond"):
        return {"hour": in_day // 3_600_000, "minute": in_day // 60_000 % 60, "second": in_day // 1000 % 60,
                "millisecond": in_day % 1000}[name]
    if name == "day_of_week":
        return _joda_day_of_week(local)
    if name in ("iso_week", "iso_year") and _near_long_ends(local):
        joda = _joda_week_of_weekyear if name == "iso_week" else _joda_weekyear
        return np.array([joda(int(v)) for v in local.tolist()], np.int64)
    if name in ("iso_week", "iso_year"):
        thursday = days - np.mod(days + 3, 7) + 3
        year = civil_from_days(thursday)[0]
        if name == "iso_year":
            return year
        ones = np.ones_like(year)
        return (thursday - days_from_civil(year, ones, ones)) // 7 + 1
    year, month, day = civil_from_days(days)
    if name == "day_of_year":
        ones = np.ones_like(year)
        return days - days_from_civil(year, ones, ones) + 1
    return {"year": year, "month": month, "day": day, "quarter": (month - 1) // 3 + 1}[name]


def _near_long_ends(local: np.ndarray) -> bool:
    limit = 9_223_300_000_000_000_000  # within ~2 years of Long.MIN/MAX: Joda's own arithmetic wraps there
    return bool(local.size) and (int(local.min()) < -limit or int(local.max()) > limit)


def _joda_day_of_week(local: np.ndarray) -> np.ndarray:
    """``BasicChronology.getDayOfWeek``, whose ``instant - (MILLIS_PER_DAY - 1)`` wraps next to Long.MIN_VALUE."""
    with np.errstate(over="ignore"):
        shifted = local - np.int64(MILLIS_PER_DAY - 1)
    negative = local < 0
    days = np.where(negative, _java_div(shifted, MILLIS_PER_DAY), local // MILLIS_PER_DAY)
    low = negative & (days < -3)
    return np.where(low, 7 + _java_rem(days + 4, 7), 1 + _java_rem(days + 3, 7))


def _java_div(a: np.ndarray, b: int) -> np.ndarray:
    q = np.abs(a) // b  # |Long.MIN_VALUE| wraps to itself: only reached by values already far from it here
    return np.where(a < 0, -q, q)


def _java_rem(a: np.ndarray, b: int) -> np.ndarray:
    r = np.abs(a) % b
    return np.where(a < 0, -r, r)


def _wrap(value: int) -> int:
    return (value + 2**63) % 2**64 - 2**63


def _jdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _joda_year_millis(year: int) -> int:
    """``GregorianChronology.calculateFirstDayOfYearMillis`` with Java's wrapping long arithmetic."""
    leap = _jdiv(year, 100)
    if year < 0:
        leap = ((year + 3) >> 2) - leap + ((leap + 3) >> 2) - 1
    else:
        leap = (year >> 2) - leap + (leap >> 2)
        if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
            leap -= 1
    return _wrap(_wrap(year * 365 + (leap - 719_527)) * MILLIS_PER_DAY)


def _joda_first_week_millis(year: int) -> int:
    jan1 = _joda_year_millis(year)
    dow = int(_joda_day_of_week(np.array([jan1], np.int64))[0])
    if dow > 4:
        return _wrap(jan1 + (8 - dow) * MILLIS_PER_DAY)
    return _wrap(jan1 - (dow - 1) * MILLIS_PER_DAY)


def _joda_week_of_weekyear(instant: int) -> int:
    """``BasicChronology.getWeekOfWeekyear`` as Joda computes it (wrapping) next to the ends of the long range."""
    year = int(calendar_field(np.array([instant], np.int64), "year")[0])
    first = _joda_first_week_millis(year)
    if instant < first:
        return _jdiv(_wrap(first - _joda_first_week_millis(year - 1)), 7 * MILLIS_PER_DAY)
    if instant >= _joda_first_week_millis(year + 1):
        return 1
    return _jdiv(_wrap(instant - first), 7 * MILLIS_PER_DAY) + 1


def _joda_weekyear(instant: int) -> int:
    """``BasicChronology.getWeekyear``: the year a week earlier or two weeks later, in wrapping long arithmetic
    (at Long.MIN_VALUE the week-year is 292278994, at Long.MAX_VALUE -292275055, as in Pinot)."""
    year = int(calendar_field(np.array([instant], np.int64), "year")[0])
    week = _joda_week_of_weekyear(instant)
    if week == 1:
        return int(calendar_field(np.array([_wrap(instant + 7 * MILLIS_PER_DAY)], np.int64), "year")[0])
    if week > 51:
        return int(calendar_field(np.array([_wrap(instant - 14 * MILLIS_PER_DAY)], np.int64), "year")[0])
    return year


def floor_local(local: np.ndarray, unit: str) -> np.ndarray:
    """Joda's ``roundFloor`` of wall-clock millis to ``unit`` (millisecond ... year, weeks from Monday), any
    long: the arithmetic wraps where Java's long arithmetic does."""
    sizes = {"millisecond": 1, "second": 1000, "minute": 60_000, "hour": 3_600_000, "day": MILLIS_PER_DAY}
    with np.errstate(over="ignore"):
        if unit in sizes:
            return np.floor_divide(local, sizes[unit]) * sizes[unit]
        if unit == "week":  # Joda shifts by 3 days (weeks from Monday), floors to weeks, shifts back: wrapping
            shift = np.int64(3 * MILLIS_PER_DAY)
            return np.floor_divide(local + shift, 7 * MILLIS_PER_DAY) * (7 * MILLIS_PER_DAY) - shift
        days = np.floor_divide(local, MILLIS_PER_DAY)
        year, month, _ = civil_from_days(days)
        if unit == "quarter":
            month = (month - 1) // 3 * 3 + 1
        elif unit == "year":
            month = np.ones_like(month)
        return days_from_civil(year, month, np.ones_like(month)) * MILLIS_PER_DAY


class ZoneOverflow(PinotSinkError, ArithmeticError):
    """Joda's ``convertUTCToLocal``: an instant whose local time is beyond the long range."""


def to_local(millis: np.ndarray, zone: str) -> np.ndarray:
    """Wall-clock millis in ``zone`` of UTC instants (Joda's ``DateTimeZone.convertUTCToLocal``)."""
    if zone == "UTC":
        return millis
    instants = pa.array(millis, pa.timestamp("ms")).cast(pa.timestamp("ms", tz=zone))
    local = pc.local_timestamp(instants).cast(pa.int64()).to_numpy(zero_copy_only=False).copy()
    late = _past_arrow_tables(millis, zone)
    if late is not None:
        local[late] = millis[late] + _rule_offsets_ms(millis[late], zone, wall_clock=False)
    # Joda keeps Long.MIN_VALUE and Long.MAX_VALUE as they are in every zone (seen in Pinot: hour(Long.MAX_VALUE,
    # 'America/New_York') is the UTC hour); any other instant whose local time leaves the long range throws
    ends = (millis == np.iinfo(np.int64).min) | (millis == np.iinfo(np.int64).max)
    if ends.any():
        local[ends] = millis[ends]
    offset = local - millis
    if ((millis ^ local) < 0).any() and (((millis ^ local) < 0) & ((millis ^ offset) >= 0)).any():
        raise ZoneOverflow("Adding time zone offset caused overflow")
    return local


def from_local(local: np.ndarray, zone: str, original: np.ndarray | None = None) -> np.ndarray:
    """UTC instants of wall-clock millis in ``zone``: in a DST gap the time moves forward by the gap (the
    offset before the transition, Joda's non-strict rule), in an overlap the earlier instant. With
    ``original`` (the instants a rounding started from: Joda's ``convertLocalToUTC(local, false, original)``,
    which ``roundFloor`` in a zone calls), an overlap keeps the original's offset when it is one of the two."""
    if zone == "UTC":
        return local
    if original is not None:
        offset = to_local(original, zone) - original
        kept = local - offset
        same = (to_local(kept, zone) - kept) == offset
        if same.all():
            return kept
        return np.where(same, kept, from_local(local, zone))
    naive = pa.array(local, pa.timestamp("ms"))
    earliest = pc.assume_timezone(naive, timezone=zone, ambiguous="earliest", nonexistent="earliest")
    shown = pc.local_timestamp(earliest).cast(pa.int64()).to_numpy(zero_copy_only=False)
    instant = earliest.cast(pa.int64()).to_numpy(zero_copy_only=False)
    utc = local - (shown - instant)  # local minus the offset in force just before
    late = _past_arrow_tables(local, zone)
    if late is not None:
        utc[late] = local[late] - _rule_offsets_ms(local[late], zone, wall_clock=True)
    return utc


def _offset_minutes(offset_ms: np.ndarray) -> np.ndarray:
    """An offset in whole minutes as Joda prints it: its seconds dropped toward zero (New York's local mean time,
    -4:56:02, prints -04:56)."""
    return np.sign(offset_ms) * (np.abs(offset_ms) // 60_000)


def _offset_text(minutes: np.ndarray, count: int) -> pa.Array:
    """Joda's ``Z`` (+hhmm) / ``ZZ`` (+hh:mm) of offsets in minutes."""
    sign = np.where(minutes < 0, "-", "+")
    hours = pc.utf8_lpad(pa.array(np.abs(minutes) // 60).cast(pa.string()), width=2, padding="0")
    mins = pc.utf8_lpad(pa.array(np.abs(minutes) % 60).cast(pa.string()), width=2, padding="0")
    return pc.binary_join_element_wise(pa.array(sign), hours, ":" if count == 2 else "", mins, "")


def print_pattern(instants: pa.Array, pattern: str, time_zone: str = "UTC") -> pa.Array:
    """Format timestamps with a Java date pattern in a time zone, as Joda would (English locale)."""
    tokens = compile_pattern(pattern, printing=True)
    try:
        local = instants.cast(pa.timestamp("ms", tz=time_zone))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise DateTimeFormatError(f"unknown time zone {time_zone!r} in a date pattern") from exc
    offsets = None
    if not _FIXED_ZONE.match(time_zone):
        millis = pc.fill_null(local.cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
        if _past_arrow_tables(millis, time_zone) is not None:
            if any(t.letter == "z" for t in tokens):
                raise DateTimeFormatError(
                    f"printing a zone name ({pattern!r}) for instants after 2037 in {time_zone} is not supported "
                    f"(Arrow's zone tables end in 2037)")
            # The fields of the wall-clock time by the zone's rule, read as UTC; the offsets put in apart.
            local_ms = _print_local(millis, time_zone)
            nulls = local.is_null().to_numpy(zero_copy_only=False) if local.null_count else None
            local = pa.array(local_ms, pa.timestamp("ms", tz="UTC"), mask=nulls)
            offsets = _offset_minutes(local_ms - millis)
    years = None  # 400-year cycles taken off instants beyond Arrow's range, put back into the printed year
    millis = pc.fill_null(instants.cast(pa.timestamp("ms")).cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
    if outside_arrow_range(millis):
        if any(t.letter == "z" for t in tokens):
            raise DateTimeFormatError(f"printing a zone name ({pattern!r}) for instants beyond the years 1684..2255 "
                                      f"is not supported")
        local_ms = _print_local(millis, time_zone)
        # the calendar (weekdays too) repeats every 400 years: print the same date between 1770 and 2170
        cycles, rest = np.floor_divide(local_ms, _CYCLE_MS), np.mod(local_ms, _CYCLE_MS)
        late = rest >= _CYCLE_MS // 2
        cycles, rest = np.where(late, cycles + 1, cycles), np.where(late, rest - _CYCLE_MS, rest)
        nulls = instants.is_null().to_numpy(zero_copy_only=False) if instants.null_count else None
        local = pa.array(rest, pa.timestamp("ms", tz="UTC"), mask=nulls)
        offsets = _offset_minutes(local_ms - millis)
        years = pa.array(cycles * 400, pa.int64())
    pieces: list[pa.Array | str] = []
    for token in tokens:
        if not token.letter:
            pieces.append(token.text)
        elif token.letter == "Z" and token.count >= 3:  # ZZZ: the zone's id
            pieces.append(pc.if_else(local.is_valid(), pa.scalar(time_zone), pa.scalar(None, pa.string())))
        elif token.letter == "Z" and offsets is not None:
            pieces.append(_offset_text(offsets, token.count))
        elif token.letter in "xwe" and years is not None:  # beyond Arrow's range: Joda's own week arithmetic
            name = {"x": "iso_year", "w": "iso_week", "e": "day_of_week"}[token.letter]
            values = pa.array(calendar_field(local_ms, name), pa.int64(), mask=nulls)
            pieces.append(_year_text(values, token.count) if token.letter == "x" else _padded(values, token.count))
        else:
            pieces.append(_piece(local, token, years))
    if not any(isinstance(p, (pa.Array, pa.ChunkedArray)) for p in pieces):
        # only literal text (no field letters, e.g. "'T'" or "-"): the same text for every instant (the join
        # of scalars alone would give one scalar, not a column)
        return pa.array(["".join(pieces)] * len(instants), pa.string(), mask=instants.is_null())
    arrays = [p if isinstance(p, (pa.Array, pa.ChunkedArray)) else pa.scalar(p, pa.string()) for p in pieces]
    return pc.binary_join_element_wise(*arrays, pa.scalar("", pa.string()))


def _print_local(millis: np.ndarray, zone: str) -> np.ndarray:
    """``to_local`` as ``DateTimeFormatter.printTo`` does it: an instant whose offset would overflow the long
    range is printed in UTC instead (no failure)."""
    try:
        return to_local(millis, zone)
    except ZoneOverflow:
        local = millis.copy()
        for i in range(len(millis)):
            try:
                local[i] = to_local(millis[i:i + 1], zone)[0]
            except ZoneOverflow:
                pass
        return local


def _year_text(year: pa.Array, n: int) -> pa.Array:
    if n == 2:  # Joda's two-digit year: of the year's absolute value
        positive = pc.abs(year)
        return _padded(pc.subtract(positive, pc.multiply(pc.divide(positive, 100), 100)), 2)
    if pc.any(pc.less(year, 0)).as_py():  # Joda: the sign, then the padded digits
        digits = _padded(pc.abs(year), n)
        return pc.if_else(pc.less(year, 0), pc.binary_join_element_wise("-", digits, ""), digits)
    return _padded(year, n)


def _piece(local: pa.Array, token: _Token, years: pa.Array | None = None) -> pa.Array:
    letter, n = token.letter, token.count
    if letter in "yYGx":
        year = (pc.iso_year if letter == "x" else pc.year)(local)  # x: the ISO week's year
        year = year if years is None else pc.add(year.cast(pa.int64()), years)
        if letter == "G":
            return pc.if_else(pc.greater(year, 0), "AD", "BC")
        return _year_text(year, n)
    if letter == "w":
        return _padded(pc.iso_week(local), n)
    if letter == "e":  # Monday 1 .. Sunday 7
        return _padded(pc.day_of_week(local, count_from_zero=False, week_start=1), n)
    if letter == "C":  # the century of the year of era (1 BC is year 0)
        year = pc.year(local) if years is None else pc.add(pc.year(local).cast(pa.int64()), years)
        of_era = pc.if_else(pc.greater(year, 0), year, pc.subtract(1, year))
        return _padded(pc.divide(of_era, 100), n)
    if letter == "M":
        if n >= 4:
            return pc.strftime(local, format="%B", locale="C")
        if n == 3:
            return pc.strftime(local, format="%b", locale="C")
        return _padded(pc.month(local), n)
    if letter == "d":
        return _padded(pc.day(local), n)
    if letter == "D":
        return _padded(pc.day_of_year(local), n)
    if letter == "H":
        return _padded(pc.hour(local), n)
    if letter == "k":  # 1-24
        hour = pc.hour(local)
        return _padded(pc.if_else(pc.equal(hour, 0), 24, hour), n)
    if letter == "K":  # 0-11
        return _padded(pc.subtract(pc.hour(local), pc.multiply(pc.divide(pc.hour(local), 12), 12)), n)
    if letter == "h":  # 1-12
        half = pc.subtract(pc.hour(local), pc.multiply(pc.divide(pc.hour(local), 12), 12))
        return _padded(pc.if_else(pc.equal(half, 0), 12, half), n)
    if letter == "m":
        return _padded(pc.minute(local), n)
    if letter == "s":
        return _padded(pc.second(local), n)
    if letter == "S":  # fraction of second: the first n digits of the millis (then zeros)
        millis = _padded(pc.millisecond(local), 3)
        return pc.utf8_rpad(pc.utf8_slice_codeunits(millis, 0, n), width=n, padding="0")
    if letter == "a":
        return pc.if_else(pc.less(pc.hour(local), 12), "AM", "PM")
    if letter == "E":
        return pc.strftime(local, format="%A" if n >= 4 else "%a", locale="C")
    if letter == "G":
        return pc.if_else(pc.greater(pc.year(local), 0), "AD", "BC")
    if letter == "Z":
        offset = pc.strftime(local, format="%z", locale="C")  # +hhmm
        if n == 1:
            return offset
        return pc.binary_join_element_wise(
            pc.utf8_slice_codeunits(offset, 0, 3), pc.utf8_slice_codeunits(offset, 3, 5), ":"
        )
    if letter == "z":
        return pc.strftime(local, format="%Z", locale="C")
    raise DateTimeFormatError(f"date pattern letter {letter!r} is not supported")  # pragma: no cover


def java_timestamp_string(millis: pa.Array) -> pa.Array:
    """``java.sql.Timestamp.toString`` in UTC: ``yyyy-MM-dd HH:mm:ss.f`` (fraction without trailing zeros)."""
    instants = millis.cast(pa.int64()).cast(pa.timestamp("ms", tz="UTC"))
    base = print_pattern(instants, "yyyy-MM-dd HH:mm:ss", "UTC")
    fraction = pc.replace_substring_regex(_padded(pc.millisecond(instants), 3), r"(\d)0+$", r"\1")
    return pc.binary_join_element_wise(base, fraction, ".")


# --- format -> millis (Joda parseMillis) -----------------------------------------------------------

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NUMERIC = set("yYMdDHkKhmsS")
# ISODateTimeFormat.dateOptionalTimeParser (a SIMPLE_DATE_FORMAT without a pattern), calendar dates only.
_ISO = re.compile(r"([+-]?\d{1,9})(?:-(\d{1,2})(?:-(\d{1,2}))?)?"
                  r"(?:T(\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?")


@functools.lru_cache(maxsize=64)
def _parser(pattern: str) -> tuple[re.Pattern, tuple[_Token, ...]]:
    """A regex with one group per pattern field, as Joda's ``forPattern`` parses: a numeric field followed
    by another numeric field takes exactly its letter count of digits (``yyyyMMdd``), otherwise up to its
    maximum (years 9 digits, fractions 9, the rest 2); text fields take English names, any case."""
    tokens = tuple(compile_pattern(pattern))
    parts = []
    for i, token in enumerate(tokens):
        letter, n = token.letter, token.count
        if not letter:
            parts.append(re.escape(token.text))
            continue
        adjacent = i + 1 < len(tokens) and tokens[i + 1].letter in _NUMERIC and (letter != "M" or n < 3)
        if letter in "yY" and n == 2:
            parts.append(r"(\d{2})" if adjacent else r"([+-]?\d+)")
        elif letter in "yY":
            parts.append(rf"([+-]?\d{{1,{n if adjacent else 9}}})")
        elif letter == "M" and n >= 3:
            parts.append("([A-Za-z]+)")
        elif letter == "S":
            parts.append(rf"(\d{{1,{n if adjacent else 9}}})")
        elif letter in "MdHkKhms":
            parts.append(rf"(\d{{1,{n if adjacent else 2}}})")
        elif letter == "D":
            parts.append(rf"(\d{{1,{n if adjacent else 3}}})")
        elif letter in "aEG":
            parts.append("([A-Za-z]+)")
        elif letter == "Z" and n <= 2:
            parts.append(r"(Z|[+-]\d{2}:?\d{2})")
        else:
            raise DateTimeFormatError(f"date pattern letter {letter!r} in {pattern!r} cannot be parsed (Joda cannot "
                                      "parse zone names either)")
    return re.compile("".join(parts), re.IGNORECASE), tokens


def parse_simple_date(text: str, fmt: DateTimeFormat) -> int:
    """Epoch millis of a SIMPLE_DATE_FORMAT value: Joda's ``parseMillis`` with the format's pattern, zone
    and English locale (``DateTimeFormatSpec.fromFormatToMillis``). Fields absent from the pattern are
    those of 1970-01-01T00:00; a parsed offset (``Z``) wins over the format's zone; a local time that a
    daylight-saving change makes ambiguous takes its earlier offset."""
    if fmt.kind != "SIMPLE_DATE_FORMAT":
        raise DateTimeFormatError(f"{fmt.kind} values are numbers, not dates")
    text = str(text)
    year, month, day, hour, minute, second, nanos, offset = 1970, 1, 1, 0, 0, 0, 0, None
    if fmt.pattern is None:
        match = _ISO.fullmatch(text)
        if not match:
            raise DateTimeFormatError(f"{text!r} is not an ISO date-time")
        y, mo, d, h, mi, sec, fraction, off = match.groups()
        year, month, day = int(y), int(mo or 1), int(d or 1)
        hour, minute, second = int(h or 0), int(mi or 0), int(sec or 0)
        nanos = int((fraction or "0").ljust(9, "0"))
        offset = off
        day_of_year = None
    else:
        regex, tokens = _parser(fmt.pattern)
        match = regex.fullmatch(text)
        if not match:
            raise DateTimeFormatError(f"{text!r} does not match date pattern {fmt.pattern!r}")
        values = iter(match.groups())
        half, pm, day_of_year = None, None, None
        for token in tokens:
            if not token.letter:
                continue
            value, letter = next(values), token.letter
            if letter in "yY":
                year = _two_digit_year(int(value)) if token.count == 2 and len(value.lstrip("+-")) == 2 else int(value)
            elif letter == "M":
                month = int(value) if token.count < 3 else _month(value, token.count, text)
            elif letter == "d":
                day = int(value)
            elif letter == "D":
                day_of_year = int(value)
            elif letter == "H":
                hour = int(value)
            elif letter == "k":
                hour = int(value) % 24
            elif letter in "Kh":
                half = int(value) % 12
            elif letter == "a":
                if value.lower() not in ("am", "pm"):
                    raise DateTimeFormatError(f"{text!r}: {value!r} is not AM or PM")
                pm = value.lower() == "pm"
            elif letter == "m":
                minute = int(value)
            elif letter == "s":
                second = int(value)
            elif letter == "S":
                nanos = int(value.ljust(9, "0")[:9])
            elif letter == "E":
                if not any(day_name.startswith(value.lower()) and len(value) >= 3 for day_name in _DAYS):
                    raise DateTimeFormatError(f"{text!r}: {value!r} is not a day name")
            elif letter == "G":
                if value.upper() != "AD":
                    raise DateTimeFormatError(f"{text!r}: era {value!r} is not supported (AD only)")
            elif letter == "Z":
                offset = value
        if half is not None:
            hour = half + (12 if pm else 0)
    try:
        if day_of_year is not None:
            date = _dt.date(year, 1, 1) + _dt.timedelta(days=day_of_year - 1)
            if date.year != year or day_of_year < 1:
                raise ValueError(f"day of year {day_of_year}")
            month, day = date.month, date.day
        local = _dt.datetime(year, month, day, hour, minute, second)
    except (ValueError, OverflowError) as exc:
        raise DateTimeFormatError(f"{text!r} is not a valid date for pattern {fmt.pattern!r}: {exc}") from None
    zone = _tzinfo(fmt.time_zone) if offset is None else _tzinfo(_offset_zone(offset))
    instant = local.replace(tzinfo=zone)  # fold=0: the earlier of two ambiguous offsets, as Joda
    delta = instant - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1000 + nanos // 1_000_000


def _two_digit_year(value: int) -> int:
    """Joda's ``appendTwoDigitYear(now.getYear() - 30)``: the century putting the year in [pivot-50, pivot+49]."""
    low = _dt.datetime.now(_dt.timezone.utc).year - 30 - 50
    return low + (value - low) % 100


def _month(value: str, count: int, text: str) -> int:
    name = value.lower()
    for index, month in enumerate(_MONTHS):
        if (name == month) or (len(name) >= 3 and month.startswith(name)):
            return index + 1
    raise DateTimeFormatError(f"{text!r}: {value!r} is not an English month name")


def _offset_zone(offset: str) -> str:
    if offset.upper() == "Z":
        return "UTC"
    digits = offset[1:].replace(":", "")
    return f"{offset[0]}{digits[:2]}:{digits[2:4] or '00'}"
