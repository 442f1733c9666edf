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
import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.java_numbers import java_double_to_long

from ..values import (Const, Context, Value, arrow_java_type, broadcast, is_list, java_type, null_mask,
                      to_double, to_int, to_long, to_string)
from ..java_objects import JavaFloat, is_object, object_array, objects, primitive_array_reason
from javalib.fdlibm import fdlibm_cbrt, fdlibm_hypot, fdlibm_log1p
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


def _special_text(value: float) -> str:
    return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")


def _half_up(value: float, scale: int, rounding: str) -> float:
    """``BigDecimal.valueOf(a).setScale(scale, mode).doubleValue()``: valueOf uses Double.toString's digits.
    NaN and the infinities: ``roundDecimal`` returns them as they are; ``truncate`` does not check, and
    ``BigDecimal.valueOf`` throws on them (the row fails)."""
    if value != value or value in (float("inf"), float("-inf")):
        if rounding == decimal.ROUND_DOWN:
            raise JavaThrows(f"NumberFormatException: BigDecimal.valueOf({_special_text(value)})")
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


def common_values(ctx: Context, values: list[Value], chosen: list[np.ndarray] | None = None
                  ) -> list[pa.Array | pa.Scalar]:
    """Branches of CASE / COALESCE brought to one Arrow type (literals stay scalars, broadcast by the kernel).

    Pinot returns whichever Java object the branch holds and the destination column converts it; mixed
    branches are brought to one type here: whole numbers to int64, numbers to float64, anything else with a
    string to Java's text of the value. ``chosen``: per value, the rows that take it (CASE's branches): a value
    is converted on those rows only (Pinot converts none of them, only the one a row returns: a multi-value branch
    another row takes cannot fail this row).
    """
    kinds = {java_type(v) for v in values} - {"NULL"}
    if not kinds:
        target = pa.null()
    elif kinds <= {"INT", "LONG"}:
        target = pa.int64() if "LONG" in kinds else pa.int32()
    elif kinds <= {"INT", "LONG", "FLOAT", "DOUBLE"} and ctx.destination == "STRING":
        # numbers of several Java types into a STRING column: each row's own toString (a Long 5 is '5', a
        # Float 0.1f '0.1'), not the text of a double they were brought to
        values = [_on_rows(ctx, None if chosen is None else chosen[i], to_string, v) for i, v in enumerate(values)]
        target = pa.string()
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
        values = [_on_rows(ctx, None if chosen is None else chosen[i], to_string, v) for i, v in enumerate(values)]
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
    # each argument brought to the common type on the rows that return it only (Pinot converts none of them: a
    # multi-value after a non-null BYTES value cannot fail the row)
    chosen = np.full(ctx.num_rows, len(args), dtype=np.int64)
    for i in reversed(range(len(args))):
        a = args[i]
        present = np.full(ctx.num_rows, a.value is not None) if isinstance(a, Const) else ~null_mask(a)
        chosen[present] = i
    _fail_primitive_branches(ctx, chosen, list(range(len(args))), args)
    if _mixes_lists(args) or _numbers_as_objects(ctx, args) or _has_objects(args):
        return _coalesce_objects(args)
    values = common_values(ctx, args, [chosen == i for i in range(len(args))])
    if all(isinstance(v, pa.Scalar) for v in values[:1]):
        values[0] = pa.repeat(values[0], ctx.num_rows)  # the kernel needs one array to size the result
    return pc.coalesce(*values)


_PLAIN = (bool, int, float, str, decimal.Decimal, bytes)


def _has_objects(branches: list[Value]) -> bool:
    """A branch of Java objects (a nested CASE / coalesce of mixed numbers, say): the result stays objects."""
    return any(not isinstance(b, Const) and is_object(b.type) for b in branches)


