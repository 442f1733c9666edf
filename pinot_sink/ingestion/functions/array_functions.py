"""Array functions on multi-value (Arrow list) values (ArrayFunctions, ArrayLengthScalarFunction,
ArraysOverlapScalarFunction).

An array parameter is converted as ``PinotDataType.toPrimitiveIntArray`` / ``toStringArray`` ... do: each
element of a multi-value converted to the element type (a text element of an ``int[]`` parsed, a double
truncated), a single value as an array of one. A null element of a primitive array is Java's
``NullPointerException`` (the row fails); a String array keeps it. Looked up by argument count as Pinot does
at ingestion, ``arrayLength`` / ``cardinality`` and ``arraysOverlap`` take their ``String[]`` overloads.
Each function runs once per distinct argument tuple (``rowwise.per_row``).
"""
from __future__ import annotations

import math
import struct
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import lone_surrogates
from ..java_objects import BYTES_THEN_OTHER, bytes_then_other, is_object, java_to_string, object_array, objects
from ..values import (broadcast, Const, Context, IngestionError, java_type, to_double, to_float, to_int, to_long,
                      to_string, Value)
from .registry import scalar_function, VAR_ARGS
from .rowwise import JavaThrows, per_row


def _to_timestamp(value: Value, ctx: Context) -> Value:
    """A ``Timestamp[]``'s elements (PinotDataType.toTimestamp each: an Integer element fails)."""
    from .data_type_conversion_functions import timestamp_argument  # (it imports the string functions)

    return timestamp_argument(value, ctx)


_CONVERT: dict[str, tuple[Callable[[Value, Context], Value], pa.DataType]] = {
    "Int": (to_int, pa.int32()), "Long": (to_long, pa.int64()), "Float": (to_float, pa.float32()),
    "Double": (to_double, pa.float64()), "String": (to_string, pa.string()), "Timestamp": (_to_timestamp, pa.int64())}
_ZERO = {"Int": 0, "Long": 0, "Float": 0.0, "Double": 0.0, "String": None}  # a new Java array's elements
_PLACEHOLDER = {"Int": 0, "Long": 0, "Float": 0.0, "Double": 0.0, "String": ""}  # NullValuePlaceHolder


def to_array(value: Value, kind: str, ctx: Context) -> pa.Array:
    """A value converted for a Java array parameter of element type ``kind``, as an Arrow list array."""
    convert, element_type = _CONVERT[kind]
    array = broadcast(value, ctx.num_rows)
    if is_object(array.type):
        values = objects(array)
        mixed = np.array([bytes_then_other(v) for v in values], np.bool_)
        if mixed.any():
            ctx.fail(mixed, BYTES_THEN_OTHER, array)
            array = object_array([None if mixed[i] else v for i, v in enumerate(values)])
        array = _object_lists(array, kind)
    if not (pa.types.is_list(array.type) or pa.types.is_large_list(array.type)):
        mask = array.is_null() if array.null_count else None
        array = pa.ListArray.from_arrays(pa.array(np.arange(len(array) + 1, dtype=np.int32)), array, mask=mask)
    lengths = pc.fill_null(pc.list_value_length(array), 0).to_numpy(zero_copy_only=False)
    flat = pc.list_flatten(array)
    element_ctx = Context(len(flat), 0, continue_on_error=True)  # element failures are mapped to their rows
    element_ctx.where = ctx.where
    converted = broadcast(convert(flat, element_ctx), len(flat), element_type)
    parents = pc.list_parent_indices(array).to_numpy(zero_copy_only=False)
    failed = np.zeros(len(array), dtype=np.bool_)
    if element_ctx.errors is not None:
        bad = np.bincount(parents[element_ctx.errors], minlength=len(array)) > 0
        ctx.fail(bad, f"an element cannot be converted to {kind.lower()} (NumberFormatException)", array)
        failed |= bad
    if kind != "String" and flat.null_count:
        bad = np.bincount(parents[flat.is_null().to_numpy(zero_copy_only=False)], minlength=len(array)) > 0
        ctx.fail(bad, "NullPointerException: a null element in a primitive array", array)
        failed |= bad
    offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32))
    mask = (array.is_null().to_numpy(zero_copy_only=False) if array.null_count else failed) | failed
    return pa.ListArray.from_arrays(offsets, converted.cast(element_type), mask=pa.array(mask) if mask.any() else None)


