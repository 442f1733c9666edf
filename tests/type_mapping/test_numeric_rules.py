"""Every numeric Spark type into every numeric Pinot type, against Java's rules computed exactly.

Pinot converts with ``Number.intValue/longValue/floatValue/doubleValue`` and ``BigDecimal.valueOf``
(PinotDataType): one rounding of the exact value, to nearest, ties to even. The oracles here use exact
rationals (``fractions.Fraction``) and integer arithmetic only, never the floating-point paths under test.
Values a double or float cannot hold are drawn on purpose: decimals a hair off a float's midpoint (where
rounding through a double first gives the wrong float), longs beyond 2^53, decimals whose power of ten
is not exact in binary (76.10).
"""
from __future__ import annotations

import decimal
import math
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from type_mapping.compat import ConversionError
from type_mapping.convert import ConversionOptions, convert_column
from type_mapping.java_numbers import java_double_value, java_float_value, nearest_float32
from type_mapping.pinot_schema import FieldSpec

SETTINGS = settings(max_examples=120, deadline=None)
# out-of-range and fractional values become null, so every row has an answer to compare
LENIENT = ConversionOptions(on_overflow="null", on_fraction="truncate")
INTEGER_TYPES = {pa.int8(): 8, pa.int16(): 16, pa.int32(): 32, pa.int64(): 64}
WIDE = decimal.Context(prec=100)  # Decimal's default 28 digits would round a decimal(38, s)
BOUNDS = {"INT": (-2**31, 2**31 - 1), "LONG": (-2**63, 2**63 - 1)}


# --- oracles: exact arithmetic only ---------------------------------------------------------------


def java_double(x: Fraction) -> float:
    """``BigDecimal.doubleValue()`` / ``(double)``: CPython's int / int true division rounds the exact
    quotient once, to nearest even; beyond Double.MAX_VALUE Java gives Infinity."""
    try:
        return x.numerator / x.denominator
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def java_float(x: Fraction) -> float:
    """``BigDecimal.floatValue()`` / ``(float)``: the exact value rounded to a 24-bit significand
    (subnormals: a fixed exponent of -149), ties to even, Infinity from 2^128 on. Integer arithmetic."""
    if x == 0:
        return 0.0
    sign, a = (1 if x > 0 else -1), abs(x)
    exponent = a.numerator.bit_length() - a.denominator.bit_length() - 24
    while a / Fraction(2) ** exponent >= 2**24:
        exponent += 1
    while a / Fraction(2) ** exponent < 2**23:
        exponent -= 1
    exponent = max(exponent, -149)
    scaled = a / Fraction(2) ** exponent
    whole, rest = divmod(scaled.numerator, scaled.denominator)
    if 2 * rest > scaled.denominator or (2 * rest == scaled.denominator and whole % 2):
        whole += 1
    result = whole * Fraction(2) ** exponent
    if result >= 2**128:
        return sign * math.inf
    return sign * float(result)


def exact(value) -> Fraction:
    return Fraction(value)  # ints, floats and Decimals are all exact rationals


def expected(value, data_type: str, source: pa.DataType):
    """What Pinot stores for one non-null source value (None: null, i.e. the default, masked)."""
    if isinstance(value, float) and math.isnan(value):
        return None  # NaN is null (SpecialValueTransformer); into integers too
    if data_type == "BIG_DECIMAL":
        # BigDecimal.valueOf(double) takes Double.toString's digits; a float is widened first
        return Fraction(decimal.Decimal(repr(float(value)))) if isinstance(value, float) else exact(value)
    if isinstance(value, float) and math.isinf(value):
        return value if data_type in ("FLOAT", "DOUBLE") else None
    x = exact(value)
    if data_type in ("INT", "LONG"):
        whole = math.trunc(x)  # (int) / (long): toward zero, in range
        lo, hi = BOUNDS[data_type]
        return whole if lo <= whole <= hi else None
    rounded = java_double(x) if data_type == "DOUBLE" else java_float(x)
    if math.isinf(rounded):
        return None  # beyond FLOAT's range: convert.on-overflow (null here)
    return rounded + 0.0  # -0.0 is stored as 0.0


# --- sources --------------------------------------------------------------------------------------


@st.composite
def float_midpoint_decimal(draw, scale: int):
    """A decimal within a few units of its last digit of a float's midpoint (a 25-bit odd significand
    times a power of two), where rounding through the nearest double goes wrong."""
    power = draw(st.integers(-scale, 40))
    significand = draw(st.integers(2**24, 2**25 - 1).filter(lambda m: m % 2))
    midpoint = significand * Fraction(2) ** power
    unscaled = midpoint * 10**scale
    nudge = draw(st.sampled_from([-2, -1, 1, 2]))
    return decimal.Decimal(math.floor(unscaled) + nudge).scaleb(-scale, WIDE)


