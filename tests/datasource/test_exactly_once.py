"""Exactly once through real Spark (local mode, 3 attempts per task) and the loopback controller (issue 9).

Each test is one scenario that lost or duplicated rows before the single-committer protocol: it counts the
rows the table holds afterwards against the rows written. The orders Spark rarely produces (a speculative
copy, a straggler after the commit) are driven by hand in tests/datasource/test_commit.py.
"""
from __future__ import annotations

import threading

import pytest

import pinot_sink
from tests.datasource.helpers import BASE_MS, events_df
from tests.datasource.helpers import controller_values as table_values
from tests.datasource.helpers import controller_writer as writer

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    pinot_sink.register(spark)


def failing_once(partition: int, after_rows: int):
    """A mapInArrow function that fails attempt 0 of ``partition`` after ``after_rows`` rows went by."""
    def run(batches):
        from pyspark import TaskContext

        context, seen = TaskContext.get(), 0
        for batch in batches:
            yield batch
            seen += batch.num_rows
            if context.partitionId() == partition and context.attemptNumber() == 0 and seen >= after_rows:
                raise RuntimeError("injected upstream failure")
    return run


def test_a_task_failing_midway_is_retried_without_loss_or_duplicate(spark, fake_controller, tmp_path):
    df = events_df(spark, rows=4000, partitions=2)
    # Partition 1's first attempt stages 3 segments (max-rows 300) and then its input fails.
    flaky = df.mapInArrow(failing_once(partition=1, after_rows=1000), df.schema)
    writer(flaky, fake_controller, **{"sink.buffer-flush.max-rows": 300}).mode("append").save()
    assert table_values(fake_controller, tmp_path) == list(range(4000))
    assert len(fake_controller.live_segments()) == 14  # 2000 rows per partition: 7 segments each


def test_two_appends_of_new_rows_both_stay_without_a_time_column(spark, fake_controller, tmp_path):
    fake_controller.add_simple_table("events", time_column=None)
    df = events_df(spark, rows=6000, partitions=2).drop("ts")
    writer(df.filter("value < 3000"), fake_controller).mode("append").save()
    writer(df.filter("value >= 3000"), fake_controller).mode("append").save()
    assert table_values(fake_controller, tmp_path) == list(range(6000))


def test_two_appends_into_the_same_day_both_stay(spark, fake_controller, tmp_path):
    fake_controller.add_simple_table("events", time_column="ts")
    from pyspark.sql import functions as F

    # Every row on one day, in two loads (late data, hourly loads into a daily table).
    df = events_df(spark, rows=4000, partitions=2).withColumn("ts", F.timestamp_millis(F.lit(BASE_MS)))
    writer(df.filter("value < 2000"), fake_controller, **{"segment-name.type": "simple"}).mode("append").save()
    writer(df.filter("value >= 2000"), fake_controller, **{"segment-name.type": "simple"}).mode("append").save()
    assert table_values(fake_controller, tmp_path) == list(range(4000))


@pytest.mark.parametrize("postfixes", [(None, None), ("b", None)])
def test_concurrent_appends_from_two_jobs_keep_every_row(spark, fake_controller, tmp_path, postfixes):
    errors = []

    def run(start, postfix):
        try:
            # Spark looks Python data sources up in the JVM thread's active session: set it in this thread.
            spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)
            options = {"sink.buffer-flush.max-rows": 500}
            if postfix:
                options["segment.name.postfix"] = postfix
            writer(events_df(spark, rows=3000, partitions=2, start=start), fake_controller, **options) \
                .mode("append").save()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(str(exc)[:3000])

    threads = [threading.Thread(target=run, args=(0, postfixes[0])),
               threading.Thread(target=run, args=(3000, postfixes[1]))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert not errors
    assert table_values(fake_controller, tmp_path) == list(range(6000))


def test_a_permanent_failure_aborts_and_the_table_is_as_it_was(spark, fake_controller, tmp_path):
    writer(events_df(spark, rows=500), fake_controller, **{"write.id": "w1"}).mode("append").save()
    before = sorted(fake_controller.live_segments())
    df = events_df(spark, rows=2000, partitions=2)

    def always_failing(batches):
        from pyspark import TaskContext

        for batch in batches:
            yield batch
            if TaskContext.get().partitionId() == 0:
                raise RuntimeError("injected permanent failure")

    with pytest.raises(Exception, match="injected permanent failure"):
        writer(df.mapInArrow(always_failing, df.schema), fake_controller,
               **{"write.id": "w1", "sink.buffer-flush.max-rows": 100}).mode("overwrite").save()
    assert sorted(fake_controller.live_segments()) == before
    assert table_values(fake_controller, tmp_path) == list(range(500))


def test_overwrite_on_a_cluster_needs_shared_staging(spark, fake_controller, monkeypatch, tmp_path):
    """Tasks on another machine than the driver cannot reach a driver-local staging folder: they fail at
    once, naming output-uri, and nothing is published."""
    from pinot_sink.job import prepare_job
    from pinot_sink.task import PinotWriteError, write_partition

    import pyarrow as pa

    job = prepare_job({"table-name": "events", "url": fake_controller.url}, pa.schema(
        [("country", pa.string()), ("value", pa.int64()), ("ts", pa.timestamp("ms"))]), overwrite=True)
    assert job.stage_is_driver_local
    monkeypatch.setattr("pinot_sink.task.socket.gethostname", lambda: "executor-7")
    with pytest.raises(PinotWriteError, match="set 'output-uri' to storage that every executor"):
        write_partition(job, iter([]), partition_id=0)


def test_a_cluster_write_without_shared_staging_fails_before_any_task():
    from pinot_sink.datasource import check_staging_reachable
    from pinot_sink.options import OptionError

    with pytest.raises(OptionError, match="set 'output-uri'"):
        check_staging_reachable("spark://master:7077", {"url": "http://c:9000"})
    check_staging_reachable("local[4]", {"url": "http://c:9000"})
    check_staging_reachable("yarn", {"url": "http://c:9000", "output-uri": "s3://bucket/pinot"})
    check_staging_reachable("yarn", {"output-uri": "hdfs:///pinot"})  # embedded: the output is the stage
