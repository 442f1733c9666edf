"""JSON functions (JsonFunctions): ``jsonFormat`` and the ``jsonPath*`` family.

JSON paths follow Jayway JsonPath as Pinot configures it (SUPPRESS_EXCEPTIONS; ``jsonpath``): a *definite*
path (``$.a.b``, ``$.a[0]``) gives the value or null when a key is missing; an *indefinite* one (``[*]``,
``..``, slices, unions, filters ``[?(...)]``) gives the list of matches, possibly empty. Values print as Jackson prints them (``type_mapping.convert``'s
``json_text``: doubles as ``Double.toString``, objects in the key order of the input).

There is no vectorised JSON path over Arrow, so these run once per distinct input value (the text is
parsed with Python's ``json``); see docs/ingestion.md for the measured cost.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from javalib.jsonpath import compile_path as _compile_path, JsonPathError, read_path
from type_mapping.convert import json_text  # Jackson's compact JSON (one home for that rule)
from type_mapping.java_text import java_float_str
from type_mapping.json_text import InvalidJson as _InvalidJson, read_first_value, within_jackson_limits  # noqa: F401

from ..java_objects import hash_map, is_object, object_array, objects
from ..values import (arrow_java_type, Const, Context, IngestionError, LONG_MAX, LONG_MIN, to_double, to_long,
                      to_string, Value)
from .registry import scalar_function
from .string_functions_bytes import _JAVA_TRIM

def _parse(value: Any) -> Any:
    if isinstance(value, str):
        return read_first_value(value)
    if isinstance(value, list) and value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
        return dict(value)  # an Arrow map
    return value


def _check_path(args: list) -> None:
    if len(args) > 1 and isinstance(args[1], str):
        _compile_path(args[1])


def _path(ctx: Context, value: Const) -> tuple[list[tuple], bool]:
    try:
        return _compile_path(to_string(value, ctx).value)
    except JsonPathError as exc:
        raise IngestionError(f"{ctx.where}: {exc}") from None


def _path_or_none(ctx: Context, value: Const) -> tuple[list[tuple], bool] | None:
    """The path of a function that catches every exception (and returns its default): a path that does not
    compile (a column's value; a literal one is rejected when the config is read) gives the default."""
    try:
        return _compile_path(to_string(value, ctx).value)
    except JsonPathError:
        return None


def _inputs(ctx: Context, value: Value) -> tuple[list[Any], np.ndarray | None, pa.Array | None]:
    """Distinct Python values of the input and, for arrays, the row -> distinct index map."""
    if isinstance(value, Const):
        return [value.value], np.zeros(ctx.num_rows, np.int64), None
    if is_object(value.type):  # Java objects from another function: a String inside is parsed, as in Java
        values = objects(value)
        return values, np.arange(len(values)), value
    jt = arrow_java_type(value.type)
    if jt == "STRING":
        encoded = pc.dictionary_encode(value.cast(pa.string()))
        indices = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
        return encoded.dictionary.to_pylist(), indices, value
    values = value.to_pylist()
    return values, np.arange(len(values)), value


def _run_per_distinct(ctx: Context, value: Value, fn, null_input: Any) -> tuple[list, np.ndarray]:
    """Run ``fn(python_value)`` once per distinct input (raising ``_Failure`` for a row Pinot fails);
    returns the results (a null input gives ``null_input``) and each row's index into them."""
    distinct, indices, source = _inputs(ctx, value)
    results: list = []
    failures: list[str | None] = []
    for item in distinct:
        if item is None:
            results.append(null_input)
            failures.append(None)
            continue
        try:
            results.append(fn(item))
            failures.append(None)
        except _Failure as failure:
            results.append(None)
            failures.append(failure.reason)
    results.append(null_input)  # the rows whose input is null
    failures.append(None)
    idx = np.where(indices < 0, len(results) - 1, indices)
    failed = np.array([f is not None for f in failures], dtype=np.bool_)
    if failed.any():
        ctx.fail(failed[idx], next(f for f in failures if f is not None), source)
    return results, idx


def _map_rows(ctx: Context, value: Value, fn, out_type: pa.DataType, null_input: Any = None) -> pa.Array:
    results, idx = _run_per_distinct(ctx, value, fn, null_input)
    return pa.array(results, out_type).take(pa.array(idx))


class _Failure(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _document(item: Any) -> Any:
    """The parsed document a JSON path reads; invalid JSON and the text ``null`` fail the row, as Jayway refuses
    both (in Pinot the row fails)."""
    try:
        document = _parse(item)
    except _InvalidJson:
        raise _Failure("the input is not valid JSON (InvalidJsonException)") from None
    if document is None:
        raise _Failure("json can not be null (IllegalArgumentException)")
    return document


def _can_extract(item: Any) -> bool:
    """``JsonFunctions.canExtractJsonPath``: a string whose first non-blank character can start JSON."""
    if item is None:
        return False
    if not isinstance(item, str):
        return True
    stripped = item.lstrip(" \t\n\r")
    return bool(stripped) and (stripped[0] in '{["-tfn' or stripped[0].isdigit() and stripped[0].isascii())


def _text_of(value: Any) -> str:
    return value if isinstance(value, str) else json_text(value)


@scalar_function("jsonFormat", arity=1)
def _json_format(ctx: Context, args: list[Value]) -> Value:
    (value,) = args
    if isinstance(value, Const):
        return Const(json_text(value.value), "STRING")
    if pa.types.is_map(value.type):
        return pa.array([None if v is None else json_text(dict(v)) for v in value.to_pylist()], pa.string())
    if pa.types.is_float32(value.type) or (pa.types.is_list(value.type) and pa.types.is_float32(value.type.value_type)):
        return _map_rows(ctx, value, _float32_json_text, pa.string())  # a float[] / Float: Float.toString's digits
    return _map_rows(ctx, value, json_text, pa.string())


def _float32_json_text(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ",".join(_float32_json_text(v) for v in value) + "]"
    if isinstance(value, float):
        text = java_float_str(value, float32=True)
        return text if math.isfinite(value) else f'"{text}"'
    return json_text(value)


@scalar_function("jsonPathString", arity=2, literal_args=(1,), check=_check_path)
def _json_path_string(ctx: Context, args: list[Value]) -> Value:
    steps, definite = _path(ctx, args[1])

    def one(item):
        found = read_path(_document(item), steps, definite)
        return None if found is None else _text_of(found)

    return _map_rows(ctx, args[0], one, pa.string())


# The *Fory variants use Apache Fory's streaming reader only when fory-json is added to Pinot's class path, and
# otherwise (Pinot's default build) fall back to Jayway, the very jsonPath call of the plain function; they are
# meant to give the same values either way (JsonFunctions.foryJsonPath), so they are the plain function here.
@scalar_function("jsonPathString", "jsonPathStringFast", "jsonPathStringFirstMatch", "jsonPathStringFory", arity=3,
                 literal_args=(1, 2), nullable=True, check=_check_path)
def _json_path_string_default(ctx: Context, args: list[Value]) -> Value:
    path = _path_or_none(ctx, args[1])
    default = to_string(args[2], ctx)

    def one(item):
        if path is None or not _can_extract(item):
            return default.value
        try:
            document = _parse(item)
            if document is None:  # the text null: Jayway's "json can not be null", caught as any failure
                return default.value
            found = read_path(document, *path)
        except _InvalidJson:
            return default.value
        return default.value if found is None else _text_of(found)

    return _map_rows(ctx, args[0], one, pa.string(), null_input=default.value)


def _java_long(value: Any) -> int:
    """``jsonValueToLong``: a number's ``longValue``, a boolean 1/0, anything else ``Long.parseLong``."""
    if isinstance(value, bool):
        return 1 if value else 0
    if isinstance(value, float):
        if math.isnan(value):
            return 0
        return max(min(int(value), LONG_MAX), LONG_MIN) if math.isfinite(value) else (
            LONG_MAX if value > 0 else LONG_MIN)
    if isinstance(value, int):
        return ((value - LONG_MIN) % 2**64) + LONG_MIN  # BigInteger.longValue keeps the low 64 bits
    text = value if isinstance(value, str) else json_text(value)
    if not re.fullmatch(r"[+-]?\d+", text) or not LONG_MIN <= int(text) <= LONG_MAX:
        raise ValueError(text)
    return int(text)


def _java_double(value: Any) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, float):
        return value
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:  # BigInteger.doubleValue beyond the double range: an infinity
            return math.inf if value > 0 else -math.inf
    from ..values import java_parse_double

    parsed = java_parse_double(value if isinstance(value, str) else json_text(value))
    if parsed is None:
        raise ValueError(value)
    return parsed


def _extract_number(ctx: Context, args: list[Value], convert, default: Any, out_type: pa.DataType,
                    null_input: Any) -> pa.Array:
    path = _path_or_none(ctx, args[1])

    def one(item):
        if path is None or not _can_extract(item):
            return default
        try:
            found = read_path(_parse(item), *path)
            return default if found is None else convert(found)
        except (_InvalidJson, ValueError, TypeError):
            return default

    return _map_rows(ctx, args[0], one, out_type, null_input=null_input)


def _primitive_default(value: Const, ctx: Context, java_type: str) -> Any:
    """The default of ``jsonPathLong`` / ``jsonPathDouble``: a null there cannot be passed to the Java ``long`` /
    ``double`` parameter, so the rows where it is null fail (the function is ``nullableParameters``)."""
    if value.value is None:
        raise IngestionError(f"{ctx.where}: IllegalArgumentException: a null default for the {java_type} "
                             f"parameter of the function")
    return value.value


@scalar_function("jsonPathLong", arity=2, literal_args=(1,), check=_check_path)
def _json_path_long(ctx: Context, args: list[Value]) -> Value:
    return _extract_number(ctx, args, _java_long, LONG_MIN, pa.int64(), None)


@scalar_function("jsonPathLong", "jsonPathLongFast", "jsonPathLongFirstMatch", "jsonPathLongFory", arity=3,
                 literal_args=(1, 2), nullable=True, check=_check_path)
def _json_path_long_default(ctx: Context, args: list[Value]) -> Value:
    default = _primitive_default(to_long(args[2], ctx), ctx, "long")
    return _extract_number(ctx, args, _java_long, default, pa.int64(), default)


@scalar_function("jsonPathDouble", arity=2, literal_args=(1,), check=_check_path)
def _json_path_double(ctx: Context, args: list[Value]) -> Value:
    return _extract_number(ctx, args, _java_double, float("nan"), pa.float64(), None)


@scalar_function("jsonPathDouble", "jsonPathDoubleFast", "jsonPathDoubleFirstMatch", "jsonPathDoubleFory", arity=3,
                 literal_args=(1, 2), nullable=True, check=_check_path)
def _json_path_double_default(ctx: Context, args: list[Value]) -> Value:
    default = _primitive_default(to_double(args[2], ctx), ctx, "double")
    return _extract_number(ctx, args, _java_double, default, pa.float64(), default)


def _as_array(found: Any) -> list | None:
    if found is None:
        return None
    return found if isinstance(found, list) else [found]


def _list_type(results: list) -> pa.DataType:
    items = [v for r in results if r for v in r if v is not None]
    if items and all(isinstance(v, bool) for v in items):
        return pa.list_(pa.bool_())
    if items and all(isinstance(v, int) and not isinstance(v, bool) for v in items):
        return pa.list_(pa.int64())
    if items and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
        return pa.list_(pa.float64())
    return pa.list_(pa.string())


def _array_result(ctx: Context, value: Value, one, null_input) -> pa.Array:
    results, idx = _run_per_distinct(ctx, value, one, null_input)
    if any(isinstance(v, (dict, list)) for r in results if r for v in r):
        # an Object[] holding Maps / Lists: what is stored is decided by the column (DataTypeTransformer)
        return object_array(results).take(pa.array(idx))
    list_type = _list_type(results)
    if list_type == pa.list_(pa.string()):
        results = [None if r is None else [v if isinstance(v, str) or v is None else json_text(v) for v in r]
                   for r in results]
    return pa.array(results, list_type).take(pa.array(idx))


@scalar_function("jsonPathArray", arity=2, literal_args=(1,), check=_check_path)
def _json_path_array(ctx: Context, args: list[Value]) -> Value:
    steps, definite = _path(ctx, args[1])

    def one(item):
        return _as_array(read_path(_document(item), steps, definite))

    return _array_result(ctx, args[0], one, None)


@scalar_function("jsonPathArrayDefaultEmpty", arity=2, literal_args=(1,), nullable=True, check=_check_path)
def _json_path_array_default_empty(ctx: Context, args: list[Value]) -> Value:
    path = _path_or_none(ctx, args[1])

    def one(item):
        if path is None or not _can_extract(item):
            return []
        try:
            return _as_array(read_path(_parse(item), *path)) or []
        except _InvalidJson:
            return []

    return _array_result(ctx, args[0], one, [])


@scalar_function("jsonPathExists", arity=2, literal_args=(1,), check=_check_path)
def _json_path_exists(ctx: Context, args: list[Value]) -> Value:
    path = _path_or_none(ctx, args[1])

    def one(item):
        if path is None:
            return False
        try:
            return read_path(_parse(item), *path) is not None
        except _InvalidJson:
            return False

    return _map_rows(ctx, args[0], one, pa.bool_())


# ----------------------------------------------------------------------------------------------------
# JsonFunctions that return a Java Map / List / Object: ``jsonPath``, ``jsonStringToArray``, ``jsonStringToMap``,
# ``jsonStringToListOrMap``, ``jsonExtractObject``, ``jsonKeyValueArrayToMap``. Their results are
# ``JAVA_OBJECT`` columns (``pinot_sink.ingestion.java_objects``: the next stage decides what becomes of them),
# checked against Pinot's own build (tests/fixtures/functions/json_objects.jsonl).
#
# Parsing is Jackson's ``ObjectMapper.readValue`` as Pinot's ``JsonUtils`` configures it: the first JSON value of
# the text (what follows it is ignored), integers as Integer / Long / BigInteger, decimals as Double, objects as
# ``LinkedHashMap`` (a repeated key keeps its first place and its last value).

def read_json(text: str, openers: str) -> Any:
    """``jsonStringTo*``: the trimmed text, when it starts with one of ``openers``, read as Jackson reads the
    first value; None when it does not start so or is not JSON (Pinot catches the exception)."""
    trimmed = text.strip(_JAVA_TRIM)  # String.trim
    if not trimmed or trimmed[0] not in openers:
        return None
    try:
        return read_first_value(trimmed)
    except _InvalidJson:
        return None


def _objects_of(ctx: Context, value: Value, fn) -> pa.Array:
    results, idx = _run_per_distinct(ctx, value, fn, None)
    return object_array(results).take(pa.array(idx))


@scalar_function("jsonStringToArray", arity=1)
def _json_string_to_array(ctx: Context, args: list[Value]) -> Value:
    return _objects_of(ctx, to_string(args[0], ctx), lambda text: read_json(text, "["))


@scalar_function("jsonStringToMap", arity=1)
def _json_string_to_map(ctx: Context, args: list[Value]) -> Value:
    return _objects_of(ctx, to_string(args[0], ctx), lambda text: read_json(text, "{"))


@scalar_function("jsonStringToListOrMap", arity=1)
def _json_string_to_list_or_map(ctx: Context, args: list[Value]) -> Value:
    return _objects_of(ctx, to_string(args[0], ctx), lambda text: read_json(text, "[{"))


def _extract_object(item: Any) -> Any:
    if isinstance(item, str):
        return read_json(item, "[{")
    if isinstance(item, list) and item and all(isinstance(v, tuple) and len(v) == 2 for v in item):
        return dict(item)  # an Arrow map column: a Java Map
    return item if isinstance(item, (dict, list)) else None


@scalar_function("jsonExtractObject", arity=1, nullable=True)
def _json_extract_object(ctx: Context, args: list[Value]) -> Value:
    """A String parsed (``jsonStringToListOrMap``), a Map or List as it is, anything else null."""
    return _objects_of(ctx, args[0], _extract_object)


@scalar_function("jsonPath", arity=2, literal_args=(1,), check=_check_path)
def _json_path(ctx: Context, args: list[Value]) -> Value:
    """Jayway's read of the path: the value (a Map, a List, a scalar), null where a definite path finds nothing;
    invalid JSON and the document ``null`` throw (the row fails)."""
    steps, definite = _path(ctx, args[1])

    def one(item):
        return read_path(_document(item), steps, definite)

    return _objects_of(ctx, args[0], one)


def _as_text(node: Any) -> str:
    """Jackson's ``JsonNode.asText``: a string as it is, numbers and booleans printed, null ``"null"``, an
    object or array ``""``."""
    if isinstance(node, str):
        return node
    if node is None:
        return "null"
    if isinstance(node, bool):
        return "true" if node else "false"
    if isinstance(node, float):
        return java_float_str(node)
    if isinstance(node, int):
        return str(node)
    return ""


def _node_get(node: Any, field: str) -> Any:
    if not isinstance(node, dict) or field not in node:
        raise _Failure(f"NullPointerException: no field {field!r} in {json_text(node)[:100]}")
    return node[field]


def _parse_node(text: str) -> Any:
    try:
        return read_first_value(text)
    except _InvalidJson:
        raise _Failure(f"RuntimeException: not JSON: {text[:100]!r}") from None


def _java_to_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return java_float_str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if not isinstance(value, (dict, list)) else json_text(value)


def key_value_array_to_map(item: Any, key: str, value: str) -> dict:
    """``jsonKeyValueArrayToMap``: a ``HashMap`` of each element's ``key`` -> ``value`` (a Map element's values
    as they are; any other element, and a text input, read as JSON nodes whose fields are taken as text)."""
    entries: list[tuple[Any, Any]] = []
    if isinstance(item, list) and item and all(isinstance(v, tuple) and len(v) == 2 for v in item):
        item = dict(item)
    if isinstance(item, (list, tuple)):
        for element in item:
            if isinstance(element, dict):
                entries.append((element.get(key), element.get(value)))
            else:
                node = _parse_node(_java_to_string(element))
                entries.append((_as_text(_node_get(node, key)), _as_text(_node_get(node, value))))
    else:
        text = _java_to_string(item)
        # a blank text is Jackson's MissingNode (no error, size 0): an empty map
        array = [] if not text.strip(" \t\n\r") else _parse_node(text)
        elements = array if isinstance(array, list) else (
            [None] * len(array) if isinstance(array, dict) else [])  # ObjectNode.get(int) is null
        for node in elements:
            entries.append((_as_text(_node_get(node, key)), _as_text(_node_get(node, value))))
    return hash_map(entries)


@scalar_function("jsonKeyValueArrayToMap", arity=1)
def _json_key_value_array_to_map(ctx: Context, args: list[Value]) -> Value:
    return _objects_of(ctx, args[0], lambda item: key_value_array_to_map(item, "key", "value"))


@scalar_function("jsonKeyValueArrayToMap", arity=3, literal_args=(1, 2))
def _json_key_value_array_to_map_3(ctx: Context, args: list[Value]) -> Value:
    key, value = to_string(args[1], ctx).value, to_string(args[2], ctx).value
    return _objects_of(ctx, args[0], lambda item: key_value_array_to_map(item, key, value))
