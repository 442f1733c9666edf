"""Compaction against the test controller (real HTTP, Pinot's lineage rules): small segments of streaming
micro-batches and hourly appends merged per day into right-sized segments, one lineage entry per group, the
table's indexes built, and every row exactly once."""
from __future__ import annotations

import threading
from collections import defaultdict
from pathlib import Path

import pytest

from pinot_sink.compaction import compact
from pinot_sink.compaction.provenance import SOURCE_WRITES_KEY, CompactedWriteError
from pinot_sink.controller import ClientConfig, ControllerClient
from pinot_sink.naming import write_tag
from pinot_sink.segment.read.reader import open_segment
from tests.compaction.helpers import (BASE_MS, CONFIG, DAY_MS, SCHEMA, check_sizes, controller_ids, rows,
                                      tiny_segments, untarred_size, write)


@pytest.fixture
def table(fake_controller):
    fake_controller.add_table(SCHEMA, CONFIG)
    return fake_controller


@pytest.fixture
def client(table):
    with ControllerClient.from_config(ClientConfig(url=table.url)) as client:
        yield client


def live_tarballs(controller, tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "out"
    folder.mkdir(exist_ok=True)
    found = {}
    for name in controller.live_segments("events"):
        path = folder / f"{name}.tar.gz"
        path.write_bytes(controller.segments("events")[name].tar_bytes)
        found[name] = path
    return found


def check_compacted(controller, tmp_path: Path, expected_ids: list[int], target: int) -> dict[str, Path]:
    """Rows exactly once; sizes per day bucket; the table config's indexes and sorted column in each."""
    assert controller_ids(controller, tmp_path) == expected_ids
    live = live_tarballs(controller, tmp_path)
    sizes = defaultdict(list)
    for name, path in live.items():
        day = int(controller.segments("events")[name].zk["segment.start.time"]) // DAY_MS
        sizes[day].append(untarred_size(path))
        with open_segment(path) as reader:
            assert reader.inverted_index("country") is not None
            assert reader.column("country").sorted
            assert SOURCE_WRITES_KEY in reader.metadata.custom
    check_sizes(sizes, target)
    return live


def test_streaming_micro_batches_compacted_into_right_sized_segments(table, client, tmp_path):
    names = tiny_segments(40, 40, kind="stream", client=client, url=table.url, spacing_ms=60_000)
    target = 16 * 1024
    report = compact("events", url=table.url, target_size=target)
    assert not report.failed and len(report.groups) == 1
    group = report.groups[0]
    assert (group.segments_before, group.rows_before, group.rows_after) == (40, 1600, 1600)
    live = check_compacted(table, tmp_path, list(range(1600)), target)
    assert len(live) == group.segments_after >= 2
    # One lineage entry replaced exactly the merged segments.
    [entry] = [e for e in table.tables["events"].lineage.values() if set(e.segments_to) == set(live)]
    assert entry.state == "COMPLETED" and sorted(entry.segments_from) == sorted(names)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["stream", "hourly"])
def test_500_tiny_segments(table, client, tmp_path, kind):
    spacing = 60_000 if kind == "stream" else 3_600_000
    tiny_segments(500, 30, kind=kind, client=client, url=table.url, spacing_ms=spacing)
    target = 16 * 1024
    report = compact("events", url=table.url, target_size=target)
    assert not report.failed
    assert sum(g.segments_before for g in report.groups) == 500
    live = check_compacted(table, tmp_path, list(range(15_000)), target)  # sizes: within the band, untarred
    assert len(live) < 100  # 91 (stream) and 62 (hourly) at 16 KB untarred, ~9 KB of each is metadata files


