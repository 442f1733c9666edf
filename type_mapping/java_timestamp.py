"""Pinot's ``TimestampUtils.toTimestamp(text)`` (what ``PinotDataType.STRING.toTimestamp`` calls on the trimmed
text) as epoch millis, the JVM's default zone taken as UTC. Its formats, in order, the first that parses wins:

1. ``java.sql.Timestamp.valueOf``: ``y-m-d h:m:s[.f]`` split at the first space, dashes and colons; a 4-character
   year, 1-2 character month and day (``Integer.parseInt``: a sign and any script's digits), month 1..12, day
   1..31; the rest lenient (``10:61`` is 11:01, ``24:00:00`` the next day), fields read in the
   Julian/Gregorian calendar of ``java.util.Date`` (Julian before 1582-10-15);
2. ``Long.parseLong``: epoch millis;
3. ``ZonedDateTime.parse`` with ``yyyy-MM-dd['T'HH:mm[:ss][.f]][' 'HH:mm[:ss][.f]][XXX]``: with an offset (``Z``,
   ``+05:00``), the ISO calendar;
4. ``LocalDateTime.parse`` of the same pattern without an offset, then ``Timestamp.valueOf(LocalDateTime)``: the
   Date calendar again. Both check fields strictly but for SMART's day clamped to the month's end (``02-30`` is
   02-29) and ``24:00`` as the next day's midnight; digits ASCII only.

Anything else is None (``IllegalArgumentException: Invalid timestamp``). Checked against Pinot's own answers
(tests/fixtures/functions/round4_timestamp_text.jsonl)."""
from __future__ import annotations

import re

from type_mapping.java_text import java_parse_long

_JAVA_BLANKS = "".join(chr(c) for c in range(0x21))  # String.trim: every char up to U+0020
_DAY_MS = 86_400_000
_UNIX_JDN = 2_440_588  # the Julian day number of 1970-01-01
_GREGORIAN_START_JDN = 2_299_161  # 1582-10-15, java.util.Date's default cutover


def java_trim(text: str) -> str:
    return text.strip(_JAVA_BLANKS)


def timestamp_utils_millis(text: str | None) -> int | None:
    """``TimestampUtils.toTimestamp(text.trim()).getTime()``, or None where it throws."""
    if text is None:
        return None
    text = java_trim(text)
    for parse in (_timestamp_value_of, _parse_long, _universal):
        millis = parse(text)
        if millis is not None:
            return millis
    return None


def _parse_int(text: str) -> int:
    value = java_parse_long(text)
    if not -2**31 <= value < 2**31:
        raise ValueError(text)
    return value


def _parse_long(text: str) -> int | None:
    try:
        return java_parse_long(text)
    except ValueError:
        return None


def _jdn(year: int, month: int, day: int, gregorian: bool) -> int:
    a = (14 - month) // 12
    y, m = year + 4800 - a, month + 12 * a - 3
    base = day + (153 * m + 2) // 5 + 365 * y + y // 4
    return base - y // 100 + y // 400 - 32045 if gregorian else base - 32083


def _date_millis(year: int, month0: int, day: int, hour: int, minute: int, second: int) -> int:
    """``new java.util.Date(year - 1900, month0, day, hour, minute, second).getTime()`` in UTC: every field
    lenient (carried into the next), the Julian calendar before the Gregorian cutover."""
    year, month0 = year + month0 // 12, month0 % 12
    jdn = _jdn(year, month0 + 1, 1, True) + day - 1
    if jdn < _GREGORIAN_START_JDN:
        jdn = _jdn(year, month0 + 1, 1, False) + day - 1
    return (jdn - _UNIX_JDN) * _DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000


