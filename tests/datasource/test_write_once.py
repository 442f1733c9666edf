"""``pinot_sink.write`` on Spark 4 prepares its job once (issue 32 items 5 and 6, issue 36 item 2): the
driver's checked job is the one the data source writes with, so the controller is asked for the schema and
table config once, "writing" is logged once with one write id, and no empty staging folder of a planning
pass is left in the temp folder, after a success or an abort."""
from __future__ import annotations

import logging
import re
import tempfile

import pytest

import pinot_sink
from pinot_sink.datasource import PREPARED_JOB_OPTION
from tests.datasource.helpers import events_df

pytestmark = pytest.mark.spark


@pytest.fixture
def temp_dir(tmp_path, monkeypatch):
    """The driver's temp folder (staging roots, the result folder), here a test folder of its own."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


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


def test_an_aborted_write_leaves_no_folder_either(spark, fake_controller, temp_dir):
    from pyspark.sql import functions as F

    df = events_df(spark, 50).withColumn("value", F.lit("d0"))  # not a LONG: the tasks fail
    with pytest.raises(Exception):
        pinot_sink.write(df, "events", url=fake_controller.url)
    assert fake_controller.live_segments("events") == []
    assert list(temp_dir.iterdir()) == []


def test_the_prepared_job_option_is_not_for_users(spark, tmp_path, fake_controller):
    planted = tmp_path / "job.pickle"
    planted.write_bytes(b"not a pickle")
    writer = events_df(spark, 10).write.format("pinot").option("table-name", "events") \
        .option("url", fake_controller.url).option(PREPARED_JOB_OPTION, str(planted))
    with pytest.raises(Exception, match="pinot_sink.write's own; do not set it"):
        writer.mode("append").save()
