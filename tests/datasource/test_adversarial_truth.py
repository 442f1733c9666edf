"""The adversary of issue 18's guarantee: a write's report is true, push publishes only committed work, recover
never damages a committed write. Each test is a scenario a hostile network or a careful user can make; Spark-free
(task attempts by hand, the loopback controller's fault knobs), in the style of ``test_commit_truth.py``.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from pinot_sink.commit import CommitError, CommitOutcomeUnknown, abort_job, commit_job

from .test_commit import ids_in_controller, job, run_tasks, table  # noqa: F401 (fixture)
from .test_commit_truth import END, REVERT, emptied, lineage_states, manifest, push_folder
from .test_recover import Crash, crash_at, died_between_start_and_end

LINEAGE = "/segments/events/lineage"


def names_of(reports) -> list[str]:
    return sorted(s.name for r in reports for s in r.segments)


def recover(*args) -> int:
    from pinot_sink.cli import main

    return main(["recover", "--table", "events", "--min-age", "0", *args])  # after the failure: nothing runs


# --- the read-back itself answered 200 with an error body ---------------------------------------------------------


def test_a_lost_end_whose_read_back_answers_200_with_an_error_body_is_not_reported_as_undone(tmp_path, table):
    """The end is applied and its answer lost; the lineage GET then answers 200 ``{"code": 500, "error": ..}``.
    Read as "no such entry", the commit said "the table is as it was" while the rows were live (a rerun without
    write.id then doubles them)."""
    the_job = job(url=table.url, out=tmp_path, **{"retry.max-attempts": 2, "retry.max-elapsed": "5s"})
    reports = run_tasks(the_job, [(0, 300)])
    table.lose_response_next(1, method="POST", path=END)
    table.error_body_next(1, method="GET", path=LINEAGE)
    try:
        commit_job(the_job, reports)
    except CommitOutcomeUnknown:
        pass  # saying so is true too
    assert lineage_states(table) == ["COMPLETED"] and ids_in_controller(table, tmp_path) == list(range(300))
    assert manifest(tmp_path, the_job)["status"] in ("committed", "unknown")


def test_recover_does_not_roll_back_an_unknown_write_when_the_lineage_answer_is_an_error_body(tmp_path, table):
    out = tmp_path / "out"
    the_job = job(url=table.url, out=out, **{"push-mode": "metadata", "retry.max-attempts": 2,
                                             "retry.max-elapsed": "1s"})
    reports = run_tasks(the_job, [(0, 400)])
    table.lose_response_next(1, method="POST", path=END, then_outage_s=2.5)
    with pytest.raises(CommitOutcomeUnknown):
        commit_job(the_job, reports)
    table.outage(0)
    table.error_body_next(5, method="GET", path=LINEAGE)
    recover("--url", table.url, "--output-uri", str(out), "--apply", "--retries", "1")
    # The entry is COMPLETED and the controller serves these segments from output-uri (metadata push).
    assert {p.name[: -len(".tar.gz")] for p in (out / "events").glob("*.tar.gz")} == set(names_of(reports))
    assert manifest(out, the_job)["status"] in ("unknown", "committed")


# --- a withdrawal's revert answered 200 with an error body ------------------------------------------------------


def test_a_withdrawal_whose_revert_is_answered_200_but_not_applied_does_not_claim_it_reverted(tmp_path, table):
    """Two runs of one write.id commit at once; the later one finds the other's rows and withdraws, but its revert
    is answered 200 with an error body and not applied: it said "reverted (the table holds at most the other run's
    rows)" while both runs' rows were live, doubled, and the other run had reported success."""
    first = job(url=table.url, out=tmp_path / "a", **{"write.id": "day"})
    second = job(url=table.url, out=tmp_path / "b", **{"write.id": "day"})
    first_reports, second_reports = run_tasks(first, [(0, 200)]), run_tasks(second, [(0, 200)])
    hold = table.delay_upload(30, segment=names_of(second_reports)[0])
    outcome: dict = {}

    def commit_second():
        try:
            outcome["result"] = commit_job(second, second_reports)
        except CommitError as error:
            outcome["error"] = error

    thread = threading.Thread(target=commit_second)
    thread.start()
    assert hold.arrived.wait(20)  # the second run's entry is open, its upload held
    commit_job(first, first_reports)  # reports success: sees none of the second run's (hidden) rows
    table.error_body_next(1, method="POST", path=REVERT)
    hold.release()
    thread.join(60)
    assert "error" in outcome, outcome
    assert ids_in_controller(table, tmp_path) == list(range(200))  # the first run's success is true: once


