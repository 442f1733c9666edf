"""ArrayFunctions that make arrays: ``array(...)`` / ``arrayValueConstructor``, ``generateIntArray`` /
``Long`` / ``Float`` / ``Double``, ``intersectIndices``; checked against Pinot's own build
(tests/fixtures/functions/array_build.jsonl, read through ``arrayToString`` / ``arrayLength``: a primitive
array stored directly in a multi-value column is Pinot's ``ClassCastException``, issue 23's cause 2).

``array(a, b, ...)`` is an array of the first argument's Java type (INT, LONG, FLOAT, DOUBLE, BOOLEAN, STRING);
an argument of another type is Java's ``ClassCastException`` (the row fails), a null one makes the result null.
``generate...Array(start, end, inc)``: ``(end - start) / inc + 1`` elements (Java arithmetic of the type, the
count cast to int), ``start`` then adding ``inc``; ``inc`` 0 in the integer forms fails the row (division by
zero), a negative count fails it (``NegativeArraySizeException``), a count above 2^24 is refused here (a JVM
with heap enough allocates it, one without fails the row: the outcome is the heap's; this package does not
build such rows), one beyond HotSpot's longest array (``Integer.MAX_VALUE - 2``: a zero float step) fails
the row as Java's ``OutOfMemoryError`` does with any heap. ``intersectIndices(a, b)`` walks both arrays as
Pinot does (meant for sorted input).
"""
from __future__ import annotations

import math
import struct

import pyarrow as pa

from ..values import Context, IngestionError, Value, broadcast, java_type, to_double, to_int, to_long
from .array_functions import to_array
from .registry import VAR_ARGS, scalar_function
from .rowwise import JavaThrows, per_row

_MAX_ELEMENTS = 1 << 24
_VM_LIMIT = 2**31 - 3
_INT_MIN, _LONG_MIN = -(2**31), -(2**63)


def _wrap(value: int, bits: int) -> int:
    low = -(2 ** (bits - 1))
    return (value - low) % 2**bits + low


def _java_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _count(size: int) -> int:
    if size < 0:
        raise JavaThrows(f"NegativeArraySizeException: {size}")
    if size > _VM_LIMIT:  # HotSpot's longest array (Integer.MAX_VALUE less the header): no heap allocates it
        raise JavaThrows("OutOfMemoryError: Requested array size exceeds VM limit")
    if size > _MAX_ELEMENTS:
        raise JavaThrows(f"an array of {size} elements (refused here: a JVM with heap enough allocates it)")
    return size


def generate_int(start: int, end: int, inc: int) -> list[int]:
    if inc == 0:
        raise JavaThrows("ArithmeticException: / by zero")
    size = _count(_wrap(_java_div(_wrap(end - start, 32), inc) + 1, 32))
    return [_wrap(start + i * inc, 32) for i in range(size)]


def generate_long(start: int, end: int, inc: int) -> list[int]:
    if inc == 0:
        raise JavaThrows("ArithmeticException: / by zero")
    size = _count(_wrap(_wrap(_java_div(_wrap(end - start, 64), inc) + 1, 64), 32))
    return [_wrap(start + i * inc, 64) for i in range(size)]


def _f32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def _java_int_of(value: float) -> int:
    if value != value:
        return 0
    return max(_INT_MIN, min(2**31 - 1, int(value))) if abs(value) != float("inf") else (
        2**31 - 1 if value > 0 else _INT_MIN)


def _ieee_by_zero(numerator: float, zero: float) -> float:
    """``numerator / ±0.0`` in IEEE arithmetic (Python raises): NaN for 0 / 0 or NaN, else an infinity whose
    sign is the numerator's times the zero's (a step of -0.0 turns it)."""
    if numerator != numerator or numerator == 0:
        return float("nan")
    return math.copysign(float("inf"), numerator) * math.copysign(1.0, zero)


def generate_double(start: float, end: float, inc: float, single: bool = False) -> list[float]:
    rounding = _f32 if single else float
    quotient = rounding(end - start) / inc if inc != 0 else _ieee_by_zero(rounding(end - start), inc)
    size = _count(_java_int_of(rounding(rounding(quotient) + 1)))
    out, value = [], start
    for _ in range(size):
        out.append(value)
        value = rounding(value + inc)
    return out


def intersect_indices(a: tuple, b: tuple) -> list[int]:
    i = j = 0
    out = []
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            out.append(a[i])
            j += 1
        i += 1
    return out


@scalar_function("generateIntArray", primitive_array=True, arity=3)
def _generate_int(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, generate_int, pa.list_(pa.int32()), *(to_int(a, ctx) for a in args))


@scalar_function("generateLongArray", primitive_array=True, arity=3)
def _generate_long(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, generate_long, pa.list_(pa.int64()), *(to_long(a, ctx) for a in args))


@scalar_function("generateDoubleArray", primitive_array=True, arity=3)
def _generate_double(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, generate_double, pa.list_(pa.float64()), *(to_double(a, ctx) for a in args))


@scalar_function("generateFloatArray", primitive_array=True, arity=3)
def _generate_float(ctx: Context, args: list[Value]) -> Value:
    floats = [to_double(a, ctx) for a in args]

    def run(start, end, inc):
        return generate_double(_f32(start), _f32(end), _f32(inc), single=True)

    return per_row(ctx, run, pa.list_(pa.float32()), *floats)


@scalar_function("intersectIndices", primitive_array=True, arity=2)
def _intersect_indices(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, intersect_indices, pa.list_(pa.int32()), to_array(args[0], "Int", ctx),
                   to_array(args[1], "Int", ctx))


_ELEMENT = {"INT": pa.int32(), "LONG": pa.int64(), "FLOAT": pa.float32(), "DOUBLE": pa.float64(),
            "BOOLEAN": pa.bool_(), "STRING": pa.string()}


@scalar_function("array", "arrayValueConstructor", arity=VAR_ARGS)
def _array(ctx: Context, args: list[Value]) -> Value:
    types = [java_type(a) for a in args]
    element = _ELEMENT.get(types[0])
    if element is None:
        raise IngestionError(f"{ctx.where}: array() of {types[0]} values is not supported here")
    if any(t != types[0] for t in types):
        raise IngestionError(f"{ctx.where}: array() of {', '.join(types)}: ClassCastException in Pinot "
                             f"(every argument must have the first one's type)")
    columns = [broadcast(a, ctx.num_rows, element).cast(element) for a in args]
    table = pa.table({str(i): c for i, c in enumerate(columns)})
    rows = [list(r.values()) for r in table.to_pylist()]
    return pa.array(rows, pa.list_(element))
