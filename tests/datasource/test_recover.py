"""Recovery after a driver crash at each commit phase, Spark-free (issue 18, 7.): `pinot-sink recover` lists what
was left, `--apply` settles it, and a rerun of the write id makes every row exactly once. A crash is a
``BaseException`` raised inside the commit at that phase: nothing after it runs (no revert, no abort), as when
the driver is killed. (The real-process kill is tests/datasource/test_driver_kill.py.)"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pinot_sink.cli import main
from pinot_sink.commit import commit_job
from pinot_sink.controller import ControllerClient
from pinot_sink.segment import read_segment
from pinot_sink.storage.staging import OWNER_FILE, process_identity
from pinot_sink.storage.stores import DirectoryStore

from .test_commit import ids_in_controller, ids_in_directory, job, run_tasks, table  # noqa: F401 (fixture)


class Crash(BaseException):
    """The driver dies here."""


def recover(capsys, *args) -> str:
    """``pinot-sink recover`` as after a crash, when no write of the table runs (``--min-age 0``: the crash's
    leftovers are seconds old; the default leaves them, see test_a_young_leftover_...)."""
    capsys.readouterr()
    assert main(["recover", "--table", "events", "--min-age", "0", *args]) == 0
    return capsys.readouterr().out


def manifest_status(out, the_job) -> str:
    return json.loads((out / "events" / "_manifests" / f"{the_job.run.folder}.json").read_text())["status"]


def test_an_embedded_crash_mid_publish_is_rolled_back_and_a_rerun_is_exact(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    first = job(out=out, **{"write.id": "day"})
    commit_job(first, run_tasks(first, [(0, 200)]))
    rerun = job(out=out, **{"write.id": "day"})
    reports = run_tasks(rerun, [(0, 300), (300, 600)])
    import pinot_sink.commit as commit

    real = commit.publish_into_directory

    def one_file_then_crash(root, table, staged, options=None):
        name = sorted(staged)[0]
        real(root, table, {name: staged[name]}, options)
        raise Crash()

    monkeypatch.setattr(commit, "publish_into_directory", one_file_then_crash)
    with pytest.raises(Crash):
        commit_job(rerun, reports)
    monkeypatch.undo()
    assert len(ids_in_directory(out)) == 200 + 250  # the partial publish doubles rows
    listed = recover(capsys, "--output-uri", str(out))
    assert "unfinished publish" in listed and "publishing (embedded)" in listed
    assert "rolled back (1 file(s) deleted)" in recover(capsys, "--output-uri", str(out), "--apply")
    assert ids_in_directory(out) == list(range(200)) and manifest_status(out, rerun) == "aborted"
    assert "nothing left behind" in recover(capsys, "--output-uri", str(out))
    again = job(out=out, **{"write.id": "day"})
    commit_job(again, run_tasks(again, [(0, 600)]))
    assert ids_in_directory(out) == list(range(600))


def test_an_embedded_crash_after_every_file_moved_is_finished(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    first = job(out=out)
    commit_job(first, run_tasks(first, [(0, 200)]))
    overwrite = job(out=out, overwrite=True)
    reports = run_tasks(overwrite, [(1000, 1300)])

    def crash(self, names):
        raise Crash()

    monkeypatch.setattr(DirectoryStore, "delete", crash)
    with pytest.raises(Crash):
        commit_job(overwrite, reports)
    monkeypatch.undo()
    assert len(ids_in_directory(out)) == 500
    assert "finished" in recover(capsys, "--output-uri", str(out), "--apply")
    assert ids_in_directory(out) == list(range(1000, 1300)) and manifest_status(out, overwrite) == "committed"


def test_a_crash_between_start_and_end_is_reverted_by_recover(tmp_path, table, monkeypatch, capsys):
    out = tmp_path / "out"
    first = job(url=table.url, out=out, **{"write.id": "day"})
    commit_job(first, run_tasks(first, [(0, 200)]))
    rerun = job(url=table.url, out=out, **{"write.id": "day", "push-mode": "metadata"})
    reports = run_tasks(rerun, [(0, 500)])

    def crash(*args, **kwargs):
        raise Crash()

    monkeypatch.setattr(ControllerClient, "end_replace", crash)
    with pytest.raises(Crash):
        commit_job(rerun, reports)
    monkeypatch.undo()
    assert ids_in_controller(table, tmp_path) == list(range(200))  # hidden while IN_PROGRESS
    listed = recover(capsys, "--url", table.url, "--output-uri", str(out))
    assert "lineage entry" in listed and "IN_PROGRESS" in listed and "publishing (controller)" in listed
    settled = recover(capsys, "--url", table.url, "--output-uri", str(out), "--apply")
    assert "-> reverted" in settled and "rolled back" in settled
    assert sorted(e.state for e in table.tables["events"].lineage.values()) == ["COMPLETED", "REVERTED"]
    assert not any(p.name.startswith(reports[0].segments[0].name) for p in (out / "events").glob("*.tar.gz"))
    again = job(url=table.url, out=out, **{"write.id": "day"})
    commit_job(again, run_tasks(again, [(0, 500)]))
    assert ids_in_controller(table, tmp_path) == list(range(500))


def crash_at(monkeypatch, phase: str) -> None:
    """Make the in-process commit die at ``phase`` (the phases of kill_driver.py)."""
    import pinot_sink.commit as commit
    from pinot_sink.controller import ConsistentPush

    def crash(*args, **kwargs):
        raise Crash()

    real = commit.publish_into_directory

    def one_then_crash(root, table, staged, options=None):
        name = sorted(staged)[0]
        real(root, table, {name: staged[name]}, options)
        raise Crash()

    target = {"started": (ConsistentPush, "upload", crash), "uploaded": (ControllerClient, "end_replace", crash),
              "ended": (commit, "_yield_to_a_concurrent_run", crash),
              "publishing": (commit, "publish_into_directory", one_then_crash),
              "moved": (DirectoryStore, "delete", crash), "deleted": (commit, "write_committed", crash)}[phase]
    monkeypatch.setattr(*target)


def died_between_start_and_end(tmp_path, table, monkeypatch):
    """A metadata-push write whose driver died once every segment was uploaded: its lineage entry stays
    IN_PROGRESS, its manifest ``publishing``. Returns (output folder, job, task reports)."""
    out = tmp_path / "out"
    the_job = job(url=table.url, out=out, **{"push-mode": "metadata"})
    reports = run_tasks(the_job, [(0, 300)])
    crash_at(monkeypatch, "uploaded")
    with pytest.raises(Crash):
        commit_job(the_job, reports)
    monkeypatch.undo()
    return out, the_job, reports


@pytest.mark.parametrize("mode,phase", [("controller", p) for p in ("staged", "started", "uploaded", "ended")]
                         + [("embedded", p) for p in ("staged", "publishing", "moved", "deleted")])
@pytest.mark.parametrize("push_mode", ["tar", "metadata"])
def test_a_crash_at_every_phase_then_recover_and_a_rerun_is_exactly_once(tmp_path, table, monkeypatch, capsys,
                                                                          mode, phase, push_mode):
    if mode == "embedded" and push_mode != "tar":
        pytest.skip("push modes are a controller's")
    url = table.url if mode == "controller" else None
    out = tmp_path / "out"
    options = {"write.id": "day", **({"push-mode": push_mode} if url else {})}

    def ids() -> list[int]:
        if url and push_mode == "metadata":  # the controller serves them from output-uri
            return sorted(i for name in table.live_segments("events")
                          for i in read_segment(str(out / "events" / f"{name}.tar.gz")).table.column("id").to_pylist())
        return ids_in_controller(table, tmp_path) if url else ids_in_directory(out)

    first = job(url=url, out=out, **options)
    commit_job(first, run_tasks(first, [(0, 400)]))
    killed = job(url=url, out=out, **options)
    reports = run_tasks(killed, [(0, 300), (300, 400)])
    if phase != "staged":
        crash_at(monkeypatch, phase)
        with pytest.raises(Crash):
            commit_job(killed, reports)
        monkeypatch.undo()
    recover(capsys, *(["--url", url] if url else []), "--output-uri", str(out), "--apply")
    assert ids() == list(range(400))  # one copy: the first run's or the killed run's
    assert "nothing left behind" in recover(capsys, *(["--url", url] if url else []), "--output-uri", str(out))
    rerun = job(url=url, out=out, **options)
    commit_job(rerun, run_tasks(rerun, [(0, 200), (200, 400)]))
    assert ids() == list(range(400))
    if url and push_mode == "metadata":  # what a later `pinot-sink push` of the folder would publish
        from pinot_sink.cli.push_cmd import find_tarballs

        pushed = {p.name[: -len(".tar.gz")] for p in find_tarballs([str(out / "events")])}
        assert pushed == set(table.live_segments("events"))


# --- a running write's leftovers look like a dead one's: recover tells them apart by age and record ---------------


def test_a_young_leftover_is_left_by_default_and_settled_with_min_age_0(tmp_path, table, monkeypatch, capsys):
    """A commit that died between start and end a moment ago looks exactly like one that is uploading now:
    by default recover lists it as possibly running and --apply leaves it (exit 1, saying how to settle it)."""
    out, _, _ = died_between_start_and_end(tmp_path, table, monkeypatch)
    args = ["recover", "--table", "events", "--url", table.url, "--output-uri", str(out)]
    capsys.readouterr()
    assert main(args) == 0
    assert capsys.readouterr().out.count("may be a running write's: it changed") == 2  # the entry, the manifest
    assert main([*args, "--apply"]) == 1
    printed = capsys.readouterr().out
    assert printed.count("left as it is") == 2 and "--min-age 0" in printed
    assert [e.state for e in table.tables["events"].lineage.values()] == ["IN_PROGRESS"]
    assert main([*args, "--apply", "--min-age", "0"]) == 0
    assert [e.state for e in table.tables["events"].lineage.values()] == ["REVERTED"]


def test_a_leftover_older_than_min_age_or_of_an_ended_run_is_settled(tmp_path, monkeypatch, capsys):
    """Age: a staging folder whose files last changed an hour ago is settled under the default --min-age.
    Record: a fresh staging folder of a run whose manifest says `aborted` cannot be a running write's."""
    import os
    import time

    from pinot_sink.commit import abort_job

    out = tmp_path / "out"
    old = job(out=out)
    run_tasks(old, [(0, 100)])  # staged, never committed: the driver died
    hour_ago = time.time() - 3600
    for path in [*(out / "events" / "_staging").rglob("*"), *(out / "events" / "_staging").glob("*")]:
        os.utime(path, (hour_ago, hour_ago))
    ended = job(out=out)
    reports = run_tasks(ended, [(100, 200)])
    abort_job(ended, reports)
    (out / "events" / "_staging" / ended.run.folder).mkdir(parents=True)  # a straggler recreated it after the abort
    young = job(out=out)
    run_tasks(young, [(200, 300)])  # still running, for all recover can tell
    capsys.readouterr()
    assert main(["recover", "--table", "events", "--output-uri", str(out), "--apply"]) == 1
    printed = capsys.readouterr().out
    settled = {line.split("_staging/")[1].split(":")[0]: line.split(" -> ", 1)[1]
               for line in printed.splitlines() if "staging folder" in line}
    assert settled[old.run.folder] == "deleted" and settled[ended.run.folder] == "deleted"
    assert settled[young.run.folder].startswith("left as it is")
    assert sorted(p.name for p in (out / "events" / "_staging").iterdir()) == [young.run.folder]


