"""A write's report is true (issue 18): the commit's outcome is read from the controller's record (the lineage
entry) or, embedded, from the manifest, never guessed from a missing or unclear answer.

Spark-free, in the style of ``test_commit.py``: task attempts by hand, the loopback controller's fault knobs.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinot_sink.commit import CommitError, abort_job, commit_job

from .test_commit import ids_in_controller, job, run_tasks, table  # noqa: F401 (fixture)

END = "/segments/events/endReplaceSegments"
START = "/segments/events/startReplaceSegments"
REVERT = "/segments/events/revertReplaceSegments"


def lineage_states(controller) -> list[str]:
    return sorted(e.state for e in controller.tables["events"].lineage.values())


def manifest(out: Path, the_job) -> dict:
    return json.loads((out / "events" / "_manifests" / f"{the_job.run.folder}.json").read_text())


# --- the outcome is read back after a lost or unclear answer ----------------------------------------------------


def test_an_end_applied_whose_answer_is_lost_then_an_outage_is_reported_as_committed(tmp_path, table):
    """Issue 18, 1.: the end was applied, its answer lost, the controller then unreachable for longer than the
    end's retries: the job said "REVERT FAILED ... left in progress" while the rows were live."""
    the_job = job(url=table.url, out=tmp_path, **{"retry.max-attempts": 3, "retry.max-elapsed": "20s"})
    reports = run_tasks(the_job, [(0, 300), (300, 500)])
    table.lose_response_next(1, method="POST", path=END, then_outage_s=1.5)
    result = commit_job(the_job, reports)
    assert result.rows == 500 and ids_in_controller(table, tmp_path) == list(range(500))
    assert lineage_states(table) == ["COMPLETED"] and manifest(tmp_path, the_job)["status"] == "committed"


def test_an_outcome_that_cannot_be_learned_says_the_write_may_have_been_committed(tmp_path, table):
    the_job = job(url=table.url, out=tmp_path, **{"retry.max-attempts": 3, "retry.max-elapsed": "1s"})
    reports = run_tasks(the_job, [(0, 400)])
    table.lose_response_next(1, method="POST", path=END, then_outage_s=3)
    with pytest.raises(CommitError) as info:
        commit_job(the_job, reports)
    (entry,) = table.tables["events"].lineage
    message = str(info.value)
    assert "MAY HAVE BEEN COMMITTED" in message and entry in message and f"write.id={the_job.run.write_id}" in message
    assert abort_job(the_job, reports) == []  # Spark aborts after a failed commit: the record stays `unknown`
    document = manifest(tmp_path, the_job)
    assert document["status"] == "unknown" and document["lineage_id"] == entry
    # The rerun the message names makes it exactly once, whatever the first run's outcome was.
    table.outage(0)
    rerun = job(url=table.url, out=tmp_path / "again", **{"write.id": the_job.run.write_id})
    commit_job(rerun, run_tasks(rerun, [(0, 400)]))
    assert ids_in_controller(table, tmp_path) == list(range(400))


def test_an_end_answered_200_with_an_error_body_and_not_applied_is_finished(tmp_path, table):
    """Issue 18, 2.: the job reported success while the entry stayed IN_PROGRESS and no query saw the rows."""
    the_job = job(url=table.url, out=tmp_path)
    reports = run_tasks(the_job, [(0, 300)])
    table.error_body_next(1, method="POST", path=END)
    result = commit_job(the_job, reports)
    assert result.rows == 300 and ids_in_controller(table, tmp_path) == list(range(300))
    assert lineage_states(table) == ["COMPLETED"]


def test_an_end_that_is_never_applied_is_reverted_and_the_write_fails(tmp_path, table):
    first = job(url=table.url, out=tmp_path / "s0")
    commit_job(first, run_tasks(first, [(0, 100)]))
    the_job = job(url=table.url, out=tmp_path, overwrite=True)
    reports = run_tasks(the_job, [(500, 800)])
    table.error_body_next(10, method="POST", path=END)
    with pytest.raises(CommitError, match="the table is as it was"):
        commit_job(the_job, reports)
    assert ids_in_controller(table, tmp_path) == list(range(100))
    assert lineage_states(table) == ["COMPLETED", "REVERTED"]


# --- only committed work is ever pushed --------------------------------------------------------------------------


def emptied(controller):
    """The test controller with no segment, lineage or pending fault: a fresh table to push a folder into."""
    controller.tables["events"].segments.clear()
    controller.tables["events"].lineage.clear()
    controller._faults.clear()
    controller.outage(0)
    return controller


def push_folder(controller, folder: Path) -> int:
    from pinot_sink.cli import main

    return main(["push", str(folder), "--url", controller.url, "--table", "events", "--retries", "2",
                 "--retry-time", "10"])


@pytest.mark.parametrize("mode", ["embedded", "controller"])
def test_push_later_never_republishes_a_dead_runs_staging(tmp_path, table, mode):
    """Issue 18, 3.: `pinot-sink push DIR` walked into `_staging/` and published a killed run's tarballs."""
    url = table.url if mode == "controller" else None
    out = tmp_path / "out"
    done = job(url=url, out=out)
    commit_job(done, run_tasks(done, [(0, 300)]))
    dead = job(url=url, out=out)
    run_tasks(dead, [(300, 700)])  # staged; the driver died before its commit
    assert list((out / "events" / "_staging").rglob("*.tar.gz"))
    assert push_folder(emptied(table), out / "events") == 0
    assert ids_in_controller(table, tmp_path) == list(range(300))


