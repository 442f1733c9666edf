"""With a controller and no output-uri, tasks stage in a private per-write folder (``mkdtemp``: 0700, never
an existing path) that the commit or abort removes; a symlink planted at the old fixed path is not followed."""
from __future__ import annotations

import os
import stat
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
