"""df.writeStream.format("pinot"): one write per micro-batch, exactly-once across a restart (real Spark)."""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pinot_sink
from pinot_sink.naming import name_tags
from tests.datasource.helpers import BASE_MS, read_tar_bytes

pytestmark = pytest.mark.spark


def drop_file(folder: Path, index: int, rows: int = 200) -> None:
    start = index * rows
    table = pa.table({
        "country": pa.array(["US", "DE"] * (rows // 2)),
        "value": pa.array(range(start, start + rows), pa.int64()),
        "ts": pa.array([BASE_MS + i * 1000 for i in range(start, start + rows)], pa.timestamp("ms", tz="UTC")),
    })
    pq.write_table(table, folder / f"part-{index:03d}.parquet")


def run_available(spark, source: Path, checkpoint: Path, controller, **options) -> None:
    stream = (spark.readStream.schema("country STRING, value BIGINT, ts TIMESTAMP")
              .option("maxFilesPerTrigger", 1).parquet(str(source)))
    writer = (stream.writeStream.format("pinot").option("table-name", "events").option("url", controller.url)
              .option("sink.buffer-flush.max-rows", 150).option("checkpointLocation", str(checkpoint)))
    for key, value in options.items():
        writer = writer.option(key, str(value))
    query = writer.trigger(availableNow=True).start()
    query.awaitTermination()
    assert query.exception() is None


@pytest.mark.slow  # issue 36: among the heaviest of make test (55-105 s at load 20, several Spark jobs); make test-slow runs it
def test_three_batches_and_a_replayed_batch_after_restart(spark, fake_controller, tmp_path):
    pinot_sink.register(spark)
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    source.mkdir()
    for index in range(3):
        drop_file(source, index)
    run_available(spark, source, checkpoint, fake_controller)
    live = fake_controller.live_segments()
    batches = {name_tags(name)[0] for name in live}
    assert len(batches) == 3  # one write (tag) per micro-batch, one batch per file
    assert len(live) == 6  # 200 rows per batch, cut at 150

    # Crash after batch 2 was written but before Spark recorded its commit: the restart replays batch 2.
    (checkpoint / "commits" / "2").unlink()
    (checkpoint / "commits" / ".2.crc").unlink(missing_ok=True)
    drop_file(source, 3)
    run_available(spark, source, checkpoint, fake_controller)
    segments = fake_controller.segments()
    after = fake_controller.live_segments()
    assert len({name_tags(name)[0] for name in after}) == 4 and len(after) == 8
    replaced = set(live) - set(after)  # the replayed batch's first segments, replaced by the rerun's
    assert len(replaced) == 2 and len({name_tags(name)[0] for name in replaced}) == 1
    blobs = {n: segments[n].tar_bytes for n in fake_controller.live_segments()}
    values = sorted(read_tar_bytes(blobs, tmp_path).column("value").to_pylist())
    assert values == list(range(800))  # nothing lost, nothing twice
