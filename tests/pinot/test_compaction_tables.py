"""Compaction of a table a data engineer meets on day one, against a real controller, server and broker: every
kind of column (BYTES, BIG_DECIMAL, JSON, TIMESTAMP, multi-value, nulls), a sorted column, a partitioned column
and a star-tree, written with ``df.write.format("pinot")``; concat, dedup and rollup, each checked against the
broker's every row before it; a compaction killed once its segments are uploaded (its entry IN_PROGRESS), then
rerun. Dedup of such a table failed every group ("The unified dictionary requires a larger index type")."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pinot_sink.cli import main as cli

from .cluster import BASE_MS, DAY_MS

CRASH = Path(__file__).resolve().parents[1] / "compaction" / "crash_compact.py"


def schema(table: str, multi_value: bool) -> dict:
    dims = [{"name": "country", "dataType": "STRING"}, {"name": "blob", "dataType": "BYTES"},
            {"name": "amount", "dataType": "BIG_DECIMAL"}, {"name": "doc", "dataType": "JSON"},
            {"name": "note", "dataType": "STRING"}, {"name": "when2", "dataType": "TIMESTAMP"}]
    if multi_value:
        dims += [{"name": "tags", "dataType": "STRING", "singleValueField": False},
                 {"name": "nums", "dataType": "INT", "singleValueField": False}]
    return {"schemaName": table, "dimensionFieldSpecs": dims,
            "metricFieldSpecs": [{"name": "value", "dataType": "LONG"}, {"name": "dval", "dataType": "DOUBLE"}],
            "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                                    "granularity": "1:MILLISECONDS"}]}


def config(table: str) -> dict:
    return {"tableName": table, "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
            "tenants": {}, "metadata": {},
            "tableIndexConfig": {
                "loadMode": "MMAP", "nullHandlingEnabled": True, "sortedColumn": ["country"],
                "invertedIndexColumns": ["note"], "jsonIndexColumns": ["doc"],
                "segmentPartitionConfig": {"columnPartitionMap": {"country": {"functionName": "Murmur",
                                                                              "numPartitions": 2}}},
                "starTreeIndexConfigs": [{"dimensionsSplitOrder": ["country"], "skipStarNodeCreationForDimensions": [],
                                          "functionColumnPairs": ["COUNT__*", "SUM__value", "SUM__dval"],
                                          "maxLeafRecords": 10}]}}


def frame(spark, first: int, last: int, multi_value: bool):
    from pyspark.sql import functions as F

    i = F.col("id")
    columns = [
        F.element_at(F.array(*[F.lit(c) for c in ("US", "DE", "FR", "JP")]), (i % 4 + 1).cast("int")).alias("country"),
        F.when(i % 4 == 0, F.lit(None)).otherwise(F.unhex(F.lpad(F.hex(i), 6, "0"))).alias("blob"),
        F.when(i % 5 == 0, F.lit(None)).otherwise((i.cast("decimal(20,3)") / 7).cast("decimal(20,3)")).alias("amount"),
        F.when(i % 6 == 0, F.lit(None)).otherwise(F.to_json(F.struct((i % 3).alias("k")))).alias("doc"),
        F.when(i % 3 == 0, F.lit(None)).otherwise(F.lit("n")).alias("note"),
        F.when(i % 9 == 0, F.lit(None)).otherwise(F.timestamp_millis(F.lit(BASE_MS) + i)).alias("when2"),
        i.alias("value"),
        F.when(i % 10 == 0, F.lit(None)).otherwise(i.cast("double") / 4).alias("dval"),
        (F.lit(BASE_MS) + (i % 3) * DAY_MS + i * 10).alias("ts"),
    ]
    if multi_value:
        columns += [F.when(i % 7 == 0, F.lit(None)).otherwise(
                        F.array(F.lit("a"), F.concat(F.lit("t"), (i % 4).cast("string")))).alias("tags"),
                    F.array((i % 3).cast("int"), (i % 5).cast("int")).alias("nums")]
    return spark.range(first, last, numPartitions=2).select(*columns)


def write(df, table: str, url: str, write_id: str) -> None:
    (df.write.format("pinot").option("table-name", table).option("url", url).option("write.id", write_id)
       .option("retry.initial-backoff", "100ms").mode("append").save())


def every_row(pinot, table: str) -> list[list]:
    body = pinot.query(f"SET enableNullHandling=true; SELECT * FROM {table} ORDER BY value, ts LIMIT 100000")
    return body["resultTable"]["rows"]


def settled(pinot, table: str, rows: int) -> list[list]:
    """The broker's every row once it answers ``rows`` of them (segments load a moment after the commit)."""
    pinot.wait_rows(f"SELECT COUNT(*) FROM {table}", [[rows]])
    return every_row(pinot, table)