def test_recover_during_a_running_commit_leaves_it_to_finish(tmp_path, table, monkeypatch, capsys):
    """The guarantee the age guard is for: `pinot-sink recover --apply` run while a write is between start and
    end (uploading) reverts nothing of it, and the write commits every row."""
    import threading

    from pinot_sink.controller import ConsistentPush

    out = tmp_path / "out"
    the_job = job(url=table.url, out=out)
    reports = run_tasks(the_job, [(0, 300)])
    uploading, go_on = threading.Event(), threading.Event()
    real = ConsistentPush.upload

    def slow_upload(self, *args, **kwargs):
        uploading.set()
        assert go_on.wait(30)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ConsistentPush, "upload", slow_upload)
    results = []
    commit = threading.Thread(target=lambda: results.append(commit_job(the_job, reports)))
    commit.start()
    assert uploading.wait(30)
    assert main(["recover", "--table", "events", "--url", table.url, "--output-uri", str(out), "--apply"]) == 1
    assert "left as it is" in capsys.readouterr().out
    go_on.set()
    commit.join(60)
    assert results and results[0].rows == 300 and ids_in_controller(table, tmp_path) == list(range(300))


def test_a_crash_mid_commit_without_output_uri_leaves_a_private_staging_folder_that_recover_names(
        tmp_path, table, monkeypatch, capsys):
    """Issue 32 item 6: with a controller and no output-uri the tasks stage in a private folder of the driver's
    temp folder; a driver killed during the commit (a Ctrl-C takes Spark's committer process down with the
    JVM: no clean-up runs) leaves it with its tarballs. `recover` lists it and --apply deletes it (and reverts
    the lineage entry), so nothing is left."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    the_job = job(url=table.url)
    reports = run_tasks(the_job, [(0, 300)])
    root = tmp_path / next(p.name for p in tmp_path.iterdir() if p.name.startswith("pinot-sink-staging-events-"))
    assert any(root.rglob("*.tar.gz"))

    def crash(*args, **kwargs):
        raise Crash()

    monkeypatch.setattr(ControllerClient, "end_replace", crash)
    monkeypatch.setattr("pinot_sink.commit.remove_tree", lambda *a, **k: True)  # killed: no finally runs
    monkeypatch.setattr("pinot_sink.commit.release_private_stage_root", lambda job, run=None: None)
    with pytest.raises(Crash):
        commit_job(the_job, reports)
    monkeypatch.undo()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    # the driver that made it is this test's process, still running: its folder is never taken for a leftover
    assert f"staging folder {root}" not in recover(capsys, "--url", table.url)
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    (root / OWNER_FILE).write_text(process_identity(os.getpid()).replace(str(os.getpid()), str(dead.pid), 1))
    listed = recover(capsys, "--url", table.url)
    assert f"staging folder {root}: a write's private staging folder on this machine (1 run(s)" in listed
    assert "lineage entry" in listed
    settled = recover(capsys, "--url", table.url, "--apply")
    assert "deleted" in settled and "reverted" in settled and not root.exists()
    assert "nothing left behind" in recover(capsys, "--url", table.url)


def test_a_private_root_made_in_a_spark_python_worker_is_owned_by_the_driver_jvm_too(tmp_path):
    """`df.write.format("pinot")` prepares its write in a Python worker of the driver's JVM, which Spark stops
    after a minute idle while the tasks still run: the root's owners are that worker and the JVM (the first
    `java` ancestor), so recover leaves the root while either lives (the review found it deleted mid-write)."""
    java = tmp_path / "java"  # a process named java, as the Spark driver's JVM is
    java.symlink_to(os.path.realpath(sys.executable))
    probe = ("import json, os; from pinot_sink.storage.staging import owner_pids; "
             "print(json.dumps([owner_pids(), os.getppid()]))")
    spawn = f"import subprocess, sys; subprocess.run([{sys.executable!r}, '-c', {probe!r}], check=True)"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([str(java), "-c", spawn], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    owners, parent = json.loads(done.stdout)
    assert owners[1:] == [parent]  # the worker itself, then its java parent


def test_a_root_is_running_while_any_of_its_owners_lives(tmp_path):
    from pinot_sink.storage.staging import owner_running

    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / OWNER_FILE).write_text(f"{dead.pid}\n{process_identity(live.pid)}\n")
        assert owner_running(str(tmp_path))  # the worker that made it is gone; the driver's JVM is not
    finally:
        live.kill()
        live.wait()
    assert not owner_running(str(tmp_path))