def _object_lists(array: pa.Array, kind: str) -> pa.Array:
    """Java objects (``jsonStringToArray``...) for an array parameter: a List gives every element (``toObjectArray``
    of the Collection), each a String as its ``toString`` (a Map ``{a=1}``); any other object is one element."""
    rows = [None if v is None else v if isinstance(v, list) else [v] for v in objects(array)]
    offsets = np.cumsum([0] + [len(r or ()) for r in rows]).astype(np.int32)
    flat = [e for r in rows for e in (r or ())]
    if kind == "String":
        elements = pa.array([None if e is None else java_to_string(e) for e in flat], pa.string())
    else:
        elements = object_array(flat)
    mask = pa.array([r is None for r in rows]) if any(r is None for r in rows) else None
    return pa.ListArray.from_arrays(pa.array(offsets), elements, mask=mask)


def _register(name: str, params: str, out: str, fn: Callable, *, element: str | None = None):
    """``name`` taking ``params`` ('A' an array of ``element``, 'i' int, 'v' one ``element`` value, 's' String)
    and returning ``out`` ('A' an array of ``element``, 'I' int array, 'i' int, 'l' long, 'b' boolean, 'v' one
    element value, 's' String)."""
    element_type = _CONVERT[element][1] if element else None
    out_type = {"A": pa.list_(element_type) if element_type else None, "I": pa.list_(pa.int32()), "i": pa.int32(),
                "l": pa.int64(), "b": pa.bool_(), "v": element_type, "s": pa.string()}[out]

    def impl(ctx: Context, args: list[Value]) -> Value:
        converted = []
        for kind, arg in zip(params, args):
            if kind == "A":
                converted.append(to_array(arg, element, ctx))
            elif kind == "i":
                converted.append(to_int(arg, ctx))
            elif kind == "s":
                converted.append(to_string(arg, ctx))
            else:
                converted.append(_CONVERT[element][0](arg, ctx))
        return per_row(ctx, fn, out_type, *converted)

    primitive = out == "I" or (out == "A" and element != "String")  # int[] ... double[], not String[]
    scalar_function(name, arity=len(params), primitive_array=primitive)(impl)


