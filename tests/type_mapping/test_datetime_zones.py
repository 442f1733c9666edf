"""Time zones in ``type_mapping.datetime_formats``: Arrow's tables up to 2037, the zone's rule after, as Joda."""
from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from type_mapping import datetime_formats as dtf
from type_mapping import joda_format, joda_zones

ZONES = ["America/Los_Angeles", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"]
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
# 1950 .. 9998: where Python's zoneinfo is the reference (before ~1950 some zones have local mean time offsets
# with seconds, which Arrow rounds)
MILLIS = st.integers(-631_152_000_000, 253_370_764_800_000)


def python_local(millis: int, zone: str) -> dt.datetime:
    return (EPOCH + dt.timedelta(milliseconds=millis)).astimezone(ZoneInfo(zone))


@given(st.lists(MILLIS, min_size=1, max_size=40), st.sampled_from(ZONES))
@settings(deadline=None)  # timings vary with the machine's load; never a timed test
def test_to_local_and_back_follow_the_zones_rule_before_and_after_2037(values, zone):
    local = joda_zones.to_local(np.array(values, dtype=np.int64), zone)
    for v, got in zip(values, local.tolist()):
        offset = python_local(v, zone).utcoffset()
        assert got == v + int(offset.total_seconds() * 1000)
    # back: the same instant, or in an overlap the earlier one that shows the same wall clock
    assert joda_zones.to_local(joda_zones.from_local(local, zone), zone).tolist() == local.tolist()
    assert all(u <= v for u, v in zip(joda_zones.from_local(local, zone).tolist(), values))


@given(st.lists(MILLIS, min_size=1, max_size=30), st.sampled_from(ZONES))
@settings(deadline=None)
def test_printing_after_2037_uses_the_zones_rule(values, zone):
    """Arrow's tables end in 2037: a summer instant of 2040 printed as if it were winter was an hour off."""
    out = joda_format.print_pattern(pa.array(values, pa.timestamp("ms", tz="UTC")), "yyyy-MM-dd HH:mm:ss Z ZZ ZZZ",
                            zone).to_pylist()
    for v, text in zip(values, out):
        local = python_local(v, zone)
        z = local.strftime("%z")
        assert text == f"{local.year:04d}-{local:%m-%d %H:%M:%S} {z} {z[:3]}:{z[3:]} {zone}"


def test_a_simple_date_format_column_in_a_zone_after_2037():
    fmt = dtf.parse_format("1:HOURS:SIMPLE_DATE_FORMAT:yyyy-MM-dd HH tz(America/New_York)")
    july_2040 = int(dt.datetime(2040, 7, 1, 12, tzinfo=dt.timezone.utc).timestamp() * 1000)
    assert dtf.millis_to_format(pa.array([july_2040, None], pa.int64()), fmt).to_pylist() == ["2040-07-01 08", None]


def test_instants_beyond_year_9999_take_the_rule_of_the_same_400_year_cycle():
    """Joda goes on past 9999, Python cannot: the Gregorian calendar and a zone's DST rule repeat every
    400 years, so an instant is read in the year of its cycle between 2400 and 2800."""
    cycle = 146_097 * 86_400_000
    summer_2500 = int(dt.datetime(2500, 7, 1, 12, tzinfo=dt.timezone.utc).timestamp() * 1000)
    far = np.array([summer_2500 + 20 * cycle, summer_2500 + 20 * cycle + 182 * 86_400_000], dtype=np.int64)
    local = joda_zones.to_local(far, "America/Los_Angeles")
    assert (local - far).tolist() == [-7 * 3_600_000, -8 * 3_600_000]  # PDT in July, PST in December
    assert joda_zones.from_local(local, "America/Los_Angeles").tolist() == far.tolist()
