"""The commit-truth scenarios against a real controller's segment lineage, through a fault proxy
(``fault_proxy.py``): lost answers to start, upload and end; a 200 with an error body; an outage mid-commit;
a driver killed at each commit phase, then ``pinot-sink recover``. Spark-free (task attempts by hand, as
tests/datasource/test_commit_truth.py does against the test controller); every outcome is read from the real
controller's lineage and from the broker (each row once: COUNT, SUM and DISTINCTCOUNT of the ids)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from pinot_sink.cli import main as cli
from pinot_sink.commit import CommitError, abort_job, commit_job
from tests.datasource import test_commit as spark_free
from tests.datasource.test_recover import Crash, crash_at

from .fault_proxy import FaultProxy

START, END, REVERT = "startReplaceSegments", "endReplaceSegments", "revertReplaceSegments"


@pytest.fixture
def proxy(pinot):
    proxy = FaultProxy(pinot.url).start()
    yield proxy
    proxy.stop()


@pytest.fixture
def table(pinot, request):
    """A fresh table with test_commit's schema (id, amount; no time column), named after the test."""
    name = "rp_f_" + hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:10]
    schema = dict(spark_free.SCHEMA, schemaName=name)
    pinot.create(schema, dict(spark_free.CONFIG, tableName=name, tenants={}, segmentsConfig={"replication": "1"}))
    return name


def job(table: str, url: str, out: Path, *, overwrite: bool = False, **options):
    """test_commit's job (rows id, amount; a segment every 250 rows) into ``table`` at ``url``, with backoffs
    that outlast the proxy's short outages unless a test says otherwise."""
    from pinot_sink.job import prepare_job

    raw = {"table-name": table, "url": url, "output-uri": str(out), "sink.buffer-flush.max-rows": "250",
           "retry.initial-backoff": "200ms", "retry.max-backoff": "1s", **{k: str(v) for k, v in options.items()}}
    return prepare_job(raw, spark_free.ARROW_SCHEMA, overwrite=overwrite)


def once(pinot, table: str, ids: range) -> None:
    """Every id of ``ids`` in the table exactly once, as the broker answers."""
    want = [[len(ids), float(sum(ids)), len(ids)]]
    pinot.wait_rows(f"SELECT COUNT(*), SUM(id), DISTINCTCOUNT(id) FROM {table}", want, timeout=90)


def path(table: str, step: str) -> str:
    return f"/segments/{table}/{step}"


def manifest(out: Path, table: str, the_job) -> dict:
    return json.loads((out / table / "_manifests" / f"{the_job.run.folder}.json").read_text())


# --- lost answers: each retry finds the work done ------------------------------------------------------------------


@pytest.mark.parametrize("step", [START, "upload", END])
def test_a_lost_answer_is_found_done_one_entry_every_row_once(pinot, proxy, table, tmp_path, step):
    the_job = job(table, proxy.url, tmp_path, **{"retry.max-attempts": 4, "retry.max-elapsed": "60s"})
    reports = spark_free.run_tasks(the_job, [(0, 300), (300, 500)])
    where = "/v2/segments" if step == "upload" else path(table, step)
    proxy.lose_next(1, method="POST", path=where, then_outage_s=1.5 if step == END else 0)
    result = commit_job(the_job, reports)
    assert result.rows == 500 and any("answer lost" in o for o in proxy.outcomes(where))
    assert pinot.lineage_states(table) == ["COMPLETED"]
    once(pinot, table, range(500))
    assert manifest(tmp_path, table, the_job)["status"] == "committed"


# --- a 200 with an error body: nothing done, yet "OK" --------------------------------------------------------------


def test_an_end_answered_200_with_an_error_body_is_ended_again(pinot, proxy, table, tmp_path):
    the_job = job(table, proxy.url, tmp_path)
    reports = spark_free.run_tasks(the_job, [(0, 300)])
    proxy.error_body_next(1, method="POST", path=path(table, END))
    assert commit_job(the_job, reports).rows == 300
    assert pinot.lineage_states(table) == ["COMPLETED"]
    once(pinot, table, range(300))


