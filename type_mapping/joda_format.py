"""Joda-Time's ``DateTimeFormat.forPattern``: a pattern compiled into vectorised pieces and printed over Arrow
arrays (``print_pattern``), and parsed back (``parse_millis``, Joda's ``parseMillis``), with an English locale;
``java_timestamp_string`` is ``java.sql.Timestamp.toString``. Split from datetime_formats.py (Pinot's dateTime
formats, which print and parse through here).
"""
from __future__ import annotations

import datetime as _dt
import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .errors import PinotSinkError
from .joda_calendar import MILLIS_PER_DAY, calendar_field, outside_arrow_range
from .joda_zones import CYCLE_MS, FIXED_ZONE, ZoneOverflow, past_arrow_tables, to_local, zone_info

class DateTimeFormatError(PinotSinkError, ValueError):
    """A dateTime format, granularity or pattern this package cannot handle."""


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


def print_pattern(instants: pa.Array, pattern: str, time_zone: str = "UTC", zone_id: str | None = None) -> pa.Array:
    """Format timestamps with a Java date pattern in a time zone, as Joda would (English locale); ``zone_id``:
    the id the zone was given by (its Joda id names it: ``CET`` is not ``Europe/Brussels``), else ``time_zone``."""
    tokens = compile_pattern(pattern, printing=True)
    names = {t.count >= 4: None for t in tokens if t.letter == "z"}
    for long in names:  # (before the instants are moved into Arrow's range below)
        names[long] = zone_names(instants, time_zone, zone_id or time_zone, long)
    try:
        local = instants.cast(pa.timestamp("ms", tz=time_zone))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise DateTimeFormatError(f"unknown time zone {time_zone!r} in a date pattern") from exc
    offsets = None
    if not FIXED_ZONE.match(time_zone):
        millis = pc.fill_null(local.cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
        if past_arrow_tables(millis, time_zone) is not None:
            # The fields of the wall-clock time by the zone's rule, read as UTC; the offsets put in apart.
            local_ms = _print_local(millis, time_zone)
            nulls = local.is_null().to_numpy(zero_copy_only=False) if local.null_count else None
            local = pa.array(local_ms, pa.timestamp("ms", tz="UTC"), mask=nulls)
            offsets = _offset_minutes(local_ms - millis)
    years = None  # 400-year cycles taken off instants beyond Arrow's range, put back into the printed year
    millis = pc.fill_null(instants.cast(pa.timestamp("ms")).cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
    if outside_arrow_range(millis):
        local_ms = _print_local(millis, time_zone)
        # the calendar (weekdays too) repeats every 400 years: print the same date between 1770 and 2170
        cycles, rest = np.floor_divide(local_ms, CYCLE_MS), np.mod(local_ms, CYCLE_MS)
        late = rest >= CYCLE_MS // 2
        cycles, rest = np.where(late, cycles + 1, cycles), np.where(late, rest - CYCLE_MS, rest)
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
        elif token.letter == "z":
            pieces.append(names[token.count >= 4])
        elif token.letter in "xweE" and years is not None:  # beyond Arrow's range: Joda's own week arithmetic
            name = {"x": "iso_year", "w": "iso_week", "e": "day_of_week", "E": "day_of_week"}[token.letter]
            values = pa.array(calendar_field(local_ms, name), pa.int64(), mask=nulls)
            if token.letter == "E":  # the day's name of the same field (its quirk within a day of Long.MIN_VALUE too)
                days = _DAY_NAMES if token.count >= 4 else [n[:3] for n in _DAY_NAMES]
                pieces.append(pc.take(pa.array(days), pc.subtract(values, 1)))
            else:
                pieces.append(_year_text(values, token.count) if token.letter == "x" else _padded(values, token.count))
        else:
            pieces.append(_piece(local, token, years))
    if not any(isinstance(p, (pa.Array, pa.ChunkedArray)) for p in pieces):
        # only literal text (no field letters, e.g. "'T'" or "-"): the same text for every instant (the join
        # of scalars alone would give one scalar, not a column)
        return pa.array(["".join(pieces)] * len(instants), pa.string(), mask=instants.is_null())
    arrays = [p if isinstance(p, (pa.Array, pa.ChunkedArray)) else pa.scalar(p, pa.string()) for p in pieces]
    return pc.binary_join_element_wise(*arrays, pa.scalar("", pa.string()))


_DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def zone_names(instants: pa.Array, time_zone: str, zone_id: str, long: bool) -> pa.Array:
    """Joda's ``DateTimeZone.getShortName`` / ``getName`` (pattern letters ``z`` / ``zzzz``) at each instant: not
    the tz database's abbreviation (``LMT``, ``+0545``) but the JVM's English names of the zone's Joda id, one
    for standard time and one for daylight time (``joda_zone_names.json``); a fixed offset zone, or one the JVM has
    no names for, prints its offset (``+05:45``, ``-04:48:16``); an instant whose local time overflows the long
    range is printed in UTC (``DateTimeFormatter.printTo``)."""
    names = _zone_tables()[0]
    millis = pc.fill_null(instants.cast(pa.timestamp("ms")).cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
    nulls = None if not instants.null_count else instants.is_null().to_numpy(zero_copy_only=False)
    entry = names.get(zone_id) or names.get(time_zone) or (names["UTC"] if time_zone == "UTC" else None)
    if entry is None and not FIXED_ZONE.match(time_zone):
        raise DateTimeFormatError(f"no zone names for {zone_id!r} (not a zone of Joda's tz database)")
    standard, daylight = ((entry[2], entry[4]) if long else (entry[1], entry[3])) if entry else (None, None)
    if standard is None:  # the offset, as Joda's printOffset: +hh:mm, then :ss and .SSS where not zero
        texts = np.array([_print_offset(o) for o in _offsets(millis, time_zone).tolist()], dtype=object)
    elif standard == daylight:
        texts = np.full(len(millis), standard, dtype=object)
    else:
        texts = np.where(_daylight(millis, time_zone), daylight, standard).astype(object)
    near_ends = (millis < _LONG_MIN + 2 * MILLIS_PER_DAY) | (millis > _LONG_MAX - 2 * MILLIS_PER_DAY)
    for i in np.flatnonzero(near_ends) if time_zone != "UTC" else ():
        try:
            to_local(millis[i:i + 1], time_zone, keep_ends=False)
        except ZoneOverflow:
            texts[i] = names["UTC"][2 if long else 1]
    return pa.array(texts, pa.string(), mask=nulls)


@functools.lru_cache(maxsize=None)
def _zone_tables() -> tuple[dict, dict]:
    """Joda's zone names and, for the zones whose standard time zoneinfo does not give, Joda's standard
    offsets (``joda_zone_names.json``, generated by tools/pinot_functions/JodaZoneNames.java, the command in
    its header): ``names[id]`` = [Joda's id, short standard, long standard, short daylight, long daylight]
    (null where the JVM has none), ``standard[zone]`` = [[from instant in ms, standard offset in ms], ...],
    1600 to 2400. Read once, when a pattern first prints a zone name."""
    tables = json.loads((Path(__file__).parent / "joda_zone_names.json").read_text(encoding="utf-8"))
    return tables["names"], tables["standard"]


_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_YEAR_1600_MS, _YEAR_2400_MS = -11_676_096_000_000, 13_569_465_600_000


def _offsets(millis: np.ndarray, zone: str) -> np.ndarray:
    if FIXED_ZONE.match(zone):
        return to_local(np.zeros(1, np.int64), zone) + np.zeros(len(millis), np.int64)
    return _zoneinfo_offsets(millis, zone)[0]


def _daylight(millis: np.ndarray, zone: str) -> np.ndarray:
    """Whether each instant is in daylight time, as Joda's ``isStandardOffset`` is not: once per distinct hour
    whose two ends agree, else per instant."""
    hours, inverse = np.unique(np.floor_divide(millis, 3_600_000), return_inverse=True)
    starts = _zoneinfo_offsets(hours * 3_600_000, zone)[1]
    ends = _zoneinfo_offsets(hours * 3_600_000 + 3_599_999, zone)[1]
    flags = starts[inverse]
    mixed = (starts != ends)[inverse]
    if mixed.any():
        flags[mixed] = _zoneinfo_offsets(millis[mixed], zone)[1]
    return flags


def _zoneinfo_offsets(millis: np.ndarray, zone: str) -> tuple[np.ndarray, np.ndarray]:
    """The zone's offset and whether it is daylight time at each instant, by zoneinfo (the rule and calendar
    repeat every 400 years: instants past 2400 are moved back by whole cycles; before 1600 a zone keeps its
    first, local mean time). Daylight as Joda's ``isStandardOffset`` has it: a positive saving, or for the
    zones whose tzdata has negative savings (Dublin's winter GMT: Joda's standard time, the summer its
    daylight) or double summer times, an offset not Joda's standard offset of the time (``_zone_tables``'
    ``standard``)."""
    from zoneinfo import ZoneInfo

    standard_offsets = _zone_tables()[1]
    tz = ZoneInfo(zone)
    distinct, inverse = np.unique(millis, return_inverse=True)
    late = distinct > _YEAR_2400_MS  # (the subtraction only there: Long.MIN_VALUE - 2400 would wrap)
    cycles = np.where(late, (np.where(late, distinct, _YEAR_2400_MS) - _YEAR_2400_MS) // CYCLE_MS, 0)
    shifted = np.maximum(distinct - cycles * CYCLE_MS, _YEAR_1600_MS)
    offsets = np.empty(len(distinct), dtype=np.int64)
    daylight = np.zeros(len(distinct), dtype=bool)
    epoch = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
    for i, value in enumerate(shifted.tolist()):
        local = (epoch + _dt.timedelta(milliseconds=value)).astimezone(tz)
        offsets[i] = int(local.utcoffset().total_seconds() * 1000)
        daylight[i] = local.dst().total_seconds() > 0
    if zone in standard_offsets:
        starts, standard = np.array(standard_offsets[zone], dtype=np.int64).T
        daylight = offsets != standard[np.searchsorted(starts, shifted, side="right") - 1]
    return offsets[inverse], daylight[inverse]


def _print_offset(offset: int) -> str:
    sign, offset = ("-", -offset) if offset < 0 else ("+", offset)
    text = f"{sign}{offset // 3_600_000:02d}:{offset // 60_000 % 60:02d}"
    if offset % 60_000:
        text += f":{offset // 1000 % 60:02d}"
        if offset % 1000:
            text += f".{offset % 1000:03d}"
    return text


def _print_local(millis: np.ndarray, zone: str) -> np.ndarray:
    """``to_local`` as ``DateTimeFormatter.printTo`` does it: an instant whose offset would overflow the long
    range is printed in UTC instead (no failure)."""
    try:
        return to_local(millis, zone, keep_ends=False)
    except ZoneOverflow:
        local = millis.copy()
        for i in range(len(millis)):
            try:
                local[i] = to_local(millis[i:i + 1], zone, keep_ends=False)[0]
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
    raise DateTimeFormatError(f"date pattern letter {letter!r} is not supported")  # pragma: no cover


def java_timestamp_string(millis: pa.Array) -> pa.Array:
    """``java.sql.Timestamp.toString`` in UTC: ``yyyy-MM-dd HH:mm:ss.f`` (fraction without trailing zeros)."""
    instants = millis.cast(pa.int64()).cast(pa.timestamp("ms", tz="UTC"))
    base = print_pattern(instants, "yyyy-MM-dd HH:mm:ss", "UTC")
    fraction = pc.replace_substring_regex(_padded(pc.millisecond(instants), 3), r"(\d)0+$", r"\1")
    return pc.binary_join_element_wise(base, fraction, ".")


# --- format -> millis (Joda parseMillis) -----------------------------------------------------------

# ISODateTimeFormat.dateOptionalTimeParser (a SIMPLE_DATE_FORMAT without a pattern), calendar dates only.
_ISO = re.compile(r"([+-]?\d{1,9})(?:-(\d{1,2})(?:-(\d{1,2}))?)?"
                  r"(?:T(\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?")


def parse_millis(text: str, pattern: str | None, time_zone: str) -> int:
    """Joda's ``DateTimeFormat.forPattern(pattern).withZone(time_zone).withLocale(Locale.ENGLISH).parseMillis``
    without a pattern: ``ISODateTimeFormat.dateOptionalTimeParser`` (a pattern's parse is joda_parse.py's). A
    parsed offset (``Z``) wins over the zone; a local time that a daylight-saving change makes ambiguous takes its
    earlier offset."""
    text = str(text)
    if pattern is not None:  # (a pattern's parse: joda_parse.py, which reads this module's patterns)
        raise DateTimeFormatError("a pattern's parse is joda_parse.parse_millis")
    match = _ISO.fullmatch(text)
    if not match:
        raise DateTimeFormatError(f"{text!r} is not an ISO date-time")
    y, mo, d, h, mi, sec, fraction, offset = match.groups()
    year, month, day = int(y), int(mo or 1), int(d or 1)
    hour, minute, second = int(h or 0), int(mi or 0), int(sec or 0)
    nanos = int((fraction or "0").ljust(9, "0"))
    try:
        local = _dt.datetime(year, month, day, hour, minute, second)
    except (ValueError, OverflowError) as exc:
        raise DateTimeFormatError(f"{text!r} is not a valid date for pattern {pattern!r}: {exc}") from None
    zone = zone_info(time_zone) if offset is None else zone_info(_offset_zone(offset))
    instant = local.replace(tzinfo=zone)  # fold=0: the earlier of two ambiguous offsets, as Joda
    delta = instant - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1000 + nanos // 1_000_000


def _offset_zone(offset: str) -> str:
    if offset.upper() == "Z":
        return "UTC"
    digits = offset[1:].replace(":", "")
    return f"{offset[0]}{digits[:2]}:{digits[2:4] or '00'}"
