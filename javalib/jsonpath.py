"""Jayway JsonPath (2.9, as Pinot's JsonFunctions configure it: SUPPRESS_EXCEPTIONS) over parsed JSON.

A path compiles to steps: ("key", name), ("index", i), ("wild",), ("deep", name|None), ("slice", a, b),
("union", [...]), ("filter", predicate). A *definite* path (keys and indexes only) reads one value or null;
any other reads the list of matches. Errors while reading are suppressed as Jayway does: the read gives null
(definite) or an empty list (indefinite).

Filters ``[?(...)]`` follow Jayway's ``FilterCompiler`` and ``EvaluatorFactory``: on an object the filter
keeps or drops the object itself, on an array each element; on anything else it fails the read when the
path before it is definite and skips the value otherwise. Operands are value nodes: a path (``@`` the
item, ``$`` the document) read as a string, number (``BigDecimal``), boolean, null, JSON (an array or
object) or *undefined* (missing); literals are quoted strings (backslash escapes), numbers, ``true``,
``false``, ``null``, JSON arrays and ``/regex/flags``. Their Java semantics kept here: ``==`` between a
number and a string compares the string read as a ``BigDecimal`` (``1 == '1'``), the other way round the
number's ``BigDecimal.toString`` (``'1.0' == 1.0``, not ``'1' == 1.0``); ``<`` and friends compare two
numbers or two strings (UTF-16 order) and are false otherwise; a missing value equals nothing, so ``!=``
is true for it; ``=~`` full-matches the string of a string, number or boolean ("" for anything else), or
any element of an array; an operand of the wrong kind (``in`` with a right side that is not an array...)
makes the item fail the filter, even under ``!``. Jayway's list elements become value nodes with its
quirks (a string that is a path never equals anything; a quoted one loses its quotes; an object or array
element fails the whole read).

What cannot be made exact is rejected when the path is compiled: paths inside a filter that are not
definite or call functions, ``..`` straight into a filter, JSON object literals, the operators ``all``,
``type``, ``matches``, regular expressions beyond the common subset of Java's and Python's, flags other
than ``i`` and ``s``.
"""
from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any, Callable

from .exceptions import JavaException
from .floating_decimal import java_float_str


class JsonPathError(JavaException, ValueError):
    """Jayway's ``InvalidPathException``: a path that does not compile."""


# How a caller's text reads as Java's chars (``String.compareTo``'s UTF-16 units, ``length()``): the text itself,
# unless the caller stands some chars for others (pinot_sink's lone-surrogate markers:
# pinot_sink.ingestion.lone_surrogates installs its reading with ``read_text_with``).
_java_chars: Callable[[str], str] = str


def read_text_with(java_chars: Callable[[str], str]) -> None:
    """Read every text a filter compares through ``java_chars`` (a marker character -> the unit it stands for)."""
    global _java_chars
    _java_chars = java_chars


class _ReadFailure(Exception):
    """An exception Jayway lets out of the read (suppressed: null or an empty list)."""


class _Reject(Exception):
    """Jayway's InvalidPathException inside a predicate: the item does not pass the filter."""


# --- paths ----------------------------------------------------------------------------------------------

_NAME = re.compile(r"[^.\[\]]+")


def compile_path(path: str) -> tuple[list[tuple], bool]:
    """A JSON path as steps (see the module doc) and whether it is definite."""
    try:
        return _compile_path(path)
    except JsonPathError:
        raise
    except ValueError as exc:  # an index or slice bound that is no number ('[{"a": 1}]'): Jayway's InvalidPathException
        raise JsonPathError(f"JSON path {path!r} is not valid ({exc})") from None


