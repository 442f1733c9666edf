"""Java properties files as Pinot writes and reads them (``metadata.properties``, ``index_map``).

Pinot uses commons-configuration2 ``PropertiesConfiguration`` with a ``,`` list delimiter; the writing
and reading rules here are those of SEGMENT_FORMAT.md section 2.1, including Pinot's own NUL
pre-escaping of STRING min/max/default values (``CommonsConfigurationUtils``). Numbers are spelled by
``type_mapping.java_text``.
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence, Union

from type_mapping.java_text import java_code_units

Value = Union[str, Sequence[str]]

_KEY_SPECIAL = set("=: \t\f\\")
_VALUE_NAMED = {"\\": "\\\\", "\b": "\\b", "\n": "\\n", "\t": "\\t", "\f": "\\f", "\r": "\\r"}


# Text with none of the characters that get escaped is its own escape: one regex search (in C) spares it the loop
# per character (metadata.properties's ~190 lines cost ~6 M instructions per segment that way). The value's are
# the loop's: a named escape (backslash, or a control character), below 0x20, above 0x7F, and the comma.
_KEY_ESCAPED = re.compile("[" + re.escape("".join(sorted(_KEY_SPECIAL))) + "]")
_VALUE_ESCAPED = re.compile(r"[^\x20-\x7f]|[\\,]")


def escape_key(key: str) -> str:
    return key if _KEY_ESCAPED.search(key) is None else _escape_key_chars(key)


def escape_value(value: str) -> str:
    return value if _VALUE_ESCAPED.search(value) is None else _escape_value_chars(value)


def _escape_key_chars(key: str) -> str:
    return "".join("\\" + ch if ch in _KEY_SPECIAL else ch for ch in key)


def _escape_value_chars(value: str) -> str:
    out = []
    for ch in value:
        named = _VALUE_NAMED.get(ch)
        if named is not None:
            out.append(named)
        elif ord(ch) < 0x20 or ord(ch) > 0x7F:
            out.extend(f"\\u{unit:04X}" for unit in java_code_units(ch))  # Java escapes UTF-16 code units
        else:
            out.append(ch)
    return "".join(out).replace(",", "\\,")


class PropertiesWriter:
    """Collects key/value lines in insertion order and renders them exactly as Pinot saves them."""

    def __init__(self) -> None:
        self._lines: list[tuple[str, str]] = []

    def put(self, key: str, value: object) -> None:
        """A scalar value (already a string, or a bool/int which Java would print the same way)."""
        if value is None:
            return
        if isinstance(value, bool):
            value = "true" if value else "false"
        self._lines.append((escape_key(key), escape_value(str(value))))

    def put_list(self, key: str, values: Iterable[str]) -> None:
        """A list value on one line; an empty list writes no line at all."""
        items = [escape_value(str(v)) for v in values]
        if items:
            self._lines.append((escape_key(key), ",".join(items)))

    def put_raw(self, key: str, escaped_value: str) -> None:
        self._lines.append((escape_key(key), escaped_value))

    def render(self, resaved: bool = False) -> bytes:
        """The file bytes. ``resaved`` mimics the v3 converter's re-save: empty values lose the space."""
        lines = []
        for key, value in self._lines:
            if value == "" and resaved:
                lines.append(f"{key} =\n")
            else:
                lines.append(f"{key} = {value}\n")
        return "".join(lines).encode("utf-8")


# --- Pinot's pre-escaping of STRING values -------------------------------------------------------


def pinot_escape_string(value: str) -> str | None:
    """``replaceSpecialCharacterInPropertyValue``: None means Pinot would not write the key at all."""
    if any(ord(ch) > 0xFFFF for ch in value):
        return None
    value = value.replace(",", "\0\0")
    if value.startswith(" "):
        value = "\0" + value
    if value.endswith(" "):
        value = value + "\0"
    return value


def pinot_unescape_string(value: str) -> str:
    """``recoverSpecialCharacterInPropertyValue``."""
    if value.startswith("\0 "):
        value = value[1:]
    if value.endswith(" \0"):
        value = value[:-1]
    return value.replace("\0\0", ",")


# --- Reading -------------------------------------------------------------------------------------

_UNICODE = re.compile(r"u([0-9a-fA-F]{4})")


def _unescape_java(text: str) -> str:
    """Java properties unescaping; an unknown escape such as ``\\,`` keeps its backslash here."""
    if "\\" not in text:  # most keys and values: nothing to undo (and no surrogates: the text is decoded UTF-8)
        return text
    out = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u" and _UNICODE.match(text, i + 1):
            out.append(chr(int(text[i + 2 : i + 6], 16)))
            i += 6
            continue
        mapped = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "b": "\b", "\\": "\\"}.get(nxt)
        if mapped is not None:
            out.append(mapped)
        elif nxt in "=: \t\f\"'#!":  # Pinot's writer escapes whitespace in keys as backslash + the character
            out.append(nxt)
        else:
            out.append("\\" + nxt)
        i += 2
    # Surrogate pairs written as two \\u escapes join back into one character.
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")


