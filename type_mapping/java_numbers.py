"""Java's integer arithmetic over numpy arrays: the one home of these rules, for the type mapping, the
segment time range and the ingestion functions alike.

* ``(long) d`` / ``(int) d`` of a double: toward zero, NaN is 0, saturating at the type's bounds;
* ``a / b`` on longs: truncated toward zero (``Long.MIN_VALUE / -1`` stays ``Long.MIN_VALUE``);
* ``TimeUnit`` scaling towards finer units: a product that saturates at Long.MIN/MAX instead of wrapping;
* ``Number.doubleValue()`` / ``floatValue()`` (``BigDecimal``'s included): the nearest double / float.
"""
from __future__ import annotations

import decimal
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .pinot_schema import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN


def java_double_to_long(values: np.ndarray) -> np.ndarray:
    """``(long) d``: toward zero, NaN -> 0, saturating at Long.MIN/MAX."""
    with np.errstate(invalid="ignore", over="ignore"):
        out = np.trunc(values)
        out = np.where(np.isnan(out), 0.0, out)
        big = out >= 9.223372036854775807e18
        small = out <= -9.223372036854775808e18
        result = np.clip(out, -9.2e18, 9.2e18).astype(np.int64)
    result[big] = LONG_MAX
    result[small] = LONG_MIN
    return result


def java_double_to_int(values: np.ndarray) -> np.ndarray:
    """``(int) d``: toward zero, NaN -> 0, saturating at Integer.MIN/MAX."""
    with np.errstate(invalid="ignore"):
        out = np.trunc(values)
        out = np.where(np.isnan(out), 0.0, out)
        return np.clip(out, INT_MIN, INT_MAX).astype(np.int32)


