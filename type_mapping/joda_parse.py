"""Joda-Time's ``DateTimeFormat.forPattern(p).withZone(z).parseMillis(text)`` for one text, as Joda does it: the
pattern's parsers run left to right, each greedy and without going back (a number takes as many digits as its
field allows: ``H`` two, ``D`` three, ``e`` one, ``S`` and ``C`` their letter count, a year nine or, before
another number, its letter count), and save fields into a ``DateTimeParserBucket``, whose ``computeMillis``
sets them on 1970-01-01T00:00 local in Joda's order (longest range first, then longest unit), each set and
rounded down, then all set again with only the last rounded: a day name moves the date within its Monday-to-
Sunday week, a week-year alone is the Monday of its first week, and a pattern whose first field is a month, week
or day (no year) is read in the year 2000. The numbers' limits are Joda's fields' (day 30 of February fails).

Kept apart from the vectorised parse of fromDateTime (functions/date_time_functions.py), which handles the
patterns of year, month, day and time fields and sends the others here, one distinct text at a time.
"""
from __future__ import annotations

import datetime as _dt
import functools
import re

import numpy as np

from .errors import PinotSinkError

DAY = 86_400_000
_WEEK = 7 * DAY
_MIN_YEAR, _MAX_YEAR = -292_275_054, 292_278_993


class JodaParseError(PinotSinkError, ValueError):
    """A text Joda's parser refuses (what parseMillis throws)."""


# --- the proleptic Gregorian calendar on local millis (Python ints: any year) -----------------------------

def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    mp = (m + 9) % 12
    doy = (153 * mp + 2) // 5 + d - 1
    return era * 146_097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719_468


def _civil(days: int) -> tuple[int, int, int]:
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def _leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def _month_days(y: int, m: int) -> int:
    return 29 if m == 2 and _leap(y) else [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]


