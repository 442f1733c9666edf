"""Streaming micro-batches and the CLI (``pinot-sink build``, ``push``, ``segments``, ``recover``) against a real
Pinot cluster, checked through the broker against Spark's (or the input's) own answers."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq

import pinot_sink
from pinot_sink.cli import main as cli
from pinot_sink.controller import ControllerClient
from pinot_sink.naming import name_tags
from pinot_sink.storage.staging import private_stage_roots

from .cluster import BASE_MS, DAY_MS, by_day_sql, per_day
from .frames import events_config, events_schema


def drop_file(source, index: int, rows: int = 300) -> None:
    start = index * rows
    pq.write_table(pa.table({
        "country": pa.array(["US", "DE", "FR"] * (rows // 3)),
        "value": pa.array(range(start, start + rows), pa.int64()),
        "ts": pa.array([BASE_MS + (i % 3) * DAY_MS + i * 1000 for i in range(start, start + rows)], pa.int64()),
    }), source / f"part-{index:03d}.parquet")


def run_available(spark, pinot, table: str, source, checkpoint, **options) -> None:
    writer = (spark.readStream.schema("country STRING, value BIGINT, ts BIGINT")
              .option("maxFilesPerTrigger", 1).parquet(str(source))
              .writeStream.format("pinot").option("table-name", table).option("url", pinot.url)
              .option("checkpointLocation", str(checkpoint)))
    for key, value in options.items():
        writer = writer.option(key, str(value))
    query = writer.trigger(availableNow=True).start()
    query.awaitTermination()
    assert query.exception() is None


def replay(checkpoint, batch: int) -> None:
    """The driver died after ``batch`` was committed to Pinot but before Spark recorded it: a restart replays it."""
    (checkpoint / "commits" / str(batch)).unlink()
    (checkpoint / "commits" / f".{batch}.crc").unlink(missing_ok=True)


def test_streaming_micro_batches_and_a_replayed_batch(spark, pinot, tmp_path):
    table = "rp_stream"
    pinot.create(events_schema(table), events_config(table))
    pinot_sink.register(spark)
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    source.mkdir()
    for index in range(2):
        drop_file(source, index)
    run_available(spark, pinot, table, source, checkpoint, **{"sink.buffer-flush.max-rows": 200})
    sql = by_day_sql(table)
    pinot.wait_rows(sql, per_day(spark.read.parquet(str(source))))
    replay(checkpoint, 1)
    drop_file(source, 2)
    run_available(spark, pinot, table, source, checkpoint, **{"sink.buffer-flush.max-rows": 200})
    pinot.wait_rows(sql, per_day(spark.read.parquet(str(source))))  # batch 1 once, batch 2 in
    # Each committed micro-batch takes its tasks' staged tarballs and private root with it: before a3b443d
    # every batch left one with its tarballs in /tmp (4 a run). The temp folder is this test process's own.
    assert private_stage_roots(table) == []


def test_streaming_compaction_every_two_batches_and_a_replay(spark, pinot, tmp_path):
    """``compaction.every-batches`` after micro-batches each committed by PySpark's own committing writer (made
    apart from its tasks'), then a replayed batch: a compaction's run is live, the broker's answers the input's."""
    table = "rp_stream_compact"
    pinot.create(events_schema(table), events_config(table))
    pinot_sink.register(spark)
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    source.mkdir()
    compaction = {"compaction.every-batches": 2, "compaction.target-size": "1mb"}
    for index in range(5):
        drop_file(source, index, rows=90)
    run_available(spark, pinot, table, source, checkpoint, **compaction)
    sql = by_day_sql(table)
    pinot.wait_rows(sql, per_day(spark.read.parquet(str(source))))
    live = ControllerClient(pinot.url).list_segments(table, exclude_replaced=True)
    assert any(name_tags(n)[1].startswith("c") for n in live)  # a compaction's run (naming.run_tag) is live
    replay(checkpoint, 4)
    drop_file(source, 5, rows=90)
    run_available(spark, pinot, table, source, checkpoint, **compaction)
    pinot.wait_rows(sql, per_day(spark.read.parquet(str(source))))  # batch 4 once, batch 5 in


def test_cli_build_push_segments_and_recover(pinot, tmp_path, capsys):
    table = "rp_cli"
    pinot.create(events_schema(table), events_config(table))
    (tmp_path / "schema.json").write_text(json.dumps(events_schema(table)))
    (tmp_path / "table.json").write_text(json.dumps(events_config(table)))
    rows = pa.table({"country": pa.array(["US", "DE"] * 250), "value": pa.array(range(500), pa.int64()),
                     "ts": pa.array([BASE_MS + i * 60_000 for i in range(500)], pa.int64())})
    pq.write_table(rows, tmp_path / "rows.parquet")
    for name in ("a", "b"):
        assert cli(["build", "--schema", str(tmp_path / "schema.json"), "--table-config", str(tmp_path / "table.json"),
                    "--input", str(tmp_path / "rows.parquet"), "--out", str(tmp_path / name),
                    "--name", f"{table}_{name}"]) == 0
    want = [[BASE_MS, 500, float(sum(range(500)))]]
    assert cli(["push", str(tmp_path / "a"), "--url", pinot.url, "--table", table]) == 0
    pinot.wait_rows(by_day_sql(table), want)
    # --consistent: b replaces every live segment (a) in one lineage entry
    assert cli(["push", str(tmp_path / "b"), "--url", pinot.url, "--table", table, "--consistent"]) == 0
    pinot.wait_rows(by_day_sql(table), want)
    assert pinot.live_segments(table) == [f"{table}_b"] and pinot.lineage_states(table) == ["COMPLETED"]
    capsys.readouterr()
    assert cli(["segments", "--url", pinot.url, "--table", table, "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert [s.get("segment") or s.get("name") for s in listed] == [f"{table}_b"], listed
    assert cli(["segments", "--url", pinot.url, "--table", table, "--all"]) == 0
    assert f"{table}_a" in capsys.readouterr().out  # replaced, still in the table
    assert cli(["recover", "--url", pinot.url, "--table", table, "--min-age", "0"]) == 0
    assert "nothing left behind" in capsys.readouterr().out
