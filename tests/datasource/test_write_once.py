"""``pinot_sink.write`` on Spark 4 prepares its job once (issue 32 items 5 and 6, issue 36 item 2): the
driver's checked job is the one the data source writes with, so the controller is asked for the schema and
table config once, "writing" is logged once with one write id, and no empty staging folder of a planning
pass is left in the temp folder, after a success or an abort."""
from __future__ import annotations

import logging
import re

import pytest

import pinot_sink
from pinot_sink.datasource import PREPARED_JOB_OPTION
from tests.datasource.helpers import events_df
from tests.datasource.test_private_staging import temp_dir  # noqa: F401 (the driver's temp folder, a fixture)

pytestmark = pytest.mark.spark


def _asked(controller, path: str) -> int:
    return sum(1 for r in controller.received if r.method == "GET" and r.path == path)


def test_the_job_is_prepared_once_and_leaves_no_folder(spark, fake_controller, temp_dir, caplog, capfd):
    caplog.set_level(logging.INFO, logger="pinot_sink")
    result = pinot_sink.write(events_df(spark, 200), "events", url=fake_controller.url)
    assert result.rows == 200
    assert _asked(fake_controller, "/tables/events/schema") == 1
    assert _asked(fake_controller, "/tables/events") == 1
    logged = caplog.text + capfd.readouterr().err  # the driver's log, and the Spark workers' stderr
    ids = set(re.findall(r"pinot_sink: writing events \(.*write id (auto:[0-9a-f]+)", logged))
    assert ids == {result.write_id}, logged[-3000:]
    assert len(re.findall(r"pinot_sink: writing events ", logged)) == 1
    assert "WriteOptions(" not in logged  # the parsed options are a DEBUG line
    assert list(temp_dir.iterdir()) == []


@pytest.mark.slow  # Spark retries the failing task: ~90 s a case
@pytest.mark.parametrize("entry_point", ["data-source", "map-in-arrow"])
def test_a_task_error_is_one_line_on_the_driver_and_the_abort_leaves_no_folder(spark, fake_controller, temp_dir,
                                                                              entry_point):
    """Issue 32 item 4: 'd0' into a LONG column: the exception pinot_sink.write raises is the task's error in
    one line (column, row, value) (the abort's log line: test_the_abort_names_the_first_task_error)."""
    from pyspark.sql import functions as F

    from pinot_sink.spark_write import WriteFailedError

    df = events_df(spark, 50, partitions=1).withColumn(
        "value", F.when(F.col("value") == 7, F.lit("d0")).otherwise(F.col("value").cast("string")))
    with pytest.raises(WriteFailedError) as failed:
        pinot_sink.write(df, "events", url=fake_controller.url, entry_point=entry_point)
    message = str(failed.value)
    assert "\n" not in message and message.startswith("pinot_sink.write to table events failed: table events, "
                                                       "partition 0: rows ")
    assert message.endswith("column 'value', row 7: value 'd0' is not an integer (Pinot LONG)"), message
    assert fake_controller.live_segments("events") == []
    assert list(temp_dir.iterdir()) == []


def test_the_prepared_job_option_is_not_for_users(spark, tmp_path, fake_controller):
    planted = tmp_path / "job.pickle"
    planted.write_bytes(b"not a pickle")
    writer = events_df(spark, 10).write.format("pinot").option("table-name", "events") \
        .option("url", fake_controller.url).option(PREPARED_JOB_OPTION, str(planted))
    with pytest.raises(Exception, match="pinot_sink.write's own; do not set it"):
        writer.mode("append").save()


def test_the_abort_names_the_first_task_error(fake_controller, temp_dir, caplog):
    """A failed task leaves its error in one line in the run's staging folder; the abort (in Spark's committer
    process, which gets no exception) logs it with the outcome, then removes the folder."""
    import pyarrow as pa

    from pinot_sink.commit import abort_job
    from pinot_sink.task import PinotWriteError, write_partition
    from tests.datasource.helpers import prepared_job

    arrow = pa.schema([("country", pa.string()), ("value", pa.string()), ("ts", pa.timestamp("ms", tz="UTC"))])
    batch = pa.record_batch([pa.array(["nl", "de"]), pa.array(["1", "d0"]),
                             pa.array([1_700_000_000_000, 1_700_000_001_000], arrow[2].type)], schema=arrow)
    job = prepared_job(None, None, arrow, url=fake_controller.url)
    with pytest.raises(PinotWriteError):
        write_partition(job, iter([batch]), partition_id=3, attempt=1)
    caplog.set_level(logging.INFO, logger="pinot_sink")
    assert abort_job(job, [None]) == []
    [line] = [r.getMessage() for r in caplog.records if "aborted" in r.getMessage()]
    assert line.startswith("pinot_sink: write to events aborted; the table is as it was: table events, partition 3")
    assert line.endswith("column 'value', row 1: value 'd0' is not an integer (Pinot LONG)")
    assert list(temp_dir.iterdir()) == []


def test_the_summary_lists_the_coerced_columns(tmp_path, caplog):
    """Issue 32 item 10: numeric strings into the LONG column 'value': converted, and said after the summary."""
    import pyarrow as pa

    from pinot_sink.commit import commit_job
    from pinot_sink.task import write_partition
    from tests.datasource.helpers import SCHEMA, TABLE_CONFIG, prepared_job

    arrow = pa.schema([("country", pa.string()), ("value", pa.string()), ("ts", pa.timestamp("ms", tz="UTC"))])
    batch = pa.record_batch([pa.array(["nl"]), pa.array(["12"]), pa.array([1_700_000_000_000], arrow[2].type)],
                            schema=arrow)
    job = prepared_job(SCHEMA, TABLE_CONFIG, arrow, out=tmp_path)
    caplog.set_level(logging.INFO, logger="pinot_sink")
    commit_job(job, [write_partition(job, iter([batch]), partition_id=0)])
    assert "pinot_sink: events: values converted to the column's type: value (string -> LONG)" in caplog.text


def test_pinot_sink_write_from_a_new_thread(spark, tmp_path):
    """Issue 32 item 11: a new Python thread is a new py4j thread, without the JVM's active session, where
    Spark 4 looks Python data sources up: pinot_sink.write makes the DataFrame's session active there."""
    import threading

    from tests.datasource.helpers import SCHEMA, TABLE_CONFIG
    import json

    outcome = {}

    def run():
        try:
            outcome["rows"] = pinot_sink.write(events_df(spark, 20, partitions=1), "events", **{
                "schema": json.dumps(SCHEMA), "table-config": json.dumps(TABLE_CONFIG),
                "output-uri": str(tmp_path)}).rows
        except Exception as exc:  # noqa: BLE001 - reported below
            outcome["error"] = str(exc)[:2000]

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert outcome == {"rows": 20}


def test_manifest_path_in_any_case_is_written_on_the_data_source_path(spark, fake_controller, tmp_path):
    """Option names are case-insensitive: `Manifest.Path` was dropped on the data source entry point (review)."""
    wanted = tmp_path / "manifest.json"
    result = pinot_sink.write(events_df(spark, 20), "events", url=fake_controller.url, entry_point="data-source",
                              **{"Manifest.Path": str(wanted)})
    assert result.rows == 20 and wanted.is_file() and str(result.run_tag) in wanted.read_text()
