"""Values flowing through an expression, and Pinot's argument conversions over whole Arrow arrays.

Pinot evaluates row by row on Java objects: before a scalar function runs, ``FunctionInvoker.convertTypes``
converts each argument to the Java parameter type with ``PinotDataType.convert`` (a DOUBLE into a ``long``
parameter is ``(long) d``, truncated; a STRING into a ``double`` is ``Double.parseDouble``; a LONG into an
``int`` is ``intValue()``, wrapping). Here a value is either a ``Const`` (a literal, kept as a Python value
so that patterns, units and zones are read once) or a ``pa.Array`` of the whole batch, and the same
conversions are done column-wise. A value that Java would reject (``NumberFormatException``...) is reported
to the ``Context``, which raises naming the row, or (``continueOnError``) nulls it and counts the row.
"""
from __future__ import annotations

import contextlib
import datetime
import math
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.java_numbers import java_double_to_int, java_double_to_long, java_double_value, java_float_value
from type_mapping.pinot_schema import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN
from type_mapping.errors import PinotSinkError

from . import lone_surrogates
from .java_objects import as_argument, is_object


class IngestionError(PinotSinkError, ValueError):
    """A transform or filter that fails on a row (Pinot fails the build there unless continueOnError)."""


class RowFailure(IngestionError):
    """Raised by ``Context.fail`` without continueOnError: already names the transform and the row, so the
    evaluator lets it through as it is (any other exception of a function is turned into row failures)."""


@dataclass(frozen=True)
class Const:
    value: Any
    java_type: str  # INT, LONG, DOUBLE, STRING, BOOLEAN, NULL, ARRAY


Value = Union[Const, pa.Array]


class Context:
    """Per-batch evaluation state: where we are (for messages) and which rows failed."""

    def __init__(self, num_rows: int, row_offset: int = 0, continue_on_error: bool = False,
                 instant_ms: int | None = None, *, defer_failures: bool = False) -> None:
        self.num_rows = num_rows
        self.row_offset = row_offset
        self.continue_on_error = continue_on_error
        # Without continueOnError Pinot stops at the first row on which any step throws: it runs every step on
        # row 0, then on row 1, ... Evaluated a column at a time, an inner call meets its failing rows before
        # the outer call meets an earlier row's, and one transform before the next. With defer_failures the
        # failures are kept as on continueOnError and the earliest row's first one (in evaluation order) is
        # raised by raise_first_failure once every step has run: the row and the complaint Pinot gives.
        self.defer_failures = defer_failures
        self.first_failure: tuple[int, str] | None = None
        # the write's own instant (epoch millis), what now() / ago() read: chosen once per write on the driver
        # and passed in as a value (docs/ingestion.md), None where no write gave one
        self.instant_ms = instant_ms
        self.where = ""  # e.g. "transform of column 'x' (toEpochDays(ts))"
        self.errors: np.ndarray | None = None  # rows that failed in the expression being evaluated
        self.active: np.ndarray | None = None  # rows a null-intolerant function actually runs on
        # the Pinot type of the column the root call's result goes into (None inside an argument): COALESCE and
        # CASE return a Java object per row, which that column converts (evaluate._evaluate keeps it current)
        self.destination: str | None = None
        # the arguments of the CASE / coalesce being called into that column that return a primitive array
        self.primitive_args: frozenset[int] = frozenset()

    def detached(self, num_rows: int) -> "Context":
        """A context for ``num_rows`` values taken out of this batch (grouped by their Java type, say) that
        records their failures for the caller to report in this batch's rows."""
        sub = Context(num_rows, self.row_offset, True, self.instant_ms)
        sub.where = self.where
        return sub

    def fail(self, mask: np.ndarray | pa.Array, reason: str, values: Any = None) -> None:
        """Rows in ``mask`` (among the active ones) threw in Pinot; ``reason`` is Java's complaint."""
        mask = as_numpy_mask(mask)
        if self.active is not None:
            mask = mask & self.active
        if not mask.any():
            return
        if not self.continue_on_error:
            index = int(np.argmax(mask))
            if self.first_failure is None or index < self.first_failure[0]:
                shown = ""
                if values is not None:
                    value = values[index]
                    shown = f" (value {value.as_py() if isinstance(value, pa.Scalar) else value!r})"
                self.first_failure = (index, (
                    f"{self.where}: row {self.row_offset + index}: {reason}{shown}; Pinot fails the build on this "
                    f"row (set ingestionConfig.continueOnError to true to null the value and count the row "
                    f"instead)"))
            if not self.defer_failures:
                self.raise_first_failure()
        self.errors = mask if self.errors is None else (self.errors | mask)

    def raise_first_failure(self) -> None:
        """Without continueOnError: the failure of the earliest failing row, if any row failed."""
        if self.first_failure is not None:
            raise RowFailure(self.first_failure[1])


