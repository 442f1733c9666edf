"""A driver killed at every phase of a controller commit, in every push mode, then `pinot-sink recover --apply`,
then `pinot-sink push` of the output folder into an empty table: the folder and the table hold the same rows,
and the table holds every row once or is as it was (issue 31, 5.).

The kill is real for the committing process: the commit runs in a forked child of the test, which SIGKILLs
itself at the phase (kill_driver.py's phases and ``die``) (no ``finally``, no revert, no abort, no clean-up), while the test controller keeps
serving from the parent. Forking costs milliseconds, so every phase of every mode runs in the normal suite;
test_driver_kill.py SIGKILLs a real Spark driver for the slow few."""
from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from fake_controller import FakeController, _fetch
from pinot_sink.cli import main
from pinot_sink.cli.push_cmd import find_tarballs
from pinot_sink.commit import CommitError, abort_job, commit_job
from pinot_sink.segment import read_segment
from pinot_sink.task import write_partition

from . import kill_driver
from .test_commit import CONFIG, SCHEMA, batches, job, run_tasks

# Phase -> what the child does there, in the commit's order. "keeping" only exists in push-mode tar (the copy
# of the tarballs into output-uri after the entry COMPLETED).
PHASES = ["staged", "started", "one uploaded", "uploaded", "ended", "keeping", "cleaning", "recorded"]
COMMITTED_FROM = PHASES.index("ended")  # from here on the controller's entry is COMPLETED


# The phases kill_driver.py kills a real driver at, by their names there.
DRIVER_PHASES = {"started": "started", "uploaded": "uploaded", "ended": "ended", "keeping": "publishing",
                 "recorded": "deleted"}


def arm(phase: str) -> None:
    """In the child: make the commit die (SIGKILL, as kill_driver.py does) at ``phase``."""
    import pinot_sink.commit as commit
    from pinot_sink.controller import ControllerClient

    if phase in DRIVER_PHASES:
        # started: the entry open, nothing uploaded; uploaded: every segment uploaded (hidden), no end sent;
        # ended: the entry COMPLETED, no manifest, copy or clean-up (the case); keeping (tar): the
        # `publishing` record written, one tarball moved into output-uri; recorded: the manifest not `committed`
        kill_driver.arm(DRIVER_PHASES[phase])
    elif phase == "one uploaded":  # one segment copied (uri / metadata) and uploaded, the next one not
        for method in ("post_segment_file", "post_segment_uri"):
            real = getattr(ControllerClient, method)

            def once_then_die(self, *args, _real=real, **kwargs):
                if getattr(ControllerClient, "_uploads", 0):
                    kill_driver.die()
                ControllerClient._uploads = 1
                return _real(self, *args, **kwargs)

            setattr(ControllerClient, method, once_then_die)
    elif phase == "cleaning":  # every file in place, the staging folder not removed, the manifest not `committed`
        commit.remove_tree = kill_driver.die


def commit_killed_at(phase: str, the_job, reports) -> None:
    """The commit, in a forked child that dies at ``phase`` (the parent's test controller serves it)."""
    if phase == "staged":
        return  # every task staged; the driver died before its commit
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's coverage is not collected
        try:
            arm(phase)
            commit_job(the_job, reports)
        finally:
            os._exit(0)  # not killed: the phase never came
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(child, 9)
            os.waitpid(child, 0)
            pytest.fail(f"the commit never reached phase {phase!r} within 60 s")
        time.sleep(0.02)
    assert os.waitstatus_to_exitcode(status) == -signal.SIGKILL, f"the commit never reached phase {phase!r}"


def rows_of(paths) -> list[int]:
    return sorted(i for p in paths for i in read_segment(str(p)).table.column("id").to_pylist())


def table_rows(controller: FakeController, tmp_path: Path) -> list[int]:
    """The ids a query of the controller's table sees (a metadata push's segments are served from its URI)."""
    paths = []
    for name in controller.live_segments("events"):
        stored = controller.segments("events")[name]
        path = tmp_path / "served" / f"{name}.tar.gz"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(stored.tar_bytes if stored.upload_type != "METADATA" else _fetch(stored.download_uri))
        paths.append(path)
    return rows_of(paths)


