"""datetime_formats as the one dateTime parser: Pinot's format spellings, Joda's parseMillis, Pinot's zones."""
from __future__ import annotations

import logging

import pyarrow as pa
import pytest

from type_mapping.datetime_formats import (DateTimeFormatError, java_time_zone, millis_to_format, parse_format,
                                           parse_simple_date)

JAN_1_2024 = 1_704_067_200_000
HOUR = 3_600_000


@pytest.mark.parametrize("zone, expected", [
    ("UTC", "UTC"), ("GMT", "UTC"), ("America/Chicago", "America/Chicago"),
    ("CST", "America/Chicago"), ("EST", "America/New_York"), ("IST", "Asia/Kolkata"), ("ECT", "CET"),
    ("GMT+7", "+07:00"), ("GMT+0730", "+07:30"), ("GMT-07:00", "-07:00"), ("GMT+00:00", "UTC"),
])
def test_java_time_zone(zone, expected):
    assert java_time_zone(zone) == expected


@pytest.mark.parametrize("zone", ["+07:00", "Mars/Olympus", "utc", "GMT+24"])
def test_zones_java_does_not_know_are_utc_with_a_warning(zone, caplog):
    java_time_zone.cache_clear()
    with caplog.at_level(logging.WARNING):
        assert java_time_zone(zone) == "UTC"
    assert zone in caplog.text


@pytest.mark.parametrize("fmt", [
    "1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd tz(Asia/Tokyo)", "1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd tz ( Asia/Tokyo ) ",
    "SIMPLE_DATE_FORMAT|yyyyMMdd|Asia/Tokyo", "SIMPLE_DATE_FORMAT|yyyyMMdd tz(Asia/Tokyo)",
    "SIMPLE_DATE_FORMAT|yyyyMMdd|JST",
])
def test_both_spellings_carry_the_zone(fmt):
    parsed = parse_format(fmt)
    assert (parsed.pattern, parsed.time_zone) == ("yyyyMMdd", "Asia/Tokyo")
    assert parse_simple_date("20240101", parsed) == JAN_1_2024 - 9 * HOUR


@pytest.mark.parametrize("pattern, text, millis", [
    ("yyyyMMdd", "20240101", JAN_1_2024),
    ("yyyy-MM-dd HH:mm:ss.SSS", "2024-01-01 01:02:03.5", JAN_1_2024 + HOUR + 123_500),
    ("yyyy-M-d H:m", "2024-1-1 1:0", JAN_1_2024 + HOUR),
    ("dd MMM yyyy hh a", "01 jan 2024 12 PM", JAN_1_2024 + 12 * HOUR),
    ("EEE, dd MMMM yyyy", "Mon, 01 January 2024", JAN_1_2024),
    ("yyyyDDD", "2024032", JAN_1_2024 + 31 * 24 * HOUR),
    ("yyyy-MM-dd'T'HH:mmZ", "2024-01-01T09:00+0900", JAN_1_2024),  # a parsed offset wins over the zone
    ("yyyyMMddHH", "2024010124", None),  # hour 24 is not an hour of day
    ("yyyyMMdd", "20240230", None),
    ("yyyyMMdd", "2024-01-01", None),
])
def test_parse_simple_date_is_jodas_parse_millis(pattern, text, millis):
    fmt = parse_format(f"SIMPLE_DATE_FORMAT|{pattern}")
    if millis is None:
        with pytest.raises(DateTimeFormatError):
            parse_simple_date(text, fmt)
    else:
        assert parse_simple_date(text, fmt) == millis


def test_without_a_pattern_the_iso_parser():
    fmt = parse_format("1:DAYS:SIMPLE_DATE_FORMAT")
    assert parse_simple_date("2024-01-01", fmt) == JAN_1_2024
    assert parse_simple_date("2024-01-01T01:00:00.250+01:00", fmt) == JAN_1_2024 + 250


def test_parse_is_the_inverse_of_printing_in_a_zone():
    for fmt_text in ("SIMPLE_DATE_FORMAT|yyyy-MM-dd HH:mm:ss.SSS|America/New_York",
                     "1:MILLISECONDS:SIMPLE_DATE_FORMAT:yyyyMMddHHmmssSSS tz(GMT+0530)"):
        fmt = parse_format(fmt_text)
        millis = [JAN_1_2024 + 7, JAN_1_2024 + 200 * 24 * HOUR + 3_723_456, -86_400_000 * 365 + 1]
        printed = millis_to_format(pa.array(millis, pa.int64()), fmt).to_pylist()
        assert [parse_simple_date(text, fmt) for text in printed] == millis


def test_two_digit_years_pivot_like_joda():
    fmt = parse_format("SIMPLE_DATE_FORMAT|yy-MM-dd")
    assert parse_simple_date("24-01-01", fmt) == JAN_1_2024
    assert parse_simple_date("2024-01-01", fmt) == JAN_1_2024  # lenient: a full year is taken as it is


def test_zone_names_parse_jodas_default_names_only():
    # (appendTimeZoneShortName(null): DateTimeUtils' default names, PST is Los Angeles' zone, not a fixed -8)
    assert parse_simple_date("2024 PST", parse_format("SIMPLE_DATE_FORMAT|yyyy z")) == JAN_1_2024 + 8 * HOUR
    with pytest.raises(DateTimeFormatError, match="does not match"):
        parse_simple_date("2024 CET", parse_format("SIMPLE_DATE_FORMAT|yyyy z"))
