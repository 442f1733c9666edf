"""An OFFLINE upsert table (Pinot accepts one with a segmentPartitionConfig; primary key ``id``, the time column
as comparison column): two writes whose ids overlap, and the broker must answer the latest row per id, as
Spark's window over both DataFrames says.

PRIMARY-KEY SUPPORT: another change (issue 31-37 series) adds primary-key handling to the writer; this test
checks what works today. Extend it here (deletes, partial upsert, a rerun by write.id) when that lands."""
from __future__ import annotations

import pinot_sink

from .cluster import BASE_MS, DAY_MS

TABLE = "rp_upsert"
SCHEMA = {"schemaName": TABLE, "primaryKeyColumns": ["id"],
          "dimensionFieldSpecs": [{"name": "id", "dataType": "INT"}, {"name": "country", "dataType": "STRING"}],
          "metricFieldSpecs": [{"name": "value", "dataType": "LONG"}],
          "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                                  "granularity": "1:MILLISECONDS"}]}
CONFIG = {"tableName": TABLE, "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
          "tenants": {}, "metadata": {}, "upsertConfig": {"mode": "FULL"},
          "routing": {"instanceSelectorType": "strictReplicaGroup"},
          "tableIndexConfig": {"loadMode": "MMAP", "segmentPartitionConfig": {
              "columnPartitionMap": {"id": {"functionName": "Murmur", "numPartitions": 2}}}}}


def rows(spark, first: int, last: int, day: int, scale: int):
    from pyspark.sql import functions as F

    return spark.range(first, last, numPartitions=2).select(
        F.col("id").cast("int").alias("id"), F.lit("US").alias("country"), (F.col("id") * scale).alias("value"),
        (F.lit(BASE_MS + day * DAY_MS) + F.col("id")).alias("ts"))


def test_an_offline_upsert_table_answers_the_latest_row_per_key(spark, pinot):
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    pinot.create(SCHEMA, CONFIG)
    older, newer = rows(spark, 0, 200, 0, 1), rows(spark, 100, 300, 1, 10)
    for df in (older, newer):
        pinot_sink.write(df, TABLE, url=pinot.url, partition_by="id", **{"retry.initial-backoff": "100ms"})
    latest = (older.unionByName(newer)
              .withColumn("rank", F.row_number().over(Window.partitionBy("id").orderBy(F.col("ts").desc())))
              .where("rank = 1"))
    want = latest.agg(F.count("*"), F.sum("value")).collect()[0]
    pinot.wait_rows(f"SELECT COUNT(*), SUM(value) FROM {TABLE}", [[int(want[0]), float(want[1])]])
