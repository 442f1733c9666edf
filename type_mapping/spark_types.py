"""Spark SQL types (``StructType``, Spark DDL strings) -> the Arrow types Spark hands Python writers -> Pinot
field specs (through ``arrow_to_pinot``, the mapping the Flink parser shares; docs/type-mapping.md).
"""
from __future__ import annotations

from typing import Any, Iterable

import pyarrow as pa

from .arrow_to_pinot import SourceColumn, UnsupportedTypeError, columns_to_pinot
from .flink_ddl import parse_columns
from .pinot_schema import PinotSchema

# --- Spark ------------------------------------------------------------------------------------------


def spark_type_to_arrow(data_type: Any, *, timezone: str = "UTC") -> pa.DataType:
    """A pyspark ``DataType`` -> the Arrow type Spark's Arrow path hands Python (TIMESTAMP is UTC instants)."""
    from pyspark.sql import types as T

    simple = {
        "ByteType": pa.int8(), "ShortType": pa.int16(), "IntegerType": pa.int32(), "LongType": pa.int64(),
        "FloatType": pa.float32(), "DoubleType": pa.float64(), "BooleanType": pa.bool_(),
        "StringType": pa.string(), "CharType": pa.string(), "VarcharType": pa.string(),
        "BinaryType": pa.binary(), "DateType": pa.date32(), "TimestampNTZType": pa.timestamp("us"),
        "NullType": pa.null(), "DayTimeIntervalType": pa.duration("us"),
    }
    for name, arrow in simple.items():
        # by name: CHAR/VARCHAR and TIMESTAMP_NTZ exist from pyspark 3.4, the intervals from 3.2
        if type(data_type) is getattr(T, name, None):
            return arrow
    if isinstance(data_type, T.TimestampType):
        return pa.timestamp("us", tz=timezone)
    if isinstance(data_type, T.DecimalType):
        return pa.decimal128(data_type.precision, data_type.scale)
    if hasattr(T, "TimeType") and isinstance(data_type, T.TimeType):
        return pa.time64("ns")  # what pyspark's to_arrow_type gives
    if isinstance(data_type, T.UserDefinedType):
        return spark_type_to_arrow(data_type.sqlType(), timezone=timezone)
    if isinstance(data_type, tuple(getattr(T, name) for name in ("YearMonthIntervalType", "CalendarIntervalType")
                                   if hasattr(T, name))):
        return pa.month_day_nano_interval()
    if isinstance(data_type, T.ArrayType):
        element = spark_type_to_arrow(data_type.elementType, timezone=timezone)
        return pa.list_(pa.field("element", element, data_type.containsNull))
    if isinstance(data_type, T.MapType):
        return pa.map_(spark_type_to_arrow(data_type.keyType, timezone=timezone),
                       spark_type_to_arrow(data_type.valueType, timezone=timezone))
    if isinstance(data_type, T.StructType):
        return pa.struct([pa.field(f.name, spark_type_to_arrow(f.dataType, timezone=timezone), f.nullable)
                          for f in data_type.fields])
    raise UnsupportedTypeError(f"Spark type {data_type.simpleString()} has no Arrow/Pinot mapping")


def spark_struct_to_arrow(struct: Any, *, timezone: str = "UTC") -> pa.Schema:
    """A pyspark ``StructType`` -> the Arrow schema of the batches Spark hands a Python writer."""
    fields = []
    for f in struct.fields:
        try:
            arrow = spark_type_to_arrow(f.dataType, timezone=timezone)
        except UnsupportedTypeError as exc:
            raise UnsupportedTypeError(f"column {f.name!r}: {exc}") from None
        fields.append(pa.field(f.name, arrow, f.nullable))
    return pa.schema(fields)


def spark_source_columns(struct: Any) -> list[SourceColumn]:
    from pyspark.sql import types as T

    out = []
    for f in struct.fields:
        sized = tuple(getattr(T, name) for name in ("CharType", "VarcharType") if hasattr(T, name))
        max_length = f.dataType.length if sized and isinstance(f.dataType, sized) else None
        try:
            arrow = spark_type_to_arrow(f.dataType)
        except UnsupportedTypeError:
            raise UnsupportedTypeError(
                f"column {f.name!r}: Spark type {f.dataType.simpleString()} has no Pinot type"
            ) from None
        out.append(SourceColumn(f.name, arrow, f.nullable, max_length, f.dataType.simpleString()))
    return out


def spark_schema_to_pinot(struct: Any, name: str, *, time_column: str | None = None,
                          metric_columns: Iterable[str] = (), json_columns: Iterable[str] = ()) -> PinotSchema:
    """A Spark ``StructType`` or Spark DDL string (``"id BIGINT NOT NULL, tags ARRAY<STRING>"``) -> Pinot schema."""
    if isinstance(struct, str):
        columns = [c.to_source_column() for c in parse_columns(struct, dialect="spark")]
    elif isinstance(struct, pa.Schema):
        columns = [SourceColumn(f.name, f.type, f.nullable) for f in struct]
    else:
        columns = spark_source_columns(struct)
    return columns_to_pinot(columns, name, time_column=time_column, metric_columns=metric_columns,
                            json_columns=json_columns)
