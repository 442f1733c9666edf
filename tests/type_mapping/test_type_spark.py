"""Spark side: StructType and Spark DDL -> Pinot schema, and real Spark Arrow batches through the conversion."""
from __future__ import annotations

import datetime as dt
import decimal

import pyarrow as pa
import pytest

from type_mapping import PinotSchema, plan_write, to_pinot_columns
from type_mapping.spark_types import (
    UnsupportedTypeError, spark_schema_to_pinot, spark_struct_to_arrow, spark_type_to_arrow,
)
from type_mapping.table_config import TableConfig

T = pytest.importorskip("pyspark.sql.types")


def test_struct_type_to_pinot_schema():
    struct = T.StructType([
        T.StructField("id", T.LongType(), False),
        T.StructField("b", T.ByteType()), T.StructField("s", T.ShortType()), T.StructField("i", T.IntegerType()),
        T.StructField("f", T.FloatType()), T.StructField("d", T.DoubleType()),
        T.StructField("dec", T.DecimalType(12, 3)), T.StructField("flag", T.BooleanType()),
        T.StructField("day", T.DateType()), T.StructField("ts", T.TimestampType()),
        T.StructField("ntz", T.TimestampNTZType()), T.StructField("name", T.StringType()),
        T.StructField("code", T.VarcharType(8)), T.StructField("raw", T.BinaryType()),
        T.StructField("tags", T.ArrayType(T.StringType())), T.StructField("attrs", T.MapType(T.StringType(), T.IntegerType())),
        T.StructField("row", T.StructType([T.StructField("a", T.IntegerType())])),
        T.StructField("amount", T.DoubleType()),
    ])
    schema = spark_schema_to_pinot(struct, "events", time_column="ts", metric_columns=["amount"])
    got = {f.name: (f.data_type, f.field_type, f.single_value) for f in schema}
    assert got == {
        "id": ("LONG", "DIMENSION", True), "b": ("INT", "DIMENSION", True), "s": ("INT", "DIMENSION", True),
        "i": ("INT", "DIMENSION", True), "f": ("FLOAT", "DIMENSION", True), "d": ("DOUBLE", "DIMENSION", True),
        "dec": ("BIG_DECIMAL", "DIMENSION", True), "flag": ("BOOLEAN", "DIMENSION", True),
        "day": ("INT", "DATE_TIME", True), "ts": ("TIMESTAMP", "DATE_TIME", True),
        "ntz": ("TIMESTAMP", "DATE_TIME", True), "name": ("STRING", "DIMENSION", True),
        "code": ("STRING", "DIMENSION", True), "raw": ("BYTES", "DIMENSION", True),
        "tags": ("STRING", "DIMENSION", False), "attrs": ("JSON", "DIMENSION", True),
        "row": ("JSON", "DIMENSION", True), "amount": ("DOUBLE", "METRIC", True),
    }
    assert schema["id"].not_null and not schema["i"].not_null
    assert schema["code"].max_length == 8
    assert schema["day"].datetime_format == "1:DAYS:EPOCH"
    assert schema["ts"].datetime_format == "1:MILLISECONDS:EPOCH"
    assert PinotSchema.from_json(schema.to_json()).to_json() == schema.to_json()


def test_spark_ddl_string():
    schema = spark_schema_to_pinot("id BIGINT NOT NULL, tags ARRAY<STRING>, s STRUCT<a: INT>, t TIMESTAMP",
                                   "x", time_column="t", json_columns=())
    assert [(f.name, f.data_type) for f in schema] == [("id", "LONG"), ("tags", "STRING"), ("s", "JSON"),
                                                     ("t", "TIMESTAMP")]


@pytest.mark.parametrize("struct, message", [
    (T.StructType([T.StructField("iv", T.DayTimeIntervalType())]), "column 'iv'"),
    (T.StructType([T.StructField("ym", T.YearMonthIntervalType())]), "column 'ym'"),
    (T.StructType([T.StructField("nest", T.ArrayType(T.ArrayType(T.IntegerType())))]), "nested array"),
    (T.StructType([T.StructField("v", T.VariantType())]), "column 'v'"),
])
def test_unmappable_spark_types(struct, message):
    with pytest.raises(UnsupportedTypeError) as info:
        spark_schema_to_pinot(struct, "x")
    assert message in str(info.value)