def _numbers_as_objects(ctx: Context, branches: list[Value]) -> bool:
    """Whole numbers beside floating ones passed to another function's parameter (``concat(CASE ... THEN 5
    ELSE 2.5 END, ...)``): Pinot passes each row's own Long or Double, so they stay Java objects here (a Long
    into a String parameter is '5', not '5.0'); into a column ``common_values`` knows the column's type."""
    if ctx.destination is not None:
        return False
    kinds = {java_type(b) for b in branches} - {"NULL"}
    return kinds <= {"INT", "LONG", "FLOAT", "DOUBLE"} and bool(kinds & {"INT", "LONG"}) and bool(
        kinds & {"FLOAT", "DOUBLE"})


def _mixes_lists(args: list[Value]) -> bool:
    """A multi-value beside a value of another kind (``coalesce(ia, 1)``): Java's varargs hold the array itself
    (an ``Object[]``, not its first element), so the result is an array in some rows and a scalar in others."""
    if not any(is_list(a) for a in args):
        return False
    if all(is_list(a) or (isinstance(a, Const) and a.value is None) for a in args):
        return False  # lists only: one Arrow list type holds the result
    for a in args:
        if isinstance(a, Const):
            if a.value is not None and not isinstance(a.value, _PLAIN):
                return False
        elif not (is_object(a.type) or _plain_type(a.type.value_type if is_list(a) else a.type)):
            return False
    return True


def _plain_type(t: pa.DataType) -> bool:
    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_string(t) or pa.types.is_boolean(t) \
        or pa.types.is_null(t) or pa.types.is_binary(t)


def _coalesce_objects(args: list[Value]) -> Value:
    """Per row the first non-null argument as the Java object it is (a multi-value whole, even empty: it is not
    null), left to the destination column's conversion (``java_objects.to_column``: one element into a
    single-value column is that element, more fail the row)."""
    columns = [_object_values(a) for a in args]
    num_rows = next(len(c) for c in columns if isinstance(c, list))
    out = []
    for row in range(num_rows):
        value = None
        for c in columns:
            if c is None:
                continue
            value = c.value if isinstance(c, Const) else c[row]
            if value is not None:
                break
        out.append(value)
    return object_array(out)


def _on_rows(ctx: Context, rows: np.ndarray | None, convert, value: Value) -> Value:
    if rows is None:
        return convert(value, ctx)
    outer = ctx.active
    ctx.active = rows if outer is None else (outer & rows)
    try:
        return convert(value, ctx)
    finally:
        ctx.active = outer


def _object_values(a: Value) -> Const | list | None:
    """An argument as Java objects: a literal (None for null), or the column's values per row."""
    if isinstance(a, Const):
        return None if a.value is None else a
    if pa.types.is_float32(a.type):  # Java Floats, not Doubles (their text is Float.toString)
        return [None if v is None else JavaFloat(v) for v in a.to_pylist()]
    return objects(a) if is_object(a.type) else a.to_pylist()


def _case_objects(ctx: Context, conditions: list[Value], branches: list[Value]) -> Value:
    """Per row the branch of the first condition that is ``Boolean.TRUE`` (else the last, the ELSE), as the Java
    object it is: a multi-value whole, left to the destination column's conversion, as coalesce's."""
    columns = [_object_values(b) for b in branches]
    out = []
    for row, chosen in enumerate(_chosen_branches(ctx, conditions).tolist()):
        column = columns[chosen]
        out.append(None if column is None else column.value if isinstance(column, Const) else column[row])
    return object_array(out)


def _fail_primitive_branches(ctx: Context, chosen: np.ndarray, positions: list[int], branches: list[Value]) -> None:
    """Rows of a CASE / coalesce into a column that return a branch whose call gives a Java primitive array
    (``CASE ... THEN fromEpochSecondsMV(ia) END``, ``coalesce(doyMV(ia), ...)``): that array goes into the column
    as it is, and fails there as a transform returning it does (``ctx.primitive_args``: its argument positions;
    ``positions``: each branch's). Seed 303: Pinot stores the array's identity text in a STRING column."""
    for k, (position, branch) in enumerate(zip(positions, branches)):
        if position not in ctx.primitive_args or isinstance(branch, Const):
            continue
        rows = (chosen == k) & ~null_mask(branch)
        if rows.any():
            ctx.fail(rows, primitive_array_reason(ctx.destination), branch)


