"""PySpark commits or aborts a micro-batch with a writer it makes apart from its tasks' (its streaming sink
runner calls ``streamWriter`` again): here the tasks run on one prepared streaming job and the commit or abort
on another, as Spark does, without Spark (``write_partition`` and ``PinotStreamWriter`` are what its workers
call). The table, its staging and its manifests must be as with one writer."""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from pinot_sink.datasource import PinotCommitMessage, PinotStreamWriter
from pinot_sink.job import prepare_job
from pinot_sink.storage.layout import local_path
from pinot_sink.storage.staging import private_stage_roots
from pinot_sink.task import write_partition
from tests.compaction.helpers import ARROW, BASE_MS, CONFIG, SCHEMA, controller_ids, folder_ids, options, rows


@pytest.fixture(autouse=True)
def own_temp(tmp_path, monkeypatch):
    """The private staging roots go to this test's own temp folder: other writes of a table named events
    (other tests, beside this one) make theirs in the machine's."""
    import tempfile

    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))


def stream_job(**extra):
    return prepare_job({"table-name": "events", **extra}, ARROW, overwrite=False, streaming=True)


def failing(batch: pa.RecordBatch):
    yield batch
    raise RuntimeError("the source failed mid-task")


def staged_files(root) -> list:
    return [p for p in root.rglob("*") if p.is_file() and p.name != ".pinot-sink-owner"]


def test_a_micro_batch_whose_only_task_failed_leaves_no_tarball_embedded(tmp_path):
    """Spark aborts it with no report (the message of a failed task is None): the committing writer knows
    neither the query nor the tasks' run, so the failed task removes its own staged tarballs (no commit could
    take them); its error note stays in the run's folder, for `pinot-sink recover`."""
    out = tmp_path / "out"
    tasks = stream_job(**options(out=out), **{"sink.buffer-flush.max-rows": "20"})
    with pytest.raises(RuntimeError):
        write_partition(tasks, failing(rows(0, 50)), partition_id=0, task_attempt_id=0, query_id="q", batch_id=0)
    PinotStreamWriter(stream_job(**options(out=out))).abort([None], 0)
    assert folder_ids(out) == []
    assert [p.suffix for p in staged_files(out / "events" / "_staging")] == [".task-error"]


def test_an_aborted_micro_batch_with_a_report_leaves_the_table_and_no_staging(fake_controller, tmp_path):
    fake_controller.add_table(SCHEMA, CONFIG)
    tasks = stream_job(url=fake_controller.url, **{"sink.buffer-flush.max-rows": "20"})
    done = write_partition(tasks, [rows(0, 50)], partition_id=0, task_attempt_id=0, query_id="q", batch_id=0)
    with pytest.raises(RuntimeError):
        write_partition(tasks, failing(rows(50, 50)), partition_id=1, task_attempt_id=1, query_id="q", batch_id=0)
    PinotStreamWriter(stream_job(url=fake_controller.url)).abort([PinotCommitMessage(done), None], 0)
    assert fake_controller.live_segments("events") == []
    assert private_stage_roots("events") == []  # the tasks' root, its staged tarballs, the abort's own root


def test_compaction_every_batches_and_a_replay_with_a_writer_per_commit(fake_controller, tmp_path):
    fake_controller.add_table(SCHEMA, CONFIG)
    every = {"compaction.every-batches": "4", "compaction.target-size": "1mb"}

    def batch(number: int) -> None:
        tasks = stream_job(url=fake_controller.url, **every)
        report = write_partition(tasks, [rows(number * 50, 50, start_ms=BASE_MS + number * 60_000)], partition_id=0,
                                 task_attempt_id=number, query_id="q", batch_id=number)
        PinotStreamWriter(stream_job(url=fake_controller.url, **every)).commit([PinotCommitMessage(report)], number)

    for number in range(8):
        batch(number)
    assert len(fake_controller.live_segments("events")) == 2  # batches 0-6 compacted, batch 7's own
    batch(7)  # restarted: the replay replaces batch 7's first attempt
    assert controller_ids(fake_controller, tmp_path) == list(range(400))
    assert private_stage_roots("events") == []  # the tasks', the commits', the compaction's


def test_an_embedded_replay_replaces_the_first_attempt_and_history_names_the_tasks_runs(tmp_path):
    from pinot_sink.history import folder_history
    from pinot_sink.naming import name_tags

    out = tmp_path / "out"

    def batch(number: int, first: int) -> str:
        tasks = stream_job(**options(out=out), **{"sink.buffer-flush.max-rows": "20"})
        report = write_partition(tasks, [rows(first, 50, start_ms=BASE_MS + number * 60_000)], partition_id=0,
                                 task_attempt_id=0, query_id="q", batch_id=number)
        PinotStreamWriter(stream_job(**options(out=out))).commit([PinotCommitMessage(report)], number)
        return tasks.run_of("q", number).run_tag

    runs = [batch(0, 0), batch(1, 50)]
    runs.append(batch(1, 50))  # restarted from the checkpoint: batch 1 again, its first attempt replaced
    assert folder_ids(out) == list(range(100))
    live = {name_tags(p.name[: -len(".tar.gz")])[1] for p in (out / "events").glob("*.tar.gz")}
    assert live == {runs[0], runs[2]}
    assert [p for p in (out / "events" / "_staging").rglob("*") if p.is_file()] == []
    history = {r.run_tag: r for r in folder_history(str(out), "events")}
    assert set(history) == set(runs)
    assert history[runs[1]].replaced_by == runs[2]


