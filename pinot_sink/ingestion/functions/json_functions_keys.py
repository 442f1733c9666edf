"""``jsonExtractKey(json, path)`` (JsonFunctions): the paths of what a JsonPath matches, as Jayway's
``AS_PATH_LIST`` prints them (``$['a']['b'][0]``, a key printed as it is, quotes unescaped), checked against
Pinot's own build (tests/fixtures/functions/json_keys.jsonl).

Paths supported: ``$`` then property steps (``.a``, ``['a']``), indexes (``[0]``), wildcards (``.*``, ``[*]``:
an object's properties or an array's elements) and a final deep scan ``..*`` / ``..**`` (``''`` is
``$..**``): every property and element below, each node's children listed before their own children.
A deep scan of one property (``$..x``, ``$.a..x[0]``) lists that property wherever it is below, each node's
own before its children's (Jayway's ``ScanPathToken``). Other paths (filters, slices, unions, ``..*`` in the
middle) are refused when the config is read.
``jsonExtractKey(json, path, 'maxDepth=N;dotNotation=true')``: all keys (``''``, ``$..**``, ``$..``) depth first,
each key before its children (not Jayway's order); other paths as above, keys deeper than N (``getKeyDepth``:
the ``[`` of a ``$[`` path, or the dot-separated parts) dropped, printed ``a.b.0`` with ``dotNotation``. The
document is the first JSON value of the text (Jackson ignores what follows); no match, or a document that is
not a container gives an empty list (stored as null); the path ``$`` gives ``['$']``; a text that is not
JSON, or the JSON ``null``, fails the row (Jayway throws; the all-keys form of the 3 arguments reads it with
Jackson instead and gives no keys).
"""
from __future__ import annotations

import re
from typing import Any

import pyarrow as pa

from type_mapping.convert import json_text

from ..java_objects import is_object, objects
from ..values import Const, Context, Value, is_list, to_string
from .json_functions import _InvalidJson, read_first_value
from .registry import scalar_function
from .rowwise import JavaThrows, per_row

_STEP = re.compile(r"\.(\*|[A-Za-z_$][\w$-]*)|\['((?:[^']|'')*)'\]|\[(\*|\d+)\]")
_DEEP_KEY = re.compile(r"\.\.([A-Za-z_$][\w$-]*)")
_DEEP = ("..*", "..**")


def compile_key_path(path: str) -> tuple[list[tuple[str, Any]], bool]:
    """The steps (``("key", name)``, ``("index", n)``, ``("any", None)``) and whether a deep scan ends it."""
    if path == "":
        path = "$..**"
    if not path.startswith("$"):
        raise ValueError(f"jsonExtractKey: path {path!r} must start with $")
    deep = False
    body = path[1:]
    for ending in _DEEP:
        if body.endswith(ending):
            body, deep = body[:-len(ending)], True
            break
    steps: list[tuple[str, Any]] = []
    position = 0
    while position < len(body):
        deep_key = _DEEP_KEY.match(body, position)
        if deep_key is not None:  # ..name: that property wherever it is below (Jayway's ScanPathToken)
            steps.append(("deepkey", deep_key.group(1)))
            position = deep_key.end()
            continue
        match = _STEP.match(body, position)
        if match is None:
            raise ValueError(f"jsonExtractKey: path {path!r} is not supported here (properties, indexes, "
                             f"wildcards and a final ..* only)")
        name, quoted, bracket = match.groups()
        if name == "*" or bracket == "*":
            steps.append(("any", None))
        elif name is not None:
            steps.append(("key", name))
        elif quoted is not None:
            steps.append(("key", quoted.replace("''", "'")))
        else:
            steps.append(("index", int(bracket)))
        position = match.end()
    return steps, deep


def _check(args: list) -> None:
    if len(args) > 1 and isinstance(args[1], str):
        compile_key_path(args[1])


def _label(key: Any) -> str:
    return f"[{key}]" if isinstance(key, int) else f"['{key}']"


