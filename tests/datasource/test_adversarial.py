"""The exactly-once protocol (issue 9) under a hostile environment: lost answers, resets, odd names, two
runs of one write at once, a commit that fails half-way, secrets in URIs.

Spark-free, in the style of ``test_commit.py``: task attempts run by hand with ``write_partition``, the
driver's commit with ``commit_job`` / ``abort_job``, the loopback controller's fault knobs for the network.
A test marked ``xfail(strict=True)`` shows a guarantee that does not hold yet; its reason says what breaks.
"""
from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path

import fsspec
import pytest

from pinot_sink.commit import CommitError, abort_job, commit_job
from pinot_sink.naming import is_segment_of_write, name_tags, write_tag
from pinot_sink.segment import read_segment
from pinot_sink.storage.layout import local_path

from .test_commit import ids_in_controller, ids_in_directory, job, run_tasks, table  # noqa: F401 (fixture)


def commit_interleaved(controller, one, two) -> dict:
    """Commit job ``one`` (a ``(job, reports)`` pair) while its first upload is held, and job ``two`` in the
    meantime; returns each one's result or error by name ("one", "two")."""
    hold = controller.delay_upload(30, nth=1)
    outcome = {}

    def commit(name, the_job, reports):
        try:
            outcome[name] = commit_job(the_job, reports)
        except Exception as exc:  # noqa: BLE001 - losing is allowed, winning twice is not
            outcome[name] = exc

    thread = threading.Thread(target=commit, args=("one", *one))
    thread.start()
    assert hold.arrived.wait(10)
    commit("two", *two)
    hold.release()
    thread.join(30)
    return outcome


# --- the network loses or breaks the commit's calls -------------------------------------------------------------


@pytest.mark.parametrize("path", ["/segments/events/startReplaceSegments", "/segments/events/endReplaceSegments",
                                  "/v2/segments"])
def test_a_lost_answer_during_the_commit_neither_fails_nor_doubles_it(tmp_path, table, path):
    """The controller did the work but the answer never came: the retry must find it done."""
    first = job(url=table.url, out=tmp_path / "s0", **{"write.id": "day"})
    commit_job(first, run_tasks(first, [(0, 400)]))
    rerun = job(url=table.url, out=tmp_path / "s1", **{"write.id": "day"})
    reports = run_tasks(rerun, [(0, 300), (300, 700)])
    table.lose_response_next(1, method="POST", path=path)
    result = commit_job(rerun, reports)
    assert result.rows == 700 and len(result.replaced) == 2
    assert ids_in_controller(table, tmp_path) == list(range(700))
    entries = table.tables["events"].lineage.values()
    assert sum(e.state == "COMPLETED" for e in entries) == 2 and not [e for e in entries if e.state == "IN_PROGRESS"]


def test_a_connection_reset_mid_upload_is_retried_without_a_trace(tmp_path, table):
    the_job = job(url=table.url, out=tmp_path / "s", **{"push-parallelism": 1})
    reports = run_tasks(the_job, [(0, 600)])
    table.reset_next(2, method="POST", path="/v2/segments")
    result = commit_job(the_job, reports)
    assert result.rows == 600 and ids_in_controller(table, tmp_path) == list(range(600))


def test_a_lost_answer_to_the_revert_still_leaves_the_table_as_it_was(tmp_path, table):
    first = job(url=table.url, out=tmp_path / "s0")
    commit_job(first, run_tasks(first, [(0, 300)]))
    the_job = job(url=table.url, out=tmp_path / "s1", overwrite=True,
                  **{"retry.max-attempts": 2, "push-parallelism": 1})
    reports = run_tasks(the_job, [(500, 1000)])
    table.fail_next(10, status=500, method="POST", path="/v2/segments", after=1)
    table.lose_response_next(1, method="POST", path="/segments/events/revertReplaceSegments")
    with pytest.raises(Exception, match="the table is as it was"):
        commit_job(the_job, reports)
    assert abort_job(the_job, reports) == []
    assert ids_in_controller(table, tmp_path) == list(range(300))


# --- two runs of one write ----------------------------------------------------------------------------------------


