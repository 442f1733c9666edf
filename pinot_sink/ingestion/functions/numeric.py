"""The rest of Pinot's numeric functions, vectorised with numpy: ArithmeticFunctions' extras (gcd, lcm,
factorial, intDiv, isNaN, widthBucket, rand(seed), ...), TrigonometricFunctions, the bitwise/ classes and the
greatest / least / moduloOrZero / positiveModulo classes, checked against Pinot's own build
(tests/fixtures/functions/numeric.jsonl).

At ingestion the lookup is by argument count, so the polymorphic classes run the overload Pinot's registry
gives for that count: the DOUBLE one for greatest / least / moduloOrZero / positiveModulo, the LONG one for
the bitwise functions (an int shift count, masked to 6 bits as Java does). ``rand(seed)`` is Pinot's
deterministic mix of the seed (a given seed always gives the same double); ``rand()`` is a fresh double in
[0, 1) per row (``ThreadLocalRandom.nextDouble``: 53 random bits), from the operating system's entropy.

``sin cos tan`` (so ``cot``, ``1.0 / tan``), ``pow`` (so ``exp2``, ``exp10``), ``exp`` and ``log`` are HotSpot's
x86_64 intrinsic stubs ported (``hotspot_math``), bit for bit; ``asin acos atan atan2 sinh cosh tanh hypot log1p
cbrt`` are fdlibm's algorithms (``StrictMath``, which JDK 17's ``Math`` calls for them) in numpy
(javalib.fdlibm), bit for bit. ``LIBM_FUNCTIONS`` (functions still on the
platform's libm, a deliberate difference, docs/ingestion.md) is empty: every function here gives Pinot's exact
bits.
"""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa

from type_mapping.java_numbers import java_double_to_long

from ..values import Context, Value, broadcast, null_mask, to_double, to_int, to_long
from javalib.fdlibm import (fdlibm_acos, fdlibm_asin, fdlibm_atan, fdlibm_atan2, fdlibm_cbrt, fdlibm_cosh,
                                 fdlibm_hypot, fdlibm_log1p, fdlibm_sinh, fdlibm_tanh)
from javalib.hotspot_math import hotspot_cos, hotspot_exp, hotspot_log, hotspot_pow, hotspot_sin, hotspot_tan
from .registry import scalar_function

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
LIBM_FUNCTIONS: tuple[str, ...] = ()


def _arrays(ctx: Context, args: list[Value], convert, arrow_type) -> tuple[list[np.ndarray], np.ndarray]:
    arrays = [broadcast(convert(a, ctx), ctx.num_rows, arrow_type) for a in args]
    mask = np.zeros(ctx.num_rows, dtype=np.bool_)
    data = []
    for a in arrays:
        mask |= null_mask(a)
        filled = a.fill_null(0) if a.null_count else a
        data.append(filled.to_numpy(zero_copy_only=False))
    return data, mask


def _out(data: np.ndarray, mask: np.ndarray, arrow_type) -> pa.Array:
    return pa.array(data, arrow_type, mask=mask if mask.any() else None)


def _doubles(fn, out_type=pa.float64()):
    def impl(ctx: Context, args: list[Value]) -> Value:
        data, mask = _arrays(ctx, args, to_double, pa.float64())
        with np.errstate(all="ignore"):
            return _out(fn(*data), mask, out_type)

    return impl


def _longs(fn, out_type=pa.int64(), shift=False):
    def impl(ctx: Context, args: list[Value]) -> Value:
        if shift:  # (long value, int shift)
            (value,), m1 = _arrays(ctx, args[:1], to_long, pa.int64())
            (count,), m2 = _arrays(ctx, args[1:], to_int, pa.int32())
            data, mask = [value, count], m1 | m2
        else:
            data, mask = _arrays(ctx, args, to_long, pa.int64())
        with np.errstate(all="ignore"):
            return _out(fn(*data), mask, out_type)

    return impl