def as_numpy_mask(mask: np.ndarray | pa.Array | pa.ChunkedArray) -> np.ndarray:
    if isinstance(mask, np.ndarray):
        return mask.astype(np.bool_, copy=False)
    if isinstance(mask, pa.ChunkedArray):
        mask = mask.combine_chunks()
    return pc.fill_null(mask, False).to_numpy(zero_copy_only=False).astype(np.bool_, copy=False)


def java_utf8(text: pa.Array) -> pa.Array:
    """``String.getBytes(UTF_8)`` of a text column, as binary: a lone surrogate becomes '?' (lone_surrogates.py)."""
    return lone_surrogates.current().replaced(text, "?").cast(pa.binary())


@contextlib.contextmanager
def deeper_recursion(limit: int = 8000):
    """Room for the recursive JSON readers, writers and walkers on a document as deep as Jackson reads (1000
    levels, a few Python frames each, beyond Python's default limit of 1000); restored after."""
    before = sys.getrecursionlimit()
    if before >= limit:
        yield
        return
    sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def null_mask(array: pa.Array) -> np.ndarray:
    if array.null_count == 0:
        return np.zeros(len(array), dtype=np.bool_)
    return array.is_null().to_numpy(zero_copy_only=False)


def with_nulls(array: pa.Array, mask: np.ndarray | None) -> pa.Array:
    """``array`` with the rows of ``mask`` set to null."""
    if mask is None or not mask.any():
        return array
    if isinstance(array, pa.ExtensionArray):  # Java objects (java_objects): their storage, rewrapped
        return pa.ExtensionArray.from_storage(array.type, with_nulls(array.storage, mask))
    return pc.if_else(pa.array(mask, pa.bool_()), pa.nulls(len(array), array.type), array)


def java_type(value: Value) -> str:
    if isinstance(value, Const):
        return value.java_type
    return arrow_java_type(value.type)


_FAMILY_JAVA_TYPE = {"null": "NULL", "bool": "BOOLEAN", "decimal": "BIG_DECIMAL", "string": "STRING",
                     "binary": "BYTES", "timestamp": "TIMESTAMP", "date": "DATE", "list": "ARRAY", "struct": "MAP",
                     "map": "MAP"}


def arrow_java_type(t: pa.DataType) -> str:
    """The Java type a value of this Arrow type is in Pinot's GenericRow (Integer, Long, Double, String...)."""
    from type_mapping.convert import type_family  # the one classification of Arrow types

    family = type_family(t)
    if pa.types.is_dictionary(t):
        t = t.value_type
    if family == "int":
        return "LONG" if t.bit_width == 64 or t in (pa.uint32(), pa.uint64()) else "INT"
    if family == "float":
        return "DOUBLE" if pa.types.is_float64(t) else "FLOAT"
    return _FAMILY_JAVA_TYPE.get(family, "OBJECT")


def broadcast(value: Value, num_rows: int, arrow_type: pa.DataType | None = None) -> pa.Array:
    if isinstance(value, Const):
        if value.value is None:
            return pa.nulls(num_rows, arrow_type or pa.null())
        scalar = pa.scalar(value.value, arrow_type) if arrow_type is not None else pa.scalar(value.value)
        return pa.repeat(scalar, num_rows)
    return value


