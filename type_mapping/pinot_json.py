"""Reading Pinot's JSON configs (schemas, table configs) the way Pinot's Jackson mapper coerces them.

Pinot's examples write ``"notNull": "false"``, ``"maxLength": "1024"`` or ``"replication": "1"``; Jackson
turns such strings into the Java field's type (``"false"`` is false, not a truthy string), takes a
whole-valued float for an int, 0/1 for a boolean, and null for the field's default. Anything else is an
error naming the key and the value, as Jackson's mapping error would. Every reader of a schema or table
config key goes through these (one rule, one place).
"""
from __future__ import annotations

import math
from typing import Any, Mapping
from .errors import PinotSinkError


class ConfigValueError(PinotSinkError, ValueError):
    """A config value Pinot's JSON mapper would reject; the message names the key and the value."""


def _where(key: str, value: Any, kind: str) -> ConfigValueError:
    return ConfigValueError(f"{key}: {value!r} is not a valid {kind} (as Pinot reads its JSON configs)")


def as_bool(value: Any, key: str, default: bool = False) -> bool:
    """Jackson's boolean coercion: true/false, their text in any case, 0/1, "" or null -> default."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if value in (0, 1):
            return bool(value)
        raise _where(key, value, "boolean")
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return default
        if text.lower() == "true":
            return True
        if text.lower() == "false":
            return False
    raise _where(key, value, "boolean")


def as_int(value: Any, key: str, default: int | None = None) -> int | None:
    """Jackson's int/long coercion: integers, integral text, floats truncated (ACCEPT_FLOAT_AS_INT)."""
    if value is None:
        return default
    if isinstance(value, bool):
        raise _where(key, value, "number")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return int(value)
        raise _where(key, value, "number")
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return default
        try:
            return int(text)
        except ValueError:
            pass
        try:
            number = float(text)
        except ValueError:
            raise _where(key, value, "number") from None
        if math.isfinite(number):
            return int(number)
    raise _where(key, value, "number")


def as_float(value: Any, key: str, default: float | None = None) -> float | None:
    if value is None:
        return default
    if isinstance(value, bool):
        raise _where(key, value, "number")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return default
        try:
            return float(text)
        except ValueError:
            pass
    raise _where(key, value, "number")


def as_str(value: Any, key: str, default: str | None = None) -> str | None:
    """Jackson's String coercion: scalars become their text; objects and arrays are errors."""
    if value is None:
        return default
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise _where(key, value, "string")


def as_object(value: Any, key: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return value
    raise _where(key, value, "JSON object")


def as_list(value: Any, key: str) -> list:
    """A JSON array; a single value is accepted as a one-element array (ACCEPT_SINGLE_VALUE_AS_ARRAY)."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    return [value]