# --- recover long after an unknown outcome: the entry is gone, the rows are live ----------------------------------


def test_recover_keeps_an_unknown_write_whose_entry_the_controller_has_since_cleaned_up(tmp_path, table):
    """Pinot's retention manager removes a COMPLETED entry once its segmentsFrom are gone (for an append: at once,
    after the retention). Recover found no entry and rolled back: deleted the tarballs the controller serves."""
    out = tmp_path / "out"
    the_job = job(url=table.url, out=out, **{"push-mode": "metadata", "retry.max-attempts": 2,
                                             "retry.max-elapsed": "1s"})
    reports = run_tasks(the_job, [(0, 400)])
    table.lose_response_next(1, method="POST", path=END, then_outage_s=2.5)
    with pytest.raises(CommitOutcomeUnknown):
        commit_job(the_job, reports)
    table.outage(0)
    table.tables["events"].lineage.clear()  # the retention manager's clean-up of a completed entry
    assert recover("--url", table.url, "--output-uri", str(out), "--apply") == 0
    assert {p.name[: -len(".tar.gz")] for p in (out / "events").glob("*.tar.gz")} == set(names_of(reports))
    assert manifest(out, the_job)["status"] == "committed" and table.live_segments() == names_of(reports)


# --- a manifest corrupted or truncated ----------------------------------------------------------------------------


def test_push_refuses_a_folder_whose_manifest_cannot_be_read(tmp_path, table):
    """A truncated manifest was skipped: the tarballs it marked as not committed were published."""
    out = tmp_path / "out"
    done = job(url=table.url, out=out, **{"push-mode": "metadata"})
    commit_job(done, run_tasks(done, [(0, 300)]))
    the_job = job(url=table.url, out=out, **{"push-mode": "metadata", "retry.max-attempts": 2,
                                             "retry.max-elapsed": "1s"})
    reports = run_tasks(the_job, [(300, 700)])
    table.lose_response_next(1, method="POST", path=END, then_outage_s=2.5)
    with pytest.raises(CommitOutcomeUnknown):
        commit_job(the_job, reports)
    record = out / "events" / "_manifests" / f"{the_job.run.folder}.json"
    record.write_text(record.read_text()[:40])  # truncated (a full disk, a killed copy)
    with pytest.raises(SystemExit, match=the_job.run.folder):
        push_folder(emptied(table), out / "events")
    assert table.live_segments() == []


def test_recover_names_a_manifest_it_cannot_read_and_does_not_claim_it_settled(tmp_path, table, capsys):
    out = tmp_path / "out"
    the_job = job(url=table.url, out=out, **{"push-mode": "metadata", "retry.max-attempts": 2,
                                             "retry.max-elapsed": "1s"})
    reports = run_tasks(the_job, [(0, 400)])
    table.lose_response_next(1, method="POST", path=END, then_outage_s=2.5)
    with pytest.raises(CommitOutcomeUnknown):
        commit_job(the_job, reports)
    table.outage(0)
    record = out / "events" / "_manifests" / f"{the_job.run.folder}.json"
    record.write_bytes(b"\x00" * 64)  # corrupted
    assert recover("--url", table.url, "--output-uri", str(out), "--apply") == 1
    assert "unreadable write record" in capsys.readouterr().out
    assert {p.name[: -len(".tar.gz")] for p in (out / "events").glob("*.tar.gz")} == set(names_of(reports))


