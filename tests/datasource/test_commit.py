"""The commit protocol without Spark: tasks stage, the driver alone publishes (issue 9).

Task attempts are run by hand with ``write_partition`` so that orders Spark makes rare (a straggler
finishing after the commit, two attempts of one partition, two jobs interleaving) happen every time.
"""
from __future__ import annotations

import pickle
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.commit import CommitError, abort_job, commit_job, summary_table
from pinot_sink.naming import is_segment_of_write, name_tags, segment_replaces, write_tag
from pinot_sink.reports import SegmentRecord, TaskReport, committed_segments
from pinot_sink.segment import read_segment
from pinot_sink.task import write_partition
from tests.datasource.helpers import prepared_job

SCHEMA = {"schemaName": "events", "dimensionFieldSpecs": [{"name": "id", "dataType": "LONG"}],
          "metricFieldSpecs": [{"name": "amount", "dataType": "DOUBLE"}]}
CONFIG = {"tableName": "events_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {}, "tableIndexConfig": {},
          "metadata": {}}
ARROW_SCHEMA = pa.schema([("id", pa.int64()), ("amount", pa.float64())])


def batches(start: int, stop: int, size: int = 100):
    for first in range(start, stop, size):
        ids = np.arange(first, min(stop, first + size), dtype=np.int64)
        yield pa.record_batch({"id": ids, "amount": ids * 0.5})


def job(*, out: Path | None = None, url: str | None = None, overwrite: bool = False, **options):
    return prepared_job(SCHEMA, CONFIG, ARROW_SCHEMA, out=out, url=url, overwrite=overwrite,
                        **{"sink.buffer-flush.max-rows": 250, **options})


def run_tasks(the_job, ranges, attempt: int = 0):
    """One task attempt per (partition, (start, stop)) range; returns the reports."""
    return [write_partition(the_job, batches(*rows), partition_id=p, attempt=attempt, task_attempt_id=100 * attempt + p)
            for p, rows in enumerate(ranges)]


def ids_in_directory(out: Path) -> list[int]:
    ids = []
    for path in sorted((out / "events").glob("*.tar.gz")):
        ids += read_segment(str(path)).table.column("id").to_pylist()
    return sorted(ids)


def ids_in_controller(controller, tmp_path: Path) -> list[int]:
    ids = []
    for name in controller.live_segments("events"):
        path = tmp_path / f"{name}.tar.gz"
        path.write_bytes(controller.segments("events")[name].tar_bytes)
        ids += read_segment(str(path)).table.column("id").to_pylist()
    return sorted(ids)


@pytest.fixture
def table(fake_controller):
    fake_controller.add_table(SCHEMA, CONFIG)
    return fake_controller


# --- names carry the write ---------------------------------------------------------------------------------


def test_name_tags_are_read_from_the_fixed_tail_only():
    tag = write_tag("daily_2024-03-01")
    assert name_tags(f"events_1_2_{tag}_rabc_3_0") == (tag, "rabc")
    assert name_tags(f"events_1_2_{tag}_oabc_3_0") == (tag, "oabc")  # a whole-table overwrite's run
    assert segment_replaces(f"events_{tag}_oabc_3_0") == "table"
    assert segment_replaces(f"events_{tag}_tabc_3_0") == "window"
    assert segment_replaces(f"events_{tag}_rabc_3_0") is None and segment_replaces("manual") is None
    assert name_tags(f"events_1_2_{tag}_xabc_3_0") is None
    # A postfix that looks like a tag, or time values, sit before the tail and never shift it.
    assert is_segment_of_write(f"events_{tag}_rx_1_2_{write_tag('other')}_rabc_3_0", write_tag("other"))
    assert not is_segment_of_write(f"events_{tag}_rx_1_2_{write_tag('other')}_rabc_3_0", tag)
    for foreign in ("events_3_0", "events_1_2_3_0", f"events_{tag}_3_0", f"events_{tag}_rabc_x_0", "manual"):
        assert name_tags(foreign) is None


def test_reports_pickle_and_summarise(tmp_path):
    the_job = job(out=tmp_path)
    [report] = run_tasks(the_job, [(0, 300)])
    again = pickle.loads(pickle.dumps(report))
    assert again.rows == 300 and [s.rows for s in again.segments] == [250, 50]
    result = commit_job(the_job, [again, None])
    text = summary_table(result)
    assert result.rows == 300 and "total: 2 segments, 300 rows" in text


def test_duplicate_names_across_partitions_are_an_error():
    def record(partition):
        return SegmentRecord(name="fixed_name", rows=1, tar_bytes=1, crc=1, staged_uri="file:///x", partition_id=partition,
                             sequence_id=0, build_ms=0, stage_ms=0)

    with pytest.raises(RuntimeError, match="partitions 0 and 1"):
        committed_segments([TaskReport(0, 0, [record(0)]), TaskReport(1, 0, [record(1)])])


