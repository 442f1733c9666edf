"""Evaluate a parsed expression over a whole batch (``InbuiltFunctionEvaluator``, column-wise).

Pinot's rules, kept here for the whole column at once:
* a function not registered ``nullableParameters`` returns null when any argument is null, without running
  (so a row whose input is null cannot fail in it);
* AND / OR / NOT are three-valued: AND is false if any operand is false, else null if any is null; OR is
  true if any is true, else null if any is null; and they stop at the first deciding operand, so a later
  operand is not evaluated (cannot fail) on rows already decided;
* a function that throws on a row fails the build, or with ``continueOnError`` leaves the transform's
  column null for that row and marks the row incomplete (``Context.fail``);
* a pattern, unit, zone or JSON path may be a column (Pinot reads it row by row): the function runs once
  per distinct combination of such arguments, on that group's rows, with them as literals (``_per_literal``).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .expression import Call, ExpressionError, Identifier, Literal, Node, arguments, parse_expression
from . import lone_surrogates
from .functions import lookup
from .values import (Const, Context, IngestionError, RowFailure, Value, arrow_java_type, as_numpy_mask, broadcast, java_type,
                     first_elements, is_list, null_mask,
                     with_nulls)

# AND / OR / NOT (operators, or the function-call forms Pinot's registry lists from LogicalFunctions): its
# evaluator plans them itself (InbuiltFunctionEvaluator's And/Or/NotExecutionNode), any number of operands for
# AND / OR, so they are evaluated here (`_logic`), not through the function registry
LOGICAL_OPERATORS = {"and", "or", "not"}


_CLOCK = {"now", "ago", "agomv"}  # the functions that read the write's instant (functions/date_time_functions.py)


def reads_the_clock(node: Node | None) -> bool:
    """Whether ``node`` calls ``now()``, ``ago()`` or ``agoMV()`` anywhere."""
    return isinstance(node, Call) and (node.name in _CLOCK or any(reads_the_clock(a) for a in node.args))


class Expression:
    """A transform or filter function, checked against the function registry when built."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.root = parse_expression(text)
        self.arguments = arguments(self.root)
        _check(self.root, text)

    def __reduce__(self):  # ship the text; rebuild (and re-check) on the executor
        return (Expression, (self.text,))

    @property
    def primitive_array_result(self) -> bool:
        """The whole expression is a call whose Java method returns a primitive array (``int[]``...)."""
        if not isinstance(self.root, Call) or self.root.name in LOGICAL_OPERATORS:
            return False
        function = lookup(self.root.name, len(self.root.args))
        return function is not None and function.primitive_array

    def primitive_array_value(self, value: Value) -> bool:
        """Whether the expression's value is a Java primitive array: a function returning one, or ``array(...)``
        of numbers or booleans (its first argument's class decides, known once evaluated)."""
        if self.primitive_array_result:
            return True
        from .functions.array_functions import gives_primitive_array
        return isinstance(self.root, Call) and self.root.name == "array" and gives_primitive_array(value)

    def evaluate(self, columns: Mapping[str, pa.Array], ctx: Context) -> Value:
        return _evaluate(self.root, columns, ctx)

    def evaluate_array(self, columns: Mapping[str, pa.Array], ctx: Context) -> pa.Array:
        value = self.evaluate(columns, ctx)
        return broadcast(value, ctx.num_rows) if isinstance(value, Const) else value


# Arguments Pinot's SQL parser wants as literals, checked when the expression is compiled (not a nested call)
_PARSER_LITERALS = {"jsonextractkey": (1, 2)}
# ... and every argument of these: Pinot's evaluator reads each as a literal when it plans the expression
_ALL_LITERALS = {"arrayvalueconstructor"}