def _chosen_branches(ctx: Context, conditions: list[Value]) -> np.ndarray:
    """Per row the index of the first condition that is ``Boolean.TRUE`` (``len(conditions)``: the ELSE)."""
    chosen = np.full(ctx.num_rows, len(conditions), dtype=np.int64)
    for i in reversed(range(len(conditions))):
        c = conditions[i]
        if isinstance(c, Const):
            true = np.full(ctx.num_rows, c.value is True, dtype=np.bool_)
        elif pa.types.is_boolean(c.type):  # (Boolean.TRUE.equals(...) is false for anything not a boolean)
            true = pc.fill_null(c, False).to_numpy(zero_copy_only=False).astype(np.bool_)
        else:
            continue
        chosen[true] = i
    return chosen


@scalar_function("case", "caseWhen", arity=VAR_ARGS, nullable=True)
def _case(ctx: Context, args: list[Value]) -> Value:
    conditions = args[0:len(args) - 1:2]
    results = list(args[1:len(args):2])
    otherwise = args[-1] if len(args) % 2 == 1 else Const(None, "NULL")
    chosen = _chosen_branches(ctx, conditions)
    _fail_primitive_branches(ctx, chosen, [2 * i + 1 for i in range(len(results))] + [len(args) - 1],
                             results + [otherwise])
    if _mixes_lists(results + [otherwise]):  # a multi-value beside another kind: Java objects, as coalesce's
        return _case_objects(ctx, conditions, results + [otherwise])
    taken = [chosen == i for i in range(len(results) + 1)]
    # a branch no row takes is never returned: its Java type takes no part in the common type (seed 51: a FLOAT
    # branch behind WHEN false made a LONG one's '0' the text '0.0')
    branches = [b if taken[i].any() else Const(None, "NULL") for i, b in enumerate(results + [otherwise])]
    if _numbers_as_objects(ctx, branches) or _has_objects(branches):
        return _case_objects(ctx, conditions, branches)
    arrays = common_values(ctx, branches, taken)
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


# ----------------------------------------------------------------------------------------------------
# The rest of Pinot's numeric functions, vectorised with numpy: ArithmeticFunctions' extras (gcd, lcm,
# factorial, intDiv, isNaN, widthBucket, rand(seed), ...), TrigonometricFunctions, the bitwise/ classes and the
# greatest / least / moduloOrZero / positiveModulo classes, checked against Pinot's own build
# (tests/fixtures/functions/numeric.jsonl).
#
# At ingestion the lookup is by argument count, so the polymorphic classes run the overload Pinot's registry
# gives for that count: the DOUBLE one for greatest / least / moduloOrZero / positiveModulo, the LONG one for
# the bitwise functions (an int shift count, masked to 6 bits as Java does). ``rand(seed)`` is Pinot's
# deterministic mix of the seed (a given seed always gives the same double); ``rand()`` is a fresh double in
# [0, 1) per row (``ThreadLocalRandom.nextDouble``: 53 random bits), from the operating system's entropy.
#
# ``sin cos tan`` (so ``cot``, ``1.0 / tan``), ``pow`` (so ``exp2``, ``exp10``), ``exp`` and ``log`` are HotSpot's
# x86_64 intrinsic stubs ported (``hotspot_math``), bit for bit; ``asin acos atan atan2 sinh cosh tanh hypot log1p
# cbrt`` are fdlibm's algorithms (``StrictMath``, which JDK 17's ``Math`` calls for them) in numpy
# (javalib.fdlibm), bit for bit. ``LIBM_FUNCTIONS`` (functions still on the
# platform's libm, a deliberate difference, docs/ingestion.md) is empty: every function here gives Pinot's exact
# bits.

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
LIBM_FUNCTIONS: tuple[str, ...] = ()