def _compile_path(path: str) -> tuple[list[tuple], bool]:
    # (Jayway trims the space character only: a path of a tab or U+2028 is the key of that name, "$.\u2028")
    if not isinstance(path, str) or not path.strip(" "):
        raise JsonPathError(f"JSON path {path!r} is empty")
    # PathCompiler trims the spaces around the path (CharacterIndex.trim), but looks for the leading "$" at the
    # untrimmed text's first character: " $.a" becomes "$. $.a" (invalid), "a " becomes "$.a"
    if path.startswith("$"):
        path = path.strip(" ")
    else:  # Jayway reads "a.b" as "$.a.b" and "[0]" as "$[0]"
        path = "$" + path.rstrip(" ") if path.startswith("[") else ("$." + path).strip(" ")
    for function in (".length()", ".size()"):  # Jayway's Length: the size of the array or object read
        if path.endswith(function) and len(path) > len(function):
            steps, definite = compile_path(path[:-len(function)])
            return steps + [("length", definite)], True
    steps: list[tuple] = []
    i, n = 1, len(path)
    definite = True
    while i < n:
        if path.startswith("..", i):
            i += 2
            definite = False
            if i < n and path[i] == "*":
                steps.append(("deep", None))
                i += 1
            elif i < n and path[i] == "[":
                if path[i + 1:].lstrip().startswith("?"):
                    raise JsonPathError(f"JSON path {path!r}: '..' straight into a filter is not supported here "
                                        f"(name the key: '..key[?(...)]')")
                steps.append(("deep", None))
            else:
                m = _NAME.match(path, i)
                if not m:
                    raise JsonPathError(f"JSON path {path!r}: a name must follow '..'")
                steps.append(("deep", m.group()))
                i = m.end()
        elif path[i] == ".":
            i += 1
            if i < n and path[i] == "*":
                steps.append(("wild",))
                definite = False
                i += 1
                continue
            m = _NAME.match(path, i)
            if not m:
                raise JsonPathError(f"JSON path {path!r}: a name must follow '.'")
            if " " in m.group() or "(" in m.group():  # Jayway's PathCompiler: a blank, or a function it lacks
                raise JsonPathError(f"JSON path {path!r}: a property with a blank needs ['...'] (or an unknown "
                                    f"function)")
            steps.append(("key", m.group()))
            i = m.end()
        elif path[i] == "[":
            if path[i + 1:].lstrip().startswith("?"):
                end = _filter_end(path, i)
                steps.append(("filter", _FilterParser(path, path[i:end + 1]).parse()))
                definite = False
                i = end + 1
                continue
            end = _bracket_end(path, i)
            inner = path[i + 1:end].strip()
            i = end + 1
            if inner == "*":
                steps.append(("wild",))
                definite = False
            elif inner[:1] in ("'", '"'):
                keys = [k.strip()[1:-1] for k in _split_union(inner)]
                if len(keys) == 1:
                    steps.append(("key", keys[0]))
                else:
                    steps.append(("union", [("key", k) for k in keys]))
                    definite = False
            elif ":" in inner:
                a, _, b = inner.partition(":")
                steps.append(("slice", int(a) if a.strip() else None, int(b) if b.strip() else None))
                definite = False
            elif "," in inner:
                steps.append(("union", [("index", int(k)) for k in inner.split(",")]))
                definite = False
            else:
                try:
                    steps.append(("index", int(inner)))
                except ValueError:
                    raise JsonPathError(f"JSON path {path!r}: [{inner}] is not supported") from None
        else:
            raise JsonPathError(f"JSON path {path!r}: unexpected {path[i]!r} at {i}")
    return steps, definite


def _bracket_end(path: str, start: int) -> int:
    quote = None
    for j in range(start + 1, len(path)):
        c = path[j]
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "]":
            return j
    raise JsonPathError(f"JSON path {path!r}: unclosed '['")


def _filter_end(path: str, start: int) -> int:
    """The ']' closing the filter that opens at ``start``: as Jayway's PathCompiler, the ')' matching the
    '(' after '[?' (quoted strings and /regex/ skipped), then ']'."""
    j = path.index("(", start)
    depth = 0
    while j < len(path):
        c = path[j]
        if c in "'\"/":
            j = _closing(path, j, c)
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                rest = path[j + 1:]
                if not rest.lstrip().startswith("]"):
                    break
                return j + 1 + (len(rest) - len(rest.lstrip()))
        j += 1
    raise JsonPathError(f"JSON path {path!r}: the filter at {start} must be written [?(...)]")