def recover(capsys, url: str, out: str) -> str:
    capsys.readouterr()
    code = main(["recover", "--table", "events", "--url", url, "--output-uri", out, "--apply", "--min-age", "0"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    return printed


# Every phase of every push mode for an overwrite (its replaced rows are what a wrong folder brings back) and, for
# the issue's own case, an append in push-mode tar; the other appends run with the slow tests (a second each).
CASES = [pytest.param(phase, mode, kind, marks=[pytest.mark.slow] if kind == "append" and mode != "tar" else [])
         for kind in ("overwrite", "append") for mode in ("tar", "metadata", "uri") for phase in PHASES
         if phase != "keeping" or mode == "tar"]  # only push-mode tar copies its tarballs after the commit


@pytest.mark.parametrize("phase,push_mode,kind", CASES)
def test_a_kill_at_every_phase_then_recover_then_push_of_the_folder(tmp_path, table, capsys, phase, push_mode, kind):
    # uri push: the controller fetches the DOWNLOAD_URI itself and refuses file: URIs, as Pinot does; local://
    # is the same disk through fsspec's other name (the remote-store code paths: copies, not renames).
    local = tmp_path / "out"
    out = f"local://{local}" if push_mode == "uri" else str(local)
    options = {"push-mode": push_mode}
    if push_mode == "metadata" and phase == "one uploaded":
        # one request per segment, so a segment can be uploaded and the next not (the other phases run with
        # the default batches through /segments/batchUpload; a failed batch: test_commit_scale.py)
        options["push.batch-size"] = 1
    first = job(url=table.url, out=out, **options)
    commit_job(first, run_tasks(first, [(0, 300)]))
    before = table_rows(table, tmp_path)
    killed = job(url=table.url, out=out, overwrite=kind == "overwrite", **options)
    new_rows = (1000, 1600) if kind == "overwrite" else (300, 900)
    reports = run_tasks(killed, [(new_rows[0], new_rows[0] + 300), (new_rows[0] + 300, new_rows[1])])
    commit_killed_at(phase, killed, reports)

    recover(capsys, table.url, out)
    after = list(range(*new_rows)) if kind == "overwrite" else list(range(new_rows[1]))
    expected = after if PHASES.index(phase) >= COMMITTED_FROM else before
    assert table_rows(table, tmp_path) == expected  # every row once, or the table as it was
    assert "nothing left behind" in recover(capsys, table.url, out)
    assert not [e for e in table.tables["events"].lineage.values() if e.state == "IN_PROGRESS"]
    record = local / "events" / "_manifests" / f"{killed.run.folder}.json"
    if PHASES.index(phase) >= COMMITTED_FROM:  # the run's record says what it published, as its commit would have
        document = json.loads(record.read_text())
        assert document["status"] == "committed"
        assert sorted(s["name"] for s in document["segments"]) == sorted(s.name for r in reports for s in r.segments)

    # What `pinot-sink push` of the folder would publish is what the table shows: names and rows.
    folder = local / "events"
    pushed = find_tarballs([str(folder)])
    assert {p.name[: -len(".tar.gz")] for p in pushed} == set(table.live_segments("events"))
    assert rows_of(pushed) == expected
    # ... and it does: pushed into an empty table of another controller (the table lost, rebuilt from the folder).
    other = FakeController().start()
    try:
        other.add_table(SCHEMA, CONFIG)
        assert main(["push", str(folder), "--url", other.url, "--table", "events", "--retries", "2"]) == 0
        assert table_rows(other, tmp_path / "other") == expected
    finally:
        other.stop()


def folder_rows(out: Path) -> list[int]:
    """The ids `pinot-sink push` of the folder would publish."""
    return rows_of(find_tarballs([str(out / "events")]))


def test_without_the_controller_recover_keeps_a_staging_folder_that_may_be_committed(tmp_path, table, capsys):
    """Only the controller can say that a push-mode tar run killed after its end committed: recover without --url
    deletes nothing of it, says why (exit 1), and with --url finishes its publish."""
    out = tmp_path / "out"
    first = job(url=table.url, out=out)
    commit_job(first, run_tasks(first, [(0, 300)]))
    killed = job(url=table.url, out=out, overwrite=True)
    commit_killed_at("ended", killed, run_tasks(killed, [(1000, 1300)]))
    capsys.readouterr()
    assert main(["recover", "--table", "events", "--output-uri", str(out), "--apply", "--min-age", "0"]) == 1
    assert "COULD NOT SETTLE IT without the controller" in capsys.readouterr().out
    assert (out / "events" / "_staging" / killed.run.folder).is_dir()
    assert "publish finished, 2 staged tarball(s) moved" in recover(capsys, table.url, str(out))
    assert folder_rows(out) == table_rows(table, tmp_path) == list(range(1000, 1300))


def test_the_staged_copy_with_the_controllers_crc_is_the_one_published(tmp_path, table, capsys):
    """Two attempts of a partition staged the same segment name with other rows (the first saw its input end
    early): the committed one is the copy whose CRC the controller records."""
    out = tmp_path / "out"
    killed = job(url=table.url, out=out)
    write_partition(killed, batches(0, 130), partition_id=0, attempt=0, task_attempt_id=7)  # partial, lost
    reports = [write_partition(killed, batches(0, 200), partition_id=0, attempt=1, task_attempt_id=8)]
    commit_killed_at("ended", killed, reports)
    recover(capsys, table.url, str(out))
    assert folder_rows(out) == table_rows(table, tmp_path) == list(range(200))


def test_an_unknown_outcome_in_push_mode_tar_gets_its_tarballs_from_the_controller(tmp_path, table, capsys):
    """The end applied, its answer lost, then an outage: the commit says MAY HAVE BEEN COMMITTED and removes its
    staging folder; the overwrite is live. Recover reads the COMPLETED entry and downloads its tarballs from
    the controller into output-uri, so the folder pushes the overwrite's rows, not the ones it replaced."""
    out = tmp_path / "out"
    first = job(url=table.url, out=out)
    commit_job(first, run_tasks(first, [(0, 300)]))
    the_job = job(url=table.url, out=out, overwrite=True, **{"retry.max-attempts": 2, "retry.max-elapsed": "1s"})
    reports = run_tasks(the_job, [(1000, 1400)])
    table.lose_response_next(1, method="POST", path="/segments/events/endReplaceSegments", then_outage_s=2.5)
    with pytest.raises(CommitError, match="MAY HAVE BEEN COMMITTED"):
        commit_job(the_job, reports)
    abort_job(the_job, reports)  # Spark's abort after the failed commit
    table.outage(0)
    assert not (out / "events" / "_staging" / the_job.run.folder).exists()
    assert "0 staged tarball(s) moved and 2 downloaded" in recover(capsys, table.url, str(out))
    assert folder_rows(out) == table_rows(table, tmp_path) == list(range(1000, 1400))


def test_recover_resumes_a_commit_that_timed_out_waiting_for_its_end(tmp_path, table, capsys):
    """Every endReplaceSegments and revert answered 503 (a controller busy bringing the segments online): the
    commit gives up saying MAY HAVE BEEN COMMITTED, its entry IN_PROGRESS with every segment uploaded. Recover
    ends it (issue 31, 2.: resumes the commit) rather than reverting it, and finishes its publish."""
    out = tmp_path / "out"
    first = job(url=table.url, out=out)
    commit_job(first, run_tasks(first, [(0, 300)]))
    the_job = job(url=table.url, out=out, overwrite=True, **{"retry.max-attempts": 2, "retry.max-elapsed": "2s"})
    reports = run_tasks(the_job, [(1000, 1400)])
    for step in ("endReplaceSegments", "revertReplaceSegments"):
        table.fail_next(100, 503, method="POST", path=f"/segments/events/{step}")
    with pytest.raises(CommitError, match="MAY HAVE BEEN COMMITTED"):
        commit_job(the_job, reports)
    with table._lock:  # the controller has caught up
        table._faults.clear()
    assert [e.state for e in table.tables["events"].lineage.values()] == ["COMPLETED", "IN_PROGRESS"]
    printed = recover(capsys, table.url, str(out))
    assert "resumed: ended, COMPLETED" in printed and "2 downloaded" in printed
    assert folder_rows(out) == table_rows(table, tmp_path) == list(range(1000, 1400))


def test_a_committed_writes_own_record_is_kept_when_recover_removes_its_staging(tmp_path, table, capsys,
                                                                             monkeypatch):
    """The commit could not remove its staging folder (logged; the write succeeded): recover deletes it and leaves
    the commit's own manifest (rows, bytes, timings) as it is."""
    import pinot_sink.commit as commit

    out = tmp_path / "out"
    the_job = job(url=table.url, out=out, overwrite=True)
    monkeypatch.setattr(commit, "remove_tree", lambda *args, **kwargs: False)
    commit_job(the_job, run_tasks(the_job, [(0, 300)]))
    monkeypatch.undo()
    record = out / "events" / "_manifests" / f"{the_job.run.folder}.json"
    before = record.read_text()
    assert "deleted" in recover(capsys, table.url, str(out))
    assert record.read_text() == before and not (out / "events" / "_staging" / the_job.run.folder).exists()
    assert folder_rows(out) == table_rows(table, tmp_path) == list(range(300))


@pytest.fixture
def table(fake_controller):
    fake_controller.add_table(SCHEMA, CONFIG)
    return fake_controller