def test_two_runs_of_one_write_id_committing_at_once_never_both_win(tmp_path, table):
    """An orchestrator retries a task it believes dead while the first run is still committing. Both lineage
    entries had an empty segmentsFrom, so forceCleanup reverted neither and every row was in the table twice;
    now the run that looks last after its end sees the other and reverts itself."""
    one = job(url=table.url, out=tmp_path / "s1", **{"write.id": "daily_2024-03-01"})
    time.sleep(0.01)  # another run tag
    two = job(url=table.url, out=tmp_path / "s2", **{"write.id": "daily_2024-03-01"})
    reports_one, reports_two = run_tasks(one, [(0, 500)]), run_tasks(two, [(0, 500)])
    outcome = commit_interleaved(table, (one, reports_one), (two, reports_two))
    ids = ids_in_controller(table, tmp_path)
    winners = [k for k, v in outcome.items() if not isinstance(v, Exception)]
    assert len(winners) <= 1 and ids == (list(range(500)) if winners else [])
    assert winners == ["two"] and "another run of this write" in str(outcome["one"])


# --- names that look like ours --------------------------------------------------------------------------------------


def test_a_postfix_that_mimics_another_writes_tags_never_confuses_the_rerun(tmp_path, table):
    """User postfixes ending in ``_w<10 hex>_r<run>`` (even another write's tag) sit before the fixed tail."""
    victim_tag = write_tag("victim")
    victim = job(url=table.url, out=tmp_path / "s0", **{"write.id": "victim"})
    commit_job(victim, run_tasks(victim, [(5000, 5300)]))
    mimic = {"segment.name.postfix": f"x_{victim_tag}_rabc", "write.id": "mimic"}
    for start in (0, 0):  # the mimic runs twice: its rerun replaces its own run only
        the_job = job(url=table.url, out=tmp_path / f"s{start}", **mimic)
        result = commit_job(the_job, run_tasks(the_job, [(start, start + 400)]))
        assert all(is_segment_of_write(n, write_tag("mimic")) for n in result.replaced)
    assert ids_in_controller(table, tmp_path) == list(range(400)) + list(range(5000, 5300))
    again = job(url=table.url, out=tmp_path / "s9", **{"write.id": "victim"})
    result = commit_job(again, run_tasks(again, [(5000, 5100)]))
    assert len(result.replaced) == 2 and all(f"x_{victim_tag}" not in n for n in result.replaced)
    assert ids_in_controller(table, tmp_path) == list(range(400)) + list(range(5000, 5100))


@pytest.mark.parametrize("foreign", ["events_16000_17000_3_0", "events_3_0", "events_2024-03-01_2024-03-01_7",
                                     "events_w0123456789_3_0", "events_wxyz0123456_rabc_3_0"])
def test_segments_of_pinots_own_tools_survive_a_rerun(tmp_path, table, foreign):
    """Names ending in ``_<digits>_<digits>`` (Pinot's generators) are no write's, whatever precedes them."""
    manual = job(url=table.url, out=tmp_path / "m", **{"segment-name.type": "fixed", "segment.name": foreign})
    commit_job(manual, run_tasks(manual, [(9000, 9100)]))
    assert name_tags(foreign) is None
    for run in range(2):
        the_job = job(url=table.url, out=tmp_path / f"s{run}", **{"write.id": "day"})
        commit_job(the_job, run_tasks(the_job, [(0, 300)]))
    assert foreign in table.live_segments("events")
    assert ids_in_controller(table, tmp_path) == list(range(300)) + list(range(9000, 9100))


@pytest.mark.parametrize("write_id", ["with space", "a/b/../c", "d\u00e9j\u00e0 vu \u65e5\u4ed8", "x" * 500, "%2F%00"])
def test_any_write_id_reruns_into_itself_only(tmp_path, write_id):
    other = job(out=tmp_path, **{"write.id": write_id + "!"})
    commit_job(other, run_tasks(other, [(5000, 5100)]))
    for _ in range(2):
        the_job = job(out=tmp_path, **{"write.id": write_id})
        commit_job(the_job, run_tasks(the_job, [(0, 300)]))
    assert ids_in_directory(tmp_path) == list(range(300)) + list(range(5000, 5100))
    folders = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_dir()}
    assert folders <= {"events", "events/_manifests", "events/_staging"}  # the id never becomes a path