# --- only committed attempts become visible -------------------------------------------------------------------


def test_a_failed_attempts_partial_output_is_never_published(tmp_path):
    the_job = job(out=tmp_path)
    # Attempt 0 of partition 1 saw its input end early (an upstream failure) and staged a partial segment.
    partial = write_partition(the_job, batches(1000, 1130), partition_id=1, attempt=0, task_attempt_id=7)
    assert partial.rows == 130
    reports = [write_partition(the_job, batches(0, 1000), partition_id=0, task_attempt_id=1),
               write_partition(the_job, batches(1000, 2000), partition_id=1, attempt=1, task_attempt_id=8)]
    commit_job(the_job, reports)
    assert ids_in_directory(tmp_path) == list(range(2000))
    assert not (tmp_path / "events" / "_staging" / the_job.run.folder).exists()


def test_a_straggler_finishing_after_the_commit_changes_nothing(tmp_path, table):
    the_job = job(url=table.url, out=tmp_path / "stage")
    reports = run_tasks(the_job, [(0, 600), (600, 1200)])
    commit_job(the_job, reports)
    live, uploads = sorted(table.live_segments("events")), len(table.uploads())
    # The losing (speculative or retried) attempt of partition 0 ends only now, with other rows.
    late = write_partition(the_job, batches(0, 450), partition_id=0, attempt=1, task_attempt_id=99)
    assert [s.name for s in late.segments] == [s.name for s in reports[0].segments][:2]  # same names ...
    assert sorted(table.live_segments("events")) == live and len(table.uploads()) == uploads  # ... no effect
    assert ids_in_controller(table, tmp_path) == list(range(1200))


def test_a_straggler_finishing_during_the_commit_changes_nothing(tmp_path, table):
    the_job = job(url=table.url, out=tmp_path / "stage")
    reports = run_tasks(the_job, [(0, 600), (600, 1200)])
    table.delay_next(1, seconds=1.5, method="POST", path="/v2/segments")  # the commit's first upload is slow
    done = threading.Event()
    thread = threading.Thread(target=lambda: (commit_job(the_job, reports), done.set()))
    thread.start()
    time.sleep(0.3)
    late = write_partition(the_job, batches(0, 300), partition_id=0, attempt=1, task_attempt_id=99)
    assert late.rows == 300 and not done.is_set()
    thread.join(30)
    assert done.is_set() and ids_in_controller(table, tmp_path) == list(range(1200))


def test_queries_see_nothing_of_the_write_until_the_commit_ends(tmp_path, table):
    first = job(url=table.url, out=tmp_path / "stage")
    commit_job(first, run_tasks(first, [(0, 500)]))
    before = sorted(table.live_segments("events"))
    the_job = job(url=table.url, out=tmp_path / "stage", overwrite=True)
    reports = run_tasks(the_job, [(1000, 1600), (1600, 2000)])
    assert sorted(table.live_segments("events")) == before  # staged only
    table.delay_next(1, seconds=1.5, method="POST", path="/v2/segments")
    thread = threading.Thread(target=commit_job, args=(the_job, reports))
    thread.start()
    time.sleep(0.5)  # uploads are under way, the lineage entry is IN_PROGRESS
    assert sorted(table.live_segments("events")) == before
    thread.join(30)
    assert ids_in_controller(table, tmp_path) == list(range(1000, 2000))


def test_a_failed_commit_reverts_and_names_the_state(tmp_path, table):
    first = job(url=table.url, out=tmp_path / "stage")
    commit_job(first, run_tasks(first, [(0, 500)]))
    before = sorted(table.live_segments("events"))
    the_job = job(url=table.url, out=tmp_path / "stage", **{"retry.max-attempts": 2, "push-parallelism": 1})
    reports = run_tasks(the_job, [(500, 1500)])
    table.fail_next(20, status=500, message="disk full", method="POST", path="/v2/segments", after=1)
    with pytest.raises(CommitError, match="the table is as it was"):
        commit_job(the_job, reports)
    assert sorted(table.live_segments("events")) == before
    assert abort_job(the_job, reports) == []
    assert ids_in_controller(table, tmp_path) == list(range(500))


def test_abort_removes_a_partly_published_embedded_write(tmp_path):
    first = job(out=tmp_path)
    commit_job(first, run_tasks(first, [(0, 300)]))
    the_job = job(out=tmp_path)
    reports = run_tasks(the_job, [(300, 900)])
    from pinot_sink.storage.files import publish_into_directory

    # The commit moved one tarball and then died.
    one = reports[0].segments[0]
    publish_into_directory(the_job.output_uri, "events", {one.name: one.staged_uri})
    assert len(ids_in_directory(tmp_path)) == 550
    assert abort_job(the_job, reports) == []
    assert ids_in_directory(tmp_path) == list(range(300))
    assert not (tmp_path / "events" / "_staging" / the_job.run.folder).exists()


