"""Arithmetic, math, comparison and object functions (ArithmeticFunctions, the arithmetic/ and comparison/
PinotScalarFunction classes, ObjectFunctions).

At ingestion Pinot looks functions up by argument count, so ``plus``/``minus``/``times``/``divide``/``mod``,
``abs``/``negate`` and the comparisons take their DOUBLE overload: ``qty * unit_price`` is a double even for
two LONG columns, ``mod(order_id, 7)`` is ``fmod`` on doubles, and ``=`` / ``<>`` compare doubles with a
tolerance of 1e-7 (a non-numeric string there is a ``NumberFormatException``). The destination column's
type then converts the double (``(long) d``, truncated, for a LONG column).
"""
from __future__ import annotations

import decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.java_numbers import java_double_to_long

from ..values import (Const, Context, Value, arrow_java_type, broadcast, java_type, null_mask,
                      to_double, to_int, to_string)
from javalib.hotspot_math import hotspot_exp, hotspot_log, hotspot_log10, hotspot_pow
from .registry import VAR_ARGS, scalar_function
from .rowwise import JavaThrows

_TOLERANCE = 1e-7  # PolymorphicComparisonScalarFunction.DOUBLE_COMPARISON_TOLERANCE


def _doubles(ctx: Context, args: list[Value]) -> list[pa.Array]:
    return [broadcast(to_double(a, ctx), ctx.num_rows, pa.float64()) for a in args]


def _double_operands(ctx: Context, args: list[Value]) -> list[pa.Array | pa.Scalar]:
    """Arguments as doubles for an Arrow kernel: a literal stays a scalar (the evaluator makes sure at least
    one argument is an array), so ``qty < 0`` compares against 0 without building a column of zeros."""
    out: list[pa.Array | pa.Scalar] = []
    for a in args:
        value = to_double(a, ctx)
        out.append(pa.scalar(value.value, pa.float64()) if isinstance(value, Const) else value)
    return out


def _binary(op):
    def impl(ctx: Context, args: list[Value]) -> Value:
        a, b = _double_operands(ctx, args)
        return op(a, b)

    return impl


scalar_function("plus", "add", arity=2)(_binary(pc.add))
scalar_function("minus", "sub", arity=2)(_binary(pc.subtract))
scalar_function("times", "mult", arity=2)(_binary(pc.multiply))


