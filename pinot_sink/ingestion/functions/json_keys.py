"""``jsonExtractKey(json, path)`` (JsonFunctions): the paths of what a JsonPath matches, as Jayway's
``AS_PATH_LIST`` prints them (``$['a']['b'][0]``, a key printed as it is, quotes unescaped), checked against
Pinot's own build (tests/fixtures/functions/json_keys.jsonl).

Paths supported: ``$`` then property steps (``.a``, ``['a']``), indexes (``[0]``), wildcards (``.*``, ``[*]``:
an object's properties or an array's elements) and a final deep scan ``..*`` / ``..**`` (``''`` is
``$..**``): every property and element below, each node's children listed before their own children.
Other paths (filters, slices, unions, a deep scan in the middle) are refused when the config is read. The
document is the first JSON value of the text (Jackson ignores what follows); no match, or a document that is
not JSON or not a container, gives an empty list (stored as null).
"""
from __future__ import annotations

import json
import re
from typing import Any

import pyarrow as pa

from ..values import Const, Context, Value, to_string
from .registry import scalar_function
from .rowwise import per_row

_STEP = re.compile(r"\.(\*|[A-Za-z_$][\w$-]*)|\['((?:[^']|'')*)'\]|\[(\*|\d+)\]")
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


def extract_keys(text: str, steps: list[tuple[str, Any]], deep: bool) -> list[str]:
    try:
        document, _ = json.JSONDecoder().raw_decode(text.lstrip(" \t\r\n"))
    except ValueError:
        return []
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
        nodes = found
    if not deep:
        return [prefix for prefix, _ in nodes if prefix != "$"]
    out: list[str] = []
    for prefix, node in nodes:
        _deep(node, prefix, out)
    return out


@scalar_function("jsonExtractKey", arity=2, literal_args=(1,), check=_check)
def _json_extract_key(ctx: Context, args: list[Value]) -> Value:
    path = args[1]
    assert isinstance(path, Const)
    steps, deep = compile_key_path(to_string(path, ctx).value)
    return per_row(ctx, lambda text: extract_keys(text, steps, deep), pa.list_(pa.string()),
                   to_string(args[0], ctx))