def _numpy(array: pa.Array, fill: Any, dtype: Any) -> np.ndarray:
    if array.null_count:
        array = pc.fill_null(array, fill)
    return array.to_numpy(zero_copy_only=False).astype(dtype, copy=False)


_JAVA_INTEGER = re.compile(r"^[+-]?\d+$")
_JAVA_DOUBLE = re.compile(
    r"^[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)|(0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*[pP][+-]?\d+))[fFdD]?$"
)


def java_parse_double(text: str) -> float | None:
    text = text.strip()
    if not _JAVA_DOUBLE.match(text):
        return None
    body = text[:-1] if text[-1] in "fFdD" and not text.endswith("Infinity") and "0x" not in text.lower() else text
    if "p" in body.lower() and "x" in body.lower():
        return float.fromhex(body)
    return float(body.replace("Infinity", "inf"))


def per_distinct(strings: pa.Array, fn: Callable[[str], Any], out_type: pa.DataType) -> pa.Array:
    """Apply a Python function once per distinct string (dictionary-encode, map the dictionary, take)."""
    encoded = pc.dictionary_encode(strings)
    mapped = pa.array([fn(s) for s in encoded.dictionary.to_pylist()], out_type)
    return mapped.take(encoded.indices)


def first_elements(value: Value, ctx: Context) -> pa.Array:
    """A multi-value (an Arrow list) passed where the function takes one value: ``FunctionInvoker`` converts the
    ``Object[]`` by its first element, as a value of the element's type (PinotDataType's array types,
    ``toObjectArray(value)[0]``); an empty array or a null first element fails the row
    (ArrayIndexOutOfBoundsException / NullPointerException). A null array stays null (no call)."""
    array = _array(value)
    has = pc.fill_null(pc.greater(pc.list_value_length(array), 0), False)
    firsts = pc.list_element(pc.if_else(has, array, pa.scalar(None, array.type)), 0)
    ctx.fail(pc.and_(array.is_valid(), pc.invert(firsts.is_valid())),
             "a multi-value with no first element where Pinot takes its first (ArrayIndexOutOfBoundsException / "
             "NullPointerException)", value)
    return firsts


def is_list(value: Value) -> bool:
    """A multi-value column (an Arrow list of any kind), not a literal."""
    return not isinstance(value, Const) and arrow_java_type(value.type) == "ARRAY"


def to_long(value: Value, ctx: Context) -> Value:
    """A value converted for a Java ``long`` parameter (int64 array, or a Const)."""
    if is_list(value):
        return to_long(first_elements(value, ctx), ctx)
    if isinstance(value, Const):
        return Const(_const_to_number(value, int, ctx), "LONG") if value.value is not None else value
    if is_object(value.type):  # a Java Map / List / object from another function
        return as_argument(value, ctx, to_long, text=False)
    jt = arrow_java_type(value.type)
    if jt in ("INT", "LONG"):
        return value.cast(pa.int64())
    if jt in ("FLOAT", "DOUBLE"):
        data = java_double_to_long(_numpy(value, 0.0, np.float64))
        return pa.array(data, pa.int64(), mask=null_mask(value) if value.null_count else None)
    if jt == "BIG_DECIMAL":  # BigDecimal.longValue: truncated, the low 64 bits
        return value.cast(pa.int64(), safe=False)
    if jt == "BOOLEAN":
        return pc.if_else(value, 1, 0).cast(pa.int64())
    if jt == "TIMESTAMP":
        return value.cast(pa.timestamp("ms", tz=value.type.tz), safe=False).cast(pa.int64())
    if jt == "DATE":  # a date is its midnight UTC in epoch millis, as the type mapping stores it
        return pc.multiply(value.cast(pa.date32()).cast(pa.int32()).cast(pa.int64()), 86_400_000)
    if jt == "STRING":
        trimmed = pc.utf8_trim_whitespace(value.cast(pa.string()))
        ok = pc.match_substring_regex(trimmed, r"^[+-]?\d{1,19}$")
        ctx.fail(pc.invert(ok), "NumberFormatException (not a long)", value)
        cleaned = pc.if_else(ok, trimmed, pa.scalar(None, pa.string()))
        try:
            return pc.cast(cleaned, pa.int64())
        except pa.ArrowInvalid:  # 19 digits beyond Long.MAX_VALUE
            parsed = [None if s is None else (int(s) if LONG_MIN <= int(s) <= LONG_MAX else None)
                      for s in cleaned.to_pylist()]
            ctx.fail(np.array([p is None for p in parsed]) & as_numpy_mask(ok), "NumberFormatException (out of range)",
                     value)
            return pa.array(parsed, pa.int64())
    raise IngestionError(f"{ctx.where}: a {jt} value cannot be converted to a Java long")


