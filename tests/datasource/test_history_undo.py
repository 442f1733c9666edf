"""History and undo (issue 31): each commit's run is listed live, replaced or reverted, and undoing a write
restores the table's live segments exactly as they were before it (names and CRCs), or is refused with the
reason when Pinot's record no longer allows it."""
from __future__ import annotations

import json

import pytest

from pinot_sink.cli import main
from pinot_sink.commit import commit_job
from pinot_sink.controller import ControllerClient
from pinot_sink.history import LIVE, REPLACED, REVERTED, UndoRefused, table_history, undo_write
from pinot_sink.storage.manifests import ABORTED, manifests_of_table, not_live
from tests.datasource.test_commit import CONFIG, SCHEMA, ids_in_controller, job, run_tasks


@pytest.fixture
def table(fake_controller):
    fake_controller.add_table(SCHEMA, CONFIG)
    return fake_controller


def live_crcs(controller) -> dict[str, int]:
    segments = controller.segments("events")
    return {name: segments[name].crc for name in controller.live_segments("events")}


def write(controller, out, rows: tuple[int, int], *, overwrite: bool = False, note: str = ""):
    the_job = job(url=controller.url, out=out, overwrite=overwrite, **({"commit.note": note} if note else {}))
    return commit_job(the_job, run_tasks(the_job, [rows]))


def test_undo_of_each_of_the_last_writes_restores_the_live_segments_exactly(table, tmp_path):
    out = tmp_path / "out"
    states = [live_crcs(table)]
    results = []
    for rows, overwrite in (((0, 600), False), ((600, 900), False), ((900, 1400), True), ((1400, 1500), False),
                            ((1500, 2000), True)):
        results.append(write(table, out, rows, overwrite=overwrite, note=f"rows {rows[0]}-{rows[1]}"))
        states.append(live_crcs(table))
    assert ids_in_controller(table, tmp_path) == list(range(1500, 2000))
    client = ControllerClient(table.url)
    for k in range(len(results), 0, -1):  # undo the last write, then the one before, ...
        done = undo_write(client, "events", results[k - 1].write_id, output_uri=str(out))
        assert done.run.run_tag == results[k - 1].run_tag
        assert live_crcs(table) == states[k - 1], f"undo of write {k}"
    assert table.live_segments("events") == []
    history = table_history(client, "events", output_uri=str(out))
    assert [r.status for r in history] == [REVERTED] * 5
    assert [r.note for r in history] == [f"rows {a}-{b}" for a, b in ((0, 600), (600, 900), (900, 1400),
                                                                       (1400, 1500), (1500, 2000))]
    documents = manifests_of_table(str(out / "events")).values()
    assert all(d["status"] == ABORTED and d["undone"]["lineage_id"] for d in documents)
    assert not_live(documents) >= {s.name for r in results for s in r.segments}  # push of the folder skips them


def test_history_says_live_replaced_and_reverted(table, tmp_path):
    out = tmp_path / "out"
    first = write(table, out, (0, 300))
    second = write(table, out, (300, 600), overwrite=True, note="the March fix")
    client = ControllerClient(table.url)
    history = {r.run_tag: r for r in table_history(client, "events", output_uri=str(out))}
    assert history[first.run_tag].status == REPLACED and history[first.run_tag].replaced_by == second.run_tag
    assert history[second.run_tag].status == LIVE and history[second.run_tag].mode == "overwrite"
    assert history[second.run_tag].write_id == second.write_id and history[second.run_tag].rows == 300
    assert history[second.run_tag].note == "the March fix"
    # without the manifests, the controller's record alone
    bare = {r.run_tag: r for r in table_history(client, "events")}
    assert bare[second.run_tag].write_id is None and bare[second.run_tag].rows == 300