def _check(node: Node, text: str) -> None:
    if not isinstance(node, Call):
        return
    for arg in node.args:
        _check(arg, text)
    if node.name in LOGICAL_OPERATORS:
        if node.name == "not" and len(node.args) != 1:
            raise ExpressionError(f"NOT expects 1 argument in {text!r}")
        return
    if node.name in _ALL_LITERALS and not all(isinstance(a, Literal) for a in node.args):
        raise ExpressionError(f"{node.text} in {text!r}: every argument must be a literal, as Pinot's evaluator "
                              f"requires (InbuiltFunctionEvaluator reads them as literals: NullPointerException)")
    for i in _PARSER_LITERALS.get(node.name, ()):
        if i < len(node.args) and not isinstance(node.args[i], Literal):
            raise ExpressionError(f"{node.text} in {text!r}: argument {i + 1} must be a single-quoted literal, as "
                                  f"Pinot's parser requires (ParserUtils.validateFunction)")
    function = lookup(node.name, len(node.args))
    if function is None and node.name == "in":  # (asked: Pinot's build fails, "Unsupported function: in" / "not_in")
        raise ExpressionError(f"IN / NOT IN in {text!r}: Pinot's ingestion evaluator has no such function (its "
                              f"build fails: Unsupported function: in); write arrayContainsString(split('a,b', "
                              f"','), s) for texts (= compares as doubles in Pinot), n = 1 OR n = 2 for numbers")
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
        if isinstance(node.value, str):  # a cut surrogate in a literal is a marker, as one from a column is
            return Const(lone_surrogates.current().from_java(node.value), node.java_type)
        return Const(node.value, node.java_type)
    if isinstance(node, Identifier):
        column = columns.get(node.name)
        if column is None:
            return Const(None, "NULL")  # a missing field reads as null in a GenericRow
        return column
    if node.name in LOGICAL_OPERATORS:
        return _logic(node, columns, ctx)
    function = lookup(node.name, len(node.args))
    assert function is not None  # checked when built
    destination, ctx.destination = ctx.destination, None  # an argument goes into a parameter, not the column
    try:
        args = [_evaluate(a, columns, ctx) for a in node.args]
    finally:
        ctx.destination = destination
    if function.literal_args and any(i < len(args) and not isinstance(args[i], Const) for i in function.literal_args):
        return _per_literal(function, args, ctx)
    if function.nullable:
        # a CASE / coalesce into a column: its arguments that are calls returning a Java primitive array (the
        # rows taking one fail as that array would, pipeline.py)
        ctx.primitive_args = frozenset(i for i, a in enumerate(node.args) if isinstance(a, Call) and (
            getattr(lookup(a.name, len(a.args)), "primitive_array", False))) if ctx.destination else frozenset()
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
    if args and all(isinstance(a, Const) for a in args):  # (a function of no arguments makes its own rows)
        # the rows come from the first argument that is not one the function reads as a literal (dateTrunc's
        # unit, extract's field): those stay constants
        first = next((i for i in range(len(args)) if i not in function.literal_args), 0)
        # an int literal stays an Integer (int32), as Pinot's parser makes it: PinotDataType converts an Integer
        # apart from a Long (fromTimestamp(0) fails the row, fromTimestamp(1700000000000) does not)
        args[first] = broadcast(args[first], ctx.num_rows, pa.int32() if args[first].java_type == "INT" else None)
    return _call(function, args, ctx, nulls)


def _call(function, args: list[Value], ctx: Context, nulls: np.ndarray | None) -> Value:
    outer_active = ctx.active
    errors_before = None if ctx.errors is None else ctx.errors.copy()
    if nulls is not None and nulls.any():
        ctx.active = ~nulls if outer_active is None else (outer_active & ~nulls)
    try:
        result = run_guarded(function, args, ctx)
    finally:
        ctx.active = outer_active
    if isinstance(result, pa.ChunkedArray):
        result = result.combine_chunks()
    lone = lone_surrogates.current()
    if lone.pairs:  # halves of a pair that met again are the pair, as in Java's String (lone_surrogates.py)
        result = Const(lone.rejoin(result.value), result.java_type) if isinstance(result, Const) and isinstance(
            result.value, str) else lone.rejoin(result)
    if isinstance(result, pa.Array):
        if nulls is not None and nulls.any():
            result = with_nulls(result, nulls)
        if ctx.errors is not None:  # rows that failed here are null from now on
            new = ctx.errors if errors_before is None else (ctx.errors & ~errors_before)
            result = with_nulls(result, new)
    return result


