"""A task builds each cut segment on one background thread while it converts the next batches
(``PartitionWriter``): names, sequence ids and the report keep cut order, at most one segment is in
flight, and a build failure surfaces in the task with its usual message and leaves no tarball behind. With
one builder thread (a task on one core) it builds each segment on its own thread instead, as it is cut."""
from __future__ import annotations

import json
import tarfile
import threading
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink import partition_writer
from pinot_sink.job import prepare_job
from pinot_sink.task import PinotWriteError, write_partition

SCHEMA = {
    "schemaName": "events",
    "dimensionFieldSpecs": [{"name": "id", "dataType": "LONG"}, {"name": "kind", "dataType": "STRING"}],
    "metricFieldSpecs": [{"name": "amount", "dataType": "DOUBLE"}],
}
CONFIG = {"tableName": "events_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {}, "tableIndexConfig": {},
          "metadata": {}}


def batches(rows: int, size: int = 1_000):
    for start in range(0, rows, size):
        ids = np.arange(start, min(rows, start + size), dtype=np.int64)
        yield pa.record_batch({"id": ids, "kind": pa.array(np.array(["a", "b", "c"])[ids % 3]),
                               "amount": ids * 0.5})


def job_for(out: Path, max_rows: int):
    return prepare_job({"table-name": "events", "schema": json.dumps(SCHEMA), "table-config": json.dumps(CONFIG),
                        "output-uri": str(out), "sink.buffer-flush.max-rows": str(max_rows), "creation-time": "0"},
                       next(batches(1)).schema, overwrite=False, streaming=False)


def test_segments_keep_cut_order_with_one_in_flight(tmp_path, monkeypatch):
    real_build = partition_writer.PartitionWriter._emit
    in_flight, most, threads = [0], [0], set()
    lock = threading.Lock()

    def counting_emit(*args, **kwargs):
        threads.add(threading.current_thread().name)
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        try:
            return real_build(*args, **kwargs)
        finally:
            with lock:
                in_flight[0] -= 1

    monkeypatch.setattr(partition_writer.PartitionWriter, "_emit", counting_emit)
    job = job_for(tmp_path, 2_500)
    report = write_partition(job, batches(11_000), partition_id=3)
    tail = f"{job.run.write_tag}_{job.run_tag}_3"

    assert [s.sequence_id for s in report.segments] == [0, 1, 2, 3, 4]
    assert [s.rows for s in report.segments] == [2_500, 2_500, 2_500, 2_500, 1_000]
    assert [s.name for s in report.segments] == [f"events_{tail}_{k}" for k in range(5)]
    assert most[0] == 1
    assert threading.current_thread().name not in threads and len(threads) == 1  # one build thread
    # Each tarball holds the rows of its place in the partition: the first id of segment k is 2500 * k.
    for k, segment in enumerate(report.segments):
        path = Path(segment.staged_uri[len("file://"):])
        assert path.parent.name == "p3_a0" and path.parent.parent.name == job.run.folder
        with tarfile.open(path) as tar:
            assert f"{segment.name}/v3/metadata.properties" in tar.getnames()
            metadata = tar.extractfile(f"{segment.name}/v3/metadata.properties").read().decode()
        assert f"column.id.minValue = {2_500 * k}\n" in metadata


def test_a_one_core_task_builds_each_segment_on_its_own_thread_as_it_is_cut(tmp_path, monkeypatch):
    # One thread, one glibc heap: a second thread's heap would stay resident at its own high-water mark.
    real_emit = partition_writer.PartitionWriter._emit
    builds, rows_in_at_build = [], []

    def recording_emit(self, *args, **kwargs):
        builds.append(threading.current_thread())
        rows_in_at_build.append(self.rows_in)
        return real_emit(self, *args, **kwargs)

    monkeypatch.setattr(partition_writer.PartitionWriter, "_emit", recording_emit)
    job = job_for(tmp_path, 2_500)
    report = write_partition(job, batches(11_000), partition_id=3, threads=1)
    tail = f"{job.run.write_tag}_{job.run_tag}_3"
    assert [s.sequence_id for s in report.segments] == [0, 1, 2, 3, 4]
    assert [s.rows for s in report.segments] == [2_500, 2_500, 2_500, 2_500, 1_000]
    assert [s.name for s in report.segments] == [f"events_{tail}_{k}" for k in range(5)]
    assert builds == [threading.current_thread()] * 5
    # Built as cut, before the next rows are read: batches are converted three at a time (2,500 rows or more,
    # max-rows), and each segment is built right after the group that filled it; the last at the end.
    assert rows_in_at_build == [3_000, 6_000, 9_000, 11_000, 11_000]


@pytest.mark.parametrize("threads", [None, 1])
def test_a_background_build_failure_surfaces_with_its_segment_and_leaves_no_tarball(tmp_path, monkeypatch,
                                                                                  threads):
    real_build = partition_writer.build_segment
    calls = []

    def failing_second(rows, schema, table_config, out_dir, name, **kwargs):
        calls.append(name)
        if len(calls) == 2:
            raise ValueError("column 'amount': disk full (injected)")
        return real_build(rows, schema, table_config, out_dir, name, **kwargs)

    monkeypatch.setattr(partition_writer, "build_segment", failing_second)
    job = job_for(tmp_path, 2_500)
    tail = f"{job.run.write_tag}_{job.run_tag}_1"
    with pytest.raises(PinotWriteError) as failure:
        write_partition(job, batches(11_000), partition_id=1, threads=threads)
    assert str(failure.value) == (f"table events, partition 1, segment events_{tail}_1: build failed: "
                                  "column 'amount': disk full (injected)")
    assert calls == [f"events_{tail}_0", f"events_{tail}_1"]  # the task stopped at the failure
    # no tarball (or temp file) of the failed segment, and the attempt's earlier one removed (task.py: no
    # commit could take it)
    assert not (tmp_path / "events" / "_staging" / job.run.folder / "p1_a0").exists()
    assert not any(p.suffix == ".gz" for p in (tmp_path / "events").iterdir())  # nothing published
