"""Window backfills without Spark: tasks run by hand (``write_partition``), the driver's ``commit_job``;
embedded mode, a failing commit, the option checks, and ``pinot-sink push --replace-time-range``."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.cli import main
from pinot_sink.commit import CommitError, abort_job, commit_job
from pinot_sink.options import OptionError
from pinot_sink.segment import read_segment
from pinot_sink.task import write_partition
from tests.datasource.helpers import prepared_job
from segment_factory import make_segment

DAY = 86_400_000
FIRST_DAY = 1_707_955_200_000  # 2024-02-15T00:00:00Z: day 0
SCHEMA = {"schemaName": "events", "dimensionFieldSpecs": [{"name": "id", "dataType": "LONG"}],
          "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
                                  "granularity": "1:MILLISECONDS"}]}
CONFIG = {"tableName": "events_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
          "tableIndexConfig": {}, "metadata": {}}
ARROW_SCHEMA = pa.schema([("id", pa.int64()), ("ts", pa.timestamp("us", tz="UTC"))])
FAST = ["--retries", "2", "--retry-time", "10"]


def day_batches(days, per_day: int, first_id: int = 0):
    """``per_day`` rows on each day, one an hour; ids count up from ``first_id``."""
    for i, day in enumerate(days):
        ids = np.arange(first_id + i * per_day, first_id + (i + 1) * per_day, dtype=np.int64)
        micros = (FIRST_DAY + day * DAY + np.arange(per_day, dtype=np.int64) * 3_600_000) * 1000
        yield pa.record_batch([pa.array(ids), pa.array(micros, pa.timestamp("us", tz="UTC"))], schema=ARROW_SCHEMA)


def job(*, out: Path | None = None, url: str | None = None, overwrite: bool = False, config=CONFIG, **options):
    return prepared_job(SCHEMA, config, ARROW_SCHEMA, out=out, url=url, overwrite=overwrite, **options)


def rows_per_day(paths) -> dict[int, tuple[int, int]]:
    """day -> (rows, smallest id)."""
    days, low = Counter(), {}
    for path in paths:
        table = read_segment(str(path)).table
        for row_id, ts in zip(table.column("id").to_pylist(), table.column("ts").cast(pa.int64()).to_pylist()):
            day = (ts - FIRST_DAY) // DAY
            days[day] += 1
            low[day] = min(row_id, low.get(day, row_id))
    return {d: (days[d], low[d]) for d in sorted(days)}


def controller_paths(controller, tmp_path: Path) -> list[Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in controller.live_segments("events"):
        path = tmp_path / f"{name}.tar.gz"
        path.write_bytes(controller.segments("events")[name].tar_bytes)
        paths.append(path)
    return paths


@pytest.fixture
def table(fake_controller):
    fake_controller.add_table(SCHEMA, CONFIG)
    return fake_controller


def test_embedded_window_replace_reads_each_segments_metadata(tmp_path):
    first = job(out=tmp_path, **{"sink.time-bucket": "day", "sink.buffer-flush.max-rows": 1000})
    commit_job(first, [write_partition(first, day_batches(range(10), 24), partition_id=0)])
    folder = tmp_path / "events"
    old = {p.name for p in folder.glob("*.tar.gz")}
    assert len(old) == 10 and rows_per_day(folder.glob("*.tar.gz")) == {d: (24, 24 * d) for d in range(10)}
    window = job(out=tmp_path, overwrite=True, **{"overwrite.time-range": "2024-02-18/2024-02-21",
                                                  "sink.buffer-flush.max-rows": 30})
    reports = [write_partition(window, day_batches([3, 4], 12, 1000), partition_id=0),
               write_partition(window, day_batches([5], 12, 2000), partition_id=1)]
    result = commit_job(window, reports)
    assert len(result.replaced) == 3 and set(f"{n}.tar.gz" for n in result.replaced) < old
    after = rows_per_day(folder.glob("*.tar.gz"))
    assert after == {**{d: (24, 24 * d) for d in range(10)}, 3: (12, 1000), 4: (12, 1012), 5: (12, 2000)}
    assert not (folder / "_staging" / window.run.folder).exists()


def test_a_failed_window_commit_reverts_and_the_table_reads_as_before(tmp_path, table):
    first = job(url=table.url, out=tmp_path / "s1", **{"sink.time-bucket": "day"})
    commit_job(first, [write_partition(first, day_batches(range(10), 24), partition_id=0)])
    before, live = rows_per_day(controller_paths(table, tmp_path / "before")), sorted(table.live_segments())
    window = job(url=table.url, out=tmp_path / "s2", overwrite=True, **{
        "overwrite.time-range": "2024-02-17/2024-02-22", "sink.buffer-flush.max-rows": 20,
        "retry.max-attempts": 2, "push-parallelism": 1})
    reports = [write_partition(window, day_batches(range(2, 7), 24, 5000), partition_id=0)]
    table.fail_next(20, status=500, message="disk full", method="POST", path="/v2/segments", after=2)
    with pytest.raises(CommitError, match="the table is as it was"):
        commit_job(window, reports)
    assert abort_job(window, reports) == []
    assert sorted(table.live_segments()) == live
    assert [e.state for e in table.tables["events"].lineage.values()] == ["COMPLETED", "REVERTED"]
    [*_, entry] = table.tables["events"].lineage.values()
    assert len(entry.segments_from) == 5 and set(entry.segments_from) < set(live)  # days 2..6, one entry
    assert rows_per_day(controller_paths(table, tmp_path / "after")) == before


def test_an_empty_dataframe_empties_a_fixed_window_and_a_dynamic_one_changes_nothing(tmp_path, table):
    first = job(url=table.url, out=tmp_path / "s1", **{"sink.time-bucket": "day"})
    commit_job(first, [write_partition(first, day_batches(range(4), 6), partition_id=0)])
    dynamic = job(url=table.url, out=tmp_path / "s2", overwrite=True, **{"overwrite.time-range": "dynamic",
                                                                         "sink.time-bucket": "day"})
    assert commit_job(dynamic, [write_partition(dynamic, [], partition_id=0)]).replaced == ()
    assert len(table.live_segments()) == 4
    window = job(url=table.url, out=tmp_path / "s3", overwrite=True,
                 **{"overwrite.time-range": "2024-02-16/2024-02-18"})
    assert len(commit_job(window, [None]).replaced) == 2
    assert rows_per_day(controller_paths(table, tmp_path / "r")) == {0: (6, 0), 3: (6, 18)}


def test_dynamic_windows_follow_an_hourly_push_frequency(tmp_path, fake_controller):
    hourly = dict(CONFIG, ingestionConfig={"batchIngestionConfig": {"segmentIngestionType": "APPEND",
                                                                    "segmentIngestionFrequency": "HOURLY"}})
    fake_controller.add_table(SCHEMA, hourly)
    first = job(url=fake_controller.url, out=tmp_path / "s1", **{"sink.time-bucket": "hour"})
    commit_job(first, [write_partition(first, day_batches([0, 1], 24), partition_id=0)])
    assert len(fake_controller.live_segments()) == 48
    dynamic = job(url=fake_controller.url, out=tmp_path / "s2", overwrite=True, **{"overwrite.time-range": "dynamic"})
    hours = pa.record_batch([pa.array([900, 901], pa.int64()),
                             pa.array([(FIRST_DAY + 5 * 3_600_000) * 1000, (FIRST_DAY + 30 * 3_600_000) * 1000],
                                      pa.timestamp("us", tz="UTC"))], schema=ARROW_SCHEMA)
    result = commit_job(dynamic, [write_partition(dynamic, [hours], partition_id=0)])
    assert len(result.replaced) == 2 and len(fake_controller.live_segments()) == 47  # 46 old hours + 1 new
    ids = sorted(i for p in controller_paths(fake_controller, tmp_path / "r")
                 for i in read_segment(str(p)).table.column("id").to_pylist())
    assert ids == sorted(set(range(48)) - {5, 30} | {900, 901})


@pytest.mark.parametrize("options, config, overwrite, message", [
    ({"overwrite.time-range": "2024-03-01/2024-03-08"}, CONFIG, False, "needs mode\\('overwrite'\\)"),
    ({"overwrite.time-range": "2024-03-01/2024-03-08"},
     dict(CONFIG, ingestionConfig={"batchIngestionConfig": {"segmentIngestionType": "REFRESH"}}), True,
     "REFRESH table"),
    ({"overwrite.time-range": "2024-03-01/2024-03-08"}, dict(CONFIG, segmentsConfig={}), True, "no time column"),
    ({"overwrite.time-range": "dynamic"}, CONFIG, True, "names no push frequency"),
    ({"overwrite.time-range": "2024-03-01"}, CONFIG, True, "'overwrite.time-range': '2024-03-01' is not START/END"),
    ({"overwrite.straddling": "keep"}, CONFIG, True, "'overwrite.straddling': 'keep' is not one of error, include"),
    ({"sink.time-bucket": "week"}, CONFIG, False, "'sink.time-bucket': 'week' is not one of day, hour"),
])
def test_window_options_are_checked_before_any_task(tmp_path, options, config, overwrite, message):
    with pytest.raises(OptionError, match=message):
        job(out=tmp_path, overwrite=overwrite, config=config, **options)


def test_refresh_tables_still_overwrite_whole(tmp_path):
    refresh = dict(CONFIG, ingestionConfig={"batchIngestionConfig": {"segmentIngestionType": "REFRESH"}})
    first = job(out=tmp_path, config=refresh)
    commit_job(first, [write_partition(first, day_batches(range(3), 4), partition_id=0)])
    again = job(out=tmp_path, config=refresh, overwrite=True)
    commit_job(again, [write_partition(again, day_batches([7], 4, 100), partition_id=0)])
    assert rows_per_day((tmp_path / "events").glob("*.tar.gz")) == {7: (4, 100)}


# --- pinot-sink push --replace-time-range -----------------------------------------------------------------


def daily_segment(folder: Path, name: str, day: int, rows: int = 5, *, days: int = 1) -> Path:
    start = FIRST_DAY + day * DAY
    return make_segment(folder, name, rows=rows, start_time=start, end_time=start + days * DAY - 1)


def test_cli_replaces_the_window_in_one_lineage_entry(fake_controller, tmp_path, capsys):
    for day in range(6):
        daily_segment(tmp_path / "old", f"events_day{day}", day)
    assert main(["push", str(tmp_path / "old"), "--url", fake_controller.url, "--table", "events", *FAST]) == 0
    daily_segment(tmp_path / "new", "events_new_a", 2, days=2)  # covers days 2 and 3
    daily_segment(tmp_path / "new", "events_new_b", 5)
    args = ["push", str(tmp_path / "new"), "--replace-time-range", "2024-02-17/2024-02-20", "--url",
            fake_controller.url, "--table", "events", *FAST]
    with pytest.raises(SystemExit, match="1 segment\\(s\\) hold rows outside the window.*events_new_b"):
        main(args)
    assert len(fake_controller.uploads()) == 6  # nothing pushed
    (tmp_path / "new" / "events_new_b.tar.gz").unlink()
    assert main(args) == 0
    assert "1 segments replaced 3 in 2024-02-17T00:00:00Z/2024-02-20T00:00:00Z" in capsys.readouterr().out
    assert sorted(fake_controller.live_segments()) == ["events_day0", "events_day1", "events_day5", "events_new_a"]
    [*_, entry] = fake_controller.tables["events"].lineage.values()
    assert sorted(entry.segments_from) == ["events_day2", "events_day3", "events_day4"]
    assert entry.segments_to == ["events_new_a"]


def test_cli_refuses_straddling_segments_unless_included(fake_controller, tmp_path):
    daily_segment(tmp_path / "old", "events_days01", 0, days=2)
    daily_segment(tmp_path / "old", "events_day2", 2)
    assert main(["push", str(tmp_path / "old"), "--url", fake_controller.url, "--table", "events", *FAST]) == 0
    daily_segment(tmp_path / "new", "events_new", 1)
    args = ["push", str(tmp_path / "new"), "--replace-time-range", "2024-02-16/2024-02-17", "--url",
            fake_controller.url, "--table", "events", *FAST]
    with pytest.raises(SystemExit, match="events_days01 .*--include-straddling"):
        main(args)
    assert sorted(fake_controller.live_segments()) == ["events_day2", "events_days01"]
    assert main([*args, "--include-straddling"]) == 0
    assert sorted(fake_controller.live_segments()) == ["events_day2", "events_new"]


def test_cli_names_segments_already_in_the_table_before_starting(fake_controller, tmp_path):
    """The same tarballs pushed again with --replace-time-range: Pinot refuses new names that are in the table
    (HTTP 500 "... from 'segmentsTo' exists in table"), which the start retried for its whole budget before
    failing. Found following the README's push lines against one folder. Now one line first, nothing started."""
    for day in range(3):
        daily_segment(tmp_path / "old", f"events_day{day}", day)
    assert main(["push", str(tmp_path / "old"), "--url", fake_controller.url, "--table", "events", *FAST]) == 0
    starts = len(fake_controller.received)
    with pytest.raises(SystemExit, match=r"^table events: nothing was pushed: 3 segment name\(s\) are in the table "
                                         r"already \(events_day0, events_day1, events_day2\); a replacement needs new"):
        main(["push", str(tmp_path / "old"), "--replace-time-range", "2024-02-15/2024-02-20", "--url",
              fake_controller.url, "--table", "events", *FAST])
    assert not any(r.path.endswith("startReplaceSegments") for r in fake_controller.received[starts:])
    assert len(fake_controller.uploads()) == 3 and not fake_controller.tables["events"].lineage