def _arrays_of(ctx: Context, args: list[Value], convert, arrow_type) -> tuple[list[np.ndarray], np.ndarray]:
    arrays = [broadcast(convert(a, ctx), ctx.num_rows, arrow_type) for a in args]
    mask = np.zeros(ctx.num_rows, dtype=np.bool_)
    data = []
    for a in arrays:
        mask |= null_mask(a)
        filled = a.fill_null(0) if a.null_count else a
        data.append(filled.to_numpy(zero_copy_only=False))
    return data, mask


def _out_of(data: np.ndarray, mask: np.ndarray, arrow_type) -> pa.Array:
    return pa.array(data, arrow_type, mask=mask if mask.any() else None)


def _double_fn(fn, out_type=pa.float64()):
    def impl(ctx: Context, args: list[Value]) -> Value:
        data, mask = _arrays_of(ctx, args, to_double, pa.float64())
        with np.errstate(all="ignore"):
            return _out_of(fn(*data), mask, out_type)

    return impl


def _long_fn(fn, out_type=pa.int64(), shift=False):
    def impl(ctx: Context, args: list[Value]) -> Value:
        if shift:  # (long value, int shift)
            (value,), m1 = _arrays_of(ctx, args[:1], to_long, pa.int64())
            (count,), m2 = _arrays_of(ctx, args[1:], to_int, pa.int32())
            data, mask = [value, count], m1 | m2
        else:
            data, mask = _arrays_of(ctx, args, to_long, pa.int64())
        with np.errstate(all="ignore"):
            return _out_of(fn(*data), mask, out_type)

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
    (n,), mask = _arrays_of(ctx, args, to_long, pa.int64())
    bad = (n < 0) | (n > 20)
    ctx.fail(bad & ~mask, "IllegalArgumentException: factorial argument must be between 0 and 20")
    return _out_of(_FACTORIALS[np.clip(n, 0, 20)], mask | bad, pa.int64())


def _int_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return java_double_to_long(np.floor(a / b))