# --- the record an orchestrator reads (manifest.path) after an unknown outcome ------------------------------------


def test_an_unknown_outcome_stays_unknown_in_manifest_path_after_sparks_abort(tmp_path, table):
    """Without output-uri the only record is manifest.path: Spark's abort after the failed commit found no table
    manifest to read and wrote `aborted` over `unknown`; an orchestrator then reruns without write.id: doubled."""
    path = tmp_path / "record.json"
    the_job = job(url=table.url, **{"manifest.path": str(path), "retry.max-attempts": 2, "retry.max-elapsed": "1s"})
    reports = run_tasks(the_job, [(0, 300)])
    table.lose_response_next(1, method="POST", path=END, then_outage_s=2.5)
    with pytest.raises(CommitOutcomeUnknown):
        commit_job(the_job, reports)
    assert json.loads(path.read_text())["status"] == "unknown"
    abort_job(the_job, reports)
    document = json.loads(path.read_text())
    assert document["status"] == "unknown" and document["write_id"] == the_job.run.write_id


def test_a_manifest_path_kept_from_another_write_does_not_stop_this_ones_abort(tmp_path, table):
    path = tmp_path / "record.json"
    earlier = job(url=table.url, **{"manifest.path": str(path), "retry.max-attempts": 2, "retry.max-elapsed": "1s"})
    reports = run_tasks(earlier, [(0, 300)])
    table.lose_response_next(1, method="POST", path=END, then_outage_s=2.5)
    with pytest.raises(CommitOutcomeUnknown):
        commit_job(earlier, reports)
    table.outage(0)
    the_job = job(url=table.url, **{"manifest.path": str(path)})
    abort_job(the_job, run_tasks(the_job, [(300, 400)]))
    assert json.loads(path.read_text())["status"] == "aborted"  # this write's record, not the earlier one's


# --- recover's revert answered 200 with an error body ----------------------------------------------------------


def test_recover_reads_back_its_revert_of_an_unfinished_entry(tmp_path, table, monkeypatch, capsys):
    """Recover reverted an IN_PROGRESS entry and said "reverted" from a 200 alone: answered with an error body,
    the entry stayed IN_PROGRESS (its publish then left "as it is")."""
    out, _, _ = died_between_start_and_end(tmp_path, table, monkeypatch)
    table.error_body_next(1, method="POST", path=REVERT)
    assert recover("--url", table.url, "--output-uri", str(out), "--apply") == 0
    assert lineage_states(table) == ["REVERTED"]
    assert "rolled back" in capsys.readouterr().out and not list((out / "events").glob("*.tar.gz"))


# --- push of a folder with manifests in every status --------------------------------------------------------------


def test_push_of_a_folder_with_every_status_publishes_exactly_the_live_write(tmp_path, table):
    """committed then replaced by an overwrite (its tarballs kept in output-uri), the overwrite, a write whose end
    was never applied (reverted), one whose upload failed, a dead run's staging: a push into an empty table gives exactly what the table showed."""
    out = tmp_path / "out"
    first = job(url=table.url, out=out)
    commit_job(first, run_tasks(first, [(0, 300)]))
    over = job(url=table.url, out=out, overwrite=True)
    commit_job(over, run_tasks(over, [(1000, 1400)]))
    never = job(url=table.url, out=out, **{"push-mode": "metadata", "retry.max-attempts": 2,
                                           "retry.max-elapsed": "1s"})
    never_reports = run_tasks(never, [(5000, 5100)])
    table.fail_next(20, status=503, method="POST", path=END)  # never applied: the entry stays IN_PROGRESS
    table.outage(0)
    with pytest.raises(CommitError):
        commit_job(never, never_reports)
    abort_job(never, never_reports)
    aborted = job(url=table.url, out=out, **{"push-mode": "metadata", "retry.max-attempts": 1})
    aborted_reports = run_tasks(aborted, [(6000, 6100)])
    table._faults.clear()
    table.fail_next(5, status=500, method="POST", path="/v2/segments")
    with pytest.raises(CommitError):
        commit_job(aborted, aborted_reports)
    abort_job(aborted, aborted_reports)
    dead = job(url=table.url, out=out)
    run_tasks(dead, [(7000, 7100)])
    table._faults.clear()
    live = table.live_segments()
    assert push_folder(emptied(table), out / "events") == 0
    assert table.live_segments() == live and ids_in_controller(table, tmp_path) == list(range(1000, 1400))