def test_a_failed_metadata_mode_write_removes_the_tarballs_it_copied_into_output_uri(tmp_path, table):
    """Issue 18, 4.: the failed write's tarballs stayed in `<output-uri>/<table>/` and a push published them."""
    out = tmp_path / "out"
    done = job(url=table.url, out=out, **{"push-mode": "metadata"})
    commit_job(done, run_tasks(done, [(0, 300)]))
    failed = job(url=table.url, out=out, **{"push-mode": "metadata", "retry.max-attempts": 2, "push-parallelism": 1,
                                            "push.batch-size": 1})  # one request per segment (batches: test_commit_scale)
    reports = run_tasks(failed, [(300, 700), (700, 1000)])
    table.fail_next(10, status=500, method="POST", path="/v2/segments", after=1)
    with pytest.raises(CommitError, match="the table is as it was"):
        commit_job(failed, reports)
    abort_job(failed, reports)
    names = {p.name[: -len(".tar.gz")] for p in (out / "events").glob("*.tar.gz")}
    assert not names & {s.name for r in reports for s in r.segments} and len(names) == 2
    assert push_folder(emptied(table), out / "events") == 0
    assert ids_in_controller(table, tmp_path) == list(range(300))


def commit_with_an_unknown_outcome(table, out):
    """A metadata-mode write of rows 0..399 whose end is lost and then meets an outage: its commit says so.
    Returns the write's job."""
    the_job = job(url=table.url, out=out, **{"push-mode": "metadata", "retry.max-attempts": 2,
                                             "retry.max-elapsed": "1s"})
    reports = run_tasks(the_job, [(0, 400)])
    table.lose_response_next(1, method="POST", path=END, then_outage_s=2.5)
    with pytest.raises(CommitError, match="MAY HAVE BEEN COMMITTED"):
        commit_job(the_job, reports)
    return the_job


def test_push_skips_the_tarballs_of_a_write_whose_outcome_is_unknown(tmp_path, table):
    out = tmp_path / "out"
    commit_with_an_unknown_outcome(table, out)
    assert list((out / "events").glob("*.tar.gz"))  # kept: the controller may serve them from there
    emptied(table)
    from pinot_sink.cli import main
    with pytest.raises(SystemExit, match="no segment tarballs"):
        main(["push", str(out / "events"), "--url", table.url, "--table", "events"])


def test_a_start_applied_whose_answer_is_lost_then_an_outage_carries_on_with_its_entry(tmp_path, table):
    the_job = job(url=table.url, out=tmp_path, **{"retry.max-attempts": 2, "retry.max-elapsed": "20s"})
    reports = run_tasks(the_job, [(0, 300)])
    table.lose_response_next(1, method="POST", path=START, then_outage_s=1.0)
    result = commit_job(the_job, reports)
    assert result.rows == 300 and ids_in_controller(table, tmp_path) == list(range(300))
    assert lineage_states(table) == ["COMPLETED"] and result.lineage_id in table.tables["events"].lineage


def test_a_rerun_removes_the_staging_left_by_its_write_ids_ended_runs_only(tmp_path, table):
    staging = tmp_path / "events" / "_staging"
    ended = job(url=table.url, out=tmp_path, **{"write.id": "day"})
    reports = run_tasks(ended, [(0, 100)])
    abort_job(ended, reports)
    run_tasks(ended, [(0, 100)], attempt=1)  # a straggler of the ended run recreates its staging
    running = job(url=table.url, out=tmp_path, **{"write.id": "day"})
    run_tasks(running, [(0, 100)])  # no manifest: it may still be running
    other = job(url=table.url, out=tmp_path, **{"write.id": "other"})
    abort_job(other, run_tasks(other, [(0, 100)]))
    run_tasks(other, [(0, 100)], attempt=1)
    assert {p.name for p in staging.iterdir()} == {ended.run.folder, running.run.folder, other.run.folder}
    rerun = job(url=table.url, out=tmp_path, **{"write.id": "day"})
    commit_job(rerun, run_tasks(rerun, [(0, 100)]))
    assert {p.name for p in staging.iterdir()} == {running.run.folder, other.run.folder}


def test_recover_settles_an_unknown_outcome_from_the_lineage_entry(tmp_path, table, capsys):
    from pinot_sink.cli import main

    out = tmp_path / "out"
    the_job = commit_with_an_unknown_outcome(table, out)
    table.outage(0)
    assert main(["recover", "--table", "events", "--url", table.url, "--output-uri", str(out), "--apply",
                 "--min-age", "0"]) == 0
    assert "committed (its lineage entry is COMPLETED)" in capsys.readouterr().out
    assert manifest(out, the_job)["status"] == "committed"
    from pinot_sink.cli.push_cmd import find_tarballs

    assert {p.name[: -len(".tar.gz")] for p in find_tarballs([str(out / "events")])} == set(table.live_segments())