def _int_div_or_zero(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    zero = (b == 0) | ((a == float(_LONG_MIN)) & (b == -1))
    return np.where(zero, 0, _int_div(a, np.where(zero, 1.0, b)))


@scalar_function("widthBucket", arity=4)
def _width_bucket(ctx: Context, args: list[Value]) -> Value:
    (value, lo, hi), mask = _arrays_of(ctx, args[:3], to_double, pa.float64())
    (buckets,), m2 = _arrays_of(ctx, args[3:], to_int, pa.int32())
    mask |= m2
    bad = np.isnan(value) | np.isnan(lo) | np.isnan(hi) | np.isinf(lo) | np.isinf(hi) | (lo >= hi) | (buckets <= 0)
    ctx.fail(bad & ~mask, "IllegalArgumentException: widthBucket arguments out of range")
    with np.errstate(all="ignore"):
        inside = np.floor((value - lo) / (hi - lo) * buckets)
        data = np.where(value < lo, 0, np.where(value >= hi, buckets.astype(np.int64) + 1,
                                                 np.clip(np.nan_to_num(inside), -(2**31), 2**31 - 1) + 1))
    return _out_of(data.astype(np.int64).astype(np.int32, copy=False), mask | bad, pa.int32())


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
    (a,), mask = _arrays_of(ctx, args, to_int, pa.int32())
    return _out_of(a.astype(np.int32).byteswap(), mask, pa.int32())


scalar_function("byteswapInt", arity=1)(_byteswap_int)
scalar_function("byteswapLong", arity=1)(_long_fn(lambda a: a.byteswap()))
scalar_function("bitCount", arity=1)(_long_fn(
    lambda a: np.array([bin(int(x) & 0xFFFFFFFFFFFFFFFF).count("1") for x in a], dtype=np.int32), pa.int32()))
scalar_function("gcd", arity=2)(_long_fn(_gcd))
scalar_function("lcm", arity=2)(_long_fn(_lcm))
scalar_function("intDiv", arity=2)(_double_fn(_int_div, pa.int64()))
scalar_function("intDivOrZero", arity=2)(_double_fn(_int_div_or_zero, pa.int64()))
scalar_function("isNaN", arity=1)(_double_fn(lambda a: np.isnan(a).astype(np.int32), pa.int32()))
scalar_function("isFinite", arity=1)(_double_fn(lambda a: np.isfinite(a).astype(np.int32), pa.int32()))
scalar_function("isInfinite", arity=1)(_double_fn(lambda a: np.isinf(a).astype(np.int32), pa.int32()))
scalar_function("ifNotFinite", arity=2)(_double_fn(lambda a, d: np.where(np.isfinite(a), a, d)))
scalar_function("hypot", arity=2)(_double_fn(fdlibm_hypot))
scalar_function("cbrt", arity=1)(_double_fn(lambda a: fdlibm_cbrt(a)))
# Math.pow(2, a) / Math.pow(10, a) as ArithmeticFunctions writes them, HotSpot's pow stub (hotspot_math)
scalar_function("exp2", arity=1)(_double_fn(lambda a: hotspot_pow(2.0, a)))
scalar_function("exp10", arity=1)(_double_fn(lambda a: hotspot_pow(10.0, a)))
scalar_function("log1p", arity=1)(_double_fn(fdlibm_log1p))
scalar_function("sigmoid", arity=1)(_double_fn(lambda a: 1.0 / (1.0 + hotspot_exp(-a))))  # Math.exp's stub
scalar_function("rand", arity=1)(_long_fn(_mix64, pa.float64()))


@scalar_function("rand", arity=0)
def _rand(ctx: Context, args: list[Value]) -> Value:
    # numpy's random() is (53 random bits) / 2**53, as ThreadLocalRandom.nextDouble: every row its own draw
    return pa.array(np.random.default_rng().random(ctx.num_rows), pa.float64())


# Double.max / Double.min: NaN wins, and 0.0 is above -0.0
scalar_function("greatest", arity=2)(_double_fn(
    lambda a, b: np.where(a == b, np.where(np.signbit(a), b, a), np.maximum(a, b))))
scalar_function("least", arity=2)(_double_fn(
    lambda a, b: np.where(a == b, np.where(np.signbit(a), a, b), np.minimum(a, b))))
scalar_function("moduloOrZero", arity=2)(_double_fn(lambda a, b: np.where(b == 0, 0.0, np.fmod(a, b))))
scalar_function("positiveModulo", arity=2)(_double_fn(
    lambda a, b: np.where(np.fmod(a, b) >= 0, np.fmod(a, b), np.fmod(a, b) + np.abs(b))))
scalar_function("bitAnd", arity=2)(_long_fn(np.bitwise_and))
scalar_function("bitOr", arity=2)(_long_fn(np.bitwise_or))
scalar_function("bitXor", arity=2)(_long_fn(np.bitwise_xor))
scalar_function("bitNot", arity=1)(_long_fn(np.invert))
scalar_function("bitShiftLeft", arity=2)(_long_fn(
    lambda v, s: (v.view(np.uint64) << _shift_count(s)).view(np.int64), shift=True))
scalar_function("bitShiftRight", arity=2)(_long_fn(lambda v, s: v >> _shift_count(s).astype(np.int64), shift=True))
scalar_function("bitShiftRightUnsigned", "bitShiftRightLogical", arity=2)(_long_fn(
    lambda v, s: (v.view(np.uint64) >> _shift_count(s)).view(np.int64), shift=True))
scalar_function("bitExtract", "extractBit", arity=2)(_long_fn(_bit_extract, pa.int32()))
scalar_function("bitMask", arity=1)(_long_fn(_bit_mask))


@scalar_function("pi", arity=0)
def _pi(ctx: Context, args: list[Value]) -> Value:
    return pa.repeat(pa.scalar(math.pi), ctx.num_rows)


@scalar_function("e", "euler", arity=0)
def _e(ctx: Context, args: list[Value]) -> Value:
    return pa.repeat(pa.scalar(math.e), ctx.num_rows)