def _closing(text: str, start: int, char: str) -> int:
    """The next unescaped ``char`` after ``start`` (CharacterIndex.nextIndexOfUnescaped)."""
    escaped = False
    for j in range(start + 1, len(text)):
        if escaped:
            escaped = False
        elif text[j] == "\\":
            escaped = True
        elif text[j] == char:
            return j
    raise JsonPathError(f"{text!r}: {char} at {start} is not closed")


def _split_union(inner: str) -> list[str]:
    return [part for part in re.findall(r"'(?:[^']*)'|\"(?:[^\"]*)\"", inner)]


def read_path(document: Any, steps: list[tuple], definite: bool) -> Any:
    """The value at the path: a value or None (definite), a list of matches (indefinite)."""
    if steps and steps[-1][0] == "length":  # the function applies to what the path before it reads
        found = read_path(document, steps[:-1], steps[-1][1])
        if not steps[-1][1]:  # after an indefinite path: the size of each match
            return [len(f) if isinstance(f, (list, dict)) else None for f in found]
        return len(found) if isinstance(found, (list, dict)) else None
    try:
        nodes = _select(document, document, steps)
    except _ReadFailure:  # SUPPRESS_EXCEPTIONS
        return None if definite else []
    if definite:
        return nodes[0] if nodes else None
    return nodes


def _select(document: Any, root: Any, steps: list[tuple]) -> list:
    nodes = [document]
    upstream_definite = True
    for step in steps:
        found: list = []
        for node in nodes:
            _apply(step, node, found, root, upstream_definite)
        nodes = found
        upstream_definite = upstream_definite and step[0] in ("key", "index")
    return nodes


def _apply(step: tuple, node: Any, out: list, root: Any, upstream_definite: bool) -> None:
    kind = step[0]
    if kind == "key":
        if isinstance(node, dict) and step[1] in node:
            out.append(node[step[1]])
    elif kind == "index":
        if isinstance(node, list) and -len(node) <= step[1] < len(node):
            out.append(node[step[1]])
    elif kind == "wild":
        if isinstance(node, dict):
            out.extend(node.values())
        elif isinstance(node, list):
            out.extend(node)
    elif kind == "slice":
        if isinstance(node, list):
            out.extend(node[step[1]:step[2]])
    elif kind == "union":
        for sub in step[1]:
            _apply(sub, node, out, root, upstream_definite)
    elif kind == "deep":
        _deep(node, step[1], out)
    elif kind == "filter":
        predicate = step[1]
        if isinstance(node, dict):
            if _accept(predicate, node, root):
                out.append(node)
        elif isinstance(node, list):
            out.extend(item for item in node if _accept(predicate, item, root))
        elif upstream_definite:  # "Filter ... can not be applied to primitives"
            raise _ReadFailure()


def _deep(node: Any, key: str | None, out: list) -> None:
    if isinstance(node, dict):
        if key is None:
            out.extend(node.values())
        elif key in node:
            out.append(node[key])
        for v in node.values():
            _deep(v, key, out)
    elif isinstance(node, list):
        if key is None:
            out.extend(node)
        for v in node:
            _deep(v, key, out)


# --- filter values (ValueNodes) --------------------------------------------------------------------------
# ("str", s) ("num", Decimal) ("bool", b) ("null",) ("json", value, parsed, text) ("undef",) ("path",)
# ("pattern", re). A "json" node read from the document is parsed; a literal one (or a list element that is
# JSON text) is Jayway's unparsed text (``parsed`` False, ``text``), which matters to Java's equals. ("path",)
# is a list element that reads as a path: equal to nothing.