def _dow(local: int) -> int:  # 1 = Monday
    return (local // DAY + 3) % 7 + 1


def _first_week(y: int) -> int:  # the days of the Monday of ISO week 1 of week-year y
    jan4 = _days_from_civil(y, 1, 4)
    return jan4 - (jan4 + 3) % 7


def _weekyear(local: int) -> int:
    days = local // DAY
    y = _civil(days)[0]
    if days >= _first_week(y + 1):
        return y + 1
    return y - 1 if days < _first_week(y) else y


def _week(local: int) -> int:
    return (local // DAY - _first_week(_weekyear(local))) // 7 + 1


def _weeks_in(weekyear: int) -> int:
    return (_first_week(weekyear + 1) - _first_week(weekyear)) // 7


def _check(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:  # Joda's IllegalFieldValueException
        raise JodaParseError(f"Value {value} for {name} must be in the range [{low},{high}]")


# --- the fields: (range unit, unit) for the bucket's order, set and round-down -----------------------------
# units in days (None: Joda's unsupported / infinite, sorted first); weekyears and years have the same length
_UNITS = {"eras": None, "centuries": 36_524.25, "years": 365.2425, "months": 30.436875, "weeks": 7.0, "days": 1.0,
          "halfdays": 0.5, "hours": 1 / 24, "minutes": 1 / 1440, "seconds": 1 / 86400, "millis": 1 / 86_400_000}
_FIELDS = {  # field: (range duration, duration)
    "era": (None, "eras"), "centuryOfEra": ("eras", "centuries"), "yearOfEra": ("eras", "years"),
    "year": (None, "years"), "weekyear": (None, "years"), "weekOfWeekyear": ("years", "weeks"),
    "monthOfYear": ("years", "months"), "dayOfYear": ("years", "days"), "dayOfMonth": ("months", "days"),
    "dayOfWeek": ("weeks", "days"), "halfdayOfDay": ("days", "halfdays"), "hourOfDay": ("days", "hours"),
    "clockhourOfDay": ("days", "hours"), "hourOfHalfday": ("halfdays", "hours"),
    "clockhourOfHalfday": ("halfdays", "hours"), "minuteOfHour": ("hours", "minutes"),
    "secondOfMinute": ("minutes", "seconds"), "millisOfSecond": ("seconds", "millis"),
}


def _order(field: str) -> tuple:
    def key(unit):  # compareReverse: unsupported first, then the longer unit
        length = _UNITS[unit] if unit else None
        return (0, 0.0) if length is None else (1, -length)
    rng, dur = _FIELDS[field]
    return key(rng) + key(dur)


def _year_of(local: int) -> int:
    return _civil(local // DAY)[0]


def _set_year(local: int, year: int) -> int:  # BasicChronology.setYear: the day of the year kept, Feb 29 aside
    days, in_day = divmod(local, DAY)
    this = _civil(days)[0]
    doy = days - _days_from_civil(this, 1, 1) + 1
    if doy > 59:
        if _leap(this) and not _leap(year):
            doy -= 1
        elif not _leap(this) and _leap(year):
            doy += 1
    return (_days_from_civil(year, 1, 1) + doy - 1) * DAY + in_day


def _set_weekyear(local: int, year: int) -> int:
    _check("weekyear", abs(year), _MIN_YEAR, _MAX_YEAR)
    this = _weekyear(local)
    if this == year:
        return local
    week = min(_week(local), _weeks_in(this), _weeks_in(year))
    in_day = local % DAY
    return (_first_week(year) + (week - 1) * 7 + _dow(local) - 1) * DAY + in_day


def _in_day(local: int, unit: int, count: int, value: int, field: str, low: int, high: int) -> int:
    """A precise field of the day (hours, minutes...): the difference in units added."""
    _check(field, value, low, high)
    return local + (value - local % (unit * count) // unit) * unit


def _set(field: str, local: int, value: int) -> int:
    days, in_day = divmod(local, DAY)
    if field == "year":
        _check("year", value, _MIN_YEAR - 1, _MAX_YEAR + 1)
        return _set_year(local, value)
    if field == "yearOfEra":
        _check("yearOfEra", value, 1, _MAX_YEAR)
        return _set_year(local, value if _year_of(local) > 0 else 1 - value)
    if field == "era":  # (GJEraDateTimeField: the year negated, 1970 becoming -1970)
        _check("era", value, 0, 1)
        year = _year_of(local)
        return local if (year > 0) == (value == 1) else _set_year(local, -year)
    if field == "centuryOfEra":  # (UTC ISO: divided from the zero-based year of era, |year|, sign kept)
        _check("centuryOfEra", value, 0, _MAX_YEAR // 100)
        year = _year_of(local)
        of_era = value * 100 + abs(year) % 100
        return _set_year(local, -of_era if year < 0 else of_era)
    if field == "weekyear":
        return _set_weekyear(local, value)
    if field == "weekOfWeekyear":
        _check("weekOfWeekyear", value, 1, _weeks_in(_weekyear(local)) if value > 52 else 52)
        return local + (value - _week(local)) * _WEEK
    if field == "monthOfYear":
        _check("monthOfYear", value, 1, 12)
        y, _, d = _civil(days)
        return (_days_from_civil(y, value, min(d, _month_days(y, value)))) * DAY + in_day
    if field == "dayOfMonth":
        y, m, d = _civil(days)
        _check("dayOfMonth", value, 1, _month_days(y, m) if value > 28 else 28)
        return local + (value - d) * DAY
    if field == "dayOfYear":
        y = _civil(days)[0]
        _check("dayOfYear", value, 1, (366 if _leap(y) else 365) if value > 365 else 365)
        return local + (value - (days - _days_from_civil(y, 1, 1) + 1)) * DAY
    if field == "dayOfWeek":
        _check("dayOfWeek", value, 1, 7)
        return local + (value - _dow(local)) * DAY
    if field == "halfdayOfDay":
        return _in_day(local, DAY // 2, 2, value, field, 0, 1)
    if field in ("hourOfDay", "clockhourOfDay"):
        if field == "clockhourOfDay":
            _check(field, value, 1, 24)
            value %= 24
        return _in_day(local, 3_600_000, 24, value, "hourOfDay", 0, 23)
    if field in ("hourOfHalfday", "clockhourOfHalfday"):
        if field == "clockhourOfHalfday":
            _check(field, value, 1, 12)
            value %= 12
        return _in_day(local, 3_600_000, 12, value, "hourOfHalfday", 0, 11)
    if field == "minuteOfHour":
        return _in_day(local, 60_000, 60, value, field, 0, 59)
    if field == "secondOfMinute":
        return _in_day(local, 1000, 60, value, field, 0, 59)
    return _in_day(local, 1, 1000, value, "millisOfSecond", 0, 999)


def _floor(field: str, local: int) -> int:
    days = local // DAY
    if field in ("year", "yearOfEra", "era", "centuryOfEra"):
        year = _civil(days)[0]
        if field == "era":
            if year <= 0:  # (Joda: Long.MIN_VALUE, the start of BC; a year parsed after it sets its own)
                return -2**63
            year = 1
        elif field == "centuryOfEra":
            year = (abs(year) // 100 * 100) * (-1 if year < 0 else 1)
        return _days_from_civil(year, 1, 1) * DAY
    if field == "weekyear":
        return _first_week(_weekyear(local)) * DAY
    if field == "weekOfWeekyear":
        return (days - (_dow(local) - 1)) * DAY
    if field == "monthOfYear":
        y, m, _ = _civil(days)
        return _days_from_civil(y, m, 1) * DAY
    unit = {"halfdayOfDay": DAY // 2, "minuteOfHour": 60_000, "secondOfMinute": 1000, "millisOfSecond": 1}.get(
        field, 3_600_000 if "hour" in field else DAY)
    return local - local % unit


def compute_millis(saved: list[tuple[str, int]]) -> int:
    """DateTimeParserBucket.computeMillis(true): the local millis of the saved (field, value) pairs."""
    ordered = sorted(saved, key=lambda s: _order(s[0]))  # (Joda's sort is stable too)
    first = _UNITS[_FIELDS[ordered[0][0]][1]] if ordered else None
    if first is not None and _UNITS["days"] <= first <= _UNITS["months"]:
        return compute_millis(saved + [("year", 2000)])  # the default year, where the first field is a month or day
    local = 0
    for field, value in ordered:
        local = _floor(field, _set(field, local, value))
    for i, (field, value) in enumerate(ordered):
        local = _set(field, local, value)
        if i == len(ordered) - 1:
            local = _floor(field, local)
    return local


# --- the pattern's parsers (DateTimeFormat.parsePatternTo, DateTimeFormatterBuilder's parseInto) ------------

_NUMERIC_LETTERS = set("cCxyYdhHmsSeDFwWkK")  # DateTimeFormat.isNumericToken (and M, MM)
_NUMBERS = {  # letter: (field, Joda's most digits, signed)
    "C": ("centuryOfEra", 0, True), "M": ("monthOfYear", 2, False), "d": ("dayOfMonth", 2, False),
    "h": ("clockhourOfHalfday", 2, False), "H": ("hourOfDay", 2, False), "k": ("clockhourOfDay", 2, False),
    "K": ("hourOfHalfday", 2, False), "m": ("minuteOfHour", 2, False), "s": ("secondOfMinute", 2, False),
    "e": ("dayOfWeek", 1, False), "D": ("dayOfYear", 3, False), "w": ("weekOfWeekyear", 2, False),
}
_YEARS = {"x": ("weekyear", True), "y": ("year", True), "Y": ("yearOfEra", False)}
_MONTH_TEXTS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                "November", "December"]
_DAY_TEXTS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _texts(pairs: list[tuple[str, int]]) -> dict[str, int]:
    """TextField's valid texts (English): each text as it is, in lower and in upper case."""
    out: dict[str, int] = {}
    for text, value in pairs:
        for form in (text, text.lower(), text.upper()):
            out.setdefault(form, value)
    return out


_TEXT_FIELDS = {
    "M": ("monthOfYear", _texts([(t[:3], i + 1) for i, t in enumerate(_MONTH_TEXTS)]
                                + [(t, i + 1) for i, t in enumerate(_MONTH_TEXTS)])),
    "E": ("dayOfWeek", _texts([(t[:3], i + 1) for i, t in enumerate(_DAY_TEXTS)]
                              + [(t, i + 1) for i, t in enumerate(_DAY_TEXTS)])),
    "a": ("halfdayOfDay", _texts([("AM", 0), ("PM", 1)])),
    "G": ("era", _texts([("BC", 0), ("AD", 1), ("BCE", 0), ("CE", 1)])),
}
# appendTimeZoneShortName(null) / appendTimeZoneName() parse DateTimeUtils' default names only
_ZONE_NAMES = {"UT": "UTC", "UTC": "UTC", "GMT": "UTC", "EST": "America/New_York", "EDT": "America/New_York",
               "CST": "America/Chicago", "CDT": "America/Chicago", "MST": "America/Denver",
               "MDT": "America/Denver", "PST": "America/Los_Angeles", "PDT": "America/Los_Angeles"}
_OFFSET = re.compile(r"[Zz]|[+-]\d{2}:?\d{2}")


@functools.lru_cache(maxsize=256)
def _elements(pattern: str) -> tuple:
    from .joda_format import compile_pattern  # (joda_format imports this module)
    tokens = compile_pattern(pattern, printing=True)
    out = []
    for i, token in enumerate(tokens):
        letter, n = token.letter, token.count
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        numeric_next = after is not None and (after.letter in _NUMERIC_LETTERS or (after.letter == "M"
                                                                                 and after.count <= 2))
        if not letter:
            out.append(("literal", token.text))
        elif letter in _YEARS and n == 2:  # (YY is appendTwoDigitYear: the year, as yy)
            out.append(("two", "weekyear" if letter == "x" else "year", not numeric_next))
        elif letter in _YEARS:
            field, signed = _YEARS[letter]
            out.append(("number", field, n if numeric_next else 9, signed))
        elif letter == "S":
            out.append(("fraction", min(n, 18)))
        elif letter in _TEXT_FIELDS and (letter != "M" or n >= 3):
            out.append(("text",) + _TEXT_FIELDS[letter])
        elif letter in _NUMBERS:
            field, most, signed = _NUMBERS[letter]
            out.append(("number", field, max(n, most), signed))
        elif letter == "z":
            out.append(("zone_name",))
        elif letter == "Z":
            out.append(("offset",) if n <= 2 else ("zone_id",))
        else:  # pragma: no cover - compile_pattern refuses the rest
            raise JodaParseError(f"pattern letter {letter!r}")
    return tuple(out)


def _number(text: str, pos: int, most: int, signed: bool) -> tuple[int, int]:
    """NumberFormatter.parseInto: up to ``most`` digits (a sign first, not counted, where signed)."""
    limit = min(most, len(text) - pos)
    length, sign = 0, 0
    while length < limit:
        c = text[pos + length]
        if length == 0 and signed and c in "+-":
            if length + 1 >= limit or not "0" <= text[pos + 1] <= "9":
                break
            sign = -1 if c == "-" else 1
            length += 1
            limit = min(limit + 1, len(text) - pos)
            continue
        if not "0" <= c <= "9":
            break
        length += 1
    if length == 0 or (sign and length == 1):
        raise JodaParseError(f"a number expected at {pos}")
    digits = text[pos + (1 if sign else 0):pos + length]
    value = int(digits) * (-1 if sign < 0 else 1)
    if length >= 9 and not -2**31 <= value < 2**31:  # Integer.parseInt's NumberFormatException
        raise JodaParseError(f"{digits!r} is beyond an int")
    return value, pos + length


def _two_digit(text: str, pos: int, lenient: bool, field: str) -> tuple[int, int]:
    """TwoDigitYear.parseInto: two digits around the pivot (this year - 30, as Joda's pattern sets it), or,
    lenient (no number after it in the pattern), any other count of digits or a sign as the year itself."""
    if lenient:
        length, start = 0, pos
        signed = pos < len(text) and text[pos] in "+-"
        if signed:
            length = 1
        while start + length < len(text) and "0" <= text[start + length] <= "9":
            length += 1
        digits = length - (1 if signed else 0)
        if digits == 0:
            raise JodaParseError(f"a year expected at {pos}")
        if signed or digits != 2:
            value = int(text[pos + (1 if signed and text[pos] == "+" else 0):pos + length])
            if digits >= 9 and not -2**31 <= value < 2**31:
                raise JodaParseError("a year beyond an int")
            return value, pos + length
    if pos + 2 > len(text) or not text[pos:pos + 2].isascii() or not text[pos:pos + 2].isdigit():
        raise JodaParseError(f"two digits expected at {pos}")
    year = int(text[pos:pos + 2])
    now = _dt.datetime.now(_dt.timezone.utc).date()
    pivot = (now.isocalendar()[0] if field == "weekyear" else now.year) - 30
    low = pivot - 50
    t = low % 100 if low >= 0 else 99 + ((low + 1) % 100)  # (Java's %, low < 0 never in practice)
    return year + low + (100 if year < t else 0) - t, pos + 2


def _literal(text: str, pos: int, literal: str) -> int:
    """A literal compares ignoring case (Character.toUpperCase, then toLowerCase)."""
    for k, b in enumerate(literal):
        if pos + k >= len(text):
            raise JodaParseError(f"{literal!r} expected at {pos}")
        a = text[pos + k]
        if a != b and a.upper() != b.upper() and a.lower() != b.lower():
            raise JodaParseError(f"{literal!r} expected at {pos}")
    return pos + len(literal)


def _zone_ids() -> frozenset[str]:
    from .joda_format import _zone_tables
    return frozenset(_zone_tables()[0]) | {"UTC"}


def parse_local(text: str, pattern: str) -> tuple[int, int | None, str | None]:
    """(local millis, a parsed offset in ms or None, a parsed zone id or None) of a text Joda's parser takes."""
    saved: list[tuple[str, int]] = []
    offset, zone, pos = None, None, 0
    for element in _elements(pattern):
        kind = element[0]
        if kind == "literal":
            pos = _literal(text, pos, element[1])
        elif kind == "number":
            value, pos = _number(text, pos, element[2], element[3])
            saved.append((element[1], value))
        elif kind == "two":
            value, pos = _two_digit(text, pos, element[2], element[1])
            saved.append((element[1], value))
        elif kind == "fraction":
            end = pos
            while end < min(len(text), pos + element[1]) and "0" <= text[end] <= "9":
                end += 1
            if end == pos:
                raise JodaParseError(f"a fraction expected at {pos}")
            saved.append(("millisOfSecond", int((text[pos:end] + "00")[:3])))
            pos = end
        elif kind == "text":
            field, valid = element[1], element[2]
            longest = max(map(len, valid))
            for end in range(min(len(text), pos + longest), pos, -1):
                if text[pos:end] in valid:
                    saved.append((field, valid[text[pos:end]]))
                    pos = end
                    break
            else:
                raise JodaParseError(f"no {field} text at {pos}")
        elif kind == "offset":
            match = _OFFSET.match(text, pos)
            if not match:
                raise JodaParseError(f"an offset expected at {pos}")
            found = match.group(0)
            digits = found[1:].replace(":", "")
            offset = 0 if found in "Zz" else (-1 if found[0] == "-" else 1) * (
                int(digits[:2]) * 3_600_000 + int(digits[2:]) * 60_000)
            pos = match.end()
        else:
            names = _ZONE_NAMES if kind == "zone_name" else {z: z for z in _zone_ids()}
            found = max((name for name in names if text.startswith(name, pos)), key=len, default=None)
            if found is None:
                raise JodaParseError(f"a zone expected at {pos}")
            zone, pos = names[found], pos + len(found)
    if pos != len(text):
        raise JodaParseError(f"{text!r} is malformed at {text[pos:]!r}")
    return compute_millis(saved), offset, zone


def parse_millis(text: str, pattern: str, time_zone: str) -> int:
    """The instant (UTC millis) of ``text`` by the pattern in ``time_zone`` (a parsed offset or zone wins). A local
    time in a gap of the formatter's zone moves forward by the gap (Pinot's DateTimePatternHandler falls back
    to ``convertLocalToUTC(local, false)``); in a gap of a parsed zone the parse fails; in an overlap the earlier
    instant (Joda's ``getOffsetFromLocal``)."""
    from .joda_zones import from_local, to_local
    local, offset, zone = parse_local(text, pattern)
    if offset is not None:
        return local - offset
    target = zone or time_zone
    if target == "UTC":
        return local
    instant = int(from_local(np.array([local], np.int64), target)[0])
    if zone is not None and int(to_local(np.array([instant], np.int64), target)[0]) != local:
        raise JodaParseError(f"{text!r}: a local time in a gap of {zone}")
    return instant