@st.composite
def source_column(draw):
    kind = draw(st.sampled_from(["int", "float32", "float64", "decimal"]))
    if kind == "int":
        arrow_type = draw(st.sampled_from(list(INTEGER_TYPES)))
        bits = INTEGER_TYPES[arrow_type]
        edge = [0, 1, -1, 2**(bits - 1) - 1, -2**(bits - 1), 2**53 + 1, 2**60 + 2**36 + 1, -(2**62 + 2**38 + 1)]
        value = st.one_of(st.integers(-2**(bits - 1), 2**(bits - 1) - 1),
                          st.sampled_from([e for e in edge if -2**(bits - 1) <= e < 2**(bits - 1)]))
    elif kind == "float32":
        arrow_type = pa.float32()
        value = st.floats(width=32)
    elif kind == "float64":
        arrow_type = pa.float64()
        value = st.one_of(st.floats(), st.sampled_from([3.4028235677973366e38, 3.4028235677973362e38, 1e300,
                                                        2.0**31 - 0.5, -2.0**63, 2.0**63]))
    else:
        precision = draw(st.integers(1, 38))
        scale = draw(st.integers(0, precision))
        arrow_type = pa.decimal128(precision, scale)
        bound = 10**precision - 1
        value = st.one_of(st.integers(-bound, bound).map(lambda u: decimal.Decimal(u).scaleb(-scale, WIDE)),
                          float_midpoint_decimal(scale).filter(
                              lambda d: abs(d.scaleb(scale, WIDE)) <= bound))
    values = draw(st.lists(st.one_of(st.none(), value), min_size=1, max_size=12))
    return values, arrow_type


def _as_arrow(values, arrow_type):
    if pa.types.is_decimal(arrow_type):
        scale = arrow_type.scale
        values = [None if v is None else v.quantize(decimal.Decimal(1).scaleb(-scale, WIDE),
                                                    context=WIDE) for v in values]
    return pa.array(values, arrow_type)


@pytest.mark.parametrize("data_type", ["INT", "LONG", "FLOAT", "DOUBLE", "BIG_DECIMAL"])
@SETTINGS
@given(column=source_column())
@example(column=([decimal.Decimal("76.10")], pa.decimal128(10, 2)))
@example(column=([2**60 + 2**36 + 1], pa.int64()))
def test_every_numeric_type_into_every_pinot_numeric_type(data_type, column):
    values, arrow_type = column
    if data_type == "BIG_DECIMAL" and any(isinstance(v, float) and not math.isfinite(v) for v in values):
        with pytest.raises(ConversionError, match="BIG_DECIMAL has no NaN or Infinity"):  # valueOf throws
            convert_column(_as_arrow(values, arrow_type), FieldSpec("c", data_type), options=LENIENT)
        return
    out, mask = convert_column(_as_arrow(values, arrow_type), FieldSpec("c", data_type), options=LENIENT)
    stored = out.to_pylist()
    for row, value in enumerate(values):
        want = None if value is None else expected(value, data_type, arrow_type)
        assert bool(mask[row]) == (want is None), (row, value, stored[row])
        if want is None:
            continue
        got = stored[row]
        if data_type == "BIG_DECIMAL":
            assert Fraction(decimal.Decimal(got)) == want, (value, got)
        else:
            assert got == want and math.copysign(1, got) == math.copysign(1, want), (value, arrow_type, got, want)


# --- known answers (also what Java 17 prints for these) ------------------------------------------


def test_decimal_into_double_is_the_nearest_double():
    # new BigDecimal("76.10").doubleValue() == 76.1; Arrow's cast gives 76.10000000000001
    out, _ = convert_column(pa.array([decimal.Decimal("76.10")], pa.decimal128(10, 2)), FieldSpec("price", "DOUBLE"))
    assert out.to_pylist() == [76.1]


def test_decimal_into_float_rounds_once():
    # 16777217.0000000001: rounding to a double first lands on the midpoint 16777217 and ties to even
    # (16777216); Java's floatValue() rounds the exact value once: 16777218.
    value = decimal.Decimal("16777217.0000000001")
    out, _ = convert_column(pa.array([value], pa.decimal128(30, 10)), FieldSpec("c", "FLOAT"))
    assert out.to_pylist() == [16777218.0]


def test_long_into_float_rounds_once():
    out, _ = convert_column(pa.array([2**60 + 2**36 + 1], pa.int64()), FieldSpec("c", "FLOAT"))
    assert out.to_pylist() == [float(2**60 + 2**37)]


def test_float_range_is_what_rounds_to_infinity():
    # (float) 3.4028235677973362e38 is Float.MAX_VALUE (below MAX + ulp/2): stored, not an overflow
    out, _ = convert_column(pa.array([3.4028235677973362e38]), FieldSpec("c", "FLOAT"))
    assert out.to_pylist() == [float(np.finfo(np.float32).max)]
    with pytest.raises(Exception, match="out of range for Pinot FLOAT.*convert.on-overflow"):
        convert_column(pa.array([3.4028235677973366e38]), FieldSpec("c", "FLOAT"))


@SETTINGS
@given(unscaled=st.integers(-10**38 + 1, 10**38 - 1), scale=st.integers(0, 38))
def test_java_number_values_on_wide_decimals(unscaled, scale):
    value = decimal.Decimal(unscaled).scaleb(-scale, WIDE)
    array = pa.array([value], pa.decimal128(38, scale))
    assert java_double_value(array).to_pylist() == [java_double(Fraction(value))]
    assert java_float_value(array).to_pylist() == [java_float(Fraction(value))]
    assert float(nearest_float32(Fraction(value))) == java_float(Fraction(value))
