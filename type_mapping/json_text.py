"""Compact JSON text as Jackson writes it (``json_text``): the one home of that rule, for JSON columns
(``type_mapping.convert``) and the ingestion functions that print JSON."""
from __future__ import annotations

import base64
import datetime as _dt
import decimal
import json
import math
import re
from typing import Any

from .errors import PinotSinkError
from .java_text import big_decimal_string, from_decimal, java_float_str


def normalise_json_text(text: str) -> str:
    """A text into a JSON column as Pinot's ``toJson`` of a String: Jackson's tree of its first JSON value, decimals
    as BigDecimal (``stringToJsonNodeWithBigDecimal``), what follows ignored (``' 12 x'`` is ``12``), written
    compactly; nothing but white space is Jackson's missing node, ``''``; a text that is not JSON a JSON string."""
    if not text.strip(_WHITESPACE):
        return ""
    try:
        parsed = read_first_value(text, decimals=True)
    except InvalidJson:
        return json_text(text)  # not JSON: Pinot stores it as a JSON string
    return json_text(_stripped(parsed))


def _stripped(value: Any) -> Any:
    """Jackson's tree keeps a decimal without its trailing zeros, a zero as ``0`` (JsonNodeFactory, not exact:
    ``-0.0`` is ``0``, ``100.0`` is ``1E+2``, ``1e-7`` is ``1E-7``)."""
    if isinstance(value, decimal.Decimal):
        return decimal.Decimal(0) if value.is_zero() else value.normalize(decimal.Context(prec=len(value.as_tuple().digits)))
    if isinstance(value, dict):
        return {k: _stripped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_stripped(v) for v in value]
    return value


class InvalidJson(PinotSinkError, ValueError):
    """A text Jackson does not read as JSON (its callers say what that means for the row or the option)."""


def _reject(name: str) -> Any:
    raise InvalidJson(name)  # NaN/Infinity are not JSON to Jackson


_DECODER = json.JSONDecoder(parse_constant=_reject)
_DECIMAL_DECODER = json.JSONDecoder(parse_constant=_reject, parse_float=decimal.Decimal)
_WHITESPACE = " \t\n\r"

# Jackson's StreamReadConstraints (2.15+ defaults, the Jackson Pinot runs): a document nested deeper than 1000
# arrays / objects, or holding a number of more than 1000 characters, is not read (StreamConstraintsException)
JACKSON_MAX_DEPTH = 1000
JACKSON_MAX_NUMBER_LENGTH = 1000
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_LONG_NUMBER = re.compile(r"[0-9][0-9.eE+-]{%d,}" % JACKSON_MAX_NUMBER_LENGTH)


def within_jackson_limits(text: str) -> bool:
    """Whether Jackson's read constraints let ``text`` be read (only a text longer than the limits can break
    them, so short documents cost nothing here)."""
    if len(text) <= JACKSON_MAX_NUMBER_LENGTH:
        return True
    bare = _STRING.sub('""', text)
    if _LONG_NUMBER.search(bare):
        return False
    depth = deepest = 0
    for bracket in re.findall(r"[\[\]{}]", bare):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest <= JACKSON_MAX_DEPTH


def read_first_value(text: str, decimals: bool = False) -> Any:
    """Jackson's ``readValue`` of a text (Jayway's and ``JsonUtils``' parse): the first JSON value, what follows
    it ignored; a number at the root must be followed by whitespace (``_verifyRootSpace``) and ``true`` /
    ``false`` / ``null`` by no letter or digit; nesting and number length within Jackson's read constraints;
    ``decimals``: fractions as ``Decimal`` (BigDecimal). Raises ``InvalidJson``."""
    body = text.lstrip(_WHITESPACE)
    if not within_jackson_limits(body):
        raise InvalidJson(text)
    try:
        value, end = (_DECIMAL_DECODER if decimals else _DECODER).raw_decode(body)
    except ValueError:
        raise InvalidJson(text) from None
    if end < len(body) and not isinstance(value, (dict, list, str)):
        after = body[end]
        if (after not in _WHITESPACE if isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool)
                else (after.isalnum() or after in "_$")):
            raise InvalidJson(text)
    return value


_JSON_CONTROL = re.compile(r"\\u00[0-9a-f]{2}")


def _json_string(text: str) -> str:
    # Jackson: non-ASCII kept, control characters as \uXXXX with upper-case hex (Python: lower-case).
    out = json.dumps(text, ensure_ascii=False)
    return _JSON_CONTROL.sub(lambda m: "\\u" + m.group(0)[2:].upper(), out) if "\\u" in out else out


def json_text(value: Any) -> str:
    """Compact JSON as Jackson writes it: BigDecimal via ``toString``, doubles via ``Double.toString``,
    NaN/Infinity as strings, bytes as base64, dates as ISO text, timestamps as epoch millis."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, decimal.Decimal):
        return big_decimal_string(from_decimal(value))
    if isinstance(value, float):
        text = java_float_str(value)
        return text if math.isfinite(value) else f'"{text}"'
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{_json_string(str(k))}:{json_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(json_text(v) for v in value) + "]"
    if isinstance(value, (bytes, bytearray)):
        return '"' + base64.b64encode(bytes(value)).decode("ascii") + '"'
    if isinstance(value, _dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)
        return str((aware - _EPOCH) // _dt.timedelta(milliseconds=1))
    if isinstance(value, (_dt.date, _dt.time)):
        return _json_string(value.isoformat())
    if isinstance(value, _dt.timedelta):
        raise TypeError("an INTERVAL inside a JSON value has no JSON form")
    return _json_string(str(value))


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