# --- writes never touch each other; a rerun replaces only itself ----------------------------------------------


@pytest.mark.parametrize("postfixes", [(None, None), ("b", None), ("b", "b")])
def test_concurrent_appends_keep_each_others_rows(tmp_path, table, postfixes):
    def options(postfix):
        return {"segment.name.postfix": postfix} if postfix else {}

    one = job(url=table.url, out=tmp_path / "s1", **options(postfixes[0]))
    two = job(url=table.url, out=tmp_path / "s2", **options(postfixes[1]))
    reports_one = run_tasks(one, [(0, 700), (700, 1000)])
    reports_two = run_tasks(two, [(1000, 1800), (1800, 2000)])  # same partitions, same postfix: same positions
    threads = [threading.Thread(target=commit_job, args=args) for args in ((one, reports_one), (two, reports_two))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert ids_in_controller(table, tmp_path) == list(range(2000))


def test_appends_of_new_rows_for_the_same_day_and_without_time_column_both_stay(tmp_path):
    for start in (0, 3000):  # two jobs, same table, no time column: names used to collide
        the_job = job(out=tmp_path)
        commit_job(the_job, run_tasks(the_job, [(start, start + 1500), (start + 1500, start + 3000)]))
    assert ids_in_directory(tmp_path) == list(range(6000))


def test_a_rerun_replaces_exactly_its_own_write_whatever_the_partitioning(tmp_path, table):
    other = job(url=table.url, out=tmp_path / "s0", **{"write.id": "other"})
    commit_job(other, run_tasks(other, [(5000, 5100)]))
    first = job(url=table.url, out=tmp_path / "s1", **{"write.id": "daily_2024-03-01"})
    commit_job(first, run_tasks(first, [(0, 600), (600, 1200), (1200, 1500)]))
    assert len(ids_in_controller(table, tmp_path)) == 1600
    rerun = job(url=table.url, out=tmp_path / "s2", **{"write.id": "daily_2024-03-01", "sink.buffer-flush.max-rows": 1000})
    result = commit_job(rerun, run_tasks(rerun, [(0, 1500)]))
    assert len(result.replaced) == 8 and all(is_segment_of_write(n, write_tag("daily_2024-03-01"))
                                             for n in result.replaced)
    assert ids_in_controller(table, tmp_path) == list(range(1500)) + list(range(5000, 5100))


# --- what the write leaves for people and orchestrators (issue 14) -----------------------------------------------


def test_manifests_of_append_overwrite_and_a_failed_write(tmp_path, table):
    import json as _json

    first = job(url=table.url, out=tmp_path, **{"auth.token": "t0ken", "write.id": "day_1"})
    result = commit_job(first, run_tasks(first, [(0, 300), (300, 400)]))
    manifest = tmp_path / "events" / "_manifests" / f"{first.run.folder}.json"
    document = _json.loads(manifest.read_text())
    assert document["status"] == "committed" and document["mode"] == "append" and document["write_id"] == "day_1"
    assert sum(s["rows"] for s in document["segments"]) == 400 and len(document["segments"]) == 3
    assert {s["crc"] for s in document["segments"]} == {s.crc for s in result.segments}
    assert document["lineage_id"] == result.lineage_id and document["push_mode"] == "tar"
    assert document["options"]["auth.token"] == "<redacted>" and "t0ken" not in manifest.read_text()
    assert all(s["uri"].startswith("file://") and s["upload_ms"] > 0 for s in document["segments"])

    again = job(url=table.url, out=tmp_path, overwrite=True)
    result = commit_job(again, run_tasks(again, [(0, 100)]))
    document = _json.loads((tmp_path / "events" / "_manifests" / f"{again.run.folder}.json").read_text())
    assert document["mode"] == "overwrite" and sorted(document["replaced"]) == sorted(result.replaced)
    assert len(document["replaced"]) == 3

    failed = job(url=table.url, out=tmp_path)
    reports = run_tasks(failed, [(0, 50)])
    assert abort_job(failed, reports) == []
    document = _json.loads((tmp_path / "events" / "_manifests" / f"{failed.run.folder}.json").read_text())
    assert document["status"] == "aborted" and document["segments"] == [] and document["left_behind"] == []


@pytest.mark.parametrize("umask,expected", [(0o022, 0o644), (0o077, 0o600)])
def test_published_files_get_the_umask_mode_and_staged_ones_stay_private(tmp_path, umask, expected):
    import os
    import stat

    previous = os.umask(umask)
    try:
        the_job = job(out=tmp_path)
        reports = run_tasks(the_job, [(0, 300)])
        staged = Path(reports[0].segments[0].staged_uri[len("file://"):])
        assert stat.S_IMODE(staged.stat().st_mode) == 0o600  # private until published
        commit_job(the_job, reports)
    finally:
        os.umask(previous)
    published = sorted((tmp_path / "events").glob("*.tar.gz"))
    assert published and {stat.S_IMODE(p.stat().st_mode) for p in published} == {expected}
    manifests = list((tmp_path / "events" / "_manifests").glob("*.json"))
    assert {stat.S_IMODE(p.stat().st_mode) for p in manifests} == {expected}


def test_storage_options_reach_the_filesystem(tmp_path):
    import fsspec
    from fsspec.implementations.memory import MemoryFileSystem

    seen = []

    class RecordingMemory(MemoryFileSystem):
        protocol = ("recmem",)

        def __init__(self, *args, **kwargs):
            seen.append(dict(kwargs))
            super().__init__(*args, **kwargs)

    fsspec.register_implementation("recmem", RecordingMemory, clobber=True)
    the_job = job(**{"output-uri": "recmem://bucket/pinot", "storage.token": "s3cr3t",
                     "storage.client_kwargs.region": "eu-1"})
    commit_job(the_job, run_tasks(the_job, [(0, 400)]))
    assert seen and all(kwargs == {"token": "s3cr3t", "client_kwargs": {"region": "eu-1"}} for kwargs in seen)
    fs, folder = fsspec.core.url_to_fs("recmem://bucket/pinot/events", token="s3cr3t",
                                       client_kwargs={"region": "eu-1"})
    names = [p for p in fs.ls(folder, detail=False) if p.endswith(".tar.gz")]
    ids = []
    for index, name in enumerate(names):
        local = tmp_path / f"{index}.tar.gz"
        local.write_bytes(fs.cat_file(name))
        ids += read_segment(str(local)).table.column("id").to_pylist()
    assert sorted(ids) == list(range(400))
    assert len(names) == 2 and not fs.exists(f"{folder}/_staging/{the_job.run.folder}")


def test_an_append_into_a_refresh_table_with_consistent_push_replaces_it_as_pinot_does(tmp_path, fake_controller):
    config = dict(CONFIG, ingestionConfig={"batchIngestionConfig": {"segmentIngestionType": "REFRESH",
                                                                     "consistentDataPush": "true"}})
    fake_controller.add_table(SCHEMA, config)
    first = job(url=fake_controller.url, out=tmp_path / "s")
    commit_job(first, run_tasks(first, [(0, 300)]))
    second = job(url=fake_controller.url, out=tmp_path / "s")
    assert second.overwrite  # the table's setting, not the save mode, decides
    commit_job(second, run_tasks(second, [(1000, 1100)]))
    assert ids_in_controller(fake_controller, tmp_path) == list(range(1000, 1100))
    plain = dict(CONFIG, ingestionConfig={"batchIngestionConfig": {"segmentIngestionType": "REFRESH"}})
    fake_controller.add_table(SCHEMA, plain)
    assert not job(url=fake_controller.url).overwrite  # without consistent push an append stays an append


def test_segment_uri_prefix_and_suffix_reach_the_controller(tmp_path, table):
    the_job = job(url=table.url, out=tmp_path / "deep", **{"push-mode": "metadata",
                                                             "push.segment-uri-prefix": "hdfs://namenode:8020",
                                                             "push.segment-uri-suffix": "?v=1"})
    commit_job(the_job, run_tasks(the_job, [(0, 100)]))
    [name] = table.live_segments("events")
    url = table.segments("events")[name].zk["segment.download.url"]
    assert url == f"hdfs://namenode:8020{(tmp_path / 'deep' / 'events').as_posix()}/{name}.tar.gz?v=1"


@pytest.mark.parametrize("postfix", ["with space", "pct%20x", "d\u00e9j\u00e0_vu"])
def test_names_with_spaces_percent_and_non_ascii_through_the_embedded_store(tmp_path, postfix):
    first = job(out=tmp_path, **{"segment.name.postfix": postfix, "write.id": "odd"})
    result = commit_job(first, run_tasks(first, [(0, 300)]))
    names = {s.name for s in result.segments}
    assert all(postfix in name for name in names) and first.store().list() == names
    assert ids_in_directory(tmp_path) == list(range(300))
    rerun = job(out=tmp_path, **{"segment.name.postfix": postfix, "write.id": "odd"})
    again = commit_job(rerun, run_tasks(rerun, [(0, 300)]))
    assert set(again.replaced) == names and rerun.store().list() == {s.name for s in again.segments}
    assert ids_in_directory(tmp_path) == list(range(300))