@pytest.mark.parametrize("folder", ["with space", "pct%20and%", "d\u00e9j\u00e0"])
def test_an_output_uri_with_spaces_and_percent_signs(tmp_path, folder, table):
    out = tmp_path / folder
    embedded = job(out=out, **{"write.id": "w"})
    commit_job(embedded, run_tasks(embedded, [(0, 300)]))
    rerun = job(out=out, **{"write.id": "w"})
    commit_job(rerun, run_tasks(rerun, [(0, 200)]))
    assert ids_in_directory(out) == list(range(200))
    pushed = job(url=table.url, out=out / "deep", **{"push-mode": "metadata"})
    commit_job(pushed, run_tasks(pushed, [(0, 300)]))
    ids = []  # what a server would download: the URI the controller was told must name the tarball
    for name in table.live_segments("events"):
        uri = table.segments("events")[name].zk["segment.download.url"]
        ids += read_segment(local_path(uri)).table.column("id").to_pylist()
    assert sorted(ids) == list(range(300))


# --- odd writes ------------------------------------------------------------------------------------------------


def test_an_overwrite_with_an_empty_dataframe_empties_the_table(tmp_path, table):
    first = job(url=table.url, out=tmp_path / "s0")
    commit_job(first, run_tasks(first, [(0, 300)]))
    empty = job(url=table.url, out=tmp_path / "s1", overwrite=True)
    result = commit_job(empty, run_tasks(empty, [(0, 0), (0, 0)]) + [None])
    assert result.rows == 0 and len(result.replaced) == 2 and table.live_segments("events") == []
    local = job(out=tmp_path / "e")
    commit_job(local, run_tasks(local, [(0, 300)]))
    empty = job(out=tmp_path / "e", overwrite=True)
    commit_job(empty, run_tasks(empty, [(0, 0)]))
    assert ids_in_directory(tmp_path / "e") == []


@pytest.mark.parametrize("controller", [False, True])
def test_fixed_names_rerun_replace_the_one_segment(tmp_path, table, controller):
    where = {"url": table.url, "out": tmp_path / "s"} if controller else {"out": tmp_path}
    for start in (0, 1000):
        the_job = job(**where, **{"segment-name.type": "fixed", "segment.name": "events_manual",
                                  "sink.buffer-flush.max-rows": 10_000})
        commit_job(the_job, run_tasks(the_job, [(start, start + 400)]))
    ids = ids_in_controller(table, tmp_path) if controller else ids_in_directory(tmp_path)
    assert ids == list(range(1000, 1400))


def test_a_write_of_many_segments_commits_and_reruns_exactly(tmp_path, table):
    the_job = job(url=table.url, out=tmp_path / "s0", **{"write.id": "many", "sink.buffer-flush.max-rows": 10})
    result = commit_job(the_job, run_tasks(the_job, [(0, 1250), (1250, 2500)]))
    assert len(result.segments) == 250
    rerun = job(url=table.url, out=tmp_path / "s1", **{"write.id": "many", "sink.buffer-flush.max-rows": 1000})
    result = commit_job(rerun, run_tasks(rerun, [(0, 2500)]))
    assert len(result.replaced) == 250 and ids_in_controller(table, tmp_path) == list(range(2500))


# --- a commit that fails half-way, and what abort does after it ----------------------------------------------------


def test_abort_after_an_embedded_commit_failed_to_delete_a_replaced_file_loses_nothing(tmp_path, monkeypatch):
    """Deleting one replaced file fails after the other was deleted; the commit raises and Spark aborts. The
    abort used to delete the new files too, leaving only the undeletable old one (250 of 500 rows)."""
    first = job(out=tmp_path)
    commit_job(first, run_tasks(first, [(0, 500)]))  # two segments: 250 + 250 rows
    old = sorted(p.name for p in (tmp_path / "events").glob("*.tar.gz"))
    the_job = job(out=tmp_path, overwrite=True)
    reports = run_tasks(the_job, [(1000, 1500)])
    import os

    from fsspec.implementations.local import LocalFileSystem

    real_rm = LocalFileSystem.rm

    def rm(self, path, *args, **kwargs):
        if str(path).endswith(old[1]):
            raise PermissionError(13, "Permission denied", str(path))
        return real_rm(self, path, *args, **kwargs)

    monkeypatch.setattr(LocalFileSystem, "rm", rm)
    real_remove = os.remove

    def remove(path, *args, **kwargs):  # a local folder's files are deleted without fsspec (DirectoryStore.delete)
        if str(path).endswith(old[1]):
            raise PermissionError(13, "Permission denied", str(path))
        return real_remove(path, *args, **kwargs)

    monkeypatch.setattr(os, "remove", remove)
    with pytest.raises(Exception):
        commit_job(the_job, reports)  # Spark calls abort when commit raises
    left = abort_job(the_job, reports)
    assert sorted(left) == sorted(s.name for s in reports[0].segments)  # named as left in the table
    assert ids_in_directory(tmp_path) == list(range(250, 500)) + list(range(1000, 1500))  # doubled, never lost


