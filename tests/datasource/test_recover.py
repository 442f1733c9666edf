"""Recovery after a driver crash at each commit phase, Spark-free (issue 18, 7.): `pinot-sink recover` lists what
was left, `--apply` settles it, and a rerun of the write id makes every row exactly once. A crash is a
``BaseException`` raised inside the commit at that phase: nothing after it runs (no revert, no abort), as when
the driver is killed. (The real-process kill is tests/datasource/test_driver_kill.py.)"""
from __future__ import annotations

import json

import pytest

from pinot_sink.cli import main
from pinot_sink.commit import commit_job
from pinot_sink.controller import ControllerClient
from pinot_sink.segment import read_segment
from pinot_sink.storage.stores import DirectoryStore

from .test_commit import ids_in_controller, ids_in_directory, job, run_tasks, table  # noqa: F401 (fixture)


class Crash(BaseException):
    """The driver dies here."""


def recover(capsys, *args) -> str:
    capsys.readouterr()
    assert main(["recover", "--table", "events", *args]) == 0
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
