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

from .java_text import big_decimal_string, from_decimal, java_float_str


def normalise_json_text(text: str) -> str:
    try:
        parsed = json.loads(text, parse_float=decimal.Decimal, parse_constant=_reject_constant)
    except (ValueError, _NotJson):
        return json_text(text)  # not JSON: Pinot stores it as a JSON string
    return json_text(parsed)


class _NotJson(Exception):
    pass


def _reject_constant(name: str) -> Any:
    raise _NotJson(name)  # NaN/Infinity are not JSON to Jackson


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