def to_int(value: Value, ctx: Context) -> Value:
    """A value converted for a Java ``int`` parameter (LONG wraps like ``intValue()``)."""
    if is_list(value):  # (first_elements)
        return to_int(first_elements(value, ctx), ctx)
    if isinstance(value, Const):
        if value.value is None:
            return value
        if value.java_type == "TIMESTAMP":  # (as a column's: _unconvertible)
            raise IngestionError(f"{ctx.where}: UnsupportedOperationException: Cannot convert value from TIMESTAMP "
                                 f"to INT")
        number = _const_to_number(value, int, ctx)
        if value.java_type == "STRING" and not INT_MIN <= number <= INT_MAX:
            raise IngestionError(f"{ctx.where}: {value.value!r} is not an int")
        if isinstance(value.value, float):  # (int) of a double saturates; of a long (intValue) it wraps
            return Const(max(min(number, INT_MAX), INT_MIN), "INT")
        return Const(((number - INT_MIN) % 2**32) + INT_MIN, "INT")
    if is_object(value.type):  # a Java Map / List / object from another function
        return as_argument(value, ctx, to_int, text=False)
    jt = arrow_java_type(value.type)
    if jt in ("FLOAT", "DOUBLE"):
        data = java_double_to_int(_numpy(value, 0.0, np.float64))
        return pa.array(data, pa.int32(), mask=null_mask(value) if value.null_count else None)
    if jt == "TIMESTAMP":
        return _unconvertible(value, ctx, jt, "INT", pa.int32())
    as_long = to_long(value, ctx)
    if jt == "STRING":
        outside = pc.or_(pc.less(as_long, INT_MIN), pc.greater(as_long, INT_MAX))
        ctx.fail(outside, "NumberFormatException (not an int)", value)
    return as_long.cast(pa.int32(), safe=False)


def to_double(value: Value, ctx: Context) -> Value:
    """A value converted for a Java ``double`` parameter."""
    if is_list(value):  # (first_elements)
        return to_double(first_elements(value, ctx), ctx)
    if isinstance(value, Const):
        return Const(_const_to_number(value, float, ctx), "DOUBLE") if value.value is not None else value
    if is_object(value.type):  # a Java Map / List / object from another function
        return as_argument(value, ctx, to_double, text=False)
    jt = arrow_java_type(value.type)
    if jt in ("INT", "LONG", "FLOAT", "DOUBLE", "BIG_DECIMAL"):
        return java_double_value(_array(value))  # Number.doubleValue(): the nearest double, BigDecimal's included
    if jt == "BOOLEAN":
        return pc.if_else(value, 1.0, 0.0)
    if jt in ("TIMESTAMP", "DATE"):  # (double) of the millis: the nearest double beyond 2^53 too
        return to_long(value, ctx).cast(pa.float64(), safe=False)
    if jt == "STRING":
        text = value.cast(pa.string())
        try:
            return pc.cast(pc.utf8_trim_whitespace(text), pa.float64())
        except pa.ArrowInvalid:
            parsed = per_distinct(text, java_parse_double, pa.float64())
            ctx.fail(pc.and_(parsed.is_null(), text.is_valid()), "NumberFormatException (not a double)", value)
            return parsed
    raise IngestionError(f"{ctx.where}: a {jt} value cannot be converted to a Java double")


