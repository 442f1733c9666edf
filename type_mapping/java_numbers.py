"""Java's integer arithmetic over numpy arrays: the one home of these rules, for the type mapping, the
segment time range and the ingestion functions alike.

* ``(long) d`` / ``(int) d`` of a double: toward zero, NaN is 0, saturating at the type's bounds;
* ``a / b`` on longs: truncated toward zero (``Long.MIN_VALUE / -1`` stays ``Long.MIN_VALUE``);
* ``TimeUnit`` scaling towards finer units: a product that saturates at Long.MIN/MAX instead of wrapping.
"""
from __future__ import annotations

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
