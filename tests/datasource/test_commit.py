"""Commit messages, the summary table and the name-based undo, on a real directory store."""
from __future__ import annotations

import pickle

import pytest

from pinot_sink.commit import (
    SegmentRecord,
    SegmentStore,
    Snapshot,
    TaskReport,
    check_unique_names,
    remove_orphans,
    reported_segments,
    summary_table,
    undo_append,
)
from pinot_sink.naming import job_name_pattern, make_namer


def record(name, partition=0, sequence=0, rows=10):
    return SegmentRecord(name=name, rows=rows, tar_bytes=2048, crc=123, uri=f"file:///x/{name}.tar.gz",
                         partition_id=partition, sequence_id=sequence, build_ms=5.0, upload_ms=1.0, uploaded=False)


def store_with(tmp_path, names):
    folder = tmp_path / "events"
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / f"{name}.tar.gz").write_bytes(b"x")
    (folder / "notes.txt").write_text("not a segment")
    return SegmentStore("events", directory_uri=folder.as_uri())


def pattern(postfix=None):
    namer = make_namer("simple", "events", None, {"segmentsConfig": {"timeColumnName": "ts"}})
    return job_name_pattern(namer, postfix).pattern


def test_reports_pickle_and_summarise():
    report = TaskReport(partition_id=1, attempt=0, segments=[record("events_1_2_1_0", 1, 0, 7)])
    again = pickle.loads(pickle.dumps(report))
    assert again.rows == 7 and again.segments[0].name == "events_1_2_1_0"
    segments = reported_segments([None, report])
    text = summary_table(segments, table="events", elapsed_s=2.0, destination="embedded")
    assert "events_1_2_1_0" in text and "total: 1 segments, 7 rows" in text


def test_duplicate_names_across_partitions_are_an_error():
    with pytest.raises(RuntimeError, match="partitions 0 and 1"):
        check_unique_names([record("fixed_name", 0), record("fixed_name", 1)])


def test_undo_deletes_only_what_this_job_added(tmp_path):
    before = {"events_1_2_0_0", "manual_upload"}
    store = store_with(tmp_path, before)
    snapshot = Snapshot(frozenset(store.list()), pattern())
    assert store.list() == before  # only *.tar.gz count
    store_with(tmp_path, {"events_3_4_0_0", "events_5_6_1_0", "someone_else_7"})  # appeared during the job
    assert sorted(undo_append(store, snapshot)) == ["events_3_4_0_0", "events_5_6_1_0"]
    assert store.list() == before | {"someone_else_7"}


def test_orphans_of_failed_attempts_are_removed_after_commit(tmp_path):
    store = store_with(tmp_path, {"events_1_2_0_0"})
    snapshot = Snapshot(frozenset(store.list()), pattern("nightly"))
    store_with(tmp_path, {"events_3_4_nightly_0_0", "events_3_9_nightly_0_1", "events_5_6_nightly_1_0"})
    removed = remove_orphans(store, snapshot, committed=["events_3_4_nightly_0_0", "events_5_6_nightly_1_0"])
    assert removed == ["events_3_9_nightly_0_1"]
    assert store.list() == {"events_1_2_0_0", "events_3_4_nightly_0_0", "events_5_6_nightly_1_0"}