def to_float(value: Value, ctx: Context) -> Value:
    """A value converted for a Java ``float``: numbers round once (``Number.floatValue()``), not through a
    double; anything else as ``(float)`` of its double."""
    if is_list(value):  # (first_elements)
        return to_float(first_elements(value, ctx), ctx)
    if isinstance(value, Const):
        if value.java_type == "TIMESTAMP":  # (as a column's: _unconvertible)
            raise IngestionError(f"{ctx.where}: UnsupportedOperationException: Cannot convert value from TIMESTAMP "
                                 f"to FLOAT")
        converted = to_double(value, ctx)
        if converted.value is None:
            return converted
        with np.errstate(over="ignore"):  # (float) of a double beyond Float.MAX_VALUE is Infinity
            return Const(float(np.float32(converted.value)), "FLOAT")
    if is_object(value.type):  # a Java Map / List / object from another function
        return as_argument(value, ctx, to_float, text=False)
    if arrow_java_type(value.type) in ("INT", "LONG", "FLOAT", "DOUBLE", "BIG_DECIMAL"):
        return java_float_value(_array(value))
    if arrow_java_type(value.type) == "TIMESTAMP":
        return _unconvertible(value, ctx, "TIMESTAMP", "FLOAT", pa.float32())
    return to_double(value, ctx).cast(pa.float32())


def _unconvertible(value: pa.Array, ctx: Context, source: str, target: str, arrow_type: pa.DataType) -> pa.Array:
    """PinotDataType's UnsupportedOperationException (a TIMESTAMP into an int or float parameter, while a long or
    double one takes its millis): every row with a value fails."""
    ctx.fail(value.is_valid(), f"UnsupportedOperationException: Cannot convert value from {source} to {target}", value)
    return pa.nulls(len(value), arrow_type)


def _array(value: pa.Array | pa.ChunkedArray) -> pa.Array:
    return value.combine_chunks() if isinstance(value, pa.ChunkedArray) else value


def to_boolean(value: Value, ctx: Context) -> Value:
    """A Java ``boolean`` parameter: numbers are ``!= 0``; text is ``BooleanUtils.toBoolean``."""
    if is_list(value):  # (first_elements)
        return to_boolean(first_elements(value, ctx), ctx)
    if isinstance(value, Const):
        if value.value is None or isinstance(value.value, bool):
            return value
        if isinstance(value.value, str):
            return Const(value.value.strip().lower() in _TRUE_WORDS, "BOOLEAN")
        return Const(value.value != 0, "BOOLEAN")
    if is_object(value.type):  # a Java Map / List / object from another function
        return as_argument(value, ctx, to_boolean, text=False)
    jt = arrow_java_type(value.type)
    if jt == "BOOLEAN":
        return value
    if jt in ("INT", "LONG", "FLOAT", "DOUBLE", "BIG_DECIMAL"):
        return pc.not_equal(value, pa.scalar(0, value.type) if jt != "BIG_DECIMAL" else 0)
    if jt == "STRING":  # (a null stays null: is_in alone gives false, seed 403-1)
        words = pc.is_in(pc.utf8_lower(pc.utf8_trim_whitespace(value.cast(pa.string()))),
                         value_set=pa.array(sorted(_TRUE_WORDS)))
        return pc.if_else(value.is_null(), pa.scalar(None, pa.bool_()), words) if value.null_count else words
    raise IngestionError(f"{ctx.where}: a {jt} value cannot be converted to a Java boolean")


_TRUE_WORDS = {"true", "on", "yes", "y", "t"}