def run_guarded(function, args: list[Value], ctx: Context) -> Value:
    """The one path every function's failure goes through, so that it becomes Pinot's per-row failure (the
    build fails naming the transform and the row, or with continueOnError the row's value is null and the row
    counted), whatever the failure is:

    * ``Context.fail`` from the function: rows Java throws on (already per row);
    * an ``IngestionError`` raised by the function: its literal arguments or its argument types are bad
      (``round(x, 0)``, a zone Joda rejects), so every row it runs on throws in Pinot;
    * any other exception (``AttributeError``, ``decimal.InvalidOperation``, ``ArrowInvalid``...): this
      package's vectorised code met a value it cannot handle; the rows that cause it are found by running the
      function on halves of the batch (only on this path), and fail as Pinot's would.
    """
    try:
        return function.impl(ctx, args)
    except RowFailure:
        raise
    except IngestionError as exc:
        ctx.fail(np.ones(ctx.num_rows, np.bool_), _reason(exc, ctx), getattr(ctx, "literals_shown", None))
        return pa.nulls(ctx.num_rows)
    except Exception as exc:  # noqa: BLE001 - every crash becomes a row failure, never a lost build
        if ctx.num_rows <= 1 or all(isinstance(a, Const) for a in args):
            ctx.fail(np.ones(ctx.num_rows, np.bool_), _reason(exc, ctx))
            return pa.nulls(ctx.num_rows)
        return _isolate(function, args, ctx)


def _reason(exc: Exception, ctx: Context) -> str:
    if isinstance(exc, IngestionError):
        return str(exc).removeprefix(f"{ctx.where}: ")
    return f"{type(exc).__name__}: {exc}".rstrip(": ")


_ROW_BY_ROW = 16  # below this many rows a failing slice is run row by row rather than halved again


def _isolate(function, args: list[Value], ctx: Context) -> pa.Array:
    """``function`` on slices of the batch, halving the slices that crash down to the rows that do; results
    in row order, the crashing rows failed through ``ctx``."""
    results: list[pa.Array] = []
    failures: list[tuple[np.ndarray, str, object]] = []

    def attempt(start: int, stop: int) -> bool:
        rows = np.arange(start, stop)
        sub = _GroupContext(ctx, rows)
        if ctx.active is not None:
            sub.active = ctx.active[start:stop].copy()
        sub_args = [a if isinstance(a, Const) else a.slice(start, stop - start) for a in args]
        try:
            result = function.impl(sub, sub_args)
        except Exception as exc:  # noqa: BLE001
            if stop - start == 1:
                failures.append((rows, _reason(exc, sub), None))
                results.append(pa.nulls(1))
                return True
            return False
        results.append(broadcast(result, stop - start) if isinstance(result, Const) else result)
        failures.extend((rows[mask], reason, None if values is None else _InParent(values, rows))
                        for mask, reason, values in sub.failures)
        return True

    def solve(start: int, stop: int) -> None:
        if not ctx.continue_on_error and failures:
            results.append(pa.nulls(stop - start))  # the build fails at the earliest failure anyway
            return
        if attempt(start, stop):
            return
        if stop - start <= _ROW_BY_ROW:
            for row in range(start, stop):
                attempt(row, row + 1)
            return
        middle = (start + stop) // 2
        solve(start, middle)
        solve(middle, stop)

    solve(0, ctx.num_rows)
    _report(ctx, failures)
    parts = [p.combine_chunks() if isinstance(p, pa.ChunkedArray) else p for p in results]
    return pa.concat_arrays(_one_type(ctx, parts))


class _GroupContext(Context):
    """The rows of one group of ``_per_literal``: it records its failures (always as with continueOnError,
    so that the parent can report the earliest failing row of the whole batch, as Pinot would meet it)."""

    def __init__(self, parent: Context, rows: np.ndarray) -> None:
        super().__init__(len(rows), parent.row_offset, True, parent.instant_ms)
        self.where = parent.where
        self.failures: list[tuple[np.ndarray, str, object]] = []
        self.literals_shown = None  # the group's literal(s), shown when the literal itself is bad

    def fail(self, mask, reason: str, values=None) -> None:
        mask = as_numpy_mask(mask)
        if self.active is not None:
            mask = mask & self.active
        if mask.any():
            self.failures.append((mask, reason, values))
            self.errors = mask if self.errors is None else (self.errors | mask)