def test_concat_dedup_rollup_of_every_column_kind(spark, pinot, capsys, tmp_path):
    table = "rp_compact_kinds"
    pinot.create(schema(table, multi_value=False), config(table))
    for k in range(6):  # segments of about 75 rows (2 tasks x 2 partition ids): int8 dictIds each
        write(frame(spark, k * 300, k * 300 + 300, False), table, pinot.url, f"w{k}")
    before = settled(pinot, table, 1800)
    write(frame(spark, 0, 300, False), table, pinot.url, "again")  # the first write's rows once more
    settled(pinot, table, 2100)
    assert cli(["compact", "--table", table, "--url", pinot.url, "--mode", "dedup", "--dry-run"]) == 0
    assert "(dry run: nothing was changed)" in capsys.readouterr().out
    assert cli(["compact", "--table", table, "--url", pinot.url, "--mode", "dedup"]) == 0  # small segments, united
    assert "FAILED" not in capsys.readouterr().out
    assert settled(pinot, table, 1800) == before

    write(frame(spark, 0, 300, False), table, pinot.url, "append")  # concat: every row, twice the first 300
    assert cli(["compact", "--table", table, "--url", pinot.url]) == 0
    assert settled(pinot, table, 2100)[:2] == [before[0]] * 2
    assert cli(["compact", "--table", table, "--url", pinot.url, "--mode", "dedup"]) == 0
    assert settled(pinot, table, 1800) == before

    write(frame(spark, 0, 600, False), table, pinot.url, "twice")
    assert cli(["compact", "--table", table, "--url", pinot.url, "--mode", "rollup"]) == 0
    pinot.wait_rows(f"SET enableNullHandling=true; SELECT COUNT(*), SUM(value), SUM(dval), COUNT(dval), "
                    f"COUNT(amount), COUNT(blob) FROM {table}",
                    [[1800, float(sum(range(1800)) + sum(range(600))), (sum(range(1800)) + sum(range(600))) / 4
                      - sum(i / 4 for i in range(0, 600, 10)) - sum(i / 4 for i in range(0, 1800, 10)),
                      1620, 1440, 1350]])
    assert set(pinot.lineage_states(table)) == {"COMPLETED"}
    read_back = read_live(pinot, table, tmp_path)  # what a user reads of the cluster: its live segments
    assert read_back.num_rows == 1800
    assert sum(read_back.column("value").to_pylist()) == sum(range(1800)) + sum(range(600))


def read_live(pinot, table: str, folder: Path):
    """The table's live segments (the controller's excludeReplacedSegments), downloaded and read with
    ``pinot_sink.read``: the replaced ones stay in the deep store a while (docs/reading.md)."""
    import pinot_sink

    paths = []
    for name in pinot.live_segments(table):
        path = folder / name  # Pinot's deep-store name, no suffix: read by name whatever it is
        path.write_bytes(pinot.http.get(f"{pinot.url}/segments/{table}/{name}", timeout=120).content)
        paths.append(str(path))
    return pinot_sink.read(paths)


def test_a_compaction_killed_with_its_entry_in_progress_then_rerun(spark, pinot, tmp_path):
    table = "rp_compact_killed"
    pinot.create(schema(table, multi_value=True), config(table))
    for k in range(3):
        write(frame(spark, k * 500, k * 500 + 500, True), table, pinot.url, f"w{k}")
    before = settled(pinot, table, 1500)
    died = subprocess.run([sys.executable, str(CRASH), "uploaded", "--url", pinot.url, "--table", table,
                           "--target-size", "64mb"], capture_output=True, text=True, timeout=300)
    assert died.returncode == 9, died.stderr[-2000:]
    assert "IN_PROGRESS" in pinot.lineage_states(table)
    assert settled(pinot, table, 1500) == before  # the entry hides the uploaded segments: each row once
    assert cli(["compact", "--table", table, "--url", pinot.url, "--target-size", "64mb"]) == 0  # reverts it
    assert settled(pinot, table, 1500) == before
    states = pinot.lineage_states(table)
    assert "IN_PROGRESS" not in states and "REVERTED" in states
    assert read_live(pinot, table, tmp_path).num_rows == 1500
    assert cli(["recover", "--table", table, "--url", pinot.url, "--min-age", "0"]) == 0