def _java_double_divide(a: pa.Array, b: pa.Array) -> pa.Array:
    # Java: x / 0.0 is +-Infinity, 0.0 / 0.0 is NaN (Arrow's divide raises on zero for floats? it does not,
    # but make it explicit with numpy to keep the IEEE results).
    x = a.to_numpy(zero_copy_only=False)
    y = b.to_numpy(zero_copy_only=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.true_divide(x, y)
    mask = null_mask(a) | null_mask(b)
    return pa.array(out, pa.float64(), mask=mask if mask.any() else None)


@scalar_function("divide", "div", arity=2)
def _divide(ctx: Context, args: list[Value]) -> Value:
    a, b = _doubles(ctx, args)
    return _java_double_divide(a, b)


@scalar_function("divide", "div", arity=3)
def _divide_default(ctx: Context, args: list[Value]) -> Value:
    a, b, default = _doubles(ctx, args)
    return pc.if_else(pc.equal(b, 0.0), default, _java_double_divide(a, b))


@scalar_function("mod", arity=2)
def _mod(ctx: Context, args: list[Value]) -> Value:
    a, b = _doubles(ctx, args)
    x, y = a.to_numpy(zero_copy_only=False), b.to_numpy(zero_copy_only=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.fmod(x, y)  # Java's % on doubles: the sign of the dividend
    mask = null_mask(a) | null_mask(b)
    return pa.array(out, pa.float64(), mask=mask if mask.any() else None)


def _unary(fn):
    def impl(ctx: Context, args: list[Value]) -> Value:
        (a,) = _doubles(ctx, args)
        return fn(a)

    return impl


def _numpy_unary(fn):
    def apply(a: pa.Array) -> pa.Array:
        with np.errstate(all="ignore"):
            out = fn(a.to_numpy(zero_copy_only=False))
        return pa.array(out, pa.float64(), mask=null_mask(a) if a.null_count else None)

    return apply


scalar_function("abs", arity=1)(_unary(pc.abs))
scalar_function("negate", arity=1)(_unary(pc.negate))
scalar_function("ceil", "ceiling", arity=1)(_unary(pc.ceil))
scalar_function("floor", arity=1)(_unary(pc.floor))
# Math.exp / log / log10 as x86_64 HotSpot's intrinsic stubs compute them (hotspot_math), not libm / fdlibm
scalar_function("exp", arity=1)(_unary(_numpy_unary(hotspot_exp)))
scalar_function("ln", "log", arity=1)(_unary(_numpy_unary(hotspot_log)))
# Math.log(a) / Math.log(2) as ArithmeticFunctions writes it (np.log2 is one unit in the last place off at times)
_LOG_2 = float(hotspot_log(np.array([2.0]))[0])
scalar_function("log2", arity=1)(_unary(_numpy_unary(lambda x: hotspot_log(x) / _LOG_2)))
scalar_function("log10", arity=1)(_unary(_numpy_unary(hotspot_log10)))
scalar_function("sqrt", arity=1)(_unary(_numpy_unary(np.sqrt)))
scalar_function("sign", arity=1)(_unary(_numpy_unary(np.sign)))


@scalar_function("power", "pow", arity=2)
def _power(ctx: Context, args: list[Value]) -> Value:
    """``Math.pow`` as x86_64 HotSpot's stub computes it (hotspot_math), not libm's pow."""
    a, b = _doubles(ctx, args)
    with np.errstate(all="ignore"):
        out = hotspot_pow(a.to_numpy(zero_copy_only=False), b.to_numpy(zero_copy_only=False))
    mask = null_mask(a) | null_mask(b)
    return pa.array(out, pa.float64(), mask=mask if mask.any() else None)


# BigInteger.TEN.pow(n) overflows (4 * n / 32 > MAX_MAG_LENGTH) from this n on
_POW_TEN_OVERFLOW = 536_870_920


def _half_up(value: float, scale: int, rounding: str) -> float:
    """``BigDecimal.valueOf(a).setScale(scale, mode).doubleValue()``: valueOf uses Double.toString's digits."""
    if value != value or value in (float("inf"), float("-inf")):
        return value
    from type_mapping.java_text import java_float_str

    digits = decimal.Decimal(java_float_str(value))
    if digits:  # (a zero takes any scale)
        raise_by = abs(scale + digits.as_tuple().exponent)  # |new scale - BigDecimal's own|: 10^raise_by is made
        if raise_by > 2**31 - 1:
            raise JavaThrows("ArithmeticException: Underflow")  # BigDecimal.checkScale
        if raise_by >= _POW_TEN_OVERFLOW:
            raise JavaThrows("ArithmeticException: BigInteger would overflow supported range")
    if scale >= -digits.as_tuple().exponent:  # more places than the digits have: the same value
        return value + 0.0  # (-0.0 is a BigDecimal zero: 0.0)
    with decimal.localcontext() as exact:  # BigDecimal has no precision limit: 1.79E308 at scale 2 is 311 digits
        exact.prec = max(28, digits.adjusted() + max(scale, 0) + 2)
        exact.Emax, exact.Emin = decimal.MAX_EMAX, decimal.MIN_EMIN
        # a BigDecimal zero has no sign: -0.0, or -0.001 cut to 2 places, gives 0.0
        return float(digits.quantize(decimal.Decimal(1).scaleb(-scale), rounding)) or 0.0


def _to_scale(rounding: str, name: str):
    """``BigDecimal.valueOf(a).setScale(scale, rounding).doubleValue()``, once per distinct double."""

    def impl(ctx: Context, args: list[Value]) -> Value:
        (a,) = _doubles(ctx, args[:1])
        scale = to_int(args[1], ctx)
        encoded = pc.dictionary_encode(a)  # nulls stay in the indices, not in the dictionary
        scaled, failed = [], []
        for v in encoded.dictionary.to_pylist():
            try:
                scaled.append(_half_up(v, scale.value, rounding))
                failed.append(False)
            except JavaThrows as exc:
                scaled.append(None)
                failed.append(str(exc))
        for reason in set(failed) - {False}:
            ctx.fail(pa.array([f == reason for f in failed]).take(encoded.indices), reason, a)
        return pa.array(scaled, pa.float64()).take(encoded.indices)

    return impl


scalar_function("roundDecimal", arity=2, literal_args=(1,))(_to_scale(decimal.ROUND_HALF_UP, "roundDecimal"))
scalar_function("truncate", arity=2, literal_args=(1,))(_to_scale(decimal.ROUND_DOWN, "truncate"))


@scalar_function("roundDecimal", arity=1)
def _round_decimal_whole(ctx: Context, args: list[Value]) -> Value:
    (a,) = _doubles(ctx, args)
    # Math.round: floor(x + 0.5); NaN and infinities are returned as they are
    x = a.to_numpy(zero_copy_only=False)
    with np.errstate(invalid="ignore"):
        floor = np.floor(x)
        rounded = floor + (x - floor >= 0.5)  # exact: floor(x + 0.5) would round 0.49999999999999994 up
        # Math.round returns a long (saturating at Long.MIN/MAX), which the double result then holds
        out = np.where(np.isfinite(x), java_double_to_long(rounded).astype(np.float64), x)
    return pa.array(out, pa.float64(), mask=null_mask(a) if a.null_count else None)


@scalar_function("truncate", arity=1)
def _truncate_whole(ctx: Context, args: list[Value]) -> Value:
    (a,) = _doubles(ctx, args)
    return pc.trunc(a)


# --- comparisons (PolymorphicComparisonScalarFunction's DOUBLE overloads) -----------------------------


def _comparison(op):
    def impl(ctx: Context, args: list[Value]) -> Value:
        a, b = _double_operands(ctx, args)
        return op(a, b)

    return impl


def _equals_with_tolerance(a: pa.Array, b: pa.Array) -> pa.Array:
    return pc.less(pc.abs(pc.subtract(a, b)), _TOLERANCE)


scalar_function("equals", arity=2)(_comparison(_equals_with_tolerance))
# Math.abs(a - b) >= tolerance: false when either is NaN (so `x <> 'NaN'` is false), not the negation of equals
scalar_function("notEquals", arity=2)(_comparison(lambda a, b: pc.greater_equal(pc.abs(pc.subtract(a, b)),
                                                                                _TOLERANCE)))
scalar_function("greaterThan", arity=2)(_comparison(pc.greater))
scalar_function("greaterThanOrEqual", arity=2)(_comparison(pc.greater_equal))
scalar_function("lessThan", arity=2)(_comparison(pc.less))
scalar_function("lessThanOrEqual", arity=2)(_comparison(pc.less_equal))


@scalar_function("between", arity=3)
def _between(ctx: Context, args: list[Value]) -> Value:
    value, low, high = _double_operands(ctx, args)
    return pc.and_(pc.greater_equal(value, low), pc.less_equal(value, high))


# --- ObjectFunctions (nullable) ---------------------------------------------------------------------


@scalar_function("isNull", arity=1, nullable=True)
def _is_null(ctx: Context, args: list[Value]) -> Value:
    (a,) = args
    if isinstance(a, Const):
        return Const(a.value is None, "BOOLEAN")
    return a.is_null()


@scalar_function("isNotNull", arity=1, nullable=True)
def _is_not_null(ctx: Context, args: list[Value]) -> Value:
    (a,) = args
    if isinstance(a, Const):
        return Const(a.value is not None, "BOOLEAN")
    return a.is_valid()


def common_values(ctx: Context, values: list[Value]) -> list[pa.Array | pa.Scalar]:
    """Branches of CASE / COALESCE brought to one Arrow type (literals stay scalars, broadcast by the kernel).

    Pinot returns whichever Java object the branch holds and the destination column converts it; mixed
    branches are brought to one type here: whole numbers to int64, numbers to float64, anything else with a
    string to Java's text of the value.
    """
    kinds = {java_type(v) for v in values} - {"NULL"}
    if not kinds:
        target = pa.null()
    elif kinds <= {"INT", "LONG"}:
        target = pa.int64() if "LONG" in kinds else pa.int32()
    elif kinds <= {"INT", "LONG", "FLOAT", "DOUBLE"}:
        target = pa.float64()
    elif kinds == {"BOOLEAN"}:
        target = pa.bool_()
    elif "BOOLEAN" in kinds and kinds <= {"BOOLEAN", "INT", "LONG", "FLOAT", "DOUBLE"} and ctx.destination in _NUMERIC:
        # a Boolean and numbers, into a number column: Pinot's BOOLEAN.toInt / toDouble is 1 or 0
        values = [_boolean_as_number(v) for v in values]
        numbers = kinds - {"BOOLEAN"}
        target = pa.int64() if numbers <= {"INT", "LONG"} else pa.float64()
    elif "BOOLEAN" in kinds and kinds <= {"BOOLEAN", "INT", "LONG", "FLOAT", "DOUBLE"} and ctx.destination == "BOOLEAN":
        # ... into a BOOLEAN column: a number is true when it is not 0 (PinotDataType's toBoolean)
        values = [v if java_type(v) in ("BOOLEAN", "NULL") else _number_as_boolean(v) for v in values]
        target = pa.bool_()
    elif len(kinds) == 1 and not all(isinstance(v, Const) for v in values):
        target = next(v.type for v in values if not isinstance(v, Const) and arrow_java_type(v.type) != "NULL")
    else:
        values = [to_string(v, ctx) for v in values]
        target = pa.string()
    out: list[pa.Array | pa.Scalar] = []
    for v in values:
        if isinstance(v, Const):
            out.append(pa.scalar(v.value, target))
        elif pa.types.is_floating(target) and pa.types.is_integer(v.type):
            out.append(v.cast(target, safe=False))  # Java's long -> double: the nearest double, beyond 2^53 too
        else:
            out.append(v.cast(target))
    return out


_NUMERIC = ("INT", "LONG", "FLOAT", "DOUBLE")


def _boolean_as_number(value: Value) -> Value:
    if java_type(value) != "BOOLEAN":
        return value
    if isinstance(value, Const):
        return value if value.value is None else Const(int(value.value), "INT")
    return value.cast(pa.int32())


def _number_as_boolean(value: Value) -> Value:
    if isinstance(value, Const):
        return value if value.value is None else Const(value.value != 0, "BOOLEAN")
    return pc.not_equal(value, 0)


@scalar_function("coalesce", arity=VAR_ARGS, nullable=True)
def _coalesce(ctx: Context, args: list[Value]) -> Value:
    # Java returns the first non-null argument as it is: what follows a non-null literal is never read (nor
    # converted to a common type, where a long beyond 2^53 would fail as a double)
    first = next((i for i, a in enumerate(args) if isinstance(a, Const) and a.value is not None), None)
    if first is not None:
        args = args[:first + 1]
    if all(isinstance(a, Const) for a in args):
        return next((a for a in args if a.value is not None), Const(None, "NULL"))
    values = common_values(ctx, args)
    if all(isinstance(v, pa.Scalar) for v in values[:1]):
        values[0] = pa.repeat(values[0], ctx.num_rows)  # the kernel needs one array to size the result
    return pc.coalesce(*values)


@scalar_function("case", "caseWhen", arity=VAR_ARGS, nullable=True)
def _case(ctx: Context, args: list[Value]) -> Value:
    conditions = args[0:len(args) - 1:2]
    results = list(args[1:len(args):2])
    otherwise = args[-1] if len(args) % 2 == 1 else Const(None, "NULL")
    arrays = common_values(ctx, results + [otherwise])
    out = arrays[-1]  # literal branches stay scalars: if_else sizes its result by the condition
    # The first condition that is TRUE wins: apply them from last to first.
    for condition, result in zip(reversed(conditions), reversed(arrays[:-1])):
        if isinstance(condition, Const):
            if condition.value is True:
                out = result
            continue
        if not pa.types.is_boolean(condition.type):
            continue  # Boolean.TRUE.equals(...) is false for anything that is not a boolean
        out = pc.if_else(pc.fill_null(condition, False) if condition.null_count else condition, result, out)
    return pa.repeat(out, ctx.num_rows) if isinstance(out, pa.Scalar) else out
