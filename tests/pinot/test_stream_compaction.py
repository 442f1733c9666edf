"""A streaming query compacting after its micro-batches (``compaction.every-batches``) against a real Pinot
cluster, each micro-batch committed by PySpark's own committing writer, then a replayed batch: the broker's
answers are the input's."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

import pinot_sink
from pinot_sink.controller import ControllerClient
from pinot_sink.naming import name_tags

from .cluster import BASE_MS, DAY_MS, by_day_sql, per_day
from .frames import events_config, events_schema


def test_streaming_compaction_every_two_batches_and_a_replay(spark, pinot, tmp_path):
    table = "rp_stream_compact"
    pinot.create(events_schema(table), events_config(table))
    pinot_sink.register(spark)
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    source.mkdir()

    def drop_file(index: int, rows: int = 90) -> None:
        start = index * rows
        pq.write_table(pa.table({
            "country": pa.array(["US", "DE", "FR"] * (rows // 3)),
            "value": pa.array(range(start, start + rows), pa.int64()),
            "ts": pa.array([BASE_MS + (i % 3) * DAY_MS + i * 1000 for i in range(start, start + rows)], pa.int64()),
        }), source / f"part-{index:03d}.parquet")

    def run_available() -> None:
        stream = (spark.readStream.schema("country STRING, value BIGINT, ts BIGINT")
                  .option("maxFilesPerTrigger", 1).parquet(str(source)))
        query = (stream.writeStream.format("pinot").option("table-name", table).option("url", pinot.url)
                 .option("compaction.every-batches", 2).option("compaction.target-size", "1mb")
                 .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
        query.awaitTermination()
        assert query.exception() is None

    for index in range(5):
        drop_file(index)
    run_available()
    sql = by_day_sql(table)
    pinot.wait_rows(sql, per_day(spark.read.parquet(str(source))))
    live = ControllerClient(pinot.url).list_segments(table, exclude_replaced=True)
    assert any(name_tags(n)[1].startswith("c") for n in live)  # a compaction's run (naming.run_tag) is live
    # The driver died after batch 4 was committed but before Spark recorded it: the restart replays it.
    (checkpoint / "commits" / "4").unlink()
    (checkpoint / "commits" / ".4.crc").unlink(missing_ok=True)
    drop_file(5)
    run_available()
    pinot.wait_rows(sql, per_day(spark.read.parquet(str(source))))  # batch 4 once, batch 5 in