_UNDEFINED = ("undef",)
_NULL = ("null",)
_BIG_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _big_decimal(text: str) -> Decimal | None:
    """``new BigDecimal(text)``, or None where it throws."""
    return Decimal(text) if _BIG_DECIMAL.fullmatch(text) else None


def _decimal_text(number: Decimal) -> str:
    """``BigDecimal.toString`` (scientific notation by the same rule; no negative zero)."""
    return str(number.copy_abs() if number.is_zero() else number)


def _number(value: int | float) -> tuple:
    """A document number: ``new BigDecimal(number.toString())``."""
    return ("num", Decimal(str(value) if isinstance(value, int) else java_float_str(value)))


def _document_node(value: Any) -> tuple:
    """``PathNode.evaluate``'s conversion of what a path reads."""
    if isinstance(value, str):
        return ("str", value)
    return _scalar_node(value) or ("json", value, True, None)


def _scalar_node(value: Any) -> tuple | None:
    if value is None:
        return _NULL
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return _number(value)
    return None


def _element_node(value: Any) -> tuple:
    """``ValueNode.toValueNode`` of an element of a list (``ValueListNode``)."""
    scalar = _scalar_node(value)
    if scalar is not None:
        return scalar
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("@", "$"):
            try:
                compile_path("$" + text[1:])
                return ("path",)
            except Exception:  # noqa: BLE001  (Jayway's isPath: anything that does not compile is no path)
                pass
        if len(text) > 1 and (text[0], text[-1]) in (("[", "]"), ("{", "}")):
            try:
                return ("json", _json_literal(text), False, text)
            except JsonPathError:
                pass
        try:
            return ("str", _unescape(_unquote(value)))
        except JsonPathError:
            raise _ReadFailure() from None
    raise _ReadFailure()  # "Could not determine value type": an object or array element


def _unquote(text: str) -> str:
    if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _unescape(text: str) -> str:
    """Jayway's ``Utils.unescape``: \\uXXXX and the usual escapes, any other escaped character as itself."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        if i + 1 == n:
            out.append("\\")
            break
        nxt = text[i + 1]
        if nxt == "u":
            digits = text[i + 2:i + 6]
            if len(digits) < 4 or not re.fullmatch(r"[0-9a-fA-F]{4}", digits):
                raise JsonPathError(f"unable to parse the unicode value {digits!r}")
            out.append(chr(int(digits, 16)))
            i += 6
            continue
        out.append({"r": "\r", "f": "\f", "t": "\t", "n": "\n", "b": "\b"}.get(nxt, nxt))
        i += 2
    return "".join(out)


def _value_list(node: tuple) -> list[tuple] | None:
    """``JsonNode.asValueListNode``: the elements of an array as value nodes, None (undefined) otherwise."""
    if node[0] != "json" or not isinstance(node[1], list):
        return None
    return [_element_node(v) for v in node[1]]


def _java_equal(a: Any, b: Any) -> bool:
    """``Object.equals`` of two parsed JSON values (Integer is not Double, maps ignore key order)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_java_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_java_equal(a[k], b[k]) for k in a)
    if isinstance(a, float):
        return a == b or (a != a and b != b)
    return a == b


def _equals(a: tuple, b: tuple) -> bool:
    """``a.equals(b)`` of two value nodes."""
    kind = a[0]
    if kind == "str":
        if b[0] == "str":
            return a[1] == b[1]
        return b[0] == "num" and a[1] == _decimal_text(b[1])
    if kind == "num":
        if b[0] == "num":
            return a[1] == b[1]
        if b[0] == "str":
            other = _big_decimal(b[1])
            return other is not None and a[1] == other
        return False
    if kind in ("bool", "null"):
        return a == b
    if kind == "json":
        if b[0] != "json" or a[2] != b[2]:
            return False
        return _java_equal(a[1], b[1]) if a[2] else a[3] == b[3]
    return False  # undefined, a path-like element, a pattern: equal to nothing


