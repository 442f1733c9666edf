"""Nulls survive a table the package creates (``table.create=if-missing``): the derived schema turns on Pinot's
column-based null handling, so every nullable DataFrame column gets a null value vector; a NOT NULL column
none. Every nullable type the type mapping takes, through a real Spark write into the test controller, read
back from the segment bytes it received (issue 32 item 3: a null decimal was stored as 0, a null string as
"null", both indistinguishable from real values)."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

import pinot_sink
from tests.datasource.helpers import read_tar_bytes

pytestmark = pytest.mark.spark

DDL = ("id BIGINT NOT NULL, s STRING, i INT, l BIGINT, sh SMALLINT, by TINYINT, f FLOAT, d DOUBLE, b BOOLEAN, "
       "dec DECIMAL(10, 2), day DATE, ts TIMESTAMP, bin BINARY, tags ARRAY<STRING>, ints ARRAY<INT>, "
       "dbls ARRAY<DOUBLE>")
NULLABLE = ["s", "i", "l", "sh", "by", "f", "d", "b", "dec", "day", "ts", "bin", "tags", "ints", "dbls"]
# row 0: every column null; row 1: the values a null would be stored as (Pinot's default null values);
# row 2: ordinary values; row 3: nulls in every other column
ROWS = [
    (0,) + (None,) * len(NULLABLE),
    (1, "null", 0, 0, 0, 0, 0.0, 0.0, False, Decimal("0.00"), dt.date(1970, 1, 1),
     dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc), b"", ["null"], [0], [0.0]),
    (2, "x", 7, 8, 9, 10, 1.5, 2.5, True, Decimal("12.34"), dt.date(2024, 3, 1),
     dt.datetime(2024, 3, 1, 12, tzinfo=dt.timezone.utc), b"\x01", ["a", "b"], [1, 2], [0.5]),
    (3, None, 7, None, 9, None, 1.5, None, True, None, dt.date(2024, 3, 1), None, b"\x01", None, [1], None),
]


def test_every_nullable_type_keeps_its_nulls_in_a_created_table(spark, fake_controller, tmp_path):
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    df = spark.createDataFrame(ROWS, DDL).coalesce(1)
    result = pinot_sink.write(df, "nullable", url=fake_controller.url, **{
        "table.create": "if-missing", "retry.initial-backoff": "10ms"})
    assert result.rows == len(ROWS)
    table = fake_controller.tables["nullable"]
    assert table.schema["enableColumnBasedNullHandling"] is True
    assert table.config["tableIndexConfig"]["nullHandlingEnabled"] is True
    specs = {s["name"]: s for key in ("dimensionFieldSpecs", "metricFieldSpecs", "dateTimeFieldSpecs")
             for s in table.schema.get(key, [])}
    assert specs["id"].get("notNull") is True and not any(specs[c].get("notNull") for c in NULLABLE)

    segments = fake_controller.segments("nullable")
    read = read_tar_bytes({n: segments[n].tar_bytes for n in fake_controller.live_segments("nullable")}, tmp_path)
    rows = sorted(read.to_pylist(), key=lambda r: r["id"])
    for column_index, column in enumerate(NULLABLE, start=1):
        got = [row[column] is None for row in rows]
        want = [row[column_index] is None for row in ROWS]
        assert got == want, (column, [row[column] for row in rows])
    # the stand-ins Pinot stores under a null (0, "null") are still told apart from real 0 and "null"
    assert Decimal(rows[1]["dec"]) == 0 and rows[1]["s"] == "null" and rows[1]["tags"] == ["null"]
    assert Decimal(rows[2]["dec"]) == Decimal("12.34") and rows[2]["ints"] == [1, 2]