class _InParent:
    """A group's values indexed by the parent's row numbers (for the value a failure message shows)."""

    def __init__(self, values, rows: np.ndarray) -> None:
        self.values, self.rows = values, rows

    def __getitem__(self, index: int):
        return self.values[int(np.searchsorted(self.rows, index))]


def _literal_of(array: pa.Array) -> tuple[np.ndarray, list[Const]]:
    """Each row's index into the distinct values of ``array`` (null last), and those values as literals."""
    jt = arrow_java_type(array.type)
    if pa.types.is_null(array.type):
        return np.zeros(len(array), np.int64), [Const(None, "NULL")]
    encoded = pc.dictionary_encode(array)
    distinct = encoded.dictionary.to_pylist()
    indices = pc.fill_null(encoded.indices, len(distinct)).to_numpy(zero_copy_only=False).astype(np.int64)
    return indices, [Const(v, jt) for v in distinct] + [Const(None, jt)]


def _per_literal(function, args: list[Value], ctx: Context) -> Value:
    """``function`` with a column where it reads a literal: once per distinct combination of those
    arguments' values, on that group's rows (a ``_GroupContext``), the results put back in row order."""
    n = ctx.num_rows
    # a multi-value where the function reads a literal: its first element, as FunctionInvoker converts any
    # parameter that takes one value (values.first_elements; grouped by it, as a literal would be); only on
    # the rows with no null argument: Pinot's evaluator returns null before converting any (seed 45)
    if any(i in function.literal_args and is_list(a) for i, a in enumerate(args)):
        outer = ctx.active
        if not function.nullable:
            present = np.ones(n, np.bool_) if outer is None else outer.copy()
            for a in args:
                present &= ~null_mask(broadcast(a, n) if isinstance(a, Const) else a)
            ctx.active = present
        try:
            args = [first_elements(a, ctx) if i in function.literal_args and is_list(a) else a
                    for i, a in enumerate(args)]
        finally:
            ctx.active = outer
    scope = np.ones(n, np.bool_) if ctx.active is None else ctx.active.copy()
    if not function.nullable:  # a null argument gives null without a call (so the row cannot fail)
        for a in args:
            if isinstance(a, Const):
                if a.value is None:
                    return Const(None, "NULL")
            else:
                scope &= ~null_mask(a)
    positions = [i for i in function.literal_args if i < len(args) and not isinstance(args[i], Const)]
    rows_in_scope = np.flatnonzero(scope)
    everywhere = len(rows_in_scope) == n
    code = np.zeros(len(rows_in_scope), np.int64)
    chosen: list[tuple[np.ndarray, list[Const]]] = []
    for i in positions:
        indices, literals = _literal_of(args[i])
        indices = indices if everywhere else indices[rows_in_scope]
        if code.size and int(code.max()) >= 2**62 // len(literals):  # keep the mixed-radix code in int64
            code = np.unique(code, return_inverse=True)[1].astype(np.int64).ravel()
        code = code * len(literals) + indices
        chosen.append((indices, literals))
    groups = _groups(code)
    whole = everywhere and len(groups) == 1  # one value in every row: no need to take and scatter rows
    results: list[pa.Array] = []
    failures: list[tuple[np.ndarray, str, object]] = []
    for members in groups:
        rows = rows_in_scope[members]
        literals = [choice[int(indices[members[0]])] for indices, choice in chosen]
        sub = _GroupContext(ctx, rows)
        sub.literals_shown = _Same(literals[0].value if len(literals) == 1 else tuple(lit.value for lit in literals))
        sub_args = [a if isinstance(a, Const) or whole else a.take(pa.array(rows)) for a in args]
        for i, literal in zip(positions, literals):
            sub_args[i] = literal
        if all(isinstance(a, Const) for a in sub_args) and not function.nullable:
            sub_args[0] = broadcast(sub_args[0], len(rows))
        try:
            result = _call(function, sub_args, sub, None)
            result = broadcast(result, len(rows)) if isinstance(result, Const) else result
            failures += [(rows[mask], reason, None if values is None else _InParent(values, rows))
                         for mask, reason, values in sub.failures]
        except IngestionError as exc:  # the literal itself is bad (a pattern, a zone): all its rows fail
            shown = literals[0].value if len(literals) == 1 else tuple(lit.value for lit in literals)
            failures.append((rows, str(exc).removeprefix(f"{sub.where}: "), _Same(shown)))
            result = pa.nulls(len(rows))
        results.append(result)
    _report(ctx, failures)
    if not results:
        return pa.nulls(n)
    parts = _one_type(ctx, results)
    if whole:
        return parts[0]
    combined = pa.concat_arrays(parts + [pa.nulls(1, parts[0].type)])
    where = np.full(n, len(combined) - 1, np.int64)  # rows in no group are null
    where[rows_in_scope[np.concatenate(groups)]] = np.arange(len(rows_in_scope))
    return combined.take(pa.array(where))