# --- a driver killed after a tar-mode commit, while its tarballs are copied into output-uri --------------------------


def test_a_kill_after_an_overwrites_commit_leaves_no_folder_that_push_republishes_replaced_work(tmp_path, table,
                                                                                             monkeypatch):
    """Push mode tar keeps the tarballs in output-uri after the commit. Killed before the manifest said
    `committed`, the folder held the overwrite's tarballs and the ones it replaced with no record of it: push
    published both (the replaced rows came back)."""
    out = tmp_path / "out"
    first = job(url=table.url, out=out)
    commit_job(first, run_tasks(first, [(0, 300)]))
    over = job(url=table.url, out=out, overwrite=True)
    reports = run_tasks(over, [(1000, 1400)])
    crash_at(monkeypatch, "deleted")
    with pytest.raises(Crash):
        commit_job(over, reports)
    monkeypatch.undo()
    assert ids_in_controller(table, tmp_path) == list(range(1000, 1400))
    from pinot_sink.cli.push_cmd import find_tarballs

    try:  # before recover: refusing is true, publishing the replaced rows is not
        names = {p.name[: -len(".tar.gz")] for p in find_tarballs([str(out / "events")])}
        assert names == set(table.live_segments())
    except SystemExit as refused:
        assert "recover" in str(refused)
    assert recover("--url", table.url, "--output-uri", str(out), "--apply") == 0
    assert push_folder(emptied(table), out / "events") == 0
    assert ids_in_controller(table, tmp_path) == list(range(1000, 1400))


# --- scenarios that held (kept: each pins a row of the failure matrix) ---------------------------------------------


def test_an_end_answered_503_twice_then_applied_is_committed_once(tmp_path, table):
    the_job = job(url=table.url, out=tmp_path, **{"retry.max-attempts": 4})
    reports = run_tasks(the_job, [(0, 300)])
    table.fail_next(2, status=503, method="POST", path=END)
    assert commit_job(the_job, reports).rows == 300
    assert ids_in_controller(table, tmp_path) == list(range(300)) and lineage_states(table) == ["COMPLETED"]


def test_a_start_answered_200_with_an_error_body_changes_nothing_and_says_so(tmp_path, table):
    from .test_commit_truth import START

    the_job = job(url=table.url, out=tmp_path)
    reports = run_tasks(the_job, [(0, 300)])
    table.error_body_next(1, method="POST", path=START)
    with pytest.raises(CommitError, match="nothing was committed|the table is as it was") as info:
        commit_job(the_job, reports)
    assert "MAY HAVE" not in str(info.value) and table.live_segments() == [] and lineage_states(table) == []
    abort_job(the_job, reports)
    assert manifest(tmp_path, the_job)["status"] == "aborted"


def test_a_read_back_slower_than_the_deadline_after_a_lost_end_is_unknown_and_names_the_rerun(tmp_path, table):
    the_job = job(url=table.url, out=tmp_path, **{"retry.max-attempts": 2, "retry.max-elapsed": "2s",
                                                  "timeout.read": "500ms"})
    reports = run_tasks(the_job, [(0, 300)])
    table.lose_response_next(1, method="POST", path=END)
    table.delay_next(50, seconds=1.0, method="GET", path=LINEAGE)
    with pytest.raises(CommitOutcomeUnknown, match=f"write.id={the_job.run.write_id}"):
        commit_job(the_job, reports)
    assert manifest(tmp_path, the_job)["status"] == "unknown"


