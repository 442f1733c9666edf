"""ObjectFunctions' ``nullIf``, ``isDistinctFrom``, ``isNotDistinctFrom`` and JsonFunctions' ``toJsonMapStr``
(Jackson's JSON of a map or struct column, in its entry order; ``"null"`` for a null one). The first three are nullable, and equality is Java's
``Object.equals`` on the values as Pinot holds them, so the Java types must match: an INT column never equals
a LONG literal (``Integer.equals(Long)``), a whole-number literal is an INT (a LONG past 2^31), a decimal one
a DOUBLE; ``Double.equals`` compares bits (NaN equals NaN, 0.0 is not -0.0); BYTES (``byte[]``) equal nothing
but themselves, so never here.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.convert import json_text  # Jackson's compact JSON (one home for that rule)

from ..java_objects import is_object, objects
from ..values import Const, Context, IngestionError, Value, broadcast, java_type, null_mask
from .registry import scalar_function


def _bits(array: pa.Array) -> pa.Array:
    width = pa.int64() if pa.types.is_float64(array.type) else pa.int32()
    data = pc.fill_null(array, 0).to_numpy(zero_copy_only=False)
    return pa.array(data.view(np.int64 if width == pa.int64() else np.int32), width)


def _equal(ctx: Context, a: Value, b: Value) -> np.ndarray:
    """``a.equals(b)`` per row (False where either is null)."""
    if java_type(a) == "ARRAY" and a is b:  # a multi-value is an Object[]: equal to itself only (the same column)
        return ~null_mask(a)
    if java_type(a) != java_type(b) or java_type(a) in ("BYTES", "NULL", "ARRAY"):
        return np.zeros(ctx.num_rows, np.bool_)
    x, y = broadcast(a, ctx.num_rows), broadcast(b, ctx.num_rows)
    if java_type(a) in ("FLOAT", "DOUBLE"):
        x, y = _bits(x.cast(y.type) if isinstance(a, Const) else x), _bits(y.cast(x.type) if isinstance(b, Const) else y)
    elif x.type != y.type:
        y = y.cast(x.type)
    return pc.fill_null(pc.equal(x, y), False).to_numpy(zero_copy_only=False)


def _nulls(ctx: Context, value: Value) -> np.ndarray:
    if isinstance(value, Const):
        return np.full(ctx.num_rows, value.value is None)
    return null_mask(value)


@scalar_function("isDistinctFrom", arity=2, nullable=True)
def _is_distinct_from(ctx: Context, args: list[Value]) -> Value:
    a_null, b_null = _nulls(ctx, args[0]), _nulls(ctx, args[1])
    equal = _equal(ctx, args[0], args[1])
    return pa.array(np.where(a_null & b_null, False, np.where(a_null | b_null, True, ~equal)), pa.bool_())


@scalar_function("isNotDistinctFrom", arity=2, nullable=True)
def _is_not_distinct_from(ctx: Context, args: list[Value]) -> Value:
    return pc.invert(_is_distinct_from(ctx, args))


@scalar_function("nullIf", arity=2, nullable=True)
def _null_if(ctx: Context, args: list[Value]) -> Value:
    first = broadcast(args[0], ctx.num_rows)
    equal = _equal(ctx, args[0], args[1])
    if not equal.any():
        return first
    return pc.if_else(pa.array(equal), pa.nulls(ctx.num_rows, first.type), first)


@scalar_function("toJsonMapStr", arity=1, nullable=True)
def _to_json_map_str(ctx: Context, args: list[Value]) -> Value:
    """``JsonUtils.objectToString(map)`` of a map or struct column (``"null"`` for a null map); any other
    value is no ``Map``: Pinot cannot convert it, the row fails."""
    value = args[0]
    if isinstance(value, Const):
        if value.value is None:
            return pa.repeat(pa.scalar("null"), ctx.num_rows)
        raise IngestionError(f"{ctx.where}: toJsonMapStr takes a map, not a {value.java_type} literal")
    if is_object(value.type):  # a Java object from another function: a Map, else ClassCastException
        items = objects(value)
        bad = np.array([v is not None and not isinstance(v, dict) for v in items], np.bool_)
        ctx.fail(bad, "ClassCastException: not a java.util.Map (toJsonMapStr)", items)
        return pa.array(["null" if v is None else json_text(v) if isinstance(v, dict) else None for v in items],
                        pa.string())
    if java_type(value) != "MAP":
        raise IngestionError(f"{ctx.where}: Cannot convert value from {java_type(value)} to a Map "
                             f"(toJsonMapStr takes a map or struct column)")
    is_map = pa.types.is_map(value.type)
    return pa.array(["null" if v is None else json_text(dict(v) if is_map else v) for v in value.to_pylist()],
                    pa.string())