def _utf16(text: str) -> bytes:
    """Java's UTF-16 units (``String.compareTo`` order; a lone surrogate's marker read as its unit)."""
    return _java_chars(text).encode("utf-16-be", "surrogatepass")


def _compare(a: tuple, b: tuple) -> int | None:
    if a[0] == b[0] == "num":
        return (a[1] > b[1]) - (a[1] < b[1])
    if a[0] == b[0] == "str":
        x, y = _utf16(a[1]), _utf16(b[1])
        return (x > y) - (x < y)
    return None


def _regex_input(node: tuple) -> str:
    if node[0] == "str":
        return node[1]
    if node[0] == "num":
        return _decimal_text(node[1])
    if node[0] == "bool":
        return "true" if node[1] else "false"
    return ""


def _regex(left: tuple, right: tuple) -> bool:
    if (left[0] == "pattern") == (right[0] == "pattern"):
        return False
    pattern, other = (left[1], right) if left[0] == "pattern" else (right[1], left)
    if other[0] == "json" and isinstance(other[1], list):
        return any(pattern.fullmatch(_regex_input(e)) for e in _value_list(other))
    return pattern.fullmatch(_regex_input(other)) is not None


def _list_operand(node: tuple) -> list[tuple] | None:
    """The list side of in / subsetof / anyof / noneof: a JSON array's elements, None when it is JSON but
    not an array (the operator is false), and a rejection for anything else (``asValueListNode`` throws)."""
    if node[0] == "json":
        return _value_list(node)
    raise _Reject()


def _contains(items: list[tuple], node: tuple) -> bool:
    return any(_equals(node, item) for item in items)


def _relation(op: str, left: tuple, right: tuple) -> bool:
    if op == "exists":
        return left == right
    if op in ("==", "!="):
        if left[0] == right[0] == "json":
            equal = left[2] and _java_equal(left[1], right[1])
        else:
            equal = _equals(left, right)
        return equal if op == "==" else not equal
    if op in ("===", "!=="):
        equal = left[0] == right[0] and _relation("==", left, right)
        return equal if op == "===" else not equal
    if op in ("<", "<=", ">", ">="):
        order = _compare(left, right)
        if order is None:
            return False
        return {"<": order < 0, "<=": order <= 0, ">": order > 0, ">=": order >= 0}[op]
    if op == "=~":
        return _regex(left, right)
    if op == "size":
        if right[0] != "num":
            return False
        expected = _java_int(right[1])
        if left[0] == "str":
            return len(_utf16(left[1])) // 2 == expected
        if left[0] == "json":
            return (len(left[1]) if isinstance(left[1], list) else -1) == expected
        return False
    if op == "empty":
        if left[0] not in ("str", "json"):
            return False
        if right[0] != "bool":
            raise _Reject()
        if left[0] == "str":
            return (left[1] == "") == right[1]
        value = left[1]
        return (len(value) == 0 if isinstance(value, (list, dict)) else True) == right[1]
    if op in ("in", "nin"):
        items = _list_operand(right)
        found = items is not None and _contains(items, left)
        return found if op == "in" else not found
    if op == "contains":
        if left[0] == right[0] == "str":
            return right[1] in left[1]
        if left[0] == "json":
            items = _value_list(left)
            return items is not None and any(_equals(right, item) for item in items)
        return False
    # subsetof / anyof / noneof: the right side first, as Jayway reads them
    right_items = _list_operand(right)
    if right_items is None:
        return False
    left_items = _list_operand(left)
    if left_items is None:
        return False
    if op == "subsetof":
        return all(_contains(right_items, item) for item in left_items)
    shared = any(_equals(a, b) for a in left_items for b in right_items)
    return shared if op == "anyof" else not shared


def _java_int(number: Decimal) -> int:
    """``BigDecimal.intValue``: toward zero, the low 32 bits."""
    whole = int(number)
    return ((whole + 2**31) % 2**32) - 2**31


