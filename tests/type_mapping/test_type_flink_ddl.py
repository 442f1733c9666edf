"""The Flink (and Spark) column-definition parser: nesting, quoting, NOT NULL, precision, constraints, errors."""
from __future__ import annotations

import pyarrow as pa
import pytest

from type_mapping.flink_ddl import DDLError, flink_ddl_to_pinot, parse_columns, parse_flink_columns, parse_table
from type_mapping.arrow_to_pinot import UnsupportedTypeError


def _types(ddl, dialect="flink"):
    return {c.name: c.to_arrow() for c in parse_columns(ddl, dialect=dialect)}


def test_issue_example():
    ddl = "id BIGINT NOT NULL, price DECIMAL(10, 2), tags ARRAY<STRING>, ts TIMESTAMP(3), payload ROW<a INT, b STRING>"
    columns = parse_flink_columns(ddl)
    assert [c.name for c in columns] == ["id", "price", "tags", "ts", "payload"]
    assert [c.nullable for c in columns] == [False, True, True, True, True]
    assert _types(ddl) == {
        "id": pa.int64(), "price": pa.decimal128(10, 2), "tags": pa.list_(pa.string()),
        "ts": pa.timestamp("ms"), "payload": pa.struct([("a", pa.int32()), ("b", pa.string())]),
    }


def test_nested_parentheses_and_angle_brackets():
    ddl = ("m MAP<STRING, ARRAY<DECIMAL(5, 1) NOT NULL>>, "
           "r ROW(x DOUBLE, y ROW<z TIMESTAMP(3) WITH LOCAL TIME ZONE, w ARRAY<ROW(q INT)>>), n INT")
    types = _types(ddl)
    assert types["m"] == pa.map_(pa.string(), pa.list_(pa.field("element", pa.decimal128(5, 1), False)))
    assert types["r"] == pa.struct([
        ("x", pa.float64()),
        ("y", pa.struct([("z", pa.timestamp("ms", tz="UTC")), ("w", pa.list_(pa.struct([("q", pa.int32())])))])),
    ])
    assert types["n"] == pa.int32()


def test_quoted_names_with_escaped_backticks_keywords_and_spaces():
    columns = parse_flink_columns("`a``b` INT, `select` STRING, `with space` BIGINT, `ROW<x>` DOUBLE")
    assert [c.name for c in columns] == ["a`b", "select", "with space", "ROW<x>"]


def test_unicode_bare_names():
    names = [c.name for c in parse_flink_columns("größe INT, 名前 STRING, a$b BIGINT")]
    assert names == ["größe", "名前", "a$b"]


def test_not_null_null_and_comments():
    ddl = """
        -- a line comment, with a comma
        a INT NOT NULL COMMENT 'the key, it''s here', /* block, comment */
        b STRING NULL,
        c ARRAY<INT NOT NULL> NOT NULL
    """
    columns = parse_flink_columns(ddl)
    assert [(c.name, c.nullable) for c in columns] == [("a", False), ("b", True), ("c", False)]
    assert columns[0].comment == "the key, it's here"
    assert columns[2].to_arrow() == pa.list_(pa.field("element", pa.int32(), False))


@pytest.mark.parametrize("sql, arrow", [
    ("TINYINT", pa.int8()), ("SMALLINT", pa.int16()), ("INT", pa.int32()), ("INTEGER", pa.int32()),
    ("BIGINT", pa.int64()), ("FLOAT", pa.float32()), ("DOUBLE", pa.float64()), ("DOUBLE PRECISION", pa.float64()),
    ("DECIMAL", pa.decimal128(10, 0)), ("DECIMAL(38, 18)", pa.decimal128(38, 18)), ("NUMERIC(5)", pa.decimal128(5, 0)),
    ("DEC(4,2)", pa.decimal128(4, 2)), ("BOOLEAN", pa.bool_()), ("CHAR(3)", pa.string()), ("VARCHAR(10)", pa.string()),
    ("STRING", pa.string()), ("BINARY(4)", pa.binary()), ("VARBINARY(9)", pa.binary()), ("BYTES", pa.binary()),
    ("DATE", pa.date32()), ("TIME", pa.time32("ms")), ("TIME(6)", pa.time64("us")),
    ("TIMESTAMP", pa.timestamp("us")), ("TIMESTAMP(0)", pa.timestamp("s")), ("TIMESTAMP(3)", pa.timestamp("ms")),
    ("TIMESTAMP(9)", pa.timestamp("ns")), ("TIMESTAMP(3) WITHOUT TIME ZONE", pa.timestamp("ms")),
    ("TIMESTAMP(3) WITH LOCAL TIME ZONE", pa.timestamp("ms", tz="UTC")), ("TIMESTAMP_LTZ(3)", pa.timestamp("ms", tz="UTC")),
    ("INT ARRAY", pa.list_(pa.int32())), ("MULTISET<STRING>", pa.map_(pa.string(), pa.int32())),
])
def test_flink_types(sql, arrow):
    assert _types(f"c {sql}")["c"] == arrow


