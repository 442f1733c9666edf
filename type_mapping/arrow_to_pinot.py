"""Arrow types -> Pinot field specs: the one mapping every source dialect shares.

Arrow is the common currency: a Spark type (``spark_types``) or a Flink/Spark SQL type (``flink_ddl``)
first becomes the Arrow type a writer is handed (``timestamp[us, tz]`` for TIMESTAMP, ``date32`` for DATE,
``decimal128(p, s)`` for DECIMAL, ...), and ``arrow_field_to_spec`` maps that to a Pinot field spec, so
every dialect maps identically (docs/type-mapping.md has the table).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import pyarrow as pa

from .pinot_schema import DATE_TIME, DEFAULT_MAX_LENGTH, DIMENSION, METRIC, FieldSpec, PinotSchema, SchemaError

# Arrow value types -> Pinot data type for a generated schema.
_PRIMITIVE_PINOT = (
    (pa.types.is_boolean, "BOOLEAN"),
    (lambda t: pa.types.is_integer(t) and t.bit_width <= 32 and not (pa.types.is_uint32(t)), "INT"),
    (pa.types.is_integer, "LONG"),
    (pa.types.is_float16, "FLOAT"),
    (pa.types.is_float32, "FLOAT"),
    (pa.types.is_float64, "DOUBLE"),
    (pa.types.is_decimal, "BIG_DECIMAL"),
    (lambda t: pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t), "STRING"),
    (lambda t: pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t)
     or pa.types.is_binary_view(t), "BYTES"),
    (pa.types.is_timestamp, "TIMESTAMP"),
    (pa.types.is_date, "INT"),
    (pa.types.is_time, "LONG"),
)
_MULTI_VALUE_TYPES = {"INT", "LONG", "FLOAT", "DOUBLE", "STRING", "BYTES", "BOOLEAN", "TIMESTAMP"}
_NUMERIC = {"INT", "LONG", "FLOAT", "DOUBLE", "BIG_DECIMAL"}

DATE_FORMAT = ("1:DAYS:EPOCH", "1:DAYS")
TIMESTAMP_FORMAT = ("1:MILLISECONDS:EPOCH", "1:MILLISECONDS")


class UnsupportedTypeError(SchemaError):
    """A source column whose type has no Pinot mapping; the message names the column."""


@dataclass(frozen=True)
class SourceColumn:
    """A column of a DataFrame or Flink table, in Arrow terms, with what SQL said beyond Arrow."""

    name: str
    arrow_type: pa.DataType
    nullable: bool = True
    max_length: int | None = None  # CHAR(n) / VARCHAR(n)
    sql_type: str | None = None  # the type as written, for messages


def _is_list(t: pa.DataType) -> bool:
    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)


def _primitive_pinot_type(t: pa.DataType) -> str | None:
    if pa.types.is_dictionary(t):
        t = t.value_type
    for test, pinot in _PRIMITIVE_PINOT:
        if test(t):
            return pinot
    return None


def _describe(column: SourceColumn) -> str:
    return column.sql_type or str(column.arrow_type)


def arrow_field_to_spec(column: SourceColumn, *, time_column: str | None = None, metric: bool = False,
                        json: bool = False) -> FieldSpec:
    """One source column -> a Pinot field spec (the mapping of docs/type-mapping.md)."""
    name, t = column.name, column.arrow_type
    not_null = not column.nullable
    if pa.types.is_duration(t) or pa.types.is_interval(t):
        raise UnsupportedTypeError(
            f"column {name!r}: {_describe(column)} (an INTERVAL) has no Pinot type; cast it to a number of "
            f"a unit (e.g. seconds) first"
        )
    if json or pa.types.is_struct(t) or pa.types.is_map(t):
        if metric:
            raise UnsupportedTypeError(f"column {name!r}: a JSON column cannot be a metric")
        if name == time_column:
            raise UnsupportedTypeError(f"column {name!r}: a JSON column cannot be the time column")
        return FieldSpec(name, "JSON", DIMENSION, not_null=not_null)
    if _is_list(t):
        element = t.value_type
        if _is_list(element):
            raise UnsupportedTypeError(
                f"column {name!r}: {_describe(column)} is a nested array; Pinot multi-value columns hold "
                f"primitives only (declare it a JSON column to store it serialised)"
            )
        if pa.types.is_struct(element) or pa.types.is_map(element):
            raise UnsupportedTypeError(
                f"column {name!r}: {_describe(column)} is an array of rows/maps; Pinot multi-value columns hold "
                f"primitives only (declare it a JSON column to store it serialised)"
            )
        pinot = _primitive_pinot_type(element)
        if pinot == "BIG_DECIMAL":
            raise UnsupportedTypeError(
                f"column {name!r}: {_describe(column)}: Pinot has no multi-value BIG_DECIMAL; cast the elements "
                f"to DOUBLE (losing precision) or store the array as JSON"
            )
        if pa.types.is_time(element) or pinot is None or pinot not in _MULTI_VALUE_TYPES:
            raise UnsupportedTypeError(f"column {name!r}: {_describe(column)} has no Pinot multi-value type")
        if pa.types.is_date(element):
            pinot = "INT"
        if name == time_column:
            raise UnsupportedTypeError(f"column {name!r}: the time column cannot be an array")
        field_type = METRIC if metric else DIMENSION
        if metric and pinot not in _NUMERIC:
            raise UnsupportedTypeError(f"column {name!r}: a metric must be numeric, not {_describe(column)}")
        return FieldSpec(name, pinot, field_type, single_value=False, not_null=not_null,
                         max_length=_max_length(column))
    pinot = _primitive_pinot_type(t)
    if pinot is None:
        raise UnsupportedTypeError(f"column {name!r}: {_describe(column)} has no Pinot type")
    if name == time_column:
        return _time_spec(column, pinot)
    if pa.types.is_date(t):
        return FieldSpec(name, "INT", DATE_TIME, not_null=not_null, datetime_format=DATE_FORMAT[0],
                         datetime_granularity=DATE_FORMAT[1])
    if pa.types.is_timestamp(t):
        return FieldSpec(name, "TIMESTAMP", DATE_TIME, not_null=not_null, datetime_format=TIMESTAMP_FORMAT[0],
                         datetime_granularity=TIMESTAMP_FORMAT[1])
    if metric:
        if pinot not in _NUMERIC:
            raise UnsupportedTypeError(f"column {name!r}: a metric must be numeric, not {_describe(column)}")
        return FieldSpec(name, pinot, METRIC, not_null=not_null)
    return FieldSpec(name, pinot, DIMENSION, not_null=not_null, max_length=_max_length(column))


def _max_length(column: SourceColumn) -> int:
    return column.max_length if column.max_length else DEFAULT_MAX_LENGTH


def _time_spec(column: SourceColumn, pinot: str) -> FieldSpec:
    t = column.arrow_type
    common = dict(not_null=not column.nullable)
    if pa.types.is_time(t):
        raise UnsupportedTypeError(f"column {column.name!r}: a TIME of day cannot be the time column")
    if pa.types.is_date(t):
        return FieldSpec(column.name, "INT", DATE_TIME, datetime_format=DATE_FORMAT[0],
                         datetime_granularity=DATE_FORMAT[1], **common)
    if pa.types.is_timestamp(t):
        return FieldSpec(column.name, "TIMESTAMP", DATE_TIME, datetime_format=TIMESTAMP_FORMAT[0],
                         datetime_granularity=TIMESTAMP_FORMAT[1], **common)
    if pinot == "LONG":
        return FieldSpec(column.name, "LONG", DATE_TIME, datetime_format=TIMESTAMP_FORMAT[0],
                         datetime_granularity=TIMESTAMP_FORMAT[1], **common)
    if pinot == "INT":
        return FieldSpec(column.name, "INT", DATE_TIME, datetime_format=DATE_FORMAT[0],
                         datetime_granularity=DATE_FORMAT[1], **common)
    raise UnsupportedTypeError(
        f"column {column.name!r}: the time column must be a DATE, TIMESTAMP, INT (days) or BIGINT (epoch millis), "
        f"not {_describe(column)}"
    )


def columns_to_pinot(columns: Iterable[SourceColumn], name: str, *, time_column: str | None = None,
                     metric_columns: Iterable[str] = (), json_columns: Iterable[str] = ()) -> PinotSchema:
    """Source columns -> a Pinot schema named ``name`` (field order kept)."""
    columns = list(columns)
    names = [c.name for c in columns]
    metrics, jsons = set(metric_columns), set(json_columns)
    for option, wanted in (("time_column", {time_column} if time_column else set()),
                           ("metric_columns", metrics), ("json_columns", jsons)):
        unknown = sorted(wanted - set(names))
        if unknown:
            raise SchemaError(f"{option}: columns {unknown} are not in the source schema (columns: {names})")
    schema = PinotSchema(name=name)
    for column in columns:
        spec = arrow_field_to_spec(column, time_column=time_column, metric=column.name in metrics,
                                   json=column.name in jsons)
        if spec.name in schema.fields:
            raise SchemaError(f"column {spec.name!r} appears twice")
        schema.fields[spec.name] = spec
    return schema
