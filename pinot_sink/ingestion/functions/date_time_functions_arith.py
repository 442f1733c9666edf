"""Calendar arithmetic on epoch millis (DateTimeFunctions.timestampAdd / timestampDiff), as Joda's
UTC ISO chronology does it (``DateTimeUtils.getTimestampField``).

The unit is ``unit.toLowerCase()`` of ``millisecond, second, minute, hour, day, week, month, quarter, year``
(singular only; anything else throws ``IllegalArgumentException`` on the row). Units up to ``week`` are fixed
lengths in UTC: adding is ``safeAdd(t, safeMultiply(n, unit))`` and the difference
``safeSubtract(t2, t1) / unit`` (truncated), both throwing ``ArithmeticException`` on long overflow.
``month`` / ``quarter`` / ``year`` move the calendar month or year keeping the day (clamped to the month's
last day: Jan 31 + 1 month is Feb 28/29) and the time of day; their difference counts whole months / years as
Joda's ``getDifferenceAsLong`` does (a last-of-month minuend matches a later day of the subtrahend's month).
A month add within an int wraps like Joda's long arithmetic (no range check there); beyond an int, or a year
add, a year outside Joda's range (-292275054..292278993) throws, as does a negative month difference beyond an int (Joda negates its int ``getDifference``). Years are proleptic Gregorian with a year 0, on
Python integers, so Long.MIN/MAX instants work as in Joda.
"""
from __future__ import annotations

import re

import pyarrow as pa

from type_mapping.pinot_schema import LONG_MAX, LONG_MIN

from ..values import Context, Value, to_long, to_string
from .registry import scalar_function
from .rowwise import JavaThrows, per_row

DAY = 86_400_000
PRECISE = {"millisecond": 1, "second": 1000, "minute": 60_000, "hour": 3_600_000, "day": DAY, "week": 7 * DAY}
MIN_YEAR, MAX_YEAR = -292_275_054, 292_278_993
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_FEB_29 = (31 + 29 - 1) * DAY


def _unit(text: str) -> str:
    unit = text.lower()
    if unit not in PRECISE and unit not in ("month", "quarter", "year"):
        raise JavaThrows(f"IllegalArgumentException: '{text}' is not a valid Timestamp field")
    return unit


def _check_long(value: int, what: str) -> int:
    if not LONG_MIN <= value <= LONG_MAX:
        raise JavaThrows(f"ArithmeticException: {what} overflows a long")
    return value


def days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z: int) -> tuple[int, int, int]:
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return y + (m <= 2), m, d


def is_leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def days_in_month(y: int, m: int) -> int:
    if m == 2:
        return 29 if is_leap(y) else 28
    return 30 if m in (4, 6, 9, 11) else 31


def _split(millis: int) -> tuple[int, int, int, int]:
    days, time = divmod(millis, DAY)
    y, m, d = civil_from_days(days)
    return y, m, d, time


def _year_bounds(year: int, amount: int) -> None:
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise JavaThrows(f"IllegalFieldValueException: year {year} out of Joda's range (adding {amount})")


def add_months(millis: int, months: int) -> int:
    if months == 0:
        return millis
    y, m, d, time = _split(millis)
    total = y * 12 + (m - 1) + months
    ny, nm = divmod(total, 12)
    nm += 1
    if _INT_MIN <= months <= _INT_MAX:  # Joda's int path checks no bounds: its long arithmetic wraps
        return _wrap(days_from_civil(ny, nm, min(d, days_in_month(ny, nm))) * DAY + time)
    _year_bounds(ny, months)
    return days_from_civil(ny, nm, min(d, days_in_month(ny, nm))) * DAY + time


def add_years(millis: int, years: int) -> int:
    if not -(2**31) <= years < 2**31:
        raise JavaThrows("ArithmeticException: Value cannot fit in an int")
    if years == 0:
        return millis
    y, m, d, time = _split(millis)
    ny = y + years
    if not -(2**31) <= ny < 2**31:
        raise JavaThrows("ArithmeticException: The calculation caused an overflow")
    _year_bounds(ny, years)
    return days_from_civil(ny, m, min(d, days_in_month(ny, m))) * DAY + time


def timestamp_add(unit: str, interval: int, millis: int) -> int:
    unit = _unit(unit)
    if unit in PRECISE:
        return _check_long(millis + _check_long(interval * PRECISE[unit], "the interval"), "the sum")
    if unit == "month":
        return add_months(millis, interval)
    if unit == "quarter":
        return add_months(millis, _check_long(interval * 3, "the interval"))
    return add_years(millis, interval)


def _year_millis(y: int) -> int:
    return days_from_civil(y, 1, 1) * DAY