def test_spark_dialect():
    types = _types("a STRUCT<x: INT, y STRING>, b TIMESTAMP, c TIMESTAMP_NTZ, d LONG, e SHORT, f BYTE, g REAL",
                   dialect="spark")
    assert types == {
        "a": pa.struct([("x", pa.int32()), ("y", pa.string())]), "b": pa.timestamp("us", tz="UTC"),
        "c": pa.timestamp("us"), "d": pa.int64(), "e": pa.int16(), "f": pa.int8(), "g": pa.float32(),
    }


def test_constraints_watermark_and_create_table():
    ddl = """CREATE TABLE orders (
        `order_id` BIGINT,
        ts TIMESTAMP(3),
        amount DECIMAL(10, 2),
        kafka_offset BIGINT METADATA FROM 'offset' VIRTUAL,
        part INT METADATA FROM 'partition',
        WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,
        CONSTRAINT pk PRIMARY KEY (order_id) NOT ENFORCED
    ) WITH ('connector' = 'kafka', 'topic' = 'x,y')"""
    parsed = parse_table(ddl)
    assert [c.name for c in parsed.columns] == ["order_id", "ts", "amount", "part"]
    assert parsed.primary_key == ["order_id"]
    assert parsed.watermark_column == "ts"
    schema = flink_ddl_to_pinot(ddl, "orders")
    assert schema.primary_key_columns == ["order_id"]
    assert schema["ts"].field_type == "DATE_TIME" and schema["ts"].data_type == "TIMESTAMP"


def test_column_level_primary_key_is_not_null():
    parsed = parse_table("id INT PRIMARY KEY NOT ENFORCED, v STRING")
    assert parsed.primary_key == ["id"]
    assert parsed.columns[0].nullable is False


@pytest.mark.parametrize("ddl, message", [
    ("", "no column definitions"),
    ("a INT,", "trailing ','"),
    ("a INT b STRING", "expected ','"),
    ("a ARRAY<INT", "expected '>'"),
    ("a MAP<STRING>", "expected ','"),
    ("a ROW<>", "at least one field"),
    ("a ROW<x INT, x STRING>", "appears twice"),
    ("a FOO", "unknown type 'FOO'"),
    ("a DECIMAL(40, 2)", "precision <= 38"),
    ("a DECIMAL(5, 6)", "scale <= precision"),
    ("a TIMESTAMP(12)", "precision must be 0..9"),
    ("a INT(3)", "INT takes at most 0 parameters"),
    ("a INT, a STRING", "defined twice"),
    ("`a INT", "unterminated `quoted name`"),
    ("a INT COMMENT 'x", "unterminated 'string'"),
    ("a INT /* x", "unterminated /* comment"),
    ("a INT, PRIMARY KEY (a)", "NOT ENFORCED"),
    ("a INT, PRIMARY KEY (b) NOT ENFORCED", "PRIMARY KEY column 'b'"),
    ("a INT, WATERMARK FOR b AS b", "WATERMARK column 'b'"),
    ("a AS b + 1", "computed columns"),
    ("a RAW('java.lang.Object', 'xx')", "RAW types"),
    ("``", "empty `` quoted name"),
])
def test_parse_errors(ddl, message):
    with pytest.raises(DDLError, match=None) as info:
        parse_flink_columns(ddl)
    assert message in str(info.value)


def test_error_names_the_column_and_position():
    with pytest.raises(DDLError) as info:
        parse_flink_columns("ok INT, bad ARRAY<INT")
    assert "column 'bad'" in str(info.value) and "position 21" in str(info.value)


@pytest.mark.parametrize("ddl, message", [
    ("i INTERVAL DAY TO SECOND", "INTERVAL"),
    ("i INTERVAL YEAR(2) TO MONTH", "INTERVAL"),
    ("n ARRAY<ARRAY<INT>>", "nested array"),
    ("n ARRAY<ROW<a INT>>", "array of rows/maps"),
    ("n ARRAY<DECIMAL(5, 2)>", "no multi-value BIG_DECIMAL"),
])
def test_unmappable_types_name_the_column(ddl, message):
    with pytest.raises(UnsupportedTypeError) as info:
        flink_ddl_to_pinot(ddl, "t")
    assert f"column '{ddl.split()[0]}'" in str(info.value) and message in str(info.value)