def _java_long_remainder(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    safe = np.where(b == 0, 1, b)
    r = np.fmod(a, safe)  # truncated, the sign of the dividend (Long.MIN % -1 is 0)
    return np.where(b == -1, 0, r)


def _gcd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pinot's recursive ``a == 0 ? Math.abs(b) : gcd(b % a, a)`` (Math.abs(Long.MIN_VALUE) stays negative)."""
    a, b = a.copy(), b.copy()
    active = a != 0
    while active.any():
        r = _java_long_remainder(b[active], a[active])
        b[active], a[active] = a[active], r
        active = a != 0
    with np.errstate(over="ignore"):
        return np.where(b < 0, -b, b)  # -Long.MIN_VALUE wraps to itself, as Math.abs


def _wrap(value: int) -> int:
    return (value - _LONG_MIN) % 2**64 + _LONG_MIN


def _java_abs(value: int) -> int:
    return _wrap(abs(value))  # Math.abs(Long.MIN_VALUE) is Long.MIN_VALUE


def _lcm_one(a: int, b: int) -> int:
    if a == 0 or b == 0:
        return 0
    g = int(_gcd(np.array([a], np.int64), np.array([b], np.int64))[0])
    q = _java_abs(a)
    q = abs(q) // abs(g) * (1 if (q < 0) == (g < 0) else -1)  # Java's truncated long division
    return _wrap(q * _java_abs(b))


def _lcm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([_lcm_one(int(x), int(y)) for x, y in zip(a, b)], dtype=np.int64)


_FACTORIALS = np.array([math.factorial(i) for i in range(21)], dtype=np.int64)


@scalar_function("factorial", arity=1)
def _factorial(ctx: Context, args: list[Value]) -> Value:
    (n,), mask = _arrays(ctx, args, to_long, pa.int64())
    bad = (n < 0) | (n > 20)
    ctx.fail(bad & ~mask, "IllegalArgumentException: factorial argument must be between 0 and 20")
    return _out(_FACTORIALS[np.clip(n, 0, 20)], mask | bad, pa.int64())


def _int_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return java_double_to_long(np.floor(a / b))


def _int_div_or_zero(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    zero = (b == 0) | ((a == float(_LONG_MIN)) & (b == -1))
    return np.where(zero, 0, _int_div(a, np.where(zero, 1.0, b)))


@scalar_function("widthBucket", arity=4)
def _width_bucket(ctx: Context, args: list[Value]) -> Value:
    (value, lo, hi), mask = _arrays(ctx, args[:3], to_double, pa.float64())
    (buckets,), m2 = _arrays(ctx, args[3:], to_int, pa.int32())
    mask |= m2
    bad = np.isnan(value) | np.isnan(lo) | np.isnan(hi) | np.isinf(lo) | np.isinf(hi) | (lo >= hi) | (buckets <= 0)
    ctx.fail(bad & ~mask, "IllegalArgumentException: widthBucket arguments out of range")
    with np.errstate(all="ignore"):
        inside = np.floor((value - lo) / (hi - lo) * buckets)
        data = np.where(value < lo, 0, np.where(value >= hi, buckets.astype(np.int64) + 1,
                                                 np.clip(np.nan_to_num(inside), -(2**31), 2**31 - 1) + 1))
    return _out(data.astype(np.int64).astype(np.int32, copy=False), mask | bad, pa.int32())


def _mix64(seed: np.ndarray) -> np.ndarray:
    z = (seed ^ np.int64(0x5DEECE66D)).view(np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(33))) * np.uint64(0xFF51AFD7ED558CCD)
        z = (z ^ (z >> np.uint64(33))) * np.uint64(0xC4CEB9FE1A85EC53)
    z = z ^ (z >> np.uint64(33))
    return (z >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def _shift_count(count: np.ndarray) -> np.ndarray:
    return (count.astype(np.int64) & 63).astype(np.uint64)


def _bit_extract(value: np.ndarray, bit: np.ndarray) -> np.ndarray:
    inside = (bit >= 0) & (bit < 64)
    shifted = value.view(np.uint64) >> np.where(inside, bit, 0).astype(np.uint64)
    return np.where(inside, (shifted & np.uint64(1)).astype(np.int32), 0).astype(np.int32)


def _bit_mask(bit: np.ndarray) -> np.ndarray:
    inside = (bit >= 0) & (bit < 64)
    return np.where(inside, (np.uint64(1) << np.where(inside, bit, 0).astype(np.uint64)).view(np.int64), 0)


def _byteswap_int(ctx: Context, args: list[Value]) -> Value:
    (a,), mask = _arrays(ctx, args, to_int, pa.int32())
    return _out(a.astype(np.int32).byteswap(), mask, pa.int32())


scalar_function("byteswapInt", arity=1)(_byteswap_int)
scalar_function("byteswapLong", arity=1)(_longs(lambda a: a.byteswap()))
scalar_function("bitCount", arity=1)(_longs(
    lambda a: np.array([bin(int(x) & 0xFFFFFFFFFFFFFFFF).count("1") for x in a], dtype=np.int32), pa.int32()))
scalar_function("gcd", arity=2)(_longs(_gcd))
scalar_function("lcm", arity=2)(_longs(_lcm))
scalar_function("intDiv", arity=2)(_doubles(_int_div, pa.int64()))
scalar_function("intDivOrZero", arity=2)(_doubles(_int_div_or_zero, pa.int64()))
scalar_function("isNaN", arity=1)(_doubles(lambda a: np.isnan(a).astype(np.int32), pa.int32()))
scalar_function("isFinite", arity=1)(_doubles(lambda a: np.isfinite(a).astype(np.int32), pa.int32()))
scalar_function("isInfinite", arity=1)(_doubles(lambda a: np.isinf(a).astype(np.int32), pa.int32()))
scalar_function("ifNotFinite", arity=2)(_doubles(lambda a, d: np.where(np.isfinite(a), a, d)))
scalar_function("hypot", arity=2)(_doubles(fdlibm_hypot))
scalar_function("cbrt", arity=1)(_doubles(lambda a: fdlibm_cbrt(a)))
# Math.pow(2, a) / Math.pow(10, a) as ArithmeticFunctions writes them, HotSpot's pow stub (hotspot_math)
scalar_function("exp2", arity=1)(_doubles(lambda a: hotspot_pow(2.0, a)))
scalar_function("exp10", arity=1)(_doubles(lambda a: hotspot_pow(10.0, a)))
scalar_function("log1p", arity=1)(_doubles(fdlibm_log1p))
scalar_function("sigmoid", arity=1)(_doubles(lambda a: 1.0 / (1.0 + hotspot_exp(-a))))  # Math.exp's stub
scalar_function("rand", arity=1)(_longs(_mix64, pa.float64()))


@scalar_function("rand", arity=0)
def _rand(ctx: Context, args: list[Value]) -> Value:
    # numpy's random() is (53 random bits) / 2**53, as ThreadLocalRandom.nextDouble: every row its own draw
    return pa.array(np.random.default_rng().random(ctx.num_rows), pa.float64())


# Double.max / Double.min: NaN wins, and 0.0 is above -0.0
scalar_function("greatest", arity=2)(_doubles(
    lambda a, b: np.where(a == b, np.where(np.signbit(a), b, a), np.maximum(a, b))))
scalar_function("least", arity=2)(_doubles(
    lambda a, b: np.where(a == b, np.where(np.signbit(a), a, b), np.minimum(a, b))))
scalar_function("moduloOrZero", arity=2)(_doubles(lambda a, b: np.where(b == 0, 0.0, np.fmod(a, b))))
scalar_function("positiveModulo", arity=2)(_doubles(
    lambda a, b: np.where(np.fmod(a, b) >= 0, np.fmod(a, b), np.fmod(a, b) + np.abs(b))))
scalar_function("bitAnd", arity=2)(_longs(np.bitwise_and))
scalar_function("bitOr", arity=2)(_longs(np.bitwise_or))
scalar_function("bitXor", arity=2)(_longs(np.bitwise_xor))
scalar_function("bitNot", arity=1)(_longs(np.invert))
scalar_function("bitShiftLeft", arity=2)(_longs(
    lambda v, s: (v.view(np.uint64) << _shift_count(s)).view(np.int64), shift=True))
scalar_function("bitShiftRight", arity=2)(_longs(lambda v, s: v >> _shift_count(s).astype(np.int64), shift=True))
scalar_function("bitShiftRightUnsigned", "bitShiftRightLogical", arity=2)(_longs(
    lambda v, s: (v.view(np.uint64) >> _shift_count(s)).view(np.int64), shift=True))
scalar_function("bitExtract", "extractBit", arity=2)(_longs(_bit_extract, pa.int32()))
scalar_function("bitMask", arity=1)(_longs(_bit_mask))

for _name, _fn in {"sin": hotspot_sin, "cos": hotspot_cos, "tan": hotspot_tan, "asin": fdlibm_asin,
                   "acos": fdlibm_acos, "atan": fdlibm_atan, "sinh": fdlibm_sinh, "cosh": fdlibm_cosh,
                   "tanh": fdlibm_tanh}.items():
    scalar_function(_name, arity=1)(_doubles(_fn))
scalar_function("cot", arity=1)(_doubles(lambda a: 1.0 / hotspot_tan(a)))  # TrigonometricFunctions: 1.0 / tan(a)
scalar_function("atan2", arity=2)(_doubles(fdlibm_atan2))
scalar_function("degrees", arity=1)(_doubles(lambda a: a * 57.29577951308232))
scalar_function("radians", arity=1)(_doubles(lambda a: a * 0.017453292519943295))
# Pinot's own formulas (not Math's): asinh sign-separated, acosh and atanh through Math.log (HotSpot's stub)
scalar_function("asinh", arity=1)(_doubles(
    lambda a: np.where(a >= 0, hotspot_log(a + np.sqrt(a * a + 1)), -hotspot_log(-a + np.sqrt(a * a + 1)))))
scalar_function("acosh", arity=1)(_doubles(lambda a: hotspot_log(a + np.sqrt(a * a - 1))))
scalar_function("atanh", arity=1)(_doubles(lambda a: 0.5 * hotspot_log((1 + a) / (1 - a))))


@scalar_function("pi", arity=0)
def _pi(ctx: Context, args: list[Value]) -> Value:
    return pa.repeat(pa.scalar(math.pi), ctx.num_rows)


@scalar_function("e", "euler", arity=0)
def _e(ctx: Context, args: list[Value]) -> Value:
    return pa.repeat(pa.scalar(math.e), ctx.num_rows)
