"""Property tests: the vectorised paths against independent per-value oracles."""
from __future__ import annotations

import datetime as dt

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from type_mapping.convert import convert_column
from type_mapping.datetime_formats import millis_to_format, parse_format
from type_mapping.java_text import big_decimal_string as to_java_string
from type_mapping.java_text import to_decimal
from type_mapping.pinot_schema import FieldSpec

SETTINGS = settings(max_examples=150, deadline=None)


def _strip(unscaled: int, scale: int) -> tuple[int, int]:
    """Java ``stripTrailingZeros`` on (unscaled, scale); zero becomes BigDecimal.ZERO."""
    if unscaled == 0:
        return 0, 0
    while unscaled % 10 == 0:
        unscaled //= 10
        scale -= 1
    return unscaled, scale


@SETTINGS
@given(scale=st.integers(0, 20), data=st.data())
def test_big_decimal_text_matches_java(scale, data):
    precision = 38
    bound = 10 ** (precision) - 1
    unscaled = data.draw(st.lists(st.one_of(st.integers(-bound, bound), st.sampled_from([0, 1, -1, 10, 100, 1200])),
                                  min_size=1, max_size=20))
    values = [to_decimal(u, scale) for u in unscaled]  # exact: no 28-digit context rounding
    array = pa.array(values, pa.decimal128(precision, scale))
    stripped, _ = convert_column(array, FieldSpec("c", "BIG_DECIMAL"))
    kept, _ = convert_column(array, FieldSpec("c", "BIG_DECIMAL", allow_trailing_zeros=True))
    assert stripped.to_pylist() == [to_java_string(_strip(u, scale)) for u in unscaled]
    assert kept.to_pylist() == [to_java_string((u, scale)) for u in unscaled]


def _java_div(a: int, b: int) -> int:
    q = abs(a) // b
    return -q if a < 0 else q


@SETTINGS
@given(millis=st.lists(st.integers(-(2**45), 2**45), min_size=1, max_size=30),
       unit=st.sampled_from(["MILLISECONDS", "SECONDS", "MINUTES", "HOURS", "DAYS"]), size=st.integers(1, 15))
def test_epoch_formats_match_java_division(millis, unit, size):
    per_unit = {"MILLISECONDS": 1, "SECONDS": 1000, "MINUTES": 60_000, "HOURS": 3_600_000, "DAYS": 86_400_000}[unit]
    out = millis_to_format(pa.array(millis, pa.int64()), parse_format(f"{size}:{unit}:EPOCH"))
    assert out.to_pylist() == [_java_div(_java_div(m, per_unit), size) for m in millis]


@SETTINGS
@given(millis=st.lists(st.integers(-(2**41), 2**42), min_size=1, max_size=30))
def test_date_patterns_match_python_strftime(millis):
    fmt = parse_format("SIMPLE_DATE_FORMAT|yyyy-MM-dd HH:mm:ss.SSS EEE MMMM a D")
    got = millis_to_format(pa.array(millis, pa.int64()), fmt).to_pylist()
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    expected = []
    for m in millis:
        t = epoch + dt.timedelta(milliseconds=m)
        expected.append(f"{t.year:04d}-{t:%m-%d %H:%M:%S}.{t.microsecond // 1000:03d} {t:%a %B %p} "
                        f"{t.timetuple().tm_yday}")
    assert got == expected


@SETTINGS
@given(values=st.lists(st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True, width=64)),
                       min_size=1, max_size=40))
def test_double_normalisation_matches_per_value_rule(values):
    out, mask = convert_column(pa.array(values, pa.float64()), FieldSpec("c", "DOUBLE"))
    for value, got, is_null in zip(values, out.to_pylist(), mask.tolist()):
        if value is None or value != value:
            assert is_null and got == float("-inf")
        else:
            assert not is_null and got == value and not (got == 0 and np.signbit(got))


@SETTINGS
@given(rows=st.lists(st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1)),
                                                    max_size=5)), min_size=1, max_size=30))
def test_multi_value_matches_per_row_rule(rows):
    out, mask = convert_column(pa.array(rows, pa.list_(pa.int64())), FieldSpec("c", "INT", single_value=False))
    for row, got, is_null in zip(rows, out.to_pylist(), mask.tolist()):
        kept = [v for v in (row or []) if v is not None]
        assert is_null == (not kept)
        assert got == (kept or [-(2**31)])