def _timestamp_value_of(text: str) -> int | None:
    """``Timestamp.valueOf(String)`` (Java 17's checks, in its order)."""
    space = text.find(" ")
    if space < 0:
        return None
    date, time = text[:space], text[space + 1:]
    dash1 = date.find("-")
    dash2 = date.find("-", dash1 + 1)
    if not (dash1 > 0 and dash2 > 0 and dash2 < len(date) - 1):
        return None
    yyyy, mm, dd = date[:dash1], date[dash1 + 1:dash2], date[dash2 + 1:]
    if not (len(yyyy) == 4 and 1 <= len(mm) <= 2 and 1 <= len(dd) <= 2):
        return None
    colon1 = time.find(":")
    colon2 = time.find(":", colon1 + 1)
    period = time.find(".", colon2 + 1)
    try:
        year, month, day = _parse_int(yyyy), _parse_int(mm), _parse_int(dd)
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return None
        if not (colon1 > 0 and colon2 > 0 and colon2 < len(time) - 1):
            return None
        hour, minute = _parse_int(time[:colon1]), _parse_int(time[colon1 + 1:colon2])
        nanos = 0
        if 0 < period < len(time) - 1:
            second = _parse_int(time[colon2 + 1:period])
            precision = len(time) - (period + 1)
            if precision > 9 or not time[period + 1].isdecimal():  # (Character.isDigit)
                return None
            nanos = _parse_int(time[period + 1:]) * 10 ** (9 - precision)
        elif period > 0:
            return None
        else:
            second = _parse_int(time[colon2 + 1:])
    except ValueError:
        return None
    # (Timestamp.getTime: the Date's whole seconds plus nanos / 10^6)
    return _date_millis(year, month - 1, day, hour, minute, second) + nanos // 1_000_000


_TIME = r"(\d{2}):(\d{2})(?::(\d{2}))?(?:\.(\d{1,9}))?"
_UNIVERSAL = re.compile(rf"(\d{{4}})-(\d{{2}})-(\d{{2}})(?:T{_TIME})?(?: {_TIME})?(Z|[+-]\d{{2}}:\d{{2}})?",
                        re.ASCII)
_MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _universal(text: str) -> int | None:
    """Pinot's ``UNIVERSAL_DATE_TIME_FORMATTER`` (steps 3 and 4 of the module's list)."""
    match = _UNIVERSAL.fullmatch(text)
    if match is None:
        return None
    year, month, day = int(match[1]), int(match[2]), int(match[3])
    times = [match.groups()[3:7], match.groups()[7:11]]
    given = [t for t in times if t[0] is not None]
    if len(given) == 2 and any(a is not None and b is not None and int(a) != int(b)
                               for a, b in zip(given[0][:3], given[1][:3])):
        return None  # the same field parsed twice with two values: a conflict
    fields = [0, 0, 0, 0]  # hour, minute, second, fraction (as text)
    fraction = ""
    for t in given:
        for i, v in enumerate(t[:3]):
            if v is not None:
                fields[i] = int(v)
        fraction = t[3] or fraction
    hour, minute, second = fields[:3]
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    if not (year >= 1 and 1 <= month <= 12 and 1 <= day <= 31 and minute <= 59 and second <= 59):  # (year of era)
        return None
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    day = min(day, _MONTH_DAYS[month - 1] if month != 2 else 29 if leap else 28)  # SMART
    extra_day = 0
    if hour == 24 and minute == 0 and second == 0 and nanos == 0:  # SMART: 24:00 is the next day's midnight
        hour, extra_day = 0, 1
    elif hour > 23:
        return None
    offset = match[12]
    if offset is None:  # a LocalDateTime, then Timestamp.valueOf(LocalDateTime): java.util.Date's calendar
        return _date_millis(year, month - 1, day + extra_day, hour, minute, second) + nanos // 1_000_000
    offset_minutes = 0 if offset == "Z" else (1 if offset[0] == "+" else -1) * (int(offset[1:3]) * 60 + int(offset[4:]))
    if int(offset[1:3] if offset != "Z" else 0) > 18 or (offset != "Z" and int(offset[4:]) > 59):
        return None
    days = _jdn(year, month, day, True) + extra_day - _UNIX_JDN  # the ISO calendar
    return days * _DAY_MS + ((hour * 60 + minute - offset_minutes) * 60 + second) * 1000 + nanos // 1_000_000