def test_a_micro_batch_no_task_reported_leaves_no_root_of_its_committing_writer(fake_controller, tmp_path):
    """A commit with no report (no partition) or an abort whose every task failed: the committing writer's own
    private root was never used and goes (the query's JVM outlives it, so no sweep would take it while the
    query runs: one root a micro-batch), and the abort records no run of an unknown query."""
    fake_controller.add_table(SCHEMA, CONFIG)
    PinotStreamWriter(stream_job(url=fake_controller.url)).commit([], 3)
    PinotStreamWriter(stream_job(url=fake_controller.url)).commit([None], 4)
    PinotStreamWriter(stream_job(url=fake_controller.url)).abort([None, None], 5)
    assert private_stage_roots("events") == []
    out = tmp_path / "out"
    PinotStreamWriter(stream_job(**options(out=out))).abort([None], 6)
    assert not (out / "events" / "_manifests").exists() or list((out / "events" / "_manifests").iterdir()) == []


def test_a_micro_batch_killed_mid_commit_is_settled_by_recover(fake_controller, tmp_path, monkeypatch, capsys):
    """The committing writer (not the tasks') is killed while publishing: the record, named after the tasks'
    run, and their private root are what `pinot-sink recover` finds and settles; a replay is then exact."""
    import os
    import subprocess
    import sys

    from pinot_sink.cli import main
    from pinot_sink.controller import ControllerClient
    from pinot_sink.storage.staging import OWNER_FILE, process_identity

    class Crash(BaseException):
        pass

    fake_controller.add_table(SCHEMA, CONFIG)
    tasks = stream_job(url=fake_controller.url)
    report = write_partition(tasks, [rows(0, 50)], partition_id=0, task_attempt_id=0, query_id="q", batch_id=0)
    monkeypatch.setattr(ControllerClient, "end_replace", lambda *a, **k: (_ for _ in ()).throw(Crash()))
    monkeypatch.setattr("pinot_sink.commit.remove_tree", lambda *a, **k: True)  # killed: no finally runs
    monkeypatch.setattr("pinot_sink.commit.release_private_stage_root", lambda job, run=None: None)
    with pytest.raises(Crash):
        PinotStreamWriter(stream_job(url=fake_controller.url)).commit([PinotCommitMessage(report)], 0)
    monkeypatch.undo()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    root = Path(local_path(tasks.stage_root))
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    for folder in [Path(r) for r in private_stage_roots("events")]:  # the driver is gone
        (folder / OWNER_FILE).write_text(process_identity(os.getpid()).replace(str(os.getpid()), str(dead.pid), 1))

    def recover(*args) -> str:
        capsys.readouterr()
        assert main(["recover", "--table", "events", "--min-age", "0", "--url", fake_controller.url, *args]) == 0
        return capsys.readouterr().out

    listed = recover()
    assert f"staging folder {root}" in listed and "lineage entry" in listed
    recover("--apply")
    assert fake_controller.live_segments("events") == [] and not root.exists()
    replay = stream_job(url=fake_controller.url)
    again = write_partition(replay, [rows(0, 50)], partition_id=0, task_attempt_id=0, query_id="q", batch_id=0)
    PinotStreamWriter(stream_job(url=fake_controller.url)).commit([PinotCommitMessage(again)], 0)
    assert controller_ids(fake_controller, tmp_path) == list(range(50))


def test_tasks_of_one_micro_batch_reporting_two_runs_are_refused_without_credentials(tmp_path):
    """A micro-batch's tasks come from one writer: reports of two runs are refused before anything is
    committed, and the message names the runs with their staging roots' credentials redacted."""
    from pinot_sink.reports import TaskReport
    from type_mapping.errors import PinotSinkError

    job = stream_job(**options(out=tmp_path / "out"))
    reports = [TaskReport(0, 0, run_tag="rmx1", stage_root="sftp://user:hunter2@host/a", query_id="q", batch_id=3),
               TaskReport(1, 0, run_tag="rmx2", stage_root="sftp://user:hunter2@host/b", query_id="q", batch_id=3)]
    with pytest.raises(PinotSinkError, match=r"micro-batch 3 report different runs") as info:
        job.run_of("q", 3, reports)
    assert "hunter2" not in str(info.value) and "rmx1" in str(info.value)