def test_a_manifest_path_that_cannot_be_opened_does_not_undo_a_committed_write(tmp_path):
    """An unknown protocol (or a missing fsspec driver) used to raise from commit_job after the data was
    committed; Spark then aborted, and the embedded abort deleted the committed segments."""
    first = job(out=tmp_path)
    commit_job(first, run_tasks(first, [(0, 300)]))
    the_job = job(out=tmp_path, overwrite=True, **{"manifest.path": "nosuchproto://bucket/manifest.json"})
    reports = run_tasks(the_job, [(1000, 1300)])
    try:
        commit_job(the_job, reports)
    except Exception:  # noqa: BLE001 - what Spark does when commit raises
        abort_job(the_job, reports)
    assert ids_in_directory(tmp_path) == list(range(1000, 1300))


def test_a_manifest_path_in_a_read_only_place_is_logged_not_fatal(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("")  # a file where the manifest's folder should be
    the_job = job(out=tmp_path, **{"manifest.path": str(blocker / "sub" / "m.json")})
    with caplog.at_level(logging.ERROR, logger="pinot_sink"):
        result = commit_job(the_job, run_tasks(the_job, [(0, 300)]))
    assert result.rows == 300 and ids_in_directory(tmp_path) == list(range(300))
    assert "could not write the job manifest" in caplog.text


# --- secrets ---------------------------------------------------------------------------------------------------


def test_credentials_in_the_output_uri_are_never_printed(tmp_path, caplog):
    """They were printed in the driver's INFO lines, the task log and the job manifest."""
    out = "memory://AKIAUSER:s3cr3tvalue@bucket/adversarial"
    with caplog.at_level(logging.INFO, logger="pinot_sink"):
        the_job = job(**{"output-uri": out})
        commit_job(the_job, run_tasks(the_job, [(0, 300)]))
    fs = fsspec.filesystem("memory")
    manifests = [fs.cat_file(p).decode() for p in fs.find("/") if p.endswith(".json") and "adversarial" in p]
    try:
        assert manifests
        assert "s3cr3tvalue" not in caplog.text
        assert not [m for m in manifests if "s3cr3tvalue" in m]
    finally:
        fs.rm("/AKIAUSER:s3cr3tvalue@bucket", recursive=True)


def test_abort_after_an_overwrite_died_mid_publish_restores_the_table(tmp_path):
    """Only some new files moved: nothing was deleted yet, so abort takes them out again."""
    first = job(out=tmp_path)
    commit_job(first, run_tasks(first, [(0, 500)]))
    the_job = job(out=tmp_path, overwrite=True)
    reports = run_tasks(the_job, [(1000, 1600)])
    from pinot_sink.storage.files import publish_into_directory

    one = reports[0].segments[0]
    publish_into_directory(the_job.output_uri, "events", {one.name: one.staged_uri})
    assert abort_job(the_job, reports) == []
    assert ids_in_directory(tmp_path) == list(range(500))


@pytest.mark.parametrize("path", ["/segments/events/endReplaceSegments", "/v2/segments"])
def test_a_trickled_answer_in_the_commit_times_out_and_the_retry_finds_the_work_done(tmp_path, table, path):
    """The controller did the work, then answers a byte every 0.3 s: the read deadline cuts the call, the
    retry succeeds, and the commit ends within its budget with every row once."""
    the_job = job(url=table.url, out=tmp_path / "s", **{"timeout.read": "1s", "retry.max-elapsed": "20s",
                                                          "push-parallelism": 1})
    reports = run_tasks(the_job, [(0, 600)])
    table.trickle_next(1, interval=0.3, method="POST", path=path)
    started = time.monotonic()
    result = commit_job(the_job, reports)
    assert time.monotonic() - started < 20
    assert result.rows == 600 and ids_in_controller(table, tmp_path) == list(range(600))


@pytest.mark.parametrize("existing", [False, True])
def test_two_overwrites_committing_at_once_leave_one_of_them(tmp_path, table, existing):
    """Any serial order of two overwrites leaves one DataFrame's rows, never both. Into an empty table both
    lineage entries had an empty segmentsFrom, so forceCleanup reverted neither and both stayed; an overwrite's
    run tag now marks its names, and the one that looks last after its end sees the other and reverts itself."""
    if existing:
        first = job(url=table.url, out=tmp_path / "s0")
        commit_job(first, run_tasks(first, [(9000, 9100)]))
    one = job(url=table.url, out=tmp_path / "s1", overwrite=True)
    two = job(url=table.url, out=tmp_path / "s2", overwrite=True)
    reports_one, reports_two = run_tasks(one, [(0, 500)]), run_tasks(two, [(1000, 1300)])
    outcome = commit_interleaved(table, (one, reports_one), (two, reports_two))
    ids = ids_in_controller(table, tmp_path)
    assert ids in (list(range(500)), list(range(1000, 1300)), list(range(9000, 9100)) if existing else [])
    winners = [k for k, v in outcome.items() if not isinstance(v, Exception)]
    assert winners and ids == {"one": list(range(500)), "two": list(range(1000, 1300))}[winners[-1]]


def test_an_overwrite_and_an_append_committing_at_once_both_stay(tmp_path, table):
    """An append that commits while an overwrite commits is an append after it (a serial order): the mark of
    an overwrite must not make either one withdraw."""
    one = job(url=table.url, out=tmp_path / "s1", overwrite=True)
    two = job(url=table.url, out=tmp_path / "s2")
    outcome = commit_interleaved(table, (one, run_tasks(one, [(0, 500)])), (two, run_tasks(two, [(1000, 1300)])))
    assert not any(isinstance(v, Exception) for v in outcome.values())
    assert ids_in_controller(table, tmp_path) == list(range(500)) + list(range(1000, 1300))


@pytest.mark.parametrize("rival", ["overwrite", "rerun"])
@pytest.mark.parametrize("when", ["before its files move in", "after its files moved in",
                                  "before it deletes what it replaced"])
def test_two_embedded_runs_committing_at_once_leave_one_of_them(tmp_path, monkeypatch, rival, when):
    """Without a controller, job two commits whole while job one is inside its commit. Two overwrites (or two
    runs of one write.id) leave one run's rows. Before one's files move in, two sees nothing of one and
    replaces only the old rows: both stayed; now one sees two's files after moving its own in and withdraws
    them (it has deleted nothing yet). Later, two sees one's files and replaces them: a serial order."""
    import pinot_sink.commit as commit_module
    from pinot_sink.storage.stores import DirectoryStore

    old = job(out=tmp_path)
    commit_job(old, run_tasks(old, [(9000, 9100)]))
    options = {"overwrite": True} if rival == "overwrite" else {"write.id": "daily_2024-03-01"}
    one = job(out=tmp_path, **options)
    time.sleep(0.01)  # another run tag
    two = job(out=tmp_path, **options)
    reports_one, reports_two = run_tasks(one, [(0, 500)]), run_tasks(two, [(1000, 1300)])
    real_publish, real_delete = commit_module.publish_into_directory, DirectoryStore.delete

    def commit_two():
        monkeypatch.setattr(commit_module, "publish_into_directory", real_publish)
        monkeypatch.setattr(DirectoryStore, "delete", real_delete)
        commit_job(two, reports_two)

    if when == "before its files move in":
        monkeypatch.setattr(commit_module, "publish_into_directory", lambda *a, **k: (commit_two(), real_publish(*a, **k)))
    elif when == "after its files moved in":
        monkeypatch.setattr(commit_module, "publish_into_directory", lambda *a, **k: (real_publish(*a, **k), commit_two()))
    else:
        monkeypatch.setattr(DirectoryStore, "delete", lambda self, names: (commit_two(), real_delete(self, names))[1])
    if when == "before its files move in":
        with pytest.raises(CommitError, match="committed at the same time .*taken out again and nothing was deleted"):
            commit_job(one, reports_one)
    else:
        commit_job(one, reports_one)
    kept_old = [] if rival == "overwrite" else list(range(9000, 9100))  # a rerun replaces its own write only
    assert ids_in_directory(tmp_path) == list(range(1000, 1300)) + kept_old


def test_write_id_with_a_fixed_name_is_refused():
    """A fixed name has no write tag: a later run of the same write.id with other naming kept both runs'
    rows (600 of 300)."""
    from pinot_sink.options import OptionError

    with pytest.raises(OptionError, match="'write.id' cannot be combined with segment-name.type=fixed"):
        job(**{"write.id": "d", "segment-name.type": "fixed", "segment.name": "events_manual"})


def test_an_embedded_table_whose_names_start_with_an_underscore_reruns_and_overwrites(tmp_path):
    """The directory listing skipped every file starting with "_": a table "_ev" (or a prefix "_bak") was
    never replaced by a rerun, an overwrite or an abort (600 rows after two runs of 300)."""
    from pinot_sink.job import prepare_job

    from .test_commit import ARROW_SCHEMA, CONFIG, SCHEMA

    def underscored(**options):
        raw = {"table-name": "_ev", "schema": json.dumps(dict(SCHEMA, schemaName="_ev")),
               "table-config": json.dumps(dict(CONFIG, tableName="_ev_OFFLINE")), "output-uri": str(tmp_path),
               "sink.buffer-flush.max-rows": "250", **options}
        return prepare_job(raw, ARROW_SCHEMA, overwrite=False)

    def ids():
        found = []
        for path in sorted((tmp_path / "_ev").glob("*.tar.gz")):
            found += read_segment(str(path)).table.column("id").to_pylist()
        return sorted(found)

    for _ in range(2):
        the_job = underscored(**{"write.id": "d"})
        commit_job(the_job, run_tasks(the_job, [(0, 300)]))
    assert ids() == list(range(300))


def test_credentials_in_the_controller_url_never_reach_logs_errors_or_the_manifest(tmp_path, table, caplog):
    import base64

    host = table.url.split("://", 1)[1]
    table.require_auth("Basic " + base64.b64encode(b"admin:pa55w0rd").decode())
    with caplog.at_level(logging.DEBUG):
        the_job = job(url=f"http://admin:pa55w0rd@{host}", out=tmp_path / "s", **{"write.id": "w"})
        commit_job(the_job, run_tasks(the_job, [(0, 300)]))
        failing = job(url=f"http://admin:pa55w0rd@{host}", out=tmp_path / "s",
                      **{"retry.max-attempts": 1, "push-parallelism": 1})
        reports = run_tasks(failing, [(0, 100)])
        table.fail_next(5, status=500, method="POST", path="/v2/segments")
        with pytest.raises(Exception) as error:
            commit_job(failing, reports)
        abort_job(failing, reports)
    texts = [caplog.text, str(error.value), repr(the_job), repr(failing.options)]
    texts += [p.read_text() for p in (tmp_path / "s").rglob("*.json")]
    assert len(texts) == 6 and not [t for t in texts if "pa55w0rd" in t]


@pytest.mark.slow  # issue 36: among the heaviest of make test (55-105 s at load 20, several Spark jobs); make test-slow runs it
@pytest.mark.spark
def test_spark_overwrite_with_an_empty_dataframe_empties_the_table(spark, tmp_path):
    """Real Spark: an empty DataFrame (no rows, and no partitions at all) overwrites to an empty table."""
    import pinot_sink

    from .helpers import embedded_writer, events_df, tarballs

    assert pinot_sink.register(spark) is True
    embedded_writer(events_df(spark, rows=500, partitions=2), tmp_path).mode("append").save()
    assert len(tarballs(tmp_path)) == 2
    embedded_writer(events_df(spark, rows=0, partitions=2), tmp_path).mode("overwrite").save()
    assert tarballs(tmp_path) == {}
    embedded_writer(events_df(spark, rows=500, partitions=2), tmp_path).mode("append").save()
    embedded_writer(spark.createDataFrame([], events_df(spark, rows=0).schema), tmp_path).mode("overwrite").save()
    assert tarballs(tmp_path) == {}


def test_a_rerun_that_changes_postfix_and_prefix_still_replaces_its_write(tmp_path, table):
    first = job(url=table.url, out=tmp_path / "s0", **{"write.id": "d", "segment.name.postfix": "a_b_1_2"})
    commit_job(first, run_tasks(first, [(0, 300), (300, 500)]))
    rerun = job(url=table.url, out=tmp_path / "s1", **{"write.id": "d", "segment.name.postfix": "w0123456789"})
    result = commit_job(rerun, run_tasks(rerun, [(0, 500)]))
    assert len(result.replaced) == 3 and ids_in_controller(table, tmp_path) == list(range(500))


def test_keeping_the_tarballs_in_output_uri_after_the_controller_committed_never_fails_the_write(
        tmp_path, table, monkeypatch, caplog):
    """push-mode=tar with output-uri keeps a copy of the tarballs after endReplaceSegments. When that copy
    failed (a full disk, an object-store error), commit_job raised although the table had changed: Spark
    reported the write failed and aborted, which cannot undo a controller commit, so a retry doubled it."""
    import pinot_sink.commit as commit_module

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    the_job = job(url=table.url, out=tmp_path / "s")
    reports = run_tasks(the_job, [(0, 300)])
    monkeypatch.setattr(commit_module, "publish_into_directory", broken)
    with caplog.at_level(logging.ERROR, logger="pinot_sink"):
        result = commit_job(the_job, reports)
    assert result.rows == 300 and ids_in_controller(table, tmp_path) == list(range(300))
    assert "No space left on device" in caplog.text


def test_a_staging_folder_that_cannot_be_removed_never_fails_a_committed_write(tmp_path, monkeypatch, caplog):
    """The staging folder is removed after the commit; an object store's error there (gcsfs raises HttpError,
    not an OSError) used to fail a write whose segments were already published."""
    from fsspec.implementations.memory import MemoryFileSystem

    real_rm = MemoryFileSystem.rm

    def rm(self, path, recursive=False, *args, **kwargs):
        if recursive and "_staging" in str(path):
            raise RuntimeError("AccessDenied: s3:DeleteObject")
        return real_rm(self, path, recursive, *args, **kwargs)

    monkeypatch.setattr(MemoryFileSystem, "rm", rm)
    out = "memory://adversarial-staging/pinot"
    try:
        with caplog.at_level(logging.WARNING, logger="pinot_sink"):
            the_job = job(**{"output-uri": out})
            result = commit_job(the_job, run_tasks(the_job, [(0, 300)]))
        assert result.rows == 300 and len(the_job.store().list()) == 2
        assert "AccessDenied" in caplog.text
    finally:
        monkeypatch.undo()
        fsspec.filesystem("memory").rm("/adversarial-staging", recursive=True)


@pytest.mark.parametrize("push_mode", ["metadata", "tar"])
def test_an_upload_whose_answer_is_lost_or_refused_then_applied_counts_once(tmp_path, table, push_mode):
    """The first upload's answer is lost (applied), the next one gets 503 (not applied): retries settle it."""
    the_job = job(url=table.url, out=tmp_path / "s", **{"push-mode": push_mode, "push-parallelism": 1})
    reports = run_tasks(the_job, [(0, 600)])
    table.lose_response_next(1, method="POST", path="/v2/segments")
    table.fail_next(1, status=503, method="POST", path="/v2/segments", after=1)
    result = commit_job(the_job, reports)
    ids = []
    for name in table.live_segments("events"):
        stored = table.segments("events")[name]
        data = stored.tar_bytes or Path(local_path(stored.zk["segment.download.url"])).read_bytes()
        path = tmp_path / f"{name}.tar.gz"
        path.write_bytes(data)
        ids += read_segment(str(path)).table.column("id").to_pylist()
    assert result.rows == 600 and sorted(ids) == list(range(600))
