"""Manifests of writes whose segments a later write replaced say so (no Spark: tasks by hand)."""
from __future__ import annotations

import json
from pathlib import Path

from pinot_sink.commit import commit_job
from pinot_sink.task import write_partition
from tests.datasource.test_backfill_commit import day_batches, job


def _manifests(tmp_path) -> dict[str, dict]:
    folder = Path(tmp_path, "events", "_manifests")
    return {path.name: json.loads(path.read_text()) for path in folder.glob("*.json")}


def test_an_overwrite_marks_the_manifests_it_replaced(tmp_path):
    first = job(out=tmp_path, **{"write.id": "day1"})
    one = commit_job(first, [write_partition(first, day_batches([0], 24), partition_id=0)])
    second = job(out=tmp_path, **{"write.id": "day2"})
    commit_job(second, [write_partition(second, day_batches([1], 24, 100), partition_id=0)])
    assert {m["status"] for m in _manifests(tmp_path).values()} == {"committed"}

    rerun = job(out=tmp_path, **{"write.id": "day1"})  # replaces day1's segments only
    again = commit_job(rerun, [write_partition(rerun, day_batches([0], 24, 200), partition_id=0)])
    by_run = {m["run_tag"]: m for m in _manifests(tmp_path).values()}
    old = by_run[one.run_tag]
    assert old["status"] == "superseded"
    assert old["superseded_by"] == [{"run_tag": again.run_tag, "write_id": again.write_id, "mode": "append",
                                     "segments": sorted(s.name for s in one.segments)}]
    assert all(m["status"] == "committed" for tag, m in by_run.items() if tag != one.run_tag)

    overwrite = job(out=tmp_path, overwrite=True)
    commit_job(overwrite, [write_partition(overwrite, day_batches([2], 24, 300), partition_id=0)])
    statuses = sorted(m["status"] for m in _manifests(tmp_path).values())
    assert statuses == ["committed", "superseded", "superseded", "superseded"]
