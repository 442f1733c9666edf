"""now() and ago() are the write's own instant: chosen once on the driver (the WriteRun ``prepare_job`` makes,
the CLI's build start) and carried to every task as a value, so two tasks of one write, and a retried task,
store the same value (exactly once holds: a rerun stores what the first attempt stored)."""
from __future__ import annotations

import json
import pickle
import time
from urllib.parse import urlparse

import pyarrow as pa
import pytest

from pinot_sink.cli import main
from pinot_sink.options import OptionError
from pinot_sink.task import write_partition
from tests.datasource.helpers import prepared_job, read_rows

SCHEMA = {"schemaName": "events", "dimensionFieldSpecs": [
    {"name": "id", "dataType": "LONG"}, {"name": "stamped", "dataType": "LONG"},
    {"name": "hour_ago", "dataType": "LONG"}, {"name": "since", "dataType": "LONG"}]}
CONFIG = {"tableName": "events_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {}, "tableIndexConfig": {},
          "metadata": {}, "ingestionConfig": {"continueOnError": True, "transformConfigs": [
              {"columnName": "stamped", "transformFunction": "now()"},
              {"columnName": "hour_ago", "transformFunction": "ago('PT1H')"},
              {"columnName": "since", "transformFunction": "ago(period)"}]}}
ARROW_SCHEMA = pa.schema([("id", pa.int64()), ("period", pa.string())])


def _batch(first: int) -> pa.RecordBatch:
    return pa.record_batch([pa.array(range(first, first + 3), pa.int64()), pa.array(["P1D", "PT0.5S", "nope"])],
                           schema=ARROW_SCHEMA)


def _stored(report) -> list[dict]:
    return read_rows([urlparse(s.staged_uri).path for s in report.segments]).to_pylist()


def test_two_tasks_and_a_retried_task_of_one_write_store_the_same_instant(tmp_path):
    job = prepared_job(SCHEMA, CONFIG, ARROW_SCHEMA, out=tmp_path)
    instant = job.run.instant_ms
    assert instant is not None and abs(instant - time.time() * 1000) < 60_000
    first = write_partition(job, [_batch(0)], partition_id=0)
    time.sleep(0.05)  # the clock moves on; the write's instant does not
    shipped = pickle.loads(pickle.dumps(job))  # what an executor gets
    second = write_partition(shipped, [_batch(3)], partition_id=1)
    retried = write_partition(shipped, [_batch(3)], partition_id=1, attempt=1)
    rows = _stored(first) + _stored(second)
    assert {r["stamped"] for r in rows} == {instant}
    assert {r["hour_ago"] for r in rows} == {instant - 3_600_000}
    # 'nope' fails the row (continueOnError): the column's default null value
    assert [r["since"] for r in rows] == [instant - 86_400_000, instant - 500, -(2**63)] * 2
    assert _stored(retried) == _stored(second)


def test_another_write_has_its_own_instant(tmp_path):
    one = prepared_job(SCHEMA, CONFIG, ARROW_SCHEMA, out=tmp_path)
    time.sleep(0.01)
    other = prepared_job(SCHEMA, CONFIG, ARROW_SCHEMA, out=tmp_path)
    assert other.run.instant_ms > one.run.instant_ms


def test_a_streaming_query_refuses_now_on_the_driver():
    from pinot_sink.job import prepare_job

    raw = {"table-name": "events", "schema": json.dumps(SCHEMA), "table-config": json.dumps(CONFIG)}
    with pytest.raises(OptionError, match=r"now\(\) / ago\(\).*current_timestamp\(\)"):
        prepare_job(raw, ARROW_SCHEMA, overwrite=False, streaming=True)


def test_the_cli_stamps_the_builds_start(tmp_path, capsys):
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "table.json").write_text(json.dumps(CONFIG))
    (tmp_path / "in.jsonl").write_text("".join(json.dumps({"id": i, "period": "PT1S"}) + "\n" for i in range(4)))
    before = int(time.time() * 1000)
    assert main(["build", "--schema", str(tmp_path / "schema.json"), "--table-config", str(tmp_path / "table.json"),
                 "--input", str(tmp_path / "in.jsonl"), "--out", str(tmp_path / "out"), "--max-rows", "2",
                 "--creation-time", "0"]) == 0
    after = int(time.time() * 1000)
    rows = read_rows(sorted((tmp_path / "out").glob("*.tar.gz"))).to_pylist()
    assert len(rows) == 4 and len({r["stamped"] for r in rows}) == 1  # two segments, one instant
    assert before <= rows[0]["stamped"] <= after and {r["since"] for r in rows} == {rows[0]["stamped"] - 1000}
