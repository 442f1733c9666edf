"""Joda-Time's ISO chronology over the whole long range of millis: the proleptic Gregorian calendar's fields
(``calendar_field``), days from and to civil dates, rounding down to a unit, Joda's week-year, with Java's
``long`` wrap-around near its ends. Split from datetime_formats.py (Pinot's dateTime formats), which uses it.
"""
from __future__ import annotations

import numpy as np

MILLIS_PER_DAY = 86_400_000


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