# --- filter expressions ---------------------------------------------------------------------------------
# ("or", [...]) ("and", [...]) ("not", e) ("rel", left, op, right); an operand is ("lit", node) or
# ("at" | "root", steps, exists_check, should_exist).


def _accept(predicate: tuple, item: Any, root: Any) -> bool:
    try:
        return _holds(predicate, item, root)
    except _Reject:
        return False


def _holds(expression: tuple, item: Any, root: Any) -> bool:
    kind = expression[0]
    if kind == "or":
        return any(_holds(e, item, root) for e in expression[1])
    if kind == "and":
        return all(_holds(e, item, root) for e in expression[1])
    if kind == "not":
        return not _holds(expression[1], item, root)
    _, left, op, right = expression
    return _relation(op, _operand(left, item, root), _operand(right, item, root))


def _operand(operand: tuple, item: Any, root: Any) -> tuple:
    if operand[0] == "lit":
        return operand[1]
    kind, steps, exists_check, _ = operand
    found = _select(root if kind == "root" else item, root, steps)
    if exists_check:
        return ("bool", bool(found))
    return _document_node(found[0]) if found else _UNDEFINED


_OPERATORS = {"==", "!=", "===", "!==", "<", "<=", ">", ">=", "=~", "in", "nin", "subsetof", "anyof", "noneof",
              "size", "empty", "contains"}
_UNSUPPORTED_OPERATORS = {"all", "type", "matches"}
_OPERATOR_CHARS = "<>=~!"