def test_hourly_appends_per_day_bucket_and_dry_run(table, client, tmp_path):
    tiny_segments(48, 50, kind="hourly", client=client, url=table.url)
    before = sorted(table.live_segments("events"))
    plan = compact("events", url=table.url, target_size="12kb", dry_run=True)
    assert len(plan.plan.groups) == 2 and "dry run" in plan.summary() and "24 segment(s)" in plan.summary()
    assert sorted(table.live_segments("events")) == before
    report = compact("events", url=table.url, target_size="12kb")
    assert [g.segments_before for g in report.groups] == [24, 24]
    starts = {int(table.segments("events")[n].zk["segment.start.time"]) // DAY_MS for n in table.live_segments("events")}
    ends = {int(table.segments("events")[n].zk["segment.end.time"]) // DAY_MS for n in table.live_segments("events")}
    assert starts == ends == {BASE_MS // DAY_MS, BASE_MS // DAY_MS + 1}  # no output segment spans two days
    check_compacted(table, tmp_path, list(range(2400)), 12 * 1024)
    again = compact("events", url=table.url, target_size="12kb")  # what is right-sized stays
    assert again.groups == [] and sorted(table.live_segments("events")) == sorted(
        n for g in report.groups for n in g.new)


def test_time_range_and_min_segment_size_choose_what_is_merged(table, client, tmp_path):
    tiny_segments(48, 50, kind="hourly", client=client, url=table.url)
    report = compact("events", url=table.url, target_size="12kb",
                     time_range="2023-11-16T00:00:00Z..2023-11-17T00:00:00Z")
    assert [g.where for g in report.groups] == ["bucket 2023-11-16T00:00:00Z"]
    report = compact("events", url=table.url, target_size="12kb", min_segment_size="1kb", dry_run=True)
    assert report.plan.groups == []


def test_a_rerun_of_a_compacted_write_is_refused_before_any_upload(table, client, tmp_path):
    for hour in range(6):
        write(rows(hour * 100, 100, start_ms=BASE_MS + hour * 3_600_000), url=table.url, write_id=f"load-{hour}")
    compact("events", url=table.url, target_size="1mb", min_segment_size="1mb")
    assert len(table.live_segments("events")) == 1
    uploads, live = len(table.uploads()), sorted(table.live_segments("events"))
    with pytest.raises(CompactedWriteError, match=r"write load-2 was compacted into events_.*nothing was uploaded"):
        write(rows(200, 100, start_ms=BASE_MS + 2 * 3_600_000), url=table.url, write_id="load-2")
    assert len(table.uploads()) == uploads and sorted(table.live_segments("events")) == live
    assert controller_ids(table, tmp_path) == list(range(600))
    # A write id the compaction never saw still replaces its own segments as before.
    write(rows(600, 10, start_ms=BASE_MS), url=table.url, write_id="late")
    write(rows(600, 10, start_ms=BASE_MS), url=table.url, write_id="late")
    assert controller_ids(table, tmp_path) == list(range(610))


def test_a_compaction_of_compacted_segments_keeps_their_writes(table, client, tmp_path):
    for hour in range(4):
        write(rows(hour * 50, 50, start_ms=BASE_MS + hour * 3_600_000), url=table.url, write_id=f"w{hour}")
    compact("events", url=table.url, target_size="1mb", min_segment_size="1mb")
    write(rows(200, 50, start_ms=BASE_MS + 5 * 3_600_000), url=table.url, write_id="w5")
    compact("events", url=table.url, target_size="1mb", min_segment_size="1mb")
    [name] = table.live_segments("events")
    custom = table.segments("events")[name].zk["custom.map"]
    assert all(write_tag(w) in custom for w in ("w0", "w1", "w2", "w3", "w5"))
    with pytest.raises(CompactedWriteError):
        write(rows(0, 50, start_ms=BASE_MS), url=table.url, write_id="w0")


# --- races ---------------------------------------------------------------------------------------------


def test_history_names_every_compaction_run_that_replaced_a_write(table, client, capsys):
    """A compaction commits one run per bucket group: a write spread over two days is replaced by two runs.
    History said 'replaced by' the last of them only, as if its first day were elsewhere."""
    from pinot_sink.cli import main as cli
    from pinot_sink.history import table_history

    write(rows(0, 200, step_ms=DAY_MS // 100), url=table.url, write_id="two-days", **{"sink.time-bucket": "day"})
    write(rows(200, 200, step_ms=DAY_MS // 100), url=table.url, write_id="again", **{"sink.time-bucket": "day"})
    compact("events", url=table.url, target_size="1mb", min_segment_size="1mb")
    history = table_history(client, "events")
    compactions = sorted(r.run_tag for r in history if r.mode == "compaction")
    assert len(compactions) == 2
    two_days = next(r for r in history if r.write_tag == write_tag("two-days"))
    assert sorted(two_days.replaced_by_runs) == compactions and two_days.replaced_by in compactions
    capsys.readouterr()
    assert cli(["history", "--url", table.url, "--table", "events"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if two_days.run_tag in line)
    assert f"replaced by {compactions[0]}, {compactions[1]}" in line, line


def test_a_push_of_the_writes_folder_after_their_compaction_is_refused(table, client, tmp_path):
    """The writes' output-uri keeps their tarballs after a controller's compaction merged them (docs/compaction.md
    #limits). Pushing that folder refreshed the replaced segments while they were kept, and once Pinot's retention
    had deleted them (and then their lineage entry) added every row a second time beside the compacted segments
    (seen on a real cluster: 300 rows became 600). A live compacted segment that lists a tarball's write holds its
    rows: the push is refused before any upload, naming both."""
    from pinot_sink.cli import main as cli

    out = tmp_path / "out"
    for hour in range(3):
        write(rows(hour * 100, 100, start_ms=BASE_MS + hour * 3_600_000), url=table.url, out=out, write_id=f"h{hour}")
    compact("events", url=table.url, target_size="1mb", min_segment_size="1mb")
    table.apply_retention()  # the merged segments deleted, then their entries
    table.apply_retention()
    uploads, live = len(table.uploads()), sorted(table.live_segments("events"))
    with pytest.raises(SystemExit, match=r"3 tarball\(s\) hold rows of writes a compaction merged into live "
                                         r"segment events_.*nothing was pushed"):
        cli(["push", str(out / "events"), "--url", table.url, "--table", "events"])
    assert len(table.uploads()) == uploads and sorted(table.live_segments("events")) == live
    assert controller_ids(table, tmp_path) == list(range(300))


def test_a_rerun_that_starts_while_the_compaction_uploads_wins_and_the_compaction_fails_cleanly(table, client, tmp_path):
    for hour in range(4):
        write(rows(hour * 100, 100, start_ms=BASE_MS + hour * 3_600_000), url=table.url, write_id=f"load-{hour}")
    hold = table.delay_upload(30, nth=1)  # the compaction's first upload waits
    result = {}
    worker = threading.Thread(target=lambda: result.update(
        report=compact("events", url=table.url, target_size="1mb", min_segment_size="1mb",
                       options={"retry.initial-backoff": "10ms", "retry.max-backoff": "50ms"})))
    worker.start()
    assert hold.arrived.wait(20)
    # The rerun of load-1 replaces its own segment; its entry (forceCleanup) reverts the compaction's.
    write(rows(100, 100, start_ms=BASE_MS + 3_600_000), url=table.url, write_id="load-1")
    hold.release()
    worker.join(30)
    [group] = result["report"].groups
    assert "commit failed, the table is as it was" in group.error, group.error
    assert controller_ids(table, tmp_path) == list(range(400))
    assert len(table.live_segments("events")) == 4


def test_a_compaction_that_completes_first_makes_the_rerun_fail_cleanly(table, client, tmp_path):
    for hour in range(4):
        write(rows(hour * 100, 100, start_ms=BASE_MS + hour * 3_600_000), url=table.url, write_id=f"load-{hour}")
    # The rerun listed the table (its own segment live), then its start waits while the compaction commits.
    table.delay_next(1, seconds=1.5, method="POST", path="/segments/events/startReplaceSegments")
    errors = []

    def rerun():
        try:
            write(rows(100, 100, start_ms=BASE_MS + 3_600_000), url=table.url, write_id="load-1")
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    worker = threading.Thread(target=rerun)
    worker.start()
    threading.Event().wait(0.5)
    report = compact("events", url=table.url, target_size="1mb", min_segment_size="1mb")
    worker.join(30)
    assert not report.failed
    assert errors and "nothing" in str(errors[0])
    assert controller_ids(table, tmp_path) == list(range(400))


def test_a_write_still_replacing_a_segment_fails_the_compaction_at_once_naming_its_entry(table, client, tmp_path):
    """A rerun (or a killed one) holds an IN_PROGRESS entry on a segment the compaction merges: Pinot answers the
    compaction's start 500 ("Failed to update the segment lineage"), which was retried for the whole budget (11 s
    per group on a real cluster) and then reported as that 500. The retry now looks and stops, naming the entry."""
    for hour in range(4):
        write(rows(hour * 100, 100, start_ms=BASE_MS + hour * 3_600_000), url=table.url, write_id=f"load-{hour}")
    held = sorted(table.live_segments("events"))[1]
    rival = client.start_replace("events", [held], [], force_cleanup=False)
    before = len(table.received)
    report = compact("events", url=table.url, target_size="1mb", min_segment_size="1mb",
                     options={"retry.initial-backoff": "200ms", "retry.max-backoff": "1s"})
    [group] = report.groups
    assert f"segment {held} (of 4 to replace) is being replaced by lineage entry {rival} (IN_PROGRESS since " \
        in group.error, group.error
    assert (f"`pinot-sink recover --table events --url {table.url}` settles a killed one); nothing was "
            "started") in group.error  # the command as it runs (it said no --url)
    starts = [r for r in table.received[before:] if r.path.endswith("/startReplaceSegments")]
    assert len(starts) == 1  # no retry
    assert controller_ids(table, tmp_path) == list(range(400))


def test_an_append_during_a_compaction_is_kept(table, client, tmp_path):
    for hour in range(4):
        write(rows(hour * 100, 100, start_ms=BASE_MS + hour * 3_600_000), url=table.url, write_id=f"load-{hour}")
    hold = table.delay_upload(30, nth=1)
    worker = threading.Thread(target=lambda: compact("events", url=table.url, target_size="1mb",
                                                     min_segment_size="1mb"))
    worker.start()
    assert hold.arrived.wait(20)
    write(rows(400, 100, start_ms=BASE_MS + 3_600_000), url=table.url)
    hold.release()
    worker.join(30)
    assert controller_ids(table, tmp_path) == list(range(500))
    assert len(table.live_segments("events")) == 2


def test_a_replayed_micro_batch_that_was_compacted_is_refused_by_the_commit(table, tmp_path):
    """A streaming query restarted from an old checkpoint replays a batch whose segments were compacted: its
    commit (on the driver, before any upload) refuses it, naming the compaction."""
    from pinot_sink.commit import commit_job
    from pinot_sink.job import prepare_job
    from pinot_sink.task import write_partition
    from tests.compaction.helpers import ARROW

    job = prepare_job({"table-name": "events", "url": table.url}, ARROW, overwrite=False, streaming=True)

    def batch(number: int):
        report = write_partition(job, [rows(number * 50, 50, start_ms=BASE_MS + number * 60_000)], partition_id=0,
                                 task_attempt_id=number, query_id="q", batch_id=number)
        return commit_job(job, [report], query_id="q", batch_id=number)

    for number in range(5):
        batch(number)
    compact("events", url=table.url, target_size="1mb", min_segment_size="1mb")
    uploads = len(table.uploads())
    with pytest.raises(CompactedWriteError, match="write stream:q:3 was compacted into"):
        batch(3)
    assert len(table.uploads()) == uploads
    batch(5)  # the next batches go on as before
    assert controller_ids(table, tmp_path) == list(range(300))


def test_an_output_uri_copy_follows_a_compaction_then_a_window_overwrite(table, tmp_path):
    """Writes keep copies in output-uri; a controller's compaction merges them (the folder knows nothing of
    it); a window overwrite then replaces the compacted segment. On a real cluster the folder still read the
    merged writes' rows beside the overwrite's (310 rows, the table 10): their manifests now say superseded,
    followed back through the compaction's lineage entry."""
    import pinot_sink

    out = tmp_path / "out"
    for hour in range(3):
        write(rows(hour * 100, 100, start_ms=BASE_MS + hour * 3_600_000), url=table.url, out=out,
              write_id=f"load-{hour}")
    assert pinot_sink.read(out / "events").num_rows == 300
    report = compact("events", url=table.url, target_size="1mb", min_segment_size="1mb")
    assert not report.failed and len(table.live_segments("events")) == 1
    write(rows(1000, 10, start_ms=BASE_MS), url=table.url, out=out, write_id="fix", overwrite=True,
          **{"overwrite.time-range": "2023-11-15/2023-11-16"})
    assert controller_ids(table, tmp_path) == list(range(1000, 1010))
    assert sorted(pinot_sink.read(out / "events").column("id").to_pylist()) == list(range(1000, 1010))
    # undone, the overwrite stands no more: the merged writes' tarballs are live in the folder again
    from pinot_sink.cli import main

    assert main(["undo", "--table", "events", "--url", table.url, "--output-uri", str(out), "--write-id", "fix"]) == 0
    assert controller_ids(table, tmp_path / "after-undo") == list(range(300))
    assert sorted(pinot_sink.read(out / "events").column("id").to_pylist()) == list(range(300))