@pytest.mark.parametrize("kwargs, message", [
    ({"metric_columns": ["name"]}, "a metric must be numeric"),
    ({"time_column": "name"}, "the time column must be"),
    ({"time_column": "nope"}, "time_column: columns ['nope'] are not in the source schema"),
    ({"json_columns": ["x"]}, "json_columns"),
    ({"time_column": "t"}, "a TIME of day cannot be the time column"),
])
def test_schema_option_errors(kwargs, message):
    struct = T.StructType([T.StructField("name", T.StringType()), T.StructField("t", T.TimeType(3))])
    with pytest.raises(Exception) as info:
        spark_schema_to_pinot(struct, "x", **kwargs)
    assert message in str(info.value)


def test_time_column_from_integers_and_json_override():
    struct = T.StructType([T.StructField("ms", T.LongType()), T.StructField("days", T.IntegerType()),
                           T.StructField("doc", T.StringType()),
                           T.StructField("rows", T.ArrayType(T.StructType([T.StructField("a", T.IntegerType())])))])
    schema = spark_schema_to_pinot(struct, "x", time_column="ms", json_columns=["doc", "rows"])
    assert schema["ms"].datetime_format == "1:MILLISECONDS:EPOCH" and schema["ms"].data_type == "LONG"
    assert schema["doc"].data_type == "JSON" and schema["rows"].data_type == "JSON"
    days = spark_schema_to_pinot(struct, "x", time_column="days", json_columns=["rows"])
    assert days["days"].datetime_format == "1:DAYS:EPOCH"


def test_spark_arrow_types():
    assert spark_type_to_arrow(T.TimestampType(), timezone="Asia/Tokyo") == pa.timestamp("us", tz="Asia/Tokyo")
    assert spark_type_to_arrow(T.DecimalType(38, 18)) == pa.decimal128(38, 18)
    assert spark_type_to_arrow(T.ArrayType(T.DateType())) == pa.list_(pa.date32())


@pytest.mark.spark
def test_real_spark_batches_through_plan_and_conversion(spark):
    df = spark.sql("""
        SELECT * FROM VALUES
          (CAST(1 AS TINYINT), 2147483647, 9223372036854775807L, CAST(1.5 AS FLOAT), -0.0D,
           CAST('1.50' AS DECIMAL(10, 2)), true, DATE'2020-01-02', TIMESTAMP'2020-01-02 03:04:05.123456',
           TIMESTAMP_NTZ'2020-01-02 03:04:05.123', 'épsilon', X'00FF', array(1, NULL, 2), map('k', 1),
           named_struct('a', 1, 'b', 'x')),
          (NULL, NULL, NULL, NULL, CAST('NaN' AS DOUBLE), NULL, NULL, NULL, NULL, NULL, NULL, NULL,
           CAST(array() AS ARRAY<INT>), NULL, named_struct('a', 2, 'b', 'y'))
        AS t(ti, i, l, f, d, dec, b, day, ts, ntz, s, by, arr, m, st)
    """)
    pinot = spark_schema_to_pinot(df.schema, "all", time_column="day")
    plan = plan_write(df.schema, pinot, table_config=TableConfig.from_json({"segmentsConfig": {"timeColumnName": "day"}}, pinot))
    table = df.toArrow()
    with pytest.raises(Exception, match="column 'day', row 1: the table's time column is null"):
        to_pinot_columns(table, pinot, plan=plan)
    columns = to_pinot_columns(table.slice(0, 1), pinot, plan=plan)
    columns.validate(pinot)
    row = {name: columns.table.column(name)[0].as_py() for name in columns.table.column_names}
    assert row == {
        "ti": 1, "i": 2147483647, "l": 9223372036854775807, "f": 1.5, "d": 0.0, "dec": "1.5", "b": 1,
        "day": 18263, "ts": 1577934245123, "ntz": 1577934245123, "s": "épsilon", "by": b"\x00\xff",
        "arr": [1, 2], "m": '{"k":1}', "st": '{"a":1,"b":"x"}',
    }
    nulls = to_pinot_columns(table.slice(1, 1), pinot, plan=plan.__class__(
        plan.feeds, plan.ignored_columns, plan.case_sensitive, None))
    assert all(mask.tolist() == [True] for mask in nulls.null_masks.values())
    # (a null struct is left out: pyspark's own toArrow cannot carry one with non-nullable fields)
    assert set(nulls.null_masks) == set(pinot.column_names) - {"st"}
    assert nulls.table.column("arr").to_pylist() == [[-2147483648]]
    assert nulls.table.column("d").to_pylist() == [float("-inf")]