def _same(a, b) -> bool:
    """Equality as ArrayUtils compares: ``==`` for numbers (0.0 == -0.0), NaN finding NaN; ``equals`` for text."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _index_of(values: tuple, target) -> int:
    return next((i for i, v in enumerate(values) if _same(v, target)), -1)


def _distinct(values) -> list:
    """Insertion-ordered distinct values (``LinkedOpenHashSet``)."""
    seen: dict = {}
    for v in values:
        seen.setdefault(v, None)
    return list(seen)


def _utf16_key(s: str) -> bytes:
    """``String.compareTo`` order: by UTF-16 code units (a lone surrogate's marker read as its unit)."""
    return lone_surrogates.current().java_chars(s).encode("utf-16-be", "surrogatepass")


def _sort(values: tuple, kind: str) -> list:
    if kind == "String":
        if any(v is None for v in values):
            raise JavaThrows("NullPointerException: a null element in Arrays.sort(String[])")
        return sorted(values, key=_utf16_key)
    return sorted(values)  # Arrays.sort(int[])


def _slice(values: tuple, start: int, end: int, kind: str) -> list:
    """``Arrays.copyOfRange``: zeros (nulls for String) past the end; a bad range throws."""
    if start > end:
        raise JavaThrows(f"IllegalArgumentException: {start} > {end}")
    if start < 0 or start > len(values):
        raise JavaThrows(f"ArrayIndexOutOfBoundsException: arraycopy: source index {start} out of bounds")
    _count(end - start)  # (seed 303-4: a slice to 430 million elements, padded, as generate*Array's sizes)
    part = list(values[start:end])
    return part + [_ZERO[kind]] * (end - start - len(part))


def _remove_first(values: tuple, target) -> list:
    """``ArrayUtils.removeElement``: the first occurrence only."""
    index = _index_of(values, target)
    return list(values) if index < 0 else list(values[:index] + values[index + 1:])


def _wrap(total: int, bits: int) -> int:
    total %= 2**bits
    return total - 2**bits if total >= 2**(bits - 1) else total


for _kind in ("Int", "String"):
    _register(f"arrayReverse{_kind}", "A", "A", lambda v: list(reversed(v)), element=_kind)
    _register(f"arraySort{_kind}", "A", "A", lambda v, _k=_kind: _sort(v, _k), element=_kind)
    _register(f"arrayIndexOf{_kind}", "Av", "i", _index_of, element=_kind)
    _register(f"arrayContains{_kind}", "Av", "b", lambda v, t: _index_of(v, t) >= 0, element=_kind)
    _register(f"arrayDistinct{_kind}", "A", "A", _distinct, element=_kind)
    _register(f"arrayRemove{_kind}", "Av", "A", _remove_first, element=_kind)
    _register(f"arrayUnion{_kind}", "AA", "A", lambda a, b: _distinct(a + b), element=_kind)

for _kind in ("Int", "Long", "Float", "Double", "String"):
    _register(f"arrayIndexesOf{_kind}", "Av", "I", lambda v, t: [i for i, e in enumerate(v) if _same(e, t)],
              element=_kind)
    _register(f"arrayConcat{_kind}", "AA", "A", lambda a, b: list(a + b), element=_kind)
    _register(f"arrayPushBack{_kind}", "Av", "A", lambda v, e: list(v) + [e], element=_kind)
    _register(f"arrayPushFront{_kind}", "Av", "A", lambda v, e: [e] + list(v), element=_kind)
    _register(f"arrayElementAt{_kind}", "Ai", "v",
              lambda v, i, _k=_kind: v[i - 1] if 0 < i <= len(v) else _PLACEHOLDER[_k], element=_kind)

for _kind in ("Int", "Long", "String"):
    _register(f"arraySlice{_kind}", "Aii", "A", lambda v, s, e, _k=_kind: _slice(v, s, e, _k), element=_kind)

_register("arraySumInt", "A", "i", lambda v: _wrap(sum(v), 32), element="Int")
_register("arraySumLong", "A", "l", lambda v: _wrap(sum(v), 64), element="Long")


@scalar_function("arrayLength", "cardinality", arity=1)
def _array_length(ctx: Context, args: list[Value]) -> Value:
    lists = to_array(args[0], "String", ctx)
    return pc.list_value_length(lists).cast(pa.int32())


_register("arraysOverlap", "AA", "b", lambda a, b: not set(a).isdisjoint(b), element="String")
_register("arrayToString", "As", "s",
          lambda v, delimiter: delimiter.join("null" if e is None else e for e in v), element="String")
_register("arrayToString", "Ass", "s",
          lambda v, delimiter, null: "" if not v else delimiter.join(null if e in (None, "") else e for e in v),
          element="String")


# ----------------------------------------------------------------------------------------------------
# ArrayFunctions that make arrays: ``array(...)`` / ``arrayValueConstructor``, ``generateIntArray`` /
# ``Long`` / ``Float`` / ``Double``, ``intersectIndices``; checked against Pinot's own build
# (tests/fixtures/functions/array_build.jsonl, read through ``arrayToString`` / ``arrayLength``: a primitive
# array stored directly in a multi-value column is Pinot's ``ClassCastException``, issue 23's cause 2).
#
# ``array(a, b, ...)`` is an array of the first argument's Java type (INT, LONG, FLOAT, DOUBLE, BOOLEAN, STRING);
# an argument of another type is Java's ``ClassCastException`` (the row fails), a null one makes the result null.
# ``generate...Array(start, end, inc)``: ``(end - start) / inc + 1`` elements (Java arithmetic of the type, the
# count cast to int), ``start`` then adding ``inc``; ``inc`` 0 in the integer forms fails the row (division by
# zero), a negative count fails it (``NegativeArraySizeException``), a count above 2^24 is refused here (a JVM
# with heap enough allocates it, one without fails the row: the outcome is the heap's; this package does not
# build such rows), one beyond HotSpot's longest array (``Integer.MAX_VALUE - 2``: a zero float step) fails
# the row as Java's ``OutOfMemoryError`` does with any heap. ``intersectIndices(a, b)`` walks both arrays as
# Pinot does (meant for sorted input).

_MAX_ELEMENTS = 1 << 24
_VM_LIMIT = 2**31 - 3
_INT_MIN, _LONG_MIN = -(2**31), -(2**63)


def _wrap_bits(value: int, bits: int) -> int:
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
    size = _count(_wrap_bits(_java_div(_wrap_bits(end - start, 32), inc) + 1, 32))
    return [_wrap_bits(start + i * inc, 32) for i in range(size)]


def generate_long(start: int, end: int, inc: int) -> list[int]:
    if inc == 0:
        raise JavaThrows("ArithmeticException: / by zero")
    size = _count(_wrap_bits(_wrap_bits(_java_div(_wrap_bits(end - start, 64), inc) + 1, 64), 32))
    return [_wrap_bits(start + i * inc, 64) for i in range(size)]


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


@scalar_function("array", arity=VAR_ARGS)
def _array(ctx: Context, args: list[Value]) -> Value:
    if not args:  # Pinot returns its empty Object[] as it is (a column stores it as null)
        return object_array([[] for _ in range(ctx.num_rows)])
    types = [java_type(a) for a in args]
    if types[0] in ("ARRAY", "BYTES") and not is_object(args[0].type):  # Pinot's Object[] as it is
        return _objects_of(ctx, args)
    element = _ELEMENT.get(types[0])
    if element is None:
        raise IngestionError(f"{ctx.where}: array() of {types[0]} values is not supported here")
    if any(t != types[0] for t in types):  # Java's cast of each argument to the first one's class, per row
        ctx.fail(np.ones(ctx.num_rows, dtype=np.bool_), f"ClassCastException: array() of {', '.join(types)} "
                 f"(every argument must have the first one's type)")
        return Const(None, "NULL")
    columns = [broadcast(a, ctx.num_rows, element).cast(element) for a in args]
    table = pa.table({str(i): c for i, c in enumerate(columns)})
    rows = [list(r.values()) for r in table.to_pylist()]
    return pa.array(rows, pa.list_(element))


def _objects_of(ctx: Context, args: list[Value]) -> Value:
    """``array(...)`` whose first argument is of no class it makes a typed array for (a multi-value's
    ``Object[]``): Pinot returns its ``Object[]`` of the arguments as they are (arrays whole), which a column
    stores as any Java array (nested ones flattened, nulls dropped)."""
    columns = [a.value if isinstance(a, Const) else (objects(a) if is_object(a.type) else a.to_pylist())
               for a in args]
    rows = [[c[row] if isinstance(c, list) else c for c in columns] for row in range(ctx.num_rows)]
    if any(isinstance(v, list) for row in rows for v in row) and any(
            isinstance(v, (bytes, bytearray)) for row in rows for v in row):
        # a multi-value beside a byte[] (array(sa, b)): Pinot's storing of it is not reproduced (a String[] first
        # prints a byte[] element by its toString), refused rather than a silently different value
        raise IngestionError(f"{ctx.where}: array() of a multi-value and BYTES values is not supported here")
    return object_array(rows)


def gives_primitive_array(value: Value) -> bool:
    """Whether ``array(...)``'s value is a Java primitive array (``int[]``, ``long[]``, ``float[]``, ``double[]``,
    ``boolean[]``: its first argument a number or a boolean), which a column cannot store as values."""
    return not isinstance(value, Const) and pa.types.is_list(value.type) and not pa.types.is_string(
        value.type.value_type)


@scalar_function("arrayValueConstructor", arity=VAR_ARGS, nullable=True)
def _array_value_constructor(ctx: Context, args: list[Value]) -> Value:
    """Pinot's evaluator plans this name apart (``ArrayConstantExecutionNode``): its literal arguments as they are,
    an ``Object[]`` of Integer / Long / Double / String / Boolean and nulls, the same in every row; a column stores
    it as it stores any Java array (null elements dropped, an empty one null). evaluate._check refuses an argument
    that is not a literal (Pinot's NullPointerException when the config is read)."""
    values = [a.value for a in args]
    return object_array([list(values) for _ in range(ctx.num_rows)])
