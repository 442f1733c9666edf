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


def test_a_failed_write_and_an_undo_leave_every_key_visible(spark, pinot, tmp_path, capsys):
    """Segments of an OFFLINE upsert table that load and are then reverted (a failed write's IN_PROGRESS entry,
    an undo of a rerun) had taken their keys over on the server; once gone, Pinot dropped those keys and the
    broker answered 200 of 300 rows (100 after the undo) until the segments were reloaded. A revert now reloads
    them. The failed write's segments come from ``pinot-sink build`` (one partition id each, as Pinot requires)."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from pinot_sink.cli import main as cli
    from pinot_sink.controller import ControllerClient
    from pinot_sink.controller.consistent_push import ConsistentPush

    table = "rp_upsert_revert"
    schema, config = dict(SCHEMA, schemaName=table), dict(CONFIG, tableName=table)
    pinot.create(schema, config)
    older, newer = rows(spark, 0, 200, 0, 1), rows(spark, 100, 300, 1, 10)
    for write_id, df in (("older", older), ("newer", newer)):
        pinot_sink.write(df, table, url=pinot.url, partition_by="id", **{"write.id": write_id})
    latest = [[300, float(sum(range(100)) + 10 * sum(range(100, 300)))]]
    sql = f"SELECT COUNT(*), SUM(value) FROM {table}"
    pinot.wait_rows(sql, latest)

    (tmp_path / "schema.json").write_text(json.dumps(schema))
    (tmp_path / "table.json").write_text(json.dumps(config))
    pq.write_table(pa.table({"id": pa.array(range(100), pa.int32()), "country": ["US"] * 100,
                             "value": pa.array(range(10**6, 10**6 + 100), pa.int64()),
                             "ts": pa.array([BASE_MS + 5 * DAY_MS + i for i in range(100)], pa.int64())}),
                   tmp_path / "keys.parquet")
    assert cli(["build", "--schema", str(tmp_path / "schema.json"), "--table-config", str(tmp_path / "table.json"),
                "--input", str(tmp_path / "keys.parquet"), "--out", str(tmp_path / "out")]) == 0
    tarballs = sorted((tmp_path / "out").glob("*.tar.gz"))
    assert len(tarballs) == 2  # one per partition id
    with ControllerClient(pinot.url) as client:
        push = ConsistentPush(client, table, [p.name[:-len(".tar.gz")] for p in tarballs], segments_from=[])
        push.start()
        assert all(r.ok for r in push.upload(tarballs))  # uploaded and loaded: the write then fails
        names = set(push.segments_to)

        def loaded() -> bool:
            view = pinot.must("GET", f"/tables/{table}/externalview").get("OFFLINE") or {}
            return all("ONLINE" in (view.get(name) or {}).values() for name in names)

        pinot.wait(loaded, 60, "the failed write's segments loaded")
        push.revert()
    pinot.wait_rows(sql, latest)  # every key once more (was [[200, ...]] without the reload)

    pinot_sink.write(newer, table, url=pinot.url, partition_by="id", **{"write.id": "newer"})  # a rerun
    pinot.wait_rows(sql, latest)
    capsys.readouterr()
    assert cli(["undo", "--table", table, "--url", pinot.url, "--write-id", "newer"]) == 0
    assert "is live again" in capsys.readouterr().out  # the first run of "newer" is back
    pinot.wait_rows(sql, latest)  # (was [[100, 4950.0]] without the reload)
