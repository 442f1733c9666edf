"""``pinot_sink.write`` on both entry points: mapInArrow (Spark 3.3+, the only one on pyspark 3.x) and the
Spark 4 data source. The same outcomes on each, against the loopback test controller and real local Spark.
``make test`` runs this folder on pyspark 4.x (both entry points) and on pyspark 3.5 (.venv-spark35)."""
from __future__ import annotations

import json
from pathlib import Path

import pyspark
import pytest

import pinot_sink
from tests.datasource.helpers import SCHEMA, TABLE_CONFIG, controller_values, events_df, read_rows, tarballs
from tests.datasource.test_exactly_once import failing_once

pytestmark = pytest.mark.spark

SPARK_4 = int(pyspark.__version__.split(".")[0]) >= 4
ENTRY_POINTS = ["map-in-arrow", "data-source"] if SPARK_4 else ["map-in-arrow"]
FAST_RETRY = {"retry.initial-backoff": "10ms", "retry.max-backoff": "50ms"}


@pytest.fixture(params=ENTRY_POINTS)
def entry_point(request):
    return request.param


def write(df, controller, entry_point, *, mode="append", **options):
    pinot_sink.write(df, "events", mode=mode, entry_point=entry_point, url=controller.url, **FAST_RETRY, **options)


def failed_tasks(spark, group: str) -> int:
    """Failed task attempts of the jobs run under ``group`` (Spark's status tracker)."""
    tracker = spark.sparkContext.statusTracker()
    total = 0
    for job_id in tracker.getJobIdsForGroup(group):
        job = tracker.getJobInfo(job_id)
        for stage_id in job.stageIds if job else []:
            stage = tracker.getStageInfo(stage_id)
            total += stage.numFailedTasks if stage else 0
    return total


def test_appends_add_and_a_rerun_replaces(spark, fake_controller, tmp_path, entry_point):
    options = {"sink.buffer-flush.max-rows": 400}
    write(events_df(spark, rows=1200, partitions=2), fake_controller, entry_point, **options, **{"write.id": "a"})
    assert len(fake_controller.live_segments()) == 4
    assert controller_values(fake_controller, tmp_path / "1") == list(range(1200))
    # Another write adds its rows; a rerun of write "a" (here: other partitioning) replaces all of "a".
    write(events_df(spark, rows=300, start=5000), fake_controller, entry_point, **options)
    write(events_df(spark, rows=1200, partitions=3), fake_controller, entry_point, **options, **{"write.id": "a"})
    assert controller_values(fake_controller, tmp_path / "2") == list(range(1200)) + list(range(5000, 5300))


def test_overwrite_replaces_through_lineage(spark, fake_controller, tmp_path, entry_point):
    write(events_df(spark, rows=600), fake_controller, entry_point)
    old = set(fake_controller.live_segments())
    write(events_df(spark, rows=300, start=5000), fake_controller, entry_point, mode="overwrite")
    assert set(fake_controller.live_segments()).isdisjoint(old)
    assert controller_values(fake_controller, tmp_path) == list(range(5000, 5300))
    entries = [e for e in fake_controller.tables["events"].lineage.values() if e.segments_from]
    assert [e.state for e in entries] == ["COMPLETED"] and set(entries[0].segments_from) == old


def test_a_failed_task_is_retried_and_counted_once(spark, fake_controller, tmp_path, entry_point):
    # Attempt 0 of partition 1 fails after 3 of its segments were staged; Spark retries it (local[2,3]).
    group = f"pinot-sink-retry-{entry_point}"
    df = events_df(spark, rows=1200, partitions=2)
    flaky = df.mapInArrow(failing_once(partition=1, after_rows=400), df.schema)
    spark.sparkContext.setJobGroup(group, "retried task")
    try:
        write(flaky, fake_controller, entry_point, **{"sink.buffer-flush.max-rows": 100})
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    assert failed_tasks(spark, group) == 1
    live = fake_controller.live_segments()
    assert len(live) == len(set(live)) == 12
    assert controller_values(fake_controller, tmp_path) == list(range(1200))  # no duplicate, no orphan