def _split_list(value: str) -> list[str]:
    tokens, current, i = [], [], 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value) and value[i + 1] in ",\\":
            current.append(value[i + 1])
            i += 2
            continue
        if ch == ",":
            tokens.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
        i += 1
    tokens.append("".join(current).strip())
    return tokens


_KEY_END = re.compile(r"[=: \t\f]")


def _split_key(line: str) -> tuple[str, str]:
    line = line.lstrip()
    i = 0
    if "\\" not in line:  # no escaped separator: the first separator ends the key
        end = _KEY_END.search(line)
        i = end.start() if end else len(line)
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "=: \t\f":
            break
        i += 1
    key, rest = line[:i], line[i:]
    rest = rest.lstrip(" \t\f")
    if rest[:1] in ("=", ":"):
        rest = rest[1:]
    return key, rest


def parse_properties(data: bytes | str) -> dict[str, Value]:
    """Parse a properties file: key -> string, or list of strings for list values / repeated keys.

    A line without a backslash (nearly every line Pinot writes) has no escape and does not go on: it is split
    at its key's end and its commas directly; only the others take the escape-aware path (a compaction opens
    hundreds of segments: metadata.properties's ~190 lines cost ~0.2 ms a segment the escape-aware way). In
    a text whose lines all end at "\\n", the lines "<key> = <value>" are split by one regular expression
    (``_LINE``: ~125 -> ~70 us a segment's metadata)."""
    text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
    if text.isascii() and not any(mark in text for mark in "\r\v\f\x1c\x1d\x1e"):  # lines end at "\n" only
        return _parsed(_LINE.findall(text))
    return _parsed([("", "", raw) for raw in text.splitlines()])


# Every line of a text whose lines end at "\n" only, in one call (a compaction reads the ~190 lines of
# thousands of segments' metadata): (key, value, "") for a line as Pinot writes it, "<key> = <value>" (a key
# of no separator, backslash or leading blank, not a comment; a value without a backslash), else ("", "",
# the line). A "\n" at the very end gives one more line, empty: blank, skipped.
_LINE = re.compile(r"^(?:([^=: \t\f\\#!\n\r\v\x1c-\x1f][^=: \t\f\\\n]*) = ([^\\\n]*)|(.*))$", re.M)


def _parsed(lines: list[tuple[str, str, str]]) -> dict[str, Value]:
    """``parse_properties`` of the lines (``_LINE``'s triples)."""
    result: dict[str, Value] = {}
    search = _KEY_END.search
    pending = ""  # a logical line that goes on (its last line ended with an odd backslash)
    for key, value, raw in lines:
        if key and not pending:  # split by _LINE already
            value = value.strip()
            parsed: Value = [token.strip() for token in value.split(",")] if "," in value else value
            if key in result:
                _put(result, key, parsed)
            else:
                result[key] = parsed
            continue
        if key:  # such a line continuing the one before: the line as it was
            raw = f"{key} = {value}"
        if not pending and "\\" not in raw:
            line = raw.lstrip()
            if not line or line[0] in "#!":
                continue
            end = search(line)
            if end is None:
                key, value = line, ""
            else:
                key, value = line[:end.start()], line[end.start():].lstrip(" \t\f")
                if value[:1] in ("=", ":"):
                    value = value[1:]
                value = value.strip()
            parsed = value
            if "," in value:
                tokens = [token.strip() for token in value.split(",")]
                parsed = tokens[0] if len(tokens) == 1 else tokens
            if key in result:
                _put(result, key, parsed)
            else:
                result[key] = parsed
            continue
        line = raw.lstrip() if pending else raw
        if not pending and (not line.strip() or line.lstrip()[:1] in ("#", "!")):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1:
            pending += line[:-1]
            continue
        _put_escaped(result, pending + line)
        pending = ""
    if pending:
        _put_escaped(result, pending)
    return result


def _put_escaped(result: dict[str, Value], line: str) -> None:
    raw_key, raw_value = _split_key(line)
    key = _unescape_java(raw_key)
    raw_value = raw_value.strip()
    value = _unescape_java(raw_value)
    parsed: Value = value
    if "," in raw_value:
        tokens = _split_list(value)
        parsed = tokens[0] if len(tokens) == 1 else tokens
    _put(result, key, parsed)


def _put(result: dict[str, Value], key: str, parsed: Value) -> None:
    """A key's value; a repeated key's values join into one list (as commons-configuration reads them)."""
    if key in result:
        previous = result[key]
        merged = list(previous) if isinstance(previous, list) else [previous]
        merged.extend(parsed if isinstance(parsed, list) else [parsed])
        result[key] = merged
    else:
        result[key] = parsed


def as_text(value: Value | None) -> str | None:
    """A scalar view of a parsed value (a list value joined back with commas, as Pinot's getString)."""
    if value is None or isinstance(value, str):
        return value
    return ",".join(value)


def as_list(value: Value | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def get_string_stat(props: Mapping[str, Value], key: str) -> str | None:
    """A STRING column's min/max/default as Pinot reads it back (NUL pre-escaping undone)."""
    value = as_text(props.get(key))
    return None if value is None else pinot_unescape_string(value)