def test_undo_is_refused_with_the_reason_when_it_no_longer_can(table, tmp_path):
    out = tmp_path / "out"
    first = write(table, out, (0, 300))
    second = write(table, out, (300, 600), overwrite=True)
    client = ControllerClient(table.url)
    before = live_crcs(table)
    with pytest.raises(UndoRefused, match=f"a later write replaced its segments: .*run {second.run_tag}.*undo that "
                                          "write first"):
        undo_write(client, "events", first.write_id)
    with pytest.raises(UndoRefused, match="no write 'nope'"):
        undo_write(client, "events", "nope")
    table.apply_retention()  # the replaced segments' retention has passed: the first write's are deleted
    with pytest.raises(UndoRefused, match="300 of the 300|of the .* segment\\(s\\) it replaced were deleted by "
                                          "retention"):
        undo_write(client, "events", second.write_id)
    assert live_crcs(table) == before  # refusals change nothing
    third = write(table, out, (600, 700))
    table.apply_retention()  # an append's entry replaced nothing: gone at the next run
    with pytest.raises(UndoRefused, match="keeps no lineage entry for it"):
        undo_write(client, "events", third.write_id)


def test_an_append_whose_entry_retention_dropped_while_a_later_write_replaced_it_names_that_write(table, tmp_path):
    """Pinot's retention drops an append's COMPLETED entry at its next run (it replaced nothing), long before the
    replaced-segments period ends: a later overwrite (or compaction) still holds the append's segments out. The
    undo said the append 'keeps no lineage entry' and to delete its segments by name (they are not live: that
    takes no row out); it says what holds them out and to undo that first, as when the entry is kept."""
    out = tmp_path / "out"
    first = write(table, out, (0, 300))
    second = write(table, out, (300, 600), overwrite=True)
    table.apply_retention(periods_passed=False)
    client = ControllerClient(table.url)
    assert {r.run_tag: r.lineage_id for r in table_history(client, "events")}[first.run_tag] is None
    before = live_crcs(table)
    with pytest.raises(UndoRefused, match=f"a later write replaced its segments: .*run {second.run_tag}.*undo that "
                                          "write first"):
        undo_write(client, "events", first.write_id)
    assert live_crcs(table) == before
    undo_write(client, "events", second.write_id)  # then the append is live again, and its entry is gone
    with pytest.raises(UndoRefused, match="keeps no lineage entry for it"):
        undo_write(client, "events", first.write_id)


def test_undo_of_an_overwrite_never_brings_back_a_run_a_rerun_replaced(table, tmp_path):
    """An overwrite held write W's first run out; W was rerun since (its rerun replaced W's live segments: none).
    Undoing the overwrite brought the first run's segments back beside the rerun's: W's rows twice (seen on a
    real cluster: 400 rows where W has 300). Refused, naming the rerun to undo first; after that undo, the
    overwrite's undo leaves W's first run, once."""
    out = tmp_path / "out"
    first = job(url=table.url, out=out, **{"write.id": "W"})
    commit_job(first, run_tasks(first, [(0, 300)]))
    overwrite = write(table, out, (1000, 1100), overwrite=True)
    rerun = job(url=table.url, out=out, **{"write.id": "W"})
    rerun_result = commit_job(rerun, run_tasks(rerun, [(0, 300)]))
    client = ControllerClient(table.url)
    before = live_crcs(table)
    with pytest.raises(UndoRefused, match=rf"bring back .*run {first.run_tag}.*later run {rerun_result.run_tag}, "
                                          rf".*undo run {rerun_result.run_tag} first"):
        undo_write(client, "events", overwrite.write_id)
    assert live_crcs(table) == before
    undo_write(client, "events", rerun_result.run_tag)
    undo_write(client, "events", overwrite.write_id)
    assert ids_in_controller(table, tmp_path) == list(range(300))


def test_undo_of_a_rerun_brings_the_earlier_run_back(table, tmp_path):
    out = tmp_path / "out"
    first = job(url=table.url, out=out, **{"write.id": "daily-1"})
    commit_job(first, run_tasks(first, [(0, 100)]))
    before = live_crcs(table)
    again = job(url=table.url, out=out, **{"write.id": "daily-1"})
    commit_job(again, run_tasks(again, [(0, 120)]))
    done = undo_write(ControllerClient(table.url), "events", "daily-1")
    assert done.live_again is not None and live_crcs(table) == before