@pytest.mark.parametrize("mode", ["append", "overwrite"])
def test_abort_leaves_the_table_as_it_was(spark, fake_controller, tmp_path, entry_point, mode):
    from pyspark.sql import functions as F

    write(events_df(spark, rows=300, partitions=1), fake_controller, entry_point, **{"segment.name.postfix": "before"})
    before = set(fake_controller.live_segments())
    # Row 900 (partition 1) has a null time value, which the TIMESTAMP time column refuses: a permanent failure.
    bad = events_df(spark, rows=1000, partitions=2).withColumn(
        "ts", F.when(F.col("value") == 900, F.lit(None)).otherwise(F.col("ts")))
    with pytest.raises(Exception, match="partition 1"):
        write(bad, fake_controller, entry_point, mode=mode, **{"sink.buffer-flush.max-rows": 100})
    assert set(fake_controller.live_segments()) == before
    assert controller_values(fake_controller, tmp_path) == list(range(300))


def without_run_tag(name: str, run_tag: str) -> str:
    return name.replace(f"_{run_tag}_", "_<run>_")


def test_sink_parallelism_and_names_are_the_data_sources(spark, tmp_path):
    """mapInArrow repartitions for sink.parallelism and names segments as the data source does (the same
    names but for the run tag, which is fresh per run)."""
    options = {"schema": json.dumps(SCHEMA), "table-config": json.dumps(TABLE_CONFIG), "sink.parallelism": 3,
               "sink.buffer-flush.max-rows": 20, "creation-time": "1700000000000", "write.id": "same"}
    df = events_df(spark, rows=90, partitions=1)
    result = pinot_sink.write(df, "events", entry_point="map-in-arrow", **options,
                              **{"output-uri": str(tmp_path / "a")})
    names = sorted(without_run_tag(n, result.run_tag) for n in tarballs(tmp_path / "a"))
    assert len(names) == 6 and sorted({n.rsplit("_", 2)[1] for n in names}) == ["0", "1", "2"]
    assert sorted(read_rows(Path(tmp_path, "a", "events").glob("*.tar.gz")).column("value").to_pylist()) \
        == list(range(90))
    assert sorted(without_run_tag(s.name, result.run_tag) for s in result.segments) == names
    if SPARK_4:
        result = pinot_sink.write(df, "events", entry_point="data-source", **options,
                                  **{"output-uri": str(tmp_path / "b")})
        assert sorted(without_run_tag(n, result.run_tag) for n in tarballs(tmp_path / "b")) == names


def test_a_streaming_dataframe_is_pointed_to_write_stream(spark):
    with pytest.raises(ValueError, match=r"writeStream.format\('pinot'\)"):
        pinot_sink.write(spark.readStream.format("rate").load(), "events", entry_point="map-in-arrow")


def test_argument_errors_name_the_argument(monkeypatch):
    with pytest.raises(ValueError, match="mode must be one of append, overwrite, error, errorifexists"):
        pinot_sink.write(None, "events", mode="upsert")
    with pytest.raises(ValueError, match="entry_point.*map-in-arrow"):
        pinot_sink.write(None, "events", entry_point="jdbc")
    monkeypatch.setenv("PINOT_SINK_ENTRY_POINT", "map-in-arrow")
    from pinot_sink.spark_write import choose_entry_point

    assert choose_entry_point() == "map-in-arrow"
    monkeypatch.delenv("PINOT_SINK_ENTRY_POINT")
    assert choose_entry_point() == ("data-source" if SPARK_4 else "map-in-arrow")
    if not SPARK_4:
        with pytest.raises(RuntimeError, match="needs pyspark 4.0"):
            choose_entry_point("data-source")
        with pytest.raises(RuntimeError, match="pinot_sink.write"):
            pinot_sink.register(object())
