"""docs/type-mapping.md cannot drift: every row of its tables is checked against the code."""
from __future__ import annotations

import datetime
import decimal
import re
from pathlib import Path

import pyarrow as pa
import pytest

from type_mapping.convert import convert_column
from type_mapping.flink_ddl import parse_flink_columns
from type_mapping.pinot_schema import METRIC, SchemaError, pinot_default_null_value
from type_mapping.spark_types import UnsupportedTypeError, spark_schema_to_pinot, spark_source_columns

T = pytest.importorskip("pyspark.sql.types")
DOC = Path(__file__).resolve().parents[2] / "docs" / "type-mapping.md"
_EVAL_NAMES = {"Decimal": decimal.Decimal, "date": datetime.date, "time": datetime.time,
               "datetime": datetime.datetime, "float": float, "__builtins__": {}}


def _table(marker: str) -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    body = text.split(f"<!-- {marker}:start -->", 1)[1].split(f"<!-- {marker}:end -->", 1)[0]
    lines = [line.strip() for line in body.strip().splitlines()]
    rows = [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[2:]]
    width = len(lines[0].strip("|").split(" | "))
    assert all(len(row) == width for row in rows), "a doc table row has the wrong number of cells"
    return rows


def _code(cell: str) -> str:
    match = re.fullmatch(r"`(.*)`", cell)
    assert match, f"expected a `code` cell, got {cell!r}"
    return match.group(1)


def _norm_arrow(t: pa.DataType) -> str:
    return re.sub(r"(element|item): |not null", "", str(t)).replace(" >", ">").strip()


def _value(text: str):
    return eval(text, _EVAL_NAMES)  # the doc's own literals; no builtins


def _render(value) -> str:
    """A stored default as the doc spells it: Python literals, decimals as their text."""
    return str(value) if isinstance(value, decimal.Decimal) else repr(value)


TYPE_ROWS = _table("type-table")
SEED_ROWS = _table("seed-table")


def test_the_tables_are_complete():
    flink = {row[0] for row in TYPE_ROWS}
    for name in ("`TINYINT`", "`SMALLINT`", "`INT`", "`BIGINT`", "`FLOAT`", "`DOUBLE`", "`DECIMAL(10, 2)`",
                 "`BOOLEAN`", "`DATE`", "`TIME(3)`", "`TIMESTAMP(3)`", "`TIMESTAMP(6) WITH LOCAL TIME ZONE`",
                 "`CHAR(10)`", "`VARCHAR(100)`", "`STRING`", "`BINARY(16)`", "`VARBINARY(16)`", "`BYTES`",
                 "`ARRAY<INT>`", "`MAP<STRING, INT>`", "`ROW<a INT, b STRING>`", "`ARRAY<ARRAY<INT>>`",
                 "`INTERVAL DAY TO SECOND`"):
        assert name in flink
    assert len(SEED_ROWS) >= 15


@pytest.mark.parametrize("row", TYPE_ROWS, ids=[row[0] for row in TYPE_ROWS])
def test_type_table_row(row):
    flink_cell, spark_cell, arrow_cell, pinot_cell, stored_cell, default_cell, example_cell, notes = row
    flink_type = _code(flink_cell)
    column = parse_flink_columns(f"c {flink_type}")[0]
    arrow_texts = [part.strip() for part in _code(arrow_cell).split(" / ")]
    assert _norm_arrow(column.to_arrow()) == arrow_texts[0]
    spark_columns = []
    if spark_cell != "-":
        spark_type = eval(_code(spark_cell), {**vars(T), "__builtins__": {}})
        struct = T.StructType([T.StructField("c", spark_type)])
        spark_columns = spark_source_columns(struct)
        assert _norm_arrow(spark_columns[0].arrow_type) == arrow_texts[-1]

    from type_mapping.flink_ddl import flink_ddl_to_pinot

    if pinot_cell.startswith("error: "):
        expected = pinot_cell[len("error: "):]
        with pytest.raises(UnsupportedTypeError) as info:
            flink_ddl_to_pinot(f"c {flink_type}", "t")
        assert expected in str(info.value) and "column 'c'" in str(info.value)
        if spark_cell != "-":
            with pytest.raises(UnsupportedTypeError) as info:
                spark_schema_to_pinot(struct, "t")
            assert expected in str(info.value)
        return

    data_type, _, multi = pinot_cell.partition(" ")
    specs = [flink_ddl_to_pinot(f"c {flink_type}", "t")["c"]]
    if spark_cell != "-":
        specs.append(spark_schema_to_pinot(struct, "t")["c"])
    for spec in specs:
        assert spec.data_type == data_type
        assert spec.single_value == (multi != "multi-value")
        assert spec.stored_type == stored_cell
        length = re.match(r"maxLength (\d+)", notes)
        if length:
            assert spec.max_length == int(length.group(1))

    dimension_text, metric_text = [_code(part.strip()) for part in default_cell.split(" / ")]
    assert _render(pinot_default_null_value(data_type, "DIMENSION")) == dimension_text
    if metric_text == "n/a":
        with pytest.raises(SchemaError):
            pinot_default_null_value(data_type, METRIC)
    else:
        assert _render(pinot_default_null_value(data_type, METRIC)) == metric_text

    given, _, expected = example_cell.partition(" -> ")
    value = _value(_code(given))
    stored, _ = convert_column(pa.array([value], column.to_arrow()), specs[0])
    assert repr(stored.to_pylist()[0]) == repr(_value(_code(expected)))


@pytest.mark.parametrize("row", SEED_ROWS, ids=[f"{r[0]}-{r[1]}" for r in SEED_ROWS])
def test_seed_table_row(row):
    data_type, field_type, _seed, pinot_cell, why = row
    assert _render(pinot_default_null_value(data_type, field_type)) == _code(pinot_cell)
    assert why