def month_difference(minuend: int, subtrahend: int) -> int:
    if minuend < subtrahend:  # Joda negates getDifference here, an int (safeToInt throws beyond it)
        difference = month_difference(subtrahend, minuend)
        if difference > _INT_MAX:
            raise JavaThrows(f"ArithmeticException: Value cannot fit in an int: {difference}")
        return -difference
    my, mm, md, _ = _split(minuend)
    sy, sm, sd, _ = _split(subtrahend)
    difference = (my - sy) * 12 + mm - sm
    if md == days_in_month(my, mm) and sd > md:  # a last-of-month minuend: the subtrahend's day is set to it
        subtrahend = days_from_civil(sy, sm, md) * DAY + subtrahend % DAY
    minuend_rem = minuend - days_from_civil(my, mm, 1) * DAY
    subtrahend_rem = subtrahend - days_from_civil(sy, sm, 1) * DAY
    return difference - 1 if minuend_rem < subtrahend_rem else difference


def year_difference(minuend: int, subtrahend: int) -> int:
    if minuend < subtrahend:
        return -year_difference(subtrahend, minuend)
    my, sy = _split(minuend)[0], _split(subtrahend)[0]
    minuend_rem = minuend - _year_millis(my)
    subtrahend_rem = subtrahend - _year_millis(sy)
    if subtrahend_rem >= _FEB_29:  # balance the leap day
        if is_leap(sy):
            if not is_leap(my):
                subtrahend_rem -= DAY
        elif minuend_rem >= _FEB_29 and is_leap(my):
            minuend_rem -= DAY
    difference = my - sy
    return difference - 1 if minuend_rem < subtrahend_rem else difference


def timestamp_diff(unit: str, first: int, second: int) -> int:
    unit = _unit(unit)
    if unit in PRECISE:
        difference = _check_long(second - first, "the difference")
        quotient = abs(difference) // PRECISE[unit]
        return quotient if difference >= 0 else -quotient
    if unit == "month":
        return month_difference(second, first)
    if unit == "quarter":
        months = month_difference(second, first)
        return abs(months) // 3 * (1 if months >= 0 else -1)
    return year_difference(second, first)


@scalar_function("timestampAdd", "dateAdd", arity=3, literal_args=(0,))
def _timestamp_add(ctx: Context, args: list[Value]) -> Value:
    unit, interval, millis = to_string(args[0], ctx), to_long(args[1], ctx), to_long(args[2], ctx)
    return per_row(ctx, timestamp_add, pa.int64(), unit, interval, millis)


@scalar_function("timestampDiff", "dateDiff", arity=3, literal_args=(0,))
def _timestamp_diff(ctx: Context, args: list[Value]) -> Value:
    unit, first, second = to_string(args[0], ctx), to_long(args[1], ctx), to_long(args[2], ctx)
    return per_row(ctx, timestamp_diff, pa.int64(), unit, first, second)


def _wrap(value: int) -> int:
    return (value - LONG_MIN) % 2**64 + LONG_MIN


_PERIOD = re.compile(r"(?:([+-]?\d+)d)?(?:([+-]?\d+)h)?(?:([+-]?\d+)m)?(?:([+-]?\d+)s)?", re.IGNORECASE)


def period_to_millis(text: str) -> int:
    """``TimeUtils.convertPeriodToMillis``: Joda's ``1d2h3m4s`` form (each part optional, in that order, any case)."""
    match = _PERIOD.fullmatch(text)
    if match is None or any(g is not None and not _INT_MIN <= int(g) <= _INT_MAX for g in match.groups()):
        raise JavaThrows(f"IllegalArgumentException: Invalid time spec '{text}' (Valid examples: '3h', '4h30m')")
    days, hours, minutes, seconds = (int(g) if g is not None else 0 for g in match.groups())
    return (((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000


def date_bin(width: str, source: int, origin: int) -> int:
    """``dateBin``: ``origin + width * ((source - origin) / width)`` in Java longs (truncated toward zero, so a
    source before the origin lands on the bin boundary above it)."""
    bin_width = _wrap(period_to_millis(width))
    if bin_width == 0:
        raise JavaThrows("ArithmeticException: / by zero")
    offset = _wrap(source - origin)
    count = abs(offset) // abs(bin_width) * (1 if (offset >= 0) == (bin_width > 0) else -1)
    return _wrap(origin + _wrap(bin_width * _wrap(count)))


@scalar_function("dateBin", arity=3, literal_args=(0,))
def _date_bin(ctx: Context, args: list[Value]) -> Value:
    # java.sql.Timestamp parameters: PinotDataType's conversion (an INT fails the row, a DOUBLE is its longValue...)
    from .data_type_conversion_functions import timestamp_argument

    width, source, origin = to_string(args[0], ctx), timestamp_argument(args[1], ctx), timestamp_argument(args[2], ctx)
    return per_row(ctx, date_bin, pa.int64(), width, source, origin)
