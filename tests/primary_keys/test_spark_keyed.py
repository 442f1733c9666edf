"""Real Spark writes into primary-key tables of the test controller at a parallelism other than the partition
count: every segment passes Pinot's upload rule (one partition id of the partition column), and
``upsert.dedup-batch=latest`` leaves the row Pinot's upsert keeps for each key."""
from __future__ import annotations

import random

import pytest
from pyspark.sql import types as T

import pinot_sink
from pinot_sink.segment import read_segment
from pinot_sink.spark_write import WriteCheckError
from tests.primary_keys.tables import SCHEMA, table_config

pytestmark = pytest.mark.spark
BASE_MS = 1_700_000_000_000
SPARK_SCHEMA = T.StructType([T.StructField("id", T.StringType()), T.StructField("city", T.StringType()),
                             T.StructField("amount", T.LongType()), T.StructField("ts", T.LongType())])


def _rows(count: int = 1500, keys: int = 200):
    """Keys repeated with random timestamps, ties included; amount = the row's position in the DataFrame."""
    rnd = random.Random(34)
    return [(f"k{rnd.randrange(keys)}", "Oslo", i, BASE_MS + rnd.randrange(50)) for i in range(count)]


def _expected_latest(rows):
    kept = {}
    for row in rows:  # largest ts; on a tie the later row
        if row[0] not in kept or row[3] >= kept[row[0]][3]:
            kept[row[0]] = row
    return sorted(kept.values())


def _live_rows(controller, tmp_path):
    out = []
    for name in controller.live_segments("orders"):
        path = tmp_path / f"{name}.tar.gz"
        path.write_bytes(controller.segments("orders")[name].tar_bytes)
        table = read_segment(str(path)).table
        out += list(zip(*(table.column(c).to_pylist() for c in ("id", "city", "amount", "ts"))))
        partitions = controller.segments("orders")[name].metadata["column.id.partitionValues"]
        assert "," not in partitions, (name, partitions)  # one partition id per segment
    return sorted(out)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["OFFLINE", "REALTIME"])
def test_latest_row_per_key_at_another_parallelism(spark, fake_controller, tmp_path, kind):
    fake_controller.add_table(SCHEMA, table_config(kind, partitions=4))
    rows = _rows()
    # 3 Spark partitions in the list's order (the DataFrame's order decides ties), 4 Pinot partitions
    df = spark.createDataFrame(spark.sparkContext.parallelize(rows, 3), SPARK_SCHEMA)
    pinot_sink.write(df, "orders", url=fake_controller.url, entry_point="map-in-arrow",
                     **{"table-type": kind, "upsert.dedup-batch": "latest", "sink.parallelism": 3,
                        "retry.initial-backoff": "10ms"})
    assert _live_rows(fake_controller, tmp_path) == _expected_latest(rows)
    assert fake_controller.tables["orders"].load_errors == {}
    if kind == "REALTIME":
        assert all(name.count("__") == 4 for name in fake_controller.live_segments("orders"))


def test_dimension_table_duplicates_are_refused_before_any_task(spark, fake_controller):
    config = table_config(upsertConfig=None, isDimTable=True,
                          dimensionTableConfig={"errorOnDuplicatePrimaryKey": True})
    fake_controller.add_table(SCHEMA, config)
    df = spark.createDataFrame([("a", "x", 1, BASE_MS), ("a", "y", 2, BASE_MS)], SPARK_SCHEMA)
    with pytest.raises(WriteCheckError, match=r"errorOnDuplicatePrimaryKey is true and primary key \(id='a'\) "
                                              r"occurs 2 times"):
        pinot_sink.write(df, "orders", url=fake_controller.url, entry_point="map-in-arrow")
    assert fake_controller.uploads() == []


@pytest.mark.slow
@pytest.mark.parametrize("kind, extra, keep", [
    ("REALTIME", {"upsertConfig": None, "dedupConfig": {"dedupEnabled": True}}, "first"),
    ("OFFLINE", {"upsertConfig": None, "isDimTable": True}, "last"),
])
def test_dedup_and_dimension_tables_keep_the_row_they_would(spark, fake_controller, tmp_path, kind, extra, keep):
    fake_controller.add_table(SCHEMA, table_config(kind, partitions=4, **extra))
    rows = _rows(300, keys=40)
    df = spark.createDataFrame(spark.sparkContext.parallelize(rows, 2), SPARK_SCHEMA)
    pinot_sink.write(df, "orders", url=fake_controller.url, entry_point="map-in-arrow",
                     **{"table-type": kind, "upsert.dedup-batch": "latest", "retry.initial-backoff": "10ms"})
    kept = {}
    for row in rows if keep == "last" else reversed(rows):
        kept[row[0]] = row
    assert _live_rows(fake_controller, tmp_path) == sorted(kept.values())



DOUBLE_KEYED = {"schemaName": "orders", "primaryKeyColumns": ["key"],
                "dimensionFieldSpecs": [{"name": "key", "dataType": "DOUBLE"}, {"name": "city", "dataType": "STRING"}]}


def test_double_keys_are_compared_after_pinots_special_values(spark, fake_controller, tmp_path):
    """Pinot's ``SpecialValueTransformer`` stores -0.0 as 0.0 and NaN as the column's null before any key is
    compared, so 0.0 and -0.0 are one key, as Spark's grouping makes them; all NaNs one key too. Telling the zeros
    apart would leave two rows of key 0.0 in the segment."""
    config = {"tableName": "orders_OFFLINE", "tableType": "OFFLINE", "isDimTable": True, "segmentsConfig": {},
              "dimensionTableConfig": {"errorOnDuplicatePrimaryKey": True}, "tableIndexConfig": {}, "metadata": {}}
    fake_controller.add_table(DOUBLE_KEYED, config)
    schema = T.StructType([T.StructField("key", T.DoubleType()), T.StructField("city", T.StringType())])
    df = spark.createDataFrame([(0.0, "a"), (-0.0, "b")], schema)
    with pytest.raises(WriteCheckError, match=r"primary key \(key=0\.0\) occurs 2 times"):
        pinot_sink.write(df, "orders", url=fake_controller.url, entry_point="map-in-arrow")
    nan = float("nan")
    df = spark.createDataFrame(spark.sparkContext.parallelize(
        [(0.0, "a"), (-0.0, "b"), (0.0, "c"), (nan, "d"), (nan, "e"), (-0.0, "f")], 1), schema)
    pinot_sink.write(df, "orders", url=fake_controller.url, entry_point="map-in-arrow",
                     **{"upsert.dedup-batch": "latest"})
    kept = []
    for name in fake_controller.live_segments("orders"):
        path = tmp_path / f"{name}.tar.gz"
        path.write_bytes(fake_controller.segments("orders")[name].tar_bytes)
        table = read_segment(str(path)).table
        kept += [(str(k), c) for k, c in zip(table.column("key").to_pylist(), table.column("city").to_pylist())]
    assert sorted(kept) == [("-inf", "e"), ("0.0", "f")]  # NaN stored as DOUBLE's null, -Infinity