class _FilterParser:
    """Jayway's FilterCompiler, on the text of one ``[?(...)]``."""

    def __init__(self, path: str, text: str) -> None:
        self.path, self.text = path, text
        start = text.index("?") + 1
        while text[start] == " ":
            start += 1
        end = len(text) - 2
        while text[end] == " ":
            end -= 1
        if text[start] != "(" or text[end] != ")":
            self.fail("a filter must be written [?(...)]")
        self.pos, self.end = start, end + 1

    def fail(self, why: str):
        raise JsonPathError(f"JSON path {self.path!r}: filter {self.text}: {why}")

    def parse(self) -> tuple:
        expression = self.logical_or()
        self.skip()
        if self.pos < self.end:
            self.fail(f"unexpected {self.text[self.pos:self.end]!r}")
        return expression

    def skip(self) -> None:
        while self.pos < self.end and self.text[self.pos] == " ":
            self.pos += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < self.end else ""

    def take(self, token: str) -> bool:
        self.skip()
        if self.text.startswith(token, self.pos) and self.pos + len(token) <= self.end:
            self.pos += len(token)
            return True
        return False

    def logical_or(self) -> tuple:
        operands = [self.logical_and()]
        while self.take("||"):
            operands.append(self.logical_and())
        return operands[0] if len(operands) == 1 else ("or", operands)

    def logical_and(self) -> tuple:
        operands = [self.and_operand()]
        while self.take("&&"):
            operands.append(self.and_operand())
        return operands[0] if len(operands) == 1 else ("and", operands)

    def and_operand(self) -> tuple:
        save = self.pos
        if self.take("!"):
            if self.peek() not in ("@", "$"):
                return ("not", self.and_operand())
            self.pos = save  # "!@.x": a negated existence check, read with the path
        if self.take("("):
            expression = self.logical_or()
            if not self.take(")"):
                self.fail("')' expected")
            return expression
        return self.relation()

    def relation(self) -> tuple:
        left = self.value()
        save = self.pos
        op = self.operator()
        if op is not None:
            return ("rel", left, op, self.value())
        self.pos = save
        if left[0] == "lit":
            self.fail("a literal alone is not a condition")
        kind, steps, _, should_exist = left
        return ("rel", (kind, steps, True, should_exist), "exists", ("lit", ("bool", should_exist)))

    def operator(self) -> str | None:
        self.skip()
        begin = self.pos
        if self.pos < self.end and self.text[self.pos] in _OPERATOR_CHARS:
            while self.pos < self.end and self.text[self.pos] in _OPERATOR_CHARS:
                self.pos += 1
        else:
            while self.pos < self.end and self.text[self.pos] != " ":
                self.pos += 1
        word = self.text[begin:self.pos].lower()
        if word in _UNSUPPORTED_OPERATORS:
            self.fail(f"the operator {word!r} is not supported here")
        return word if word in _OPERATORS else None

    def value(self) -> tuple:
        c = self.peek()
        negated = False
        if c == "!":
            self.pos += 1
            if self.peek() not in ("@", "$"):
                self.fail("'!' must be followed by a path or '('")
            negated, c = True, self.peek()
        if c in ("@", "$"):
            return self.path_operand(negated)
        return ("lit", self.literal())

    def path_operand(self, negated: bool) -> tuple:
        begin = self.pos
        self.pos += 1
        while self.pos < self.end:
            c = self.text[self.pos]
            if c == "[":
                self.pos = self.matching(self.pos, "[", "]") + 1
                continue
            if c in _OPERATOR_CHARS or c in " )":
                break
            self.pos += 1
        text = self.text[begin:self.pos]
        if "(" in text:
            self.fail(f"functions in a filter path ({text}) are not supported here")
        steps, definite = compile_path("$" + text[1:])
        if not definite:
            self.fail(f"the path {text} in a filter must be definite here (keys and indexes)")
        return ("root" if text[0] == "$" else "at", steps, False, not negated)

    def matching(self, start: int, open_char: str, close_char: str) -> int:
        depth = 0
        j = start
        while j < self.end:
            c = self.text[j]
            if c in "'\"":
                j = _closing(self.text, j, c)
            elif c == open_char:
                depth += 1
            elif c == close_char:
                depth -= 1
                if depth == 0:
                    return j
            j += 1
        self.fail(f"{open_char} at {start} is not closed")

    def literal(self) -> tuple:
        c = self.peek()
        if c in ("'", '"'):
            close = _closing(self.text, self.pos, c)
            token = self.text[self.pos:close + 1]
            self.pos = close + 1
            return ("str", _unescape(token[1:-1]))
        for word, node in (("true", ("bool", True)), ("false", ("bool", False)), ("null", _NULL)):
            if c == word[0]:
                if not self.take(word):
                    self.fail(f"{word} expected")
                return node
        if c == "[":
            close = self.matching(self.pos, "[", "]")
            token = self.text[self.pos:close + 1]
            self.pos = close + 1
            return ("json", _json_literal(token), False, token)
        if c == "{":
            self.fail("JSON object literals are not supported here")
        if c == "/":
            return self.pattern()
        begin = self.pos
        while self.pos < self.end and (self.text[self.pos].isdigit() or self.text[self.pos] in "-.eE"):
            self.pos += 1
        number = _big_decimal(self.text[begin:self.pos])
        if number is None:
            self.fail(f"a value was expected at {self.text[begin:self.end]!r}")
        return ("num", number)

    def pattern(self) -> tuple:
        close = _closing(self.text, self.pos, "/")
        body = self.text[self.pos + 1:close]
        flags_end = close + 1
        while flags_end < self.end and self.text[flags_end] in "dixmsuU":
            flags_end += 1
        flags = self.text[close + 1:flags_end]
        self.pos = flags_end
        return ("pattern", _java_regex(body, flags, self.fail))


def _json_literal(text: str) -> Any:
    """JSON text as json-smart reads it: standard JSON, or an array in its permissive form (single-quoted
    strings); other permissive forms are not read here."""
    try:
        return json.loads(text)
    except ValueError:
        return _permissive_array(text)


_TOKEN = re.compile(r"\s*(?:(?P<open>\[)|(?P<close>\])|(?P<comma>,)|'(?P<single>(?:[^'\\]|\\.)*)'"
                    r"|\"(?P<double>(?:[^\"\\]|\\.)*)\"|(?P<word>true|false|null)"
                    r"|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?))")