def test_an_upload_answered_200_with_an_error_body_is_caught_by_the_end_and_reverted(tmp_path, table):
    the_job = job(url=table.url, out=tmp_path, **{"retry.max-attempts": 2})
    reports = run_tasks(the_job, [(0, 300)])
    table.error_body_next(1, method="POST", path="/v2/segments")
    with pytest.raises(CommitError, match="the table is as it was"):
        commit_job(the_job, reports)
    assert table.live_segments() == [] and lineage_states(table) == ["REVERTED"]


def test_an_overwrite_racing_an_append_keeps_the_appends_rows(tmp_path, table):
    """The append commits while the overwrite's entry is open: the overwrite replaces what it listed (the rows
    before it), the append's rows stay; both reports are true."""
    first = job(url=table.url, out=tmp_path / "a")
    commit_job(first, run_tasks(first, [(0, 100)]))
    over = job(url=table.url, out=tmp_path / "o", overwrite=True)
    over_reports = run_tasks(over, [(1000, 1200)])
    append = job(url=table.url, out=tmp_path / "p")
    append_reports = run_tasks(append, [(5000, 5050)])
    hold = table.delay_upload(30, segment=names_of(over_reports)[0])
    outcome: dict = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("result", commit_job(over, over_reports)))
    thread.start()
    assert hold.arrived.wait(20)
    assert commit_job(append, append_reports).rows == 50
    hold.release()
    thread.join(60)
    assert outcome["result"].rows == 200
    assert ids_in_controller(table, tmp_path) == list(range(1000, 1200)) + list(range(5000, 5050))


# --- push of files named one by one (a shell glob) ---------------------------------------------------------------


def test_push_of_a_folders_files_by_name_is_held_to_its_write_records(tmp_path, table):
    """`pinot-sink push out/events/*.tar.gz`: the files came in by name and no record was read; push mode tar keeps
    an overwrite's replaced tarballs in the folder, and they were published again."""
    from pinot_sink.cli import main

    out = tmp_path / "out"
    first = job(url=table.url, out=out)
    commit_job(first, run_tasks(first, [(0, 300)]))
    over = job(url=table.url, out=out, overwrite=True)
    commit_job(over, run_tasks(over, [(1000, 1400)]))
    dead = job(url=table.url, out=out)
    run_tasks(dead, [(7000, 7100)])
    emptied(table)
    every = sorted(str(p) for p in (out / "events").glob("*.tar.gz"))
    with pytest.raises(SystemExit, match="not live"):
        main(["push", *every, "--url", table.url, "--table", "events"])
    staged = sorted(str(p) for p in (out / "events" / "_staging").rglob("*.tar.gz"))
    with pytest.raises(SystemExit, match="staged"):
        main(["push", *staged, "--url", table.url, "--table", "events"])
    assert table.live_segments() == []
    live = [p for p in every if Path(p).name[: -len(".tar.gz")] in {s.name for s in over_segments(out, over)}]
    assert main(["push", *live, "--url", table.url, "--table", "events"]) == 0
    assert ids_in_controller(table, tmp_path) == list(range(1000, 1400))


def over_segments(out: Path, the_job):
    from types import SimpleNamespace

    return [SimpleNamespace(name=s["name"]) for s in manifest(out, the_job)["segments"]]


# --- a rerun after an unknown outcome, then recover, then push ------------------------------------------------------