def test_the_cli_lists_and_undoes(table, tmp_path, capsys):
    out = tmp_path / "out"
    result = write(table, out, (0, 200), note="first load")
    assert main(["history", "--url", table.url, "--table", "events", "--output-uri", str(out), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[0]["write"] == result.write_id and rows[0]["status"] == "live" and rows[0]["note"] == "first load"
    assert main(["undo", "--url", table.url, "--table", "events", "--write-id", result.write_id, "--dry-run"]) == 0
    assert "would revert" in capsys.readouterr().out and table.live_segments("events")
    assert main(["undo", "--url", table.url, "--table", "events", "--write-id", rows[0]["write_tag"]]) == 0
    assert "reverted write" in capsys.readouterr().out and table.live_segments("events") == []
    assert main(["undo", "--url", table.url, "--table", "events", "--write-id", rows[0]["write_tag"]]) == 1
    assert "nothing live to undo" in capsys.readouterr().err


# --- embedded mode: the folder and its manifests are the record ------------------------------------------


def folder_state(out) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "events").glob("*.tar.gz"))}


def test_embedded_undo_of_appends_restores_the_folder_and_refuses_what_deleted_files(tmp_path, capsys):
    from pinot_sink.history import folder_history, undo_folder_write

    out = tmp_path / "out"
    states = [folder_state(out)]
    results = []
    for rows in ((0, 300), (300, 500)):
        the_job = job(out=out, **{"commit.note": f"rows from {rows[0]}"})
        results.append(commit_job(the_job, run_tasks(the_job, [rows])))
        states.append(folder_state(out))
    assert [r.status for r in folder_history(str(out), "events")] == [LIVE, LIVE]
    undo_folder_write(str(out), "events", results[1].write_id)
    assert folder_state(out) == states[1]
    assert main(["undo", "--table", "events", "--output-uri", str(out), "--write-id", results[0].write_id]) == 0
    assert folder_state(out) == states[0] == {}
    assert main(["history", "--table", "events", "--output-uri", str(out), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [r["status"] for r in rows] == [REVERTED, REVERTED] and rows[1]["note"] == "rows from 300"

    kept = job(out=out)
    commit_job(kept, run_tasks(kept, [(0, 100)]))
    overwrite = job(out=out, overwrite=True)
    result = commit_job(overwrite, run_tasks(overwrite, [(100, 200)]))
    with pytest.raises(UndoRefused, match="deleted the 1 file\\(s\\) it replaced"):
        undo_folder_write(str(out), "events", result.write_id)
    with pytest.raises(UndoRefused, match=f"no longer in the folder: .*run {result.run_tag}"):
        undo_folder_write(str(out), "events", kept.run_of(None, None).write_id)


def test_an_overwrite_with_no_rows_is_listed_and_undone_by_its_entry(table, tmp_path):
    """The review's case: an overwrite of an empty DataFrame commits an entry with no new segment. It was
    invisible to history, undo of it was refused as having no entry, and undo of the write it emptied sent a
    revert Pinot refuses (five 500s, then a traceback)."""
    out = tmp_path / "out"
    first = write(table, out, (0, 300))
    before = live_crcs(table)
    empty = job(url=table.url, out=out, overwrite=True)
    commit_job(empty, run_tasks(empty, []))
    assert table.live_segments("events") == []
    client = ControllerClient(table.url)
    history = table_history(client, "events")
    [emptied] = [r for r in history if not r.segments]
    assert emptied.status == LIVE and emptied.mode == "overwrite" and history[-1] is emptied
    assert [r.status for r in history if r.run_tag == first.run_tag] == [REPLACED]
    with pytest.raises(UndoRefused, match="a later write replaced its segments"):
        undo_write(client, "events", first.write_id)
    undo_write(client, "events", emptied.lineage_id)
    assert live_crcs(table) == before