def test_a_start_answered_200_with_an_error_body_changes_nothing_and_says_so(pinot, proxy, table, tmp_path):
    first = job(table, pinot.url, tmp_path / "first")
    commit_job(first, spark_free.run_tasks(first, [(0, 100)]))
    the_job = job(table, proxy.url, tmp_path)
    reports = spark_free.run_tasks(the_job, [(100, 400)])
    proxy.error_body_next(1, method="POST", path=path(table, START))
    with pytest.raises(CommitError, match="nothing was committed|the table is as it was") as info:
        commit_job(the_job, reports)
    assert "MAY HAVE" not in str(info.value)
    abort_job(the_job, reports)
    assert manifest(tmp_path, table, the_job)["status"] == "aborted"
    assert pinot.lineage_states(table) == ["COMPLETED"]  # the first write's only
    once(pinot, table, range(100))


def test_an_upload_answered_200_with_an_error_body_is_caught_by_the_end_and_reverted(pinot, proxy, table, tmp_path):
    the_job = job(table, proxy.url, tmp_path, **{"retry.max-attempts": 2})
    reports = spark_free.run_tasks(the_job, [(0, 300)])
    proxy.error_body_next(1, method="POST", path="/v2/segments")
    with pytest.raises(CommitError, match="the table is as it was"):
        commit_job(the_job, reports)
    assert pinot.lineage_states(table) == ["REVERTED"] and pinot.live_segments(table) == []


def test_an_end_never_applied_is_reverted_and_the_write_fails(pinot, proxy, table, tmp_path):
    first = job(table, pinot.url, tmp_path / "first")
    commit_job(first, spark_free.run_tasks(first, [(0, 100)]))
    the_job = job(table, proxy.url, tmp_path, overwrite=True)
    reports = spark_free.run_tasks(the_job, [(500, 800)])
    proxy.error_body_next(20, method="POST", path=path(table, END))
    with pytest.raises(CommitError, match="the table is as it was"):
        commit_job(the_job, reports)
    assert pinot.lineage_states(table) == ["COMPLETED", "REVERTED"]
    once(pinot, table, range(100))


def test_a_lost_answer_to_the_revert_still_leaves_the_table_as_it_was(pinot, proxy, table, tmp_path):
    the_job = job(table, proxy.url, tmp_path, **{"retry.max-attempts": 3})
    reports = spark_free.run_tasks(the_job, [(0, 300)])
    proxy.error_body_next(1, method="POST", path="/v2/segments")  # the end refuses: a revert follows
    proxy.lose_next(1, method="POST", path=path(table, REVERT))
    with pytest.raises(CommitError, match="the table is as it was"):
        commit_job(the_job, reports)
    assert any("answer lost" in o for o in proxy.outcomes(path(table, REVERT)))
    assert pinot.lineage_states(table) == ["REVERTED"] and pinot.live_segments(table) == []


# --- an outage mid-commit ------------------------------------------------------------------------------------------


def test_an_outage_after_a_lost_end_is_unknown_then_recover_and_the_named_rerun_settle_it(pinot, proxy, table,
                                                                                         tmp_path, capsys):
    out = tmp_path / "out"
    the_job = job(table, proxy.url, out, **{"retry.max-attempts": 2, "retry.max-elapsed": "2s"})
    reports = spark_free.run_tasks(the_job, [(0, 400)])
    proxy.lose_next(1, method="POST", path=path(table, END), then_outage_s=8)
    with pytest.raises(CommitError) as info:
        commit_job(the_job, reports)
    (entry,) = pinot.lineage(table)
    message = str(info.value)
    assert "MAY HAVE BEEN COMMITTED" in message and entry in message and f"write.id={the_job.run.write_id}" in message
    abort_job(the_job, reports)
    assert manifest(out, table, the_job)["status"] == "unknown"
    assert pinot.lineage_states(table) == ["COMPLETED"]  # the end was applied: the rows are in
    once(pinot, table, range(400))
    capsys.readouterr()
    assert cli(["recover", "--url", pinot.url, "--table", table, "--output-uri", str(out), "--min-age", "0",
                "--apply"]) == 0
    assert manifest(out, table, the_job)["status"] == "committed"
    rerun = job(table, pinot.url, out, **{"write.id": the_job.run.write_id})
    commit_job(rerun, spark_free.run_tasks(rerun, [(0, 200), (200, 400)]))
    once(pinot, table, range(400))