def _children(node: Any):
    if isinstance(node, dict):
        return list(node.items())
    if isinstance(node, list):
        return list(enumerate(node))
    return []


def _deep(node: Any, prefix: str, out: list[str]) -> None:
    children = _children(node)
    for key, _ in children:
        out.append(prefix + _label(key))
    for key, child in children:
        _deep(child, prefix + _label(key), out)


def _scan(node: Any, prefix: str, key: str, out: list) -> None:
    """Jayway's walk of ``..key``: a node's own property first, then each child's walk in order."""
    if isinstance(node, dict) and key in node:
        out.append((prefix + _label(key), node[key]))
    for k, child in _children(node):
        _scan(child, prefix + _label(k), key, out)


def extract_keys(text: str, steps: list[tuple[str, Any]], deep: bool) -> list[str]:
    """(Jayway's ``parse`` of the text, as Jackson reads it: a text that is not JSON throws, the row fails)"""
    try:
        document = read_first_value(text)
    except _InvalidJson:
        raise JavaThrows(f"InvalidJsonException: not JSON: {text[:100]!r}") from None
    if document is None:  # (Jayway's read of any path over the document null throws; Pinot's row fails)
        raise JavaThrows("jsonExtractKey: the JSON text null has no keys to read (Jayway throws)")
    nodes = [("$", document)]
    for kind, arg in steps:
        found = []
        for prefix, node in nodes:
            if kind == "any":
                found.extend((prefix + _label(k), v) for k, v in _children(node))
            elif kind == "key" and isinstance(node, dict) and arg in node:
                found.append((prefix + _label(arg), node[arg]))
            elif kind == "index" and isinstance(node, list) and arg < len(node):
                found.append((prefix + _label(arg), node[arg]))
            elif kind == "deepkey":
                _scan(node, prefix, arg, found)
        nodes = found
    if not deep:
        return [prefix for prefix, _ in nodes]  # (the path '$' alone matches the document: ['$'])
    out: list[str] = []
    for prefix, node in nodes:
        _deep(node, prefix, out)
    return out


@scalar_function("jsonExtractKey", arity=2, literal_args=(1,), check=_check)
def _json_extract_key(ctx: Context, args: list[Value]) -> Value:
    path = args[1]
    assert isinstance(path, Const)
    text = to_string(path, ctx).value
    steps, deep = compile_key_path(text)
    if is_list(args[0]):  # Jayway reads a Java array (the multi-value, as its Object parameter) as a leaf:
        keys = ["$"] if (text or "").strip(" ") == "$" else []  # no key below it, no failure
        return pa.array([keys if v else None for v in args[0].is_valid().to_pylist()], pa.list_(pa.string()))
    return per_row(ctx, lambda text: extract_keys(text, steps, deep), pa.list_(pa.string()), _document(args[0], ctx))


def _document(value: Value, ctx: Context) -> Value:
    """The JSON text of the document: a Java Map / List from another function as its JSON (what Jayway reads of
    it is the same), a String inside as it is (Jayway parses it)."""
    if not isinstance(value, Const) and is_object(value.type):
        return pa.array([v if v is None or isinstance(v, str) else json_text(v) for v in objects(value)], pa.string())
    if is_list(value):  # a multi-value: the parameter is an Object (no first element), read as JSON whole
        return pa.array([None if v is None else json_text(v) for v in value.to_pylist()], pa.string())
    return to_string(value, ctx)


_INT_MAX = 2**31 - 1


def key_parameters(text: str) -> tuple[int, bool]:
    """``JsonExtractFunctionParameters``: ``maxDepth=N;dotNotation=true`` (keys any case; a negative depth is
    unlimited); another key or a malformed pair throws."""
    depth, dots = _INT_MAX, False
    for raw in (p for p in text.split(";") if p):
        pair = raw.strip()
        if not pair:
            continue
        parts = [p for p in pair.split("=") if p]
        if len(parts) != 2:
            raise ValueError(f"Invalid parameter: {pair}")
        key, value = parts[0].strip().upper(), parts[1].strip()
        if key == "MAXDEPTH":
            if not re.fullmatch(r"[+-]?\d+", value) or not -(2**31) <= int(value) <= _INT_MAX:
                raise ValueError(f"For input string: \"{value}\"")
            depth = int(value) if int(value) >= 0 else _INT_MAX
        elif key == "DOTNOTATION":
            dots = value.lower() == "true"
        else:
            raise ValueError(f"Invalid parameter key: {parts[0]}")
    return depth, dots