def _groups(code: np.ndarray) -> list[np.ndarray]:
    """The positions of each distinct code, ascending within a group: a pass per group when there are few
    (a pattern column holds a handful of patterns), a stable sort otherwise."""
    if not code.size:
        return []
    top = int(code.max())
    present = np.flatnonzero(np.bincount(code)) if top < 4 * code.size + 1024 else np.unique(code)
    if len(present) <= 32:
        return [np.flatnonzero(code == value) for value in present]
    order = np.argsort(code, kind="stable")
    bounds = np.flatnonzero(np.diff(code[order])) + 1
    return np.split(order, bounds)


class _Same:
    def __init__(self, value) -> None:
        self.value = value

    def __getitem__(self, index: int):
        return self.value


def _report(ctx: Context, failures: list[tuple[np.ndarray, str, object]]) -> None:
    """The groups' failures, in the parent: without continueOnError the earliest failing row of all of them
    is the one reported (the one Pinot meets first)."""
    if failures and not ctx.continue_on_error:
        failures = [min(failures, key=lambda f: int(f[0][0]))]
        failures[0] = (failures[0][0][:1],) + failures[0][1:]
    for rows, reason, values in failures:
        mask = np.zeros(ctx.num_rows, np.bool_)
        mask[rows] = True
        ctx.fail(mask, reason, values)


def _one_type(ctx: Context, arrays: list[pa.Array]) -> list[pa.Array]:
    """The groups' results brought to one Arrow type as CASE branches are (``common_values``; a list's
    elements likewise). A result without values (all null, or only empty lists) takes the others' type."""
    from .functions.arithmetic_functions import common_values
    from .java_objects import as_objects, is_object

    typed = [a for a in arrays if not _valueless(a)]
    if len({a.type for a in typed}) > 1:
        if any(is_object(a.type) for a in typed):  # Java objects in some groups: every group's values as objects
            typed = [as_objects(a) for a in typed]
        elif all(pa.types.is_list(a.type) for a in typed):
            elements = iter(_one_type(ctx, [pc.list_flatten(a) for a in typed]))
            typed = [_relist(a, next(elements)) for a in typed]
        else:
            typed = common_values(ctx, typed)
    target = typed[0].type if typed else next((a.type for a in arrays if not pa.types.is_null(a.type)), pa.null())
    if is_object(target):
        return [as_objects(a) for a in arrays]
    unified = iter(typed)
    return [a.cast(target) if _valueless(a) else next(unified) for a in arrays]


def _valueless(array: pa.Array) -> bool:
    if array.null_count == len(array):
        return True
    return pa.types.is_list(array.type) and len(pc.list_flatten(array)) == 0


def _relist(lists: pa.Array, values: pa.Array) -> pa.Array:
    lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False)
    offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32))
    return pa.ListArray.from_arrays(offsets, values, mask=lists.is_null() if lists.null_count else None)


def _as_boolean(value: Value, ctx: Context, text: str) -> Value:
    """An operand as Pinot's And/Or/NotExecutionNode reads it, ``(Boolean) value``: a non-boolean throws
    ClassCastException on each row where the operand is evaluated and not null (that row fails; the rows an
    earlier operand decided never read it), a null is null."""
    if isinstance(value, Const):
        if value.value is None or isinstance(value.value, bool):
            return value
        failing = np.ones(ctx.num_rows, dtype=np.bool_)
    elif pa.types.is_boolean(value.type) or pa.types.is_null(value.type):
        return value.cast(pa.bool_())
    else:
        failing = ~null_mask(value)
    ctx.fail(failing, f"ClassCastException: an operand of {text} is a {java_type(value).lower()}, not a "
                      f"java.lang.Boolean")
    return Const(None, "NULL")


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
