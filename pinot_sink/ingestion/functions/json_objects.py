"""JsonFunctions that return a Java Map / List / Object: ``jsonPath``, ``jsonStringToArray``, ``jsonStringToMap``,
``jsonStringToListOrMap``, ``jsonExtractObject``, ``jsonKeyValueArrayToMap``. Their results are
``JAVA_OBJECT`` columns (``pinot_sink.ingestion.java_objects``: the next stage decides what becomes of them),
checked against Pinot's own build (tests/fixtures/functions/json_objects.jsonl).

Parsing is Jackson's ``ObjectMapper.readValue`` as Pinot's ``JsonUtils`` configures it: the first JSON value of
the text (what follows it is ignored), integers as Integer / Long / BigInteger, decimals as Double, objects as
``LinkedHashMap`` (a repeated key keeps its first place and its last value).
"""
from __future__ import annotations

from typing import Any

import pyarrow as pa

from type_mapping.convert import json_text
from type_mapping.java_text import java_float_str

from ..java_objects import hash_map, object_array
from ..values import Context, Value, to_string
from .string_functions_bytes import _JAVA_TRIM
from .json_functions import _Failure, _InvalidJson, _check_path, _document, _path, _run_per_distinct, read_first_value
from javalib.jsonpath import read_path
from .registry import scalar_function


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
        document = _document(item)
        if document is None:
            raise _Failure("json can not be null (IllegalArgumentException)")
        return read_path(document, steps, definite)

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