def java_long_div(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """Java's long division: truncated toward zero (the caller rejects division by zero)."""
    if np.ndim(b) == 0 and int(b) not in (0, -1):  # Arrow's kernel truncates like Java, and is vectorised
        return pc.divide(pa.array(a, pa.int64()), pa.scalar(int(b), pa.int64())).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        b = np.asarray(b, dtype=np.int64)
        safe_b = np.where((b == 0) | (b == -1), 1, b)  # x / -1 is -x (Long.MIN_VALUE / -1 stays MIN_VALUE)
        floor = np.floor_divide(a, safe_b)
        inexact = (floor * safe_b) != a
        out = np.where(inexact & ((a < 0) != (safe_b < 0)), floor + 1, floor).astype(np.int64)
        return np.where(b == -1, np.negative(a), out).astype(np.int64)


def saturating_multiply(a: np.ndarray, factor: int) -> np.ndarray:
    """``TimeUnit.x.toMillis``-style scaling: saturates at Long.MIN/MAX instead of overflowing."""
    limit = LONG_MAX // factor
    with np.errstate(over="ignore"):
        out = a * np.int64(factor)
    out = np.where(a > limit, LONG_MAX, out)
    return np.where(a < -limit, LONG_MIN, out).astype(np.int64)


# --- Number.doubleValue() / floatValue(): the nearest double / float, rounded once -------------------
#
# Arrow's decimal -> float cast divides in floating point with an inexact power of ten (76.10 becomes
# 76.10000000000001) and a cast through float64 to float32 rounds twice; Java rounds the exact value once,
# to nearest, ties to even. These do the same: vectorised where IEEE arithmetic is provably exact, per
# value (exact rationals) for the rest.

_EXACT_POWERS_OF_TEN_F64 = 22   # 10**22 is the largest power of ten a double holds exactly
_EXACT_POWERS_OF_TEN_F32 = 10   # 10**10 for a float
_F32_OVERFLOW = (2**25 - 1) * Fraction(2) ** 103   # FLOAT_MAX + half an ulp: from here on, floatValue() is infinite


def _unscaled_int64(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The unscaled integers of a decimal128 array where they fit an int64, and the mask of those that do."""
    words = np.frombuffer(values.buffers()[1], dtype="<i8")[2 * values.offset: 2 * (values.offset + len(values))]
    low, high = words[0::2], words[1::2]
    fits = high == (low >> 63)
    if values.null_count:
        fits &= ~np.asarray(values.is_null().to_numpy(zero_copy_only=False), dtype=np.bool_)
    return low, fits


def _decimal_values(values: pa.Array, rows: np.ndarray) -> list[decimal.Decimal]:
    return [values[int(i)].as_py() for i in rows]


def _with_nulls(data: np.ndarray, values: pa.Array, arrow_type: pa.DataType) -> pa.Array:
    mask = values.is_null().to_numpy(zero_copy_only=False) if values.null_count else None
    return pa.array(data, arrow_type, mask=mask)


def nearest_float32(exact: Fraction) -> np.float32:
    """The float nearest to an exact rational, ties to even, infinite beyond ``Float.MAX_VALUE`` + ulp/2."""
    if abs(exact) >= _F32_OVERFLOW:
        return np.float32(np.inf if exact > 0 else -np.inf)
    with np.errstate(over="ignore"):
        guess = np.float32(float(exact))  # within one ulp of the answer
    if np.isinf(guess):
        guess = np.float32(np.copysign(np.finfo(np.float32).max, float(exact)))
    best, best_distance = guess, None
    for candidate in (np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))):
        if np.isinf(candidate):
            continue
        distance = abs(Fraction(float(candidate)) - exact)
        if (best_distance is None or distance < best_distance
                or (distance == best_distance and not int(candidate.view(np.uint32)) & 1)):
            best, best_distance = candidate, distance
    return np.float32(best)


def java_double_value(values: pa.Array) -> pa.Array:
    """``Number.doubleValue()`` of an Arrow number array (decimals as ``BigDecimal.doubleValue()``)."""
    if not pa.types.is_decimal(values.type):
        return values.cast(pa.float64(), safe=False)  # (double) of an int / float: one IEEE rounding already
    scale = values.type.scale
    out = np.zeros(len(values), dtype=np.float64)
    slow = np.ones(len(values), dtype=np.bool_)
    if pa.types.is_decimal128(values.type) and abs(scale) <= _EXACT_POWERS_OF_TEN_F64:
        unscaled, fits = _unscaled_int64(values)
        fast = fits & (np.abs(unscaled) <= 2**53)   # the unscaled integer is an exact double
        power = float(10 ** abs(scale))
        # one correctly rounded IEEE operation on two exact operands is the nearest double
        exact = unscaled[fast].astype(np.float64)
        out[fast] = exact / power if scale >= 0 else exact * power
        slow = ~fast
    if values.null_count:
        slow &= np.asarray(values.is_valid().to_numpy(zero_copy_only=False), dtype=np.bool_)
    rows = np.flatnonzero(slow)
    if len(rows):
        out[rows] = [float(v) for v in _decimal_values(values, rows)]  # float(Decimal) rounds the exact value once
    return _with_nulls(out, values, pa.float64())


def java_float_value(values: pa.Array) -> pa.Array:
    """``Number.floatValue()`` of an Arrow number array: ``(float)`` of an int, long or double, and
    ``BigDecimal.floatValue()`` for decimals, each the nearest float to the exact value."""
    if not pa.types.is_decimal(values.type):
        return values.cast(pa.float32(), safe=False)  # Arrow casts ints and doubles to float directly: one rounding
    scale = values.type.scale
    out = np.zeros(len(values), dtype=np.float32)
    done = np.zeros(len(values), dtype=np.bool_)
    if pa.types.is_decimal128(values.type) and 0 <= scale <= _EXACT_POWERS_OF_TEN_F32:
        unscaled, fits = _unscaled_int64(values)
        fast = fits & (np.abs(unscaled) <= 2**24)   # exact as a float
        out[fast] = unscaled[fast].astype(np.float32) / np.float32(10 ** scale)
        done |= fast
    # Otherwise through the nearest double: rounding it again to float differs from rounding once only
    # when the double lands exactly halfway between two floats (or among the float's subnormals).
    doubles = java_double_value(values).to_numpy(zero_copy_only=False)
    rest = ~done
    with np.errstate(over="ignore", invalid="ignore"):
        out[rest] = doubles[rest].astype(np.float32)
        bits = doubles.view(np.uint64)
        halfway = (bits & np.uint64((1 << 29) - 1)) == np.uint64(1 << 28)
        tiny = np.abs(doubles) < np.finfo(np.float32).tiny
    unsure = rest & (halfway | tiny) & ~np.isnan(doubles)
    if values.null_count:
        unsure &= np.asarray(values.is_valid().to_numpy(zero_copy_only=False), dtype=np.bool_)
    rows = np.flatnonzero(unsure)
    if len(rows):
        out[rows] = [nearest_float32(Fraction(v)) for v in _decimal_values(values, rows)]
    return _with_nulls(out, values, pa.float32())