def to_string(value: Value, ctx: Context) -> Value:
    """A Java ``String`` parameter: numbers as Java prints them, booleans ``true``/``false``."""
    if is_list(value):  # (first_elements)
        return to_string(first_elements(value, ctx), ctx)
    if isinstance(value, Const):
        if value.value is None or isinstance(value.value, str):
            return value
        if value.java_type in ("TIMESTAMP", "DATE"):
            return Const(to_string(broadcast(value, 1, _LITERAL_ARROW[value.java_type]), ctx)[0].as_py(), "STRING")
        return Const(java_text(value.value, value.java_type), "STRING")
    if is_object(value.type):  # a Java Map / List / object from another function
        return as_argument(value, ctx, to_string, text=True)
    jt = arrow_java_type(value.type)
    if jt == "STRING":
        return value.cast(pa.string())
    if jt in ("INT", "LONG"):
        return value.cast(pa.string())
    if jt == "BOOLEAN":
        return pc.if_else(value, "true", "false")
    if jt in ("FLOAT", "DOUBLE"):
        from type_mapping.java_text import java_float_str

        float32 = jt == "FLOAT"
        encoded = pc.dictionary_encode(value)
        texts = pa.array([java_float_str(v, float32) for v in encoded.dictionary.to_pylist()], pa.string())
        return texts.take(encoded.indices)
    if jt == "BIG_DECIMAL":
        return value.cast(pa.string())
    if jt == "BYTES":  # BytesUtils.toHexString
        return pa.array([None if b is None else b.hex() for b in value.to_pylist()], pa.string())
    if jt == "TIMESTAMP":
        from type_mapping.joda_format import java_timestamp_string

        return java_timestamp_string(to_long(value, ctx))
    if jt == "DATE":  # java.sql.Date.toString
        return value.cast(pa.date32()).cast(pa.string())
    if jt == "NULL":  # a column of nulls only (every row of a function failed or was null): nulls
        return pa.nulls(len(value), pa.string())
    raise IngestionError(f"{ctx.where}: a {jt} value cannot be passed where Pinot expects a string")


_LITERAL_ARROW = {"TIMESTAMP": pa.timestamp("ms", tz="UTC"), "DATE": pa.date32()}


def java_text(value: Any, java_type: str = "") -> str:
    """``String.valueOf`` of a value (a literal, or one value of a column read where Pinot reads a literal):
    Java's number printing (``Float.toString`` for a FLOAT), BYTES as their hex text (as Pinot passes BYTES to
    a String parameter: ``BytesUtils.toHexString``), never Python's ``repr``."""
    from type_mapping.java_text import java_float_str, java_object_string

    if java_type == "FLOAT" and isinstance(value, float):
        return java_float_str(value, float32=True)
    return java_object_string(value)


_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _const_to_number(value: Const, kind: type, ctx: Context) -> Any:
    v = value.value
    if isinstance(v, datetime.datetime):  # a TIMESTAMP: Timestamp.getTime(), the millis (a long or double)
        stamp = v if v.tzinfo is not None else v.replace(tzinfo=datetime.timezone.utc)
        return kind((stamp - _EPOCH_UTC) // datetime.timedelta(milliseconds=1))
    if isinstance(v, bool):
        return kind(1 if v else 0)
    if isinstance(v, (int, float)):
        if kind is int and isinstance(v, float):
            if math.isnan(v):
                return 0
            return int(max(min(math.trunc(v), LONG_MAX), LONG_MIN)) if math.isfinite(v) else (
                LONG_MAX if v > 0 else LONG_MIN)
        return kind(v)
    if isinstance(v, str):
        if kind is int:
            if not _JAVA_INTEGER.match(v.strip()):
                raise IngestionError(f"{ctx.where}: {v!r} is not a number (NumberFormatException in Pinot)")
            return int(v.strip())
        parsed = java_parse_double(v)
        if parsed is None:
            raise IngestionError(f"{ctx.where}: {v!r} is not a number (NumberFormatException in Pinot)")
        return parsed
    raise IngestionError(f"{ctx.where}: {v!r} cannot be converted to a number")
