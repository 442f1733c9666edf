"""What converts to what: the Arrow source types each Pinot data type accepts (docs/type-mapping.md).

The planning side (``reconcile.plan_write``) checks every fed column with ``check_convertible`` before any
row moves; the conversion side (``convert``) relies on the same families. Both import this module, and
neither imports the other.
"""
from __future__ import annotations

import pyarrow as pa

from . import datetime_formats as dtf
from .pinot_schema import DATE_TIME, TIME, FieldSpec
from .errors import PinotSinkError


class ConversionError(PinotSinkError, ValueError):
    """A value (or a whole column) that cannot become the Pinot column's type; names column and row."""


def type_family(t: pa.DataType) -> str:
    """A coarse family of an Arrow type, the unit of the compatibility matrix."""
    if pa.types.is_null(t):
        return "null"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_integer(t):
        return "int"
    if pa.types.is_floating(t):
        return "float"
    if pa.types.is_decimal(t):
        return "decimal"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "string"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t) \
            or pa.types.is_binary_view(t):
        return "binary"
    if pa.types.is_date(t):
        return "date"
    if pa.types.is_timestamp(t):
        return "timestamp"
    if pa.types.is_time(t):
        return "time"
    if pa.types.is_duration(t) or pa.types.is_interval(t):
        return "interval"
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t) \
            or pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        return "list"
    if pa.types.is_struct(t):
        return "struct"
    if pa.types.is_map(t):
        return "map"
    if pa.types.is_dictionary(t):
        return type_family(t.value_type)
    return "other"


def datetime_format(spec: FieldSpec) -> dtf.DateTimeFormat | None:
    if spec.field_type in (DATE_TIME, TIME) and spec.datetime_format:
        try:
            return dtf.parse_format(spec.datetime_format)
        except dtf.DateTimeFormatError as exc:
            raise ConversionError(f"column {spec.name!r}: {exc}") from None
    return None


# Which source families each Pinot data type accepts (values only; lists are checked separately).
_ACCEPTS: dict[str, set[str]] = {
    "INT": {"null", "bool", "int", "float", "decimal", "string", "date", "time", "timestamp"},
    "LONG": {"null", "bool", "int", "float", "decimal", "string", "date", "time", "timestamp"},
    "FLOAT": {"null", "bool", "int", "float", "decimal", "string"},
    "DOUBLE": {"null", "bool", "int", "float", "decimal", "string"},
    "BIG_DECIMAL": {"null", "int", "float", "decimal", "string"},
    "BOOLEAN": {"null", "bool", "int", "string"},
    "TIMESTAMP": {"null", "int", "string", "date", "timestamp"},
    "STRING": {"null", "bool", "int", "float", "decimal", "string", "date", "timestamp"},
    "JSON": {"null", "bool", "int", "float", "decimal", "string", "list", "struct", "map"},
    "BYTES": {"null", "binary", "string"},
}


def check_convertible(source_type: pa.DataType, spec: FieldSpec, source_name: str | None = None) -> str:
    """Raise ``ConversionError`` if values of ``source_type`` can never feed ``spec``; else describe how."""
    where = f"column {spec.name!r}" + (f" (from {source_name!r})" if source_name and source_name != spec.name else "")
    family = type_family(source_type)
    target = spec.data_type + ("" if spec.single_value else " multi-value")
    if family == "interval":
        raise ConversionError(f"{where}: {source_type} (INTERVAL) has no Pinot type; cast it to a number first")
    if family == "list" and spec.data_type != "JSON":
        if spec.single_value:
            raise ConversionError(
                f"{where}: an array ({source_type}) needs a multi-value Pinot column "
                f"(singleValueField: false) or a JSON column, not single-value {spec.data_type}"
            )
        element = source_type.value_type
        element_family = type_family(element)
        if element_family in ("list", "struct", "map"):
            raise ConversionError(
                f"{where}: {source_type} is a nested array; Pinot multi-value columns hold primitives only "
                f"(use a JSON column)"
            )
        _check_value(element_family, element, spec, where, target)
        return f"array<{element}> -> {target}"
    if family in ("struct", "map") and spec.data_type != "JSON":
        raise ConversionError(f"{where}: {source_type} (ROW/STRUCT/MAP) can only feed a JSON Pinot column, not {target}")
    if family == "other":
        raise ConversionError(f"{where}: Arrow type {source_type} has no Pinot mapping")
    if spec.data_type == "JSON" and not spec.single_value:
        raise ConversionError(f"{where}: Pinot has no multi-value JSON")
    _check_value(family, source_type, spec, where, target)
    return f"{source_type} -> {target}"


def _check_value(family: str, source_type: pa.DataType, spec: FieldSpec, where: str, target: str) -> None:
    if family not in _ACCEPTS[spec.data_type]:
        raise ConversionError(f"{where}: {source_type} cannot be converted to Pinot {target}")
    fmt = datetime_format(spec)
    if family == "timestamp" and spec.data_type == "INT" and (fmt is None or not fmt.is_epoch and not fmt.is_string):
        raise ConversionError(
            f"{where}: a TIMESTAMP does not fit an INT column; use LONG/TIMESTAMP, or a dateTime field with "
            f"an EPOCH format in a coarser unit (e.g. 1:DAYS:EPOCH)"
        )
    if family == "time" and fmt is not None:
        raise ConversionError(f"{where}: a TIME of day cannot feed a dateTime column ({spec.datetime_format})")
