"""The one write loop (``pinot_sink.partition_writer``) both the Spark task and ``pinot-sink build`` drive:
progress while a bucketed task fills its buckets, the progress callback, and the CLI getting the data
source's naming, option parsing, defaults and file modes."""
from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.buffer import BucketBuffer, Buffer, PartitionBuffer
from pinot_sink.cli import main
from pinot_sink.cli import build_cmd
from pinot_sink.options import OPTIONS, WriteOptions
from pinot_sink.partition_writer import Progress
from pinot_sink.task import write_partition
from tests.datasource.helpers import prepared_job

DAY = 86_400_000
FIRST_DAY = 1_707_955_200_000  # 2024-02-15T00:00:00Z
SCHEMA = {"schemaName": "events", "dimensionFieldSpecs": [{"name": "id", "dataType": "LONG"}],
          "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                                  "granularity": "1:MILLISECONDS"}]}
CONFIG = {"tableName": "events_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
          "tableIndexConfig": {}, "metadata": {}}
ARROW_SCHEMA = pa.schema([("id", pa.int64()), ("ts", pa.int64())])


def day_batches(days, per_day: int):
    for i, day in enumerate(days):
        ids = np.arange(i * per_day, (i + 1) * per_day, dtype=np.int64)
        millis = FIRST_DAY + day * DAY + np.arange(per_day, dtype=np.int64) * 60_000
        yield pa.record_batch([pa.array(ids), pa.array(millis)], schema=ARROW_SCHEMA)


def test_both_buffers_are_a_buffer():
    assert isinstance(PartitionBuffer(10, 100), Buffer)
    assert isinstance(BucketBuffer(10, 100, lambda part: np.zeros(part.num_rows)), Buffer)


def test_a_bucketed_task_past_the_progress_interval_reports_its_progress(tmp_path, caplog):
    """Every large daily backfill ran past 30 s and died on ``buffer.rows`` (BucketBuffer had none)."""
    job = prepared_job(SCHEMA, CONFIG, ARROW_SCHEMA, out=tmp_path,
                       **{"sink.time-bucket": "day", "sink.buffer-flush.max-rows": 1000})
    seen: list[Progress] = []
    with caplog.at_level(logging.INFO, logger="pinot_sink"):
        report = write_partition(job, day_batches(range(3), 100), partition_id=0, progress_every_s=0.0,
                                 progress=seen.append)
    assert [s.rows for s in report.segments] == [100, 100, 100]
    lines = [r.getMessage() for r in caplog.records if "rows read" in r.getMessage()]
    assert lines and lines[-1].endswith("300 rows read, 0 segment(s) cut, 300 rows (0.0 MB) buffered")
    assert seen[0] == Progress(rows_in=300, segments_built=0, bytes_built=0, rows_buffered=300)
    assert seen[-1].segments_built == 3 and seen[-1].bytes_built == sum(s.tar_bytes for s in report.segments)


def _cli_table(tmp_path: Path, time_spec: dict | None = None, rows: list | None = None) -> list[str]:
    spec = time_spec or {"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                         "granularity": "1:MILLISECONDS"}
    (tmp_path / "schema.json").write_text(json.dumps({**SCHEMA, "dateTimeFieldSpecs": [spec]}))
    (tmp_path / "table.json").write_text(json.dumps(CONFIG))
    rows = rows or [{"id": i, "ts": FIRST_DAY + i} for i in range(5)]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return ["build", "--schema", str(tmp_path / "schema.json"), "--table-config", str(tmp_path / "table.json"),
            "--input", str(tmp_path / "in.jsonl"), "--out", str(tmp_path / "out"), "--creation-time", "0"]


def test_the_cli_names_segments_as_the_data_source_does(tmp_path, capsys):
    assert main(_cli_table(tmp_path)) == 0
    assert json.loads(capsys.readouterr().out)["segment"] == f"events_{FIRST_DAY}_{FIRST_DAY + 4}_0"
    # Time values go into simple names: one Pinot's rule forbids fails before a segment is built, naming it.
    slashed = {"name": "ts", "dataType": "STRING", "format": "1:DAYS:SIMPLE_DATE_FORMAT:yyyy/MM/dd",
               "granularity": "1:DAYS"}
    assert main(_cli_table(tmp_path, slashed, [{"id": 1, "ts": "2024/02/15"}])) == 1
    err = capsys.readouterr().err
    assert "table events, segment 0 of the input: invalid minimum time value '2024/02/15'" in err
    assert [p.name for p in (tmp_path / "out").iterdir()] == [f"events_{FIRST_DAY}_{FIRST_DAY + 4}_0.tar.gz"]


def test_the_cli_validates_names_with_pinots_rule(tmp_path, capsys):
    assert main(_cli_table(tmp_path) + ["--name", "a/b"]) == 1
    err = capsys.readouterr().err
    assert "--name" in err and "'/'" in err


def test_the_cli_parses_options_with_the_data_sources_parser(tmp_path, capsys):
    assert main(_cli_table(tmp_path) + ["--option", "convert.on-overflow=maybe"]) == 1
    err = capsys.readouterr().err
    assert "option 'convert.on-overflow': 'maybe' is not one of" in err
    assert main(_cli_table(tmp_path) + ["--option", "CONVERT.ON-FRACTION=TRUNCATE"]) == 0


def test_the_cli_has_the_data_sources_defaults():
    parser = __import__("argparse").ArgumentParser()
    build_cmd.register(parser.add_subparsers())
    args = parser.parse_args(["build", "--schema", "s", "--table-config", "t", "--input", "i", "--out", "o"])
    defaults = WriteOptions.parse({"table-name": "t"}).buffer
    assert args.max_rows == defaults.max_rows
    from pinot_sink.options import parse_size
    assert parse_size(args.max_size) == defaults.max_bytes
    assert args.max_size == OPTIONS["sink.buffer-flush.max-size"][0]


def test_the_cli_writes_tarballs_by_the_umask_as_the_data_source_publishes(tmp_path, capsys):
    old = os.umask(0o022)
    try:
        assert main(_cli_table(tmp_path) + ["--name", "one"]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "out" / "one.tar.gz").stat().st_mode) == 0o644


def test_the_cli_writer_takes_a_progress_callback(tmp_path):
    parser = __import__("argparse").ArgumentParser()
    build_cmd.register(parser.add_subparsers())
    args = parser.parse_args(_cli_table(tmp_path) + ["--max-rows", "2"])
    seen: list[Progress] = []
    writer = build_cmd.make_writer(args, progress=seen.append)
    segments = writer.write(build_cmd.read_batches(args.input[0]))
    assert [s.built.rows for s in segments] == [2, 2, 1]
    assert seen[-1] == Progress(rows_in=5, segments_built=3, bytes_built=sum(s.built.tar_bytes for s in segments),
                                rows_buffered=0)


def test_a_writer_builds_its_segments_with_one_spill_and_closes_it(tmp_path, monkeypatch):
    # Each segment's indexes go to the writer's spill file as their column is built (not held in memory until
    # the tarball): one file for all its segments, closed when the write ends.
    from pinot_sink.segment import builder
    from pinot_sink.segment.spill import FileSpan, Spill
    spills, closed = [], []
    original_build, original_close = builder.build_segment, Spill.close
    monkeypatch.setattr("pinot_sink.partition_writer.build_segment",
                        lambda *a, spill=None, **k: spills.append(spill) or original_build(*a, spill=spill, **k))
    monkeypatch.setattr(Spill, "close", lambda self: closed.append(self) or original_close(self))
    laid_out = []
    original_parts = builder.segment_file_parts
    monkeypatch.setattr(builder, "segment_file_parts",
                        lambda entries, *a: laid_out.extend(e.payload for e in entries) or original_parts(entries, *a))
    job = prepared_job(SCHEMA, CONFIG, ARROW_SCHEMA, out=tmp_path, **{"sink.buffer-flush.max-rows": 100})
    report = write_partition(job, day_batches(range(3), 100), partition_id=0)
    assert len(report.segments) == 3 and len(spills) == 3
    assert isinstance(spills[0], Spill) and spills.count(spills[0]) == 3 and closed == [spills[0]]
    assert laid_out and all(isinstance(p, FileSpan) for p in laid_out)
