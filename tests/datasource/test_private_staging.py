"""With a controller and no output-uri, tasks stage in a private per-write folder (``mkdtemp``: 0700, never
an existing path) that the commit or abort removes; a symlink planted at the old fixed path is not followed."""
from __future__ import annotations

import os
import stat
import time
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.commit import abort_job, commit_job
from pinot_sink.storage.layout import local_path
from pinot_sink.task import write_partition
from tests.datasource.helpers import prepared_job

ARROW = pa.schema([("country", pa.string()), ("value", pa.int64()), ("ts", pa.timestamp("ms", tz="UTC"))])


def rows(count: int):
    ids = np.arange(count, dtype=np.int64)
    yield pa.record_batch([pa.array(["nl"] * count), pa.array(ids), pa.array(1_700_000_000_000 + ids, ARROW[2].type)],
                          schema=ARROW)


@pytest.fixture
def temp_dir(tmp_path, monkeypatch):
    """The process's temp folder, here a test folder (other tests may use the real /tmp at the same time)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_a_symlink_planted_at_the_old_staging_path_is_not_followed(fake_controller, temp_dir, tmp_path):
    target = tmp_path / "attacker"
    target.mkdir()
    (temp_dir / "pinot-sink-staging").symlink_to(target)
    job = prepared_job(None, None, ARROW, url=fake_controller.url)
    root = Path(local_path(job.stage_root))
    modes = []
    report = write_partition(job, rows(10), partition_id=0,
                             on_staged=lambda record: modes.append(stat.S_IMODE(root.stat().st_mode)))
    assert list(target.iterdir()) == []  # nothing written through the planted link
    staged = Path(local_path(report.segments[0].staged_uri))
    assert root.parent == temp_dir and not root.is_symlink() and staged.is_relative_to(root)
    assert modes == [0o700]
    commit_job(job, [report])
    assert fake_controller.live_segments("events") == [report.segments[0].name]
    assert not root.exists()  # the commit removes the write's private folder
    assert list(target.iterdir()) == [] and (temp_dir / "pinot-sink-staging").is_symlink()


def test_every_write_gets_its_own_folder_and_an_abort_removes_it(fake_controller, temp_dir):
    first = prepared_job(None, None, ARROW, url=fake_controller.url)
    second = prepared_job(None, None, ARROW, url=fake_controller.url)
    assert first.stage_root != second.stage_root
    report = write_partition(first, rows(5), partition_id=0)
    assert Path(local_path(report.segments[0].staged_uri)).is_file()
    abort_job(first, [report])
    assert not Path(local_path(first.stage_root)).exists()
    commit_job(second, [write_partition(second, rows(5), partition_id=0)])
    assert os.listdir(temp_dir) == []


def test_a_new_root_sweeps_the_empty_ones_of_ended_writes(temp_dir):
    """A streaming query keeps its root for its micro-batches and nothing removes it when the query ends: the
    next write of the table sweeps such roots. Kept: a root with a tarball (``pinot-sink recover``'s), one
    whose owner runs, one changed in the last ten minutes (its owner file may not be written yet), another
    table's."""
    from pinot_sink.storage.staging import OWNER_FILE, SWEEP_AFTER_SECONDS, private_stage_root

    old = time.time() - SWEEP_AFTER_SECONDS - 60
    dead_pid = "999999999 1"  # never a live pid (above pid_max)

    def root(name: str, owner: str | None = dead_pid, tarball: bool = False, age: float = old) -> Path:
        path = temp_dir / f"pinot-sink-staging-{name}"
        (path / "events" / "_staging" / "wx_ry").mkdir(parents=True)
        if owner is not None:
            (path / OWNER_FILE).write_text(owner + "\n")
        if tarball:
            (path / "events" / "_staging" / "wx_ry" / "events_0.tar.gz").write_bytes(b"x")
        os.utime(path, (age, age))
        return path

    ended = [root("events-aaaaaaaa"), root("events-bbbbbbbb", owner=None)]
    kept = [root("events-cccccccc", tarball=True), root("events-dddddddd", owner=f"{os.getpid()}"),
            root("events-eeeeeeee", age=time.time()), root("clicks-ffffffff"), root("events-gggggggg9")]
    made = Path(private_stage_root("events"))
    assert sorted(p.name for p in temp_dir.iterdir()) == sorted([made.name] + [p.name for p in kept])
    assert all(not p.exists() for p in ended)


def test_a_root_left_with_only_task_error_notes_is_swept(temp_dir):
    """A streaming micro-batch whose every task failed: each failed attempt removed its tarballs but left its
    error note, which only an abort that knows the tasks' run reads, and the committing writer does not know it
    (``PinotStreamWriter.abort``). Such a root holds no tarball, so the next write of the table sweeps it, once
    its owner has ended, as an empty one (before: it stayed until `pinot-sink recover`); one with a tarball too
    is kept."""
    from pinot_sink.reports import TASK_ERROR_SUFFIX
    from pinot_sink.storage.staging import OWNER_FILE, SWEEP_AFTER_SECONDS, private_stage_root

    old = time.time() - SWEEP_AFTER_SECONDS - 60
    roots = {}
    for name, tarball in (("events-aaaaaaaa", False), ("events-bbbbbbbb", True)):
        run = temp_dir / f"pinot-sink-staging-{name}" / "events" / "_staging" / "wx_ry"
        run.mkdir(parents=True)
        (run / f"p0_a0{TASK_ERROR_SUFFIX}").write_text("ValueError: bad row\n")
        if tarball:
            (run / "p0_a1").mkdir()
            (run / "p0_a1" / "events_0.tar.gz").write_bytes(b"x")
        root = temp_dir / f"pinot-sink-staging-{name}"
        (root / OWNER_FILE).write_text("999999999 1\n")  # never a live pid
        os.utime(root, (old, old))
        roots[tarball] = root
    made = Path(private_stage_root("events"))
    assert sorted(p.name for p in temp_dir.iterdir()) == sorted([made.name, roots[True].name])