@pytest.mark.parametrize("applied", [True, False])
def test_a_rerun_after_an_unknown_outcome_then_recover_and_push_is_exactly_once(tmp_path, table, applied):
    """The rerun the message names, whether the first run's end was applied (lost answer) or never (an outage),
    then `recover --apply` and a push of the folder into an empty table: every row once, everywhere."""
    out = tmp_path / "out"
    first = job(url=table.url, out=out, **{"push-mode": "metadata", "retry.max-attempts": 2,
                                           "retry.max-elapsed": "1s"})
    reports = run_tasks(first, [(0, 400)])
    if applied:
        table.lose_response_next(1, method="POST", path=END, then_outage_s=2.5)
    else:
        table.fail_next(2, status=503, method="POST", path=END)  # every attempt: never applied
        table.lose_response_next(1, method="GET", path=LINEAGE, then_outage_s=2.5)
    with pytest.raises(CommitOutcomeUnknown):
        commit_job(first, reports)
    abort_job(first, reports)
    table.outage(0)
    rerun = job(url=table.url, out=out, **{"write.id": first.run.write_id, "push-mode": "metadata"})
    commit_job(rerun, run_tasks(rerun, [(0, 400)]))
    assert recover("--url", table.url, "--output-uri", str(out), "--apply") == 0
    live = table.live_segments()
    assert live == sorted(s["name"] for s in manifest(out, rerun)["segments"])  # the rerun's rows, once
    assert manifest(out, first)["status"] == ("committed" if applied else "aborted")
    from pinot_sink.cli.push_cmd import find_tarballs

    assert {p.name[: -len(".tar.gz")] for p in find_tarballs([str(out / "events")])} == set(live)


# --- an end still in flight when the revert fails -------------------------------------------------------------------


def test_a_slow_end_that_lands_after_a_failed_revert_is_not_reported_as_nothing_committed(tmp_path, table):
    """Every end is slower than the read timeout (the controller applies it late: a ZK lock, a GC pause); the
    read-back says IN_PROGRESS, the revert fails: the job said "REVERT FAILED ... nothing is committed", and the
    late end then completed the entry: the rows were live (a rerun without write.id doubles them)."""
    import time

    the_job = job(url=table.url, out=tmp_path, **{"retry.max-attempts": 1, "timeout.read": "300ms"})
    reports = run_tasks(the_job, [(0, 300)])
    table.delay_next(2, seconds=2.0, method="POST", path=END)
    table.fail_next(5, status=500, method="POST", path=REVERT)
    with pytest.raises(CommitOutcomeUnknown, match=f"MAY HAVE BEEN COMMITTED.*write.id={the_job.run.write_id}"):
        commit_job(the_job, reports)
    abort_job(the_job, reports)
    assert manifest(tmp_path, the_job)["status"] == "unknown"
    time.sleep(2.5)  # the late ends land
    assert lineage_states(table) == ["COMPLETED"]  # the scenario is real: the rows are live


# --- the listing answered 200 with an error body --------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["rerun", "overwrite"])
def test_a_listing_answered_200_with_an_error_body_is_not_an_empty_table(tmp_path, table, mode):
    """`GET /segments/{t}` answered 200 `{"code": 500, ...}` read as "no segments": a rerun of a write.id replaced
    nothing and an overwrite kept the old rows, each reporting success: every row twice."""
    options = {"write.id": "day"} if mode == "rerun" else {}
    first = job(url=table.url, out=tmp_path / "a", **options)
    commit_job(first, run_tasks(first, [(0, 300)]))
    again = job(url=table.url, out=tmp_path / "b", overwrite=mode == "overwrite", **options)
    reports = run_tasks(again, [(0, 300)])
    table.error_body_next(1, method="GET", path="/segments/events")
    from pinot_sink.controller import ControllerError

    with pytest.raises((CommitError, ControllerError), match="listing is not Pinot's|another run") as info:
        commit_job(again, reports)  # fails before anything changed (a rerun's rival check caught it after its end)
    assert "MAY HAVE" not in str(info.value)
    abort_job(again, reports)
    assert ids_in_controller(table, tmp_path) == list(range(300))