def _permissive_array(text: str) -> list:
    stack: list[list] = []
    result: list | None = None
    pos = 0
    expect_value = True
    while pos < len(text.rstrip()):
        m = _TOKEN.match(text, pos)
        if not m:
            raise JsonPathError(f"{text!r} is not a JSON array literal this package reads")
        pos = m.end()
        if m.group("open"):
            stack.append([])
            expect_value = True
            continue
        if m.group("close"):
            done = stack.pop() if stack else None
            if done is None:
                raise JsonPathError(f"{text!r}: unbalanced ']'")
            if stack:
                stack[-1].append(done)
            else:
                result = done
            expect_value = False
            continue
        if m.group("comma"):
            expect_value = True
            continue
        if not stack or not expect_value:
            raise JsonPathError(f"{text!r} is not a JSON array literal this package reads")
        if m.group("single") is not None or m.group("double") is not None:
            raw = m.group("single") if m.group("single") is not None else m.group("double")
            stack[-1].append(_unescape(raw))
        elif m.group("word"):
            stack[-1].append({"true": True, "false": False, "null": None}[m.group("word")])
        else:
            number = m.group("number")
            stack[-1].append(int(number) if re.fullmatch(r"-?\d+", number) else float(number))
        expect_value = False
    if result is None or stack:
        raise JsonPathError(f"{text!r} is not a JSON array literal this package reads")
    return result


# --- Java regular expressions ---------------------------------------------------------------------------

_LINE_END = "\\n\\r\\x85\\u2028\\u2029"
_CLASS_ESCAPES = set("dDwWsStnrf")


def _java_regex(body: str, flags: str, fail) -> re.Pattern:
    """A ``java.util.regex.Pattern`` written for Python's ``re`` where both mean the same, else rejected.

    Java's default classes are ASCII (``\\d \\w \\s``, ``re.ASCII``) and so is its case-insensitive flag
    without UNICODE_CASE; ``.`` and ``$`` know Java's five line terminators."""
    options = re.ASCII
    for flag in flags:
        if flag == "i":
            options |= re.IGNORECASE
        elif flag == "s":
            options |= re.DOTALL
        else:
            fail(f"the regular expression flag {flag!r} is not supported here")
    out: list[str] = []
    i, n = 0, len(body)
    in_class = False
    while i < n:
        c = body[i]
        if c == "\\":
            if i + 1 == n:
                fail("a regular expression cannot end with '\\'")
            nxt = body[i + 1]
            if nxt.isalnum() and nxt not in _CLASS_ESCAPES:
                fail(f"the regular expression escape \\{nxt} is not supported here")
            out.append(body[i:i + 2])
            i += 2
            continue
        if in_class:
            if c == "[" or body.startswith("&&", i):
                fail("nested or intersected character classes are not supported here")
            if c == "]":
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            start = i + 2 if body.startswith("[^", i) else i + 1
            if start < n and body[start] == "]":
                fail("a character class starting with ']' is not supported here")
            in_class = True
            out.append(body[i:start])
            i = start
            continue
        if c == "(" and body.startswith("(?", i) and not re.match(r"\(\?(:|=|!|<=|<!)", body[i:]):
            fail("only (?:...) and look-around groups are supported here")
        if c in "*+?}" and i + 1 < n and body[i + 1] == "+":
            fail("possessive quantifiers are not supported here")
        if c == "{" and not re.match(r"\{\d+(,\d*)?\}", body[i:]):
            fail("'{' must start a quantifier {n}, {n,} or {n,m}")
        if c == "." and not options & re.DOTALL:
            out.append(f"[^{_LINE_END}]")
        elif c == "$":
            out.append(f"(?=(?:\\r\\n|[{_LINE_END}])?\\Z)")
        else:
            out.append(c)
        i += 1
    if in_class:
        fail("unclosed character class")
    try:
        return re.compile("".join(out), options)
    except re.error as exc:
        fail(f"invalid regular expression /{body}/ ({exc})")