def key_depth(key: str) -> int:
    """``getKeyDepth``: ``[`` counted in a ``$[...`` path (brackets inside keys too), else dot-separated parts."""
    if not key:
        return 0
    if key.startswith("$["):
        return key.count("[")
    if "." in key:
        return len([p for p in key.split(".")]) - _trailing_empty(key.split("."))
    return 1


def _trailing_empty(parts: list[str]) -> int:
    count = 0
    while len(parts) - count > 0 and parts[len(parts) - 1 - count] == "":
        count += 1
    return count if count < len(parts) else len(parts)


def to_dot_notation(path: str) -> str:
    """``convertToDotNotation``: ``$['a'][0]`` -> ``a.0``."""
    if not path or path == "$":
        return ""
    rest = path[1:]
    out = []
    i = 0
    while i < len(rest):
        if i + 1 < len(rest) and rest[i] == "[" and rest[i + 1] == "'":
            close = rest.find("'", i + 2)
            if close != -1 and close + 1 < len(rest) and rest[close + 1] == "]":
                out.append("." + rest[i + 2:close])
                i = close + 2
                continue
            out.append(rest[i])
            i += 1
        elif rest[i] == "[":
            close = rest.find("]", i)
            inside = rest[i + 1:close] if close != -1 else ""
            if close != -1 and all(c.isdigit() for c in inside):
                out.append("." + inside)
                i = close + 1
                continue
            out.append(rest[i])
            i += 1
        else:
            out.append(rest[i])
            i += 1
    text = "".join(out)
    return text[1:] if text.startswith(".") else text


def _all_keys(node: Any, prefix: str, out: list[str], depth: int, current: int, dots: bool) -> None:
    """``extractKeysFromNode``: depth first, each key then its children."""
    if current > depth:
        return
    for key, child in _children(node):
        if dots:
            path = str(key) if prefix == "" else f"{prefix}.{key}"
        else:
            path = prefix + _label(key)
        out.append(path)
        if current < depth and isinstance(child, (dict, list)):
            _all_keys(child, path, out, depth, current + 1, dots)


def extract_keys_with(text: str, path: str, parameters: str) -> list[str]:
    try:
        depth, dots = key_parameters(parameters)
    except ValueError as exc:
        raise JavaThrows(f"IllegalArgumentException: {exc}") from None
    if depth == 0:
        return []
    if path in ("", "$..**", "$.."):
        try:  # (JsonUtils.stringToJsonNode; any failure gives no keys)
            document = read_first_value(text)
        except _InvalidJson:
            return []
        out: list[str] = []
        _all_keys(document, "" if dots else "$", out, depth, 1, dots)
        return out
    steps, deep = compile_key_path(path)
    keys = [k for k in extract_keys(text, steps, deep) if key_depth(k) <= depth]
    return [to_dot_notation(k) for k in keys] if dots else keys


def _check_3(args: list) -> None:
    if len(args) > 1 and isinstance(args[1], str) and args[1] not in ("", "$..**", "$.."):
        compile_key_path(args[1])  # (bad parameters throw on every row in Pinot: they fail rows here too)


@scalar_function("jsonExtractKey", arity=3, literal_args=(1, 2), check=_check_3)
def _json_extract_key_with(ctx: Context, args: list[Value]) -> Value:
    path, parameters = to_string(args[1], ctx).value, to_string(args[2], ctx).value
    return per_row(ctx, lambda text: extract_keys_with(text, path, parameters), pa.list_(pa.string()),
                   _document(args[0], ctx))