def test_an_outage_during_the_uploads_longer_than_the_deadline_leaves_the_table_as_it_was(pinot, proxy, table,
                                                                                         tmp_path):
    first = job(table, pinot.url, tmp_path / "first")
    commit_job(first, spark_free.run_tasks(first, [(0, 100)]))
    the_job = job(table, proxy.url, tmp_path, **{"retry.max-attempts": 3, "retry.max-elapsed": "3s",
                                                 "push-parallelism": 1})
    reports = spark_free.run_tasks(the_job, [(100, 300), (300, 500)])
    proxy.lose_next(1, method="POST", path="/v2/segments", then_outage_s=6)
    with pytest.raises(CommitError) as info:
        commit_job(the_job, reports)
    # The uploads cannot finish within the deadline, and the revert may meet the outage too. Whichever: the
    # write fails saying what it left (reverted; or REVERT FAILED with the entry IN_PROGRESS, its segments
    # hidden), never success, and no query sees its rows; `recover` settles what is left.
    message = str(info.value)
    assert "the table is as it was" in message or ("REVERT FAILED" in message and "IN_PROGRESS" in message), message
    once(pinot, table, range(100))
    assert cli(["recover", "--url", pinot.url, "--table", table, "--output-uri", str(tmp_path), "--min-age", "0",
                "--apply"]) == 0
    assert pinot.lineage_states(table) == ["COMPLETED", "REVERTED"]
    once(pinot, table, range(100))


# --- a driver killed at each phase, then recover ------------------------------------------------------------------


@pytest.mark.parametrize("push_mode", ["tar", "metadata"])
@pytest.mark.parametrize("phase", ["staged", "started", "uploaded", "ended"])
def test_a_driver_killed_at_each_phase_then_recover_and_a_rerun_is_exactly_once(pinot, table, tmp_path, monkeypatch,
                                                                                capsys, phase, push_mode):
    out = tmp_path / "out"
    options = {"write.id": "day", "push-mode": push_mode}
    first = job(table, pinot.url, out, **options)
    commit_job(first, spark_free.run_tasks(first, [(0, 400)]))
    killed = job(table, pinot.url, out, **options)
    reports = spark_free.run_tasks(killed, [(0, 300), (300, 400)])
    if phase != "staged":
        crash_at(monkeypatch, phase)  # the commit dies there: no revert, no abort, as a killed driver
        with pytest.raises(Crash):
            commit_job(killed, reports)
        monkeypatch.undo()
    # What a query sees meanwhile: an entry left IN_PROGRESS hides its uploaded segments (the broker routes
    # by lineage); an ended one replaced the first run's. Either way each row once, before any recover.
    once(pinot, table, range(400))
    capsys.readouterr()
    assert cli(["recover", "--url", pinot.url, "--table", table, "--output-uri", str(out), "--min-age", "0",
                "--apply"]) == 0
    once(pinot, table, range(400))  # one copy: the first run's or the killed run's
    assert "IN_PROGRESS" not in pinot.lineage_states(table)
    assert cli(["recover", "--url", pinot.url, "--table", table, "--output-uri", str(out), "--min-age", "0"]) == 0
    assert "nothing left behind" in capsys.readouterr().out
    rerun = job(table, pinot.url, out, **options)
    commit_job(rerun, spark_free.run_tasks(rerun, [(0, 200), (200, 400)]))
    once(pinot, table, range(400))
