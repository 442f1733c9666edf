"""Functions with no vectorised form: a Python function of Java values, run once per distinct argument tuple.

``per_row(ctx, fn, out_type, *args)`` calls ``fn`` with the arguments' Python values (a literal is passed as
it is); a row with a null argument gives null without calling ``fn`` (the functions using this are
null-intolerant). ``fn`` raises ``JavaThrows`` where Java throws: those rows fail through ``Context.fail``
(the build fails, or with continueOnError the row is nulled and counted). A list argument reaches ``fn`` as a
tuple.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from javalib.exceptions import JavaException
from type_mapping.errors import PinotSinkError

from ..values import Const, Context, Value, as_numpy_mask


class JavaThrows(PinotSinkError, JavaException):
    """Raised by a row function where Java throws; the message is Java's exception. The Java library ports
    (javalib) raise their ``JavaException``s, which a row function's caller catches alike."""


def per_row(ctx: Context, fn: Callable[..., Any], out_type: pa.DataType, *args: Value) -> pa.Array:
    columns = [i for i, a in enumerate(args) if not isinstance(a, Const)]
    if not columns:
        raise ValueError("per_row needs at least one column argument")
    failures: dict[Any, str] = {}

    def call(values: tuple) -> Any:
        if any(v is None for v in values):
            return None
        try:
            return fn(*values)
        except JavaException as exc:  # JavaThrows, or a ported library's throw
            failures[values] = str(exc)
            return None

    consts = [a.value if isinstance(a, Const) else None for a in args]
    if len(columns) == 1 and not _is_list(args[columns[0]].type):  # dictionary-encode, once per distinct value
        position = columns[0]
        encoded = pc.dictionary_encode(args[position])
        keys = []
        results = []
        for v in encoded.dictionary.to_pylist():
            values = tuple(v if i == position else c for i, c in enumerate(consts))
            keys.append(values)
            results.append(call(values))
        out = pa.array(results, out_type).take(encoded.indices)
        if failures:
            codes = _codes(failures, keys)
            indices = encoded.indices.fill_null(0).to_numpy(zero_copy_only=False)
            row_codes = np.where(encoded.indices.is_valid().to_numpy(zero_copy_only=False), codes[indices], -1)
            _fail_by_reason(ctx, failures, row_codes, args[position])
        return out
    lists = [[tuple(v) if isinstance(v, list) else v for v in args[i].to_pylist()] for i in columns]
    cache: dict[tuple, Any] = {}
    rows = []
    for row in zip(*lists):
        values = list(consts)
        for i, v in zip(columns, row):
            values[i] = v
        key = tuple(values)
        if key not in cache:
            cache[key] = call(key)
        rows.append(key)
    out = pa.array([cache[k] for k in rows], out_type)  # a list argument reaches fn as a tuple
    if failures:
        row_codes = _codes(failures, rows)
        _fail_by_reason(ctx, failures, row_codes, [k[columns[0]] for k in rows])
    return out


def _codes(failures: dict[Any, str], keys: list) -> np.ndarray:
    """Per key, the position of its failure's reason among the distinct reasons; -1 where it did not throw."""
    number = {reason: i for i, reason in enumerate(dict.fromkeys(failures.values()))}
    return np.array([number[failures[k]] if k in failures else -1 for k in keys], np.int64)


def _fail_by_reason(ctx: Context, failures: dict[Any, str], row_codes: np.ndarray, values: Any) -> None:
    """Fail each row with its own throw's reason: one ``ctx.fail`` per distinct reason, the earliest failing
    row's first (a build without continueOnError stops there, naming that row's reason). Before, every failing
    row was failed with the first reason, so a reader of the failures (the differential search's classifier
    of deliberate differences, tools/pinot_functions) saw one row's reason for all."""
    reasons = list(dict.fromkeys(failures.values()))
    if ctx.active is not None:  # rows a conditional leaves out do not throw (Context.fail ignores them too)
        row_codes = np.where(as_numpy_mask(ctx.active), row_codes, -1)
    firsts = sorted((int(np.argmax(row_codes == c)), c) for c in range(len(reasons)) if (row_codes == c).any())
    for _, code in firsts:
        ctx.fail(row_codes == code, reasons[code], values)


def _is_list(t: pa.DataType) -> bool:
    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)
