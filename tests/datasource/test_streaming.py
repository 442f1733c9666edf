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


def run_available(spark, source: Path, checkpoint: Path, controller, table: str = "events", **options) -> None:
    """The files in ``source`` through a streaming query, a file a micro-batch; ``controller`` None: embedded."""
    stream = (spark.readStream.schema("country STRING, value BIGINT, ts TIMESTAMP")
              .option("maxFilesPerTrigger", 1).parquet(str(source)))
    writer = (stream.writeStream.format("pinot").option("table-name", table)
              .option("sink.buffer-flush.max-rows", 150).option("checkpointLocation", str(checkpoint)))
    if controller is not None:
        writer = writer.option("url", controller.url)
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


@pytest.mark.slow  # two streaming queries, own Spark jobs
def test_each_micro_batch_commits_its_tasks_run_and_leaves_no_staging(spark, fake_controller, tmp_path):
    """PySpark commits a micro-batch with a writer it makes apart from its tasks' (its streaming sink runner
    calls streamWriter again): the commit must still take the tasks' run. With a controller and no
    output-uri, no private staging root of the query is left in the temp folder; embedded, no run folder is
    left under _staging/, and each manifest is named after the run in its segments' names."""
    import copy
    import json

    from pinot_sink.storage.staging import private_stage_roots
    from tests.datasource.helpers import SCHEMA, TABLE_CONFIG

    pinot_sink.register(spark)
    table = f"stream_roots_{tmp_path.name[-12:].replace('-', '_').lower()}"
    schema = dict(copy.deepcopy(SCHEMA), schemaName=table)
    config = dict(copy.deepcopy(TABLE_CONFIG), tableName=f"{table}_OFFLINE")
    fake_controller.add_table(schema, config)
    source = tmp_path / "in"
    source.mkdir()
    for index in range(2):
        drop_file(source, index)

    run_available(spark, source, tmp_path / "cp1", fake_controller, table)  # its Python workers share our temp folder
    assert len(fake_controller.live_segments(table)) == 4
    assert private_stage_roots(table) == []

    out = tmp_path / "out"
    run_available(spark, source, tmp_path / "cp2", None, table,
                  **{"output-uri": out, "schema": json.dumps(schema), "table-config": json.dumps(config)})
    staging = out / table / "_staging"
    assert not staging.exists() or [p for p in staging.iterdir()] == []
    manifests = {p.stem for p in (out / table / "_manifests").glob("*.json")}
    tarballs = {p.name[: -len(".tar.gz")] for p in (out / table).glob("*.tar.gz")}
    assert len(manifests) == 2 and len(tarballs) == 4
    assert {"_".join(name_tags(n)) for n in tarballs} == manifests