# --- a window overwrite whose ZK metadata read answers 200 with an error body --------------------------------------


@pytest.mark.parametrize("straddling", ["error", "include"])
def test_a_window_overwrite_whose_time_ranges_answer_is_an_error_body_touches_no_other_day(tmp_path,
                                                                                          fake_controller, straddling):
    """`GET /segments/{t}/zkmetadata` answered 200 `{"code": 500, ...}`: every segment read as one without a time
    range, which Pinot's rule always selects: the overwrite of days 2..6 replaced all ten days."""
    from pinot_sink.task import write_partition

    from .test_backfill_commit import CONFIG, SCHEMA, controller_paths, day_batches, rows_per_day
    from .test_backfill_commit import job as day_job

    fake_controller.add_table(SCHEMA, CONFIG)
    first = day_job(url=fake_controller.url, out=tmp_path / "s1", **{"sink.time-bucket": "day"})
    commit_job(first, [write_partition(first, day_batches(range(10), 24), partition_id=0)])
    before = rows_per_day(controller_paths(fake_controller, tmp_path / "before"))
    window = day_job(url=fake_controller.url, out=tmp_path / "s2", overwrite=True,
                     **{"overwrite.time-range": "2024-02-17/2024-02-22", "sink.buffer-flush.max-rows": 20,
                        "overwrite.straddling": straddling})
    reports = [write_partition(window, day_batches(range(2, 7), 24, 5000), partition_id=0)]
    fake_controller.error_body_next(1, method="GET", path="/segments/events/zkmetadata")
    try:
        commit_job(window, reports)
    except Exception as error:  # noqa: BLE001 - failing before anything changed is true too
        assert "MAY HAVE" not in str(error)
        abort_job(window, reports)
        assert rows_per_day(controller_paths(fake_controller, tmp_path / "after")) == before
        return
    after = rows_per_day(controller_paths(fake_controller, tmp_path / "after"))
    assert {d: after[d] for d in (0, 1, 7, 8, 9)} == {d: before[d] for d in (0, 1, 7, 8, 9)}


# --- a fixed-name overwrite whose delete of the replaced segments answers 200 with an error body --------------------


def test_a_fixed_name_overwrite_whose_delete_is_not_applied_does_not_report_success(tmp_path, table):
    """segment-name.type=fixed refreshes its one segment, then deletes the others the overwrite replaces; a DELETE
    answered 200 with an error body deleted nothing, and the job reported success with the old rows still live."""
    first = job(url=table.url, out=tmp_path / "a")
    commit_job(first, run_tasks(first, [(0, 300)]))
    over = job(url=table.url, out=tmp_path / "b", overwrite=True,
               **{"segment-name.type": "fixed", "segment.name": "events_all", "sink.buffer-flush.max-rows": 1000})
    reports = run_tasks(over, [(1000, 1400)])
    table.error_body_next(1, method="DELETE", path="/segments/events")
    result = commit_job(over, reports)  # deleted again, and the listing shows it done
    assert result.rows == 400 and ids_in_controller(table, tmp_path) == list(range(1000, 1400))
    again = job(url=table.url, out=tmp_path / "c")
    commit_job(again, run_tasks(again, [(0, 100)]))
    over = job(url=table.url, out=tmp_path / "d", overwrite=True,
               **{"segment-name.type": "fixed", "segment.name": "events_all", "sink.buffer-flush.max-rows": 1000})
    table.error_body_next(2, method="DELETE", path="/segments/events")
    with pytest.raises(CommitError, match="events_all are live .* still in the table"):
        commit_job(over, run_tasks(over, [(2000, 2100)]))  # never applied: it says so


# --- push of a folder after an overwrite whose outcome is unknown ----------------------------------------------------


