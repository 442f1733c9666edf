"""Java's integer rules (``type_mapping.java_numbers``) and TimeUnit conversions, against Python integers."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from type_mapping import datetime_formats as dtf
from type_mapping.java_numbers import java_long_div, saturating_multiply

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
LONGS = st.integers(LONG_MIN, LONG_MAX)
UNIT_NANOS = {"NANOSECONDS": 1, "MICROSECONDS": 10**3, "MILLISECONDS": 10**6, "SECONDS": 10**9,
              "MINUTES": 60 * 10**9, "HOURS": 3_600 * 10**9, "DAYS": 86_400 * 10**9}


def java_div(a: int, b: int) -> int:
    if a == LONG_MIN and b == -1:
        return LONG_MIN  # the one quotient that overflows wraps back
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def saturate(v: int) -> int:
    return max(LONG_MIN, min(LONG_MAX, v))


def time_unit_convert(value: int, source_nanos: int, target_nanos: int) -> int:
    """java.util.concurrent.TimeUnit.convert: a truncating quotient, or a product that saturates."""
    if source_nanos >= target_nanos:
        return saturate(value * (source_nanos // target_nanos))
    return java_div(value, target_nanos // source_nanos)


@given(st.lists(LONGS, min_size=1, max_size=30), st.one_of(st.sampled_from([-1, 1, 7, LONG_MIN, LONG_MAX]),
                                                            LONGS.filter(lambda v: v != 0)))
@settings(deadline=None)  # timings vary with the machine's load; never a timed test
def test_long_division_truncates_toward_zero(values, divisor):
    a = np.array(values, dtype=np.int64)
    assert java_long_div(a, divisor).tolist() == [java_div(v, divisor) for v in values]


@given(st.lists(LONGS, min_size=1, max_size=30), st.integers(1, 10**12))
@settings(deadline=None)
def test_time_unit_scaling_saturates(values, factor):
    assert saturating_multiply(np.array(values, dtype=np.int64), factor).tolist() == \
        [saturate(v * factor) for v in values]


@given(st.lists(LONGS, min_size=1, max_size=30), st.sampled_from(list(UNIT_NANOS)))
@settings(deadline=None)
def test_unit_to_millis_and_back_follow_time_unit(values, unit):
    a = np.array(values, dtype=np.int64)
    assert dtf.unit_to_millis(a, unit).tolist() == [time_unit_convert(v, UNIT_NANOS[unit], 10**6) for v in values]
    assert dtf.millis_to_unit(a, unit).tolist() == [time_unit_convert(v, 10**6, UNIT_NANOS[unit]) for v in values]


@given(st.lists(LONGS, min_size=1, max_size=30), st.sampled_from(list(UNIT_NANOS)), st.integers(1, 30))
@settings(deadline=None)
def test_millis_into_an_epoch_format_at_the_extremes(values, unit, size):
    """Long.MIN_VALUE and sub-millisecond units used to come out with the wrong sign or wrapped."""
    fmt = dtf.parse_format(f"{size}:{unit}:EPOCH")
    out = dtf.millis_to_format(pa.array(values, pa.int64()), fmt).to_pylist()
    assert out == [java_div(time_unit_convert(v, 10**6, UNIT_NANOS[unit]), size) for v in values]
