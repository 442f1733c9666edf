"""Evaluate a parsed expression over a whole batch (``InbuiltFunctionEvaluator``, column-wise).

Pinot's rules, kept here for the whole column at once:
* a function not registered ``nullableParameters`` returns null when any argument is null, without running
  (so a row whose input is null cannot fail in it);
* AND / OR / NOT are three-valued: AND is false if any operand is false, else null if any is null; OR is
  true if any is true, else null if any is null; and they stop at the first deciding operand, so a later
  operand is not evaluated (cannot fail) on rows already decided;
* a function that throws on a row fails the build, or with ``continueOnError`` leaves the transform's
  column null for that row and marks the row incomplete (``Context.fail``).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .expression import Call, ExpressionError, Identifier, Literal, Node, arguments, parse_expression
from .functions import lookup
from .values import Const, Context, IngestionError, Value, broadcast, null_mask, with_nulls

_LOGIC = {"and", "or", "not"}


class Expression:
    """A transform or filter function, checked against the function registry when built."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.root = parse_expression(text)
        self.arguments = arguments(self.root)
        _check(self.root, text)

    def __reduce__(self):  # ship the text; rebuild (and re-check) on the executor
        return (Expression, (self.text,))

    def evaluate(self, columns: Mapping[str, pa.Array], ctx: Context) -> Value:
        return _evaluate(self.root, columns, ctx)

    def evaluate_array(self, columns: Mapping[str, pa.Array], ctx: Context) -> pa.Array:
        value = self.evaluate(columns, ctx)
        return broadcast(value, ctx.num_rows) if isinstance(value, Const) else value


def _check(node: Node, text: str) -> None:
    if not isinstance(node, Call):
        return
    for arg in node.args:
        _check(arg, text)
    if node.name in _LOGIC:
        if node.name == "not" and len(node.args) != 1:
            raise ExpressionError(f"NOT expects 1 argument in {text!r}")
        return
    function = lookup(node.name, len(node.args))
    if function is None:
        from .functions import REGISTRY

        if node.name in REGISTRY:
            raise ExpressionError(f"Unsupported function: {node.text} with {len(node.args)} arguments in {text!r}")
        raise ExpressionError(f"Unsupported function: {node.text} in {text!r} (not a Pinot scalar function this "
                              f"package evaluates; see docs/ingestion.md)")
    if function.check is not None:
        literals = [a.value if isinstance(a, Literal) else None for a in node.args]
        try:
            function.check(literals)
        except ValueError as exc:
            raise ExpressionError(f"{node.text} in {text!r}: {exc}") from None


def _evaluate(node: Node, columns: Mapping[str, pa.Array], ctx: Context) -> Value:
    if isinstance(node, Literal):
        return Const(node.value, node.java_type)
    if isinstance(node, Identifier):
        column = columns.get(node.name)
        if column is None:
            return Const(None, "NULL")  # a missing field reads as null in a GenericRow
        return column
    if node.name in _LOGIC:
        return _logic(node, columns, ctx)
    function = lookup(node.name, len(node.args))
    assert function is not None  # checked when built
    args = [_evaluate(a, columns, ctx) for a in node.args]
    if function.nullable:
        return _call(function, args, ctx, None)
    nulls = np.zeros(ctx.num_rows, dtype=np.bool_)
    for a in args:
        if isinstance(a, Const):
            if a.value is None:
                return Const(None, "NULL")
        else:
            nulls |= null_mask(a)
    if nulls.all():
        return Const(None, "NULL")
    if all(isinstance(a, Const) for a in args):
        args[0] = broadcast(args[0], ctx.num_rows)
    return _call(function, args, ctx, nulls)


def _call(function, args: list[Value], ctx: Context, nulls: np.ndarray | None) -> Value:
    outer_active = ctx.active
    errors_before = None if ctx.errors is None else ctx.errors.copy()
    if nulls is not None and nulls.any():
        ctx.active = ~nulls if outer_active is None else (outer_active & ~nulls)
    try:
        result = function.impl(ctx, args)
    finally:
        ctx.active = outer_active
    if isinstance(result, pa.ChunkedArray):
        result = result.combine_chunks()
    if isinstance(result, pa.Array):
        if nulls is not None and nulls.any():
            result = with_nulls(result, nulls)
        if ctx.errors is not None:  # rows that failed here are null from now on
            new = ctx.errors if errors_before is None else (ctx.errors & ~errors_before)
            result = with_nulls(result, new)
    return result


def _as_boolean(value: Value, ctx: Context, text: str) -> Value:
    if isinstance(value, Const):
        if value.value is None or isinstance(value.value, bool):
            return value
    elif pa.types.is_boolean(value.type) or pa.types.is_null(value.type):
        return value.cast(pa.bool_())
    raise IngestionError(f"{ctx.where}: an operand of {text} is not a boolean (ClassCastException in Pinot)")


def _logic(node: Call, columns: Mapping[str, pa.Array], ctx: Context) -> Value:
    if node.name == "not":
        value = _as_boolean(_evaluate(node.args[0], columns, ctx), ctx, "NOT")
        if isinstance(value, Const):
            return value if value.value is None else Const(not value.value, "BOOLEAN")
        return pc.invert(value)
    deciding = node.name == "or"  # OR stops at true, AND at false
    result: pa.Array | None = None
    outer_active = ctx.active
    try:
        for operand in node.args:
            value = _as_boolean(_evaluate(operand, columns, ctx), ctx, node.name.upper())
            array = broadcast(value, ctx.num_rows, pa.bool_())
            result = array if result is None else (pc.or_kleene(result, array) if deciding
                                                   else pc.and_kleene(result, array))
            decided = pc.fill_null(pc.equal(result, deciding), False).to_numpy(zero_copy_only=False)
            if decided.all():
                break
            ctx.active = ~decided if outer_active is None else (outer_active & ~decided)
    finally:
        ctx.active = outer_active
    return result