def test_push_after_an_overwrite_with_an_unknown_outcome_waits_for_recover(tmp_path, table):
    """The overwrite's own tarballs were skipped, but the ones it replaced were pushed: live again if it had
    committed. Push refuses until `recover` reads the entry; then the record says what it replaced."""
    out = tmp_path / "out"
    first = job(url=table.url, out=out)
    commit_job(first, run_tasks(first, [(0, 300)]))
    over = job(url=table.url, out=out, overwrite=True, **{"push-mode": "metadata", "retry.max-attempts": 2,
                                                          "retry.max-elapsed": "1s"})
    reports = run_tasks(over, [(1000, 1400)])
    table.lose_response_next(1, method="POST", path=END, then_outage_s=2.5)
    with pytest.raises(CommitOutcomeUnknown):
        commit_job(over, reports)
    abort_job(over, reports)
    table.outage(0)
    from pinot_sink.cli.push_cmd import find_tarballs

    with pytest.raises(SystemExit, match="recover"):
        find_tarballs([str(out / "events")])
    assert recover("--url", table.url, "--output-uri", str(out), "--apply") == 0
    assert {p.name[: -len(".tar.gz")] for p in find_tarballs([str(out / "events")])} == set(table.live_segments())
    assert set(table.live_segments()) == set(names_of(reports))


# --- an unknown outcome the storage could not record ---------------------------------------------------------------


def test_an_unknown_outcome_whose_record_could_not_be_written_is_not_recorded_as_aborted(tmp_path, table,
                                                                                         monkeypatch):
    """The storage is down with the controller when the commit learns nothing: its manifest cannot say
    `unknown`. Spark's abort (another Python process of the driver) must not then record `aborted` for a write
    that may be in the table: the note the commit kept on the driver's machine tells it, and it writes the
    `unknown` record once the storage is back."""
    import pinot_sink.storage.manifests as manifest_module

    out = tmp_path / "out"
    the_job = job(url=table.url, out=out, **{"retry.max-attempts": 2, "retry.max-elapsed": "1s"})
    reports = run_tasks(the_job, [(0, 300)])
    table.lose_response_next(1, method="POST", path=END, then_outage_s=2.5)
    real = manifest_module.write_text

    def storage_down(uri, text, options=None):
        if '"status": "unknown"' in text:
            raise OSError("storage unreachable")
        return real(uri, text, options)

    monkeypatch.setattr(manifest_module, "write_text", storage_down)
    with pytest.raises(CommitOutcomeUnknown):
        commit_job(the_job, reports)
    monkeypatch.undo()
    manifests = out / "events" / "_manifests"
    # the storage has no record of it (the run's `publishing` intent, written before the commit, stays)
    assert not any(json.loads(p.read_text())["status"] == "unknown" for p in manifests.glob("*.json"))
    abort_job(the_job, reports)
    record = manifest(out, the_job)
    assert record["status"] == "unknown" and record["pending"] == sorted(names_of(reports))
    assert "MAY HAVE BEEN COMMITTED" in record["error"]
    abort_job(the_job, reports)  # Spark may call abort again: the note was taken, the manifest still rules
    assert manifest(out, the_job)["status"] == "unknown"


def test_an_abort_without_a_commit_is_not_taken_for_an_unknown_outcome(tmp_path, table):
    """The note is the commit's: a task failure's abort (no commit ran) still records `aborted`, and an
    earlier unknown outcome of another run of the same write.id does not leak into it."""
    out = tmp_path / "out"
    first = job(url=table.url, out=out, **{"write.id": "w1", "retry.max-attempts": 2, "retry.max-elapsed": "1s"})
    reports = run_tasks(first, [(0, 300)])
    table.lose_response_next(1, method="POST", path=END, then_outage_s=2.5)
    with pytest.raises(CommitOutcomeUnknown):
        commit_job(first, reports)
    table.outage(0)
    second = job(url=table.url, out=out, **{"write.id": "w1"})
    abort_job(second, run_tasks(second, [(0, 300)]))
    assert manifest(out, second)["status"] == "aborted"
    assert manifest(out, first)["status"] == "unknown"
