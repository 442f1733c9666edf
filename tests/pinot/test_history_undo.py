"""History and undo (issue 31) against a real controller: Pinot's revertReplaceSegments on a COMPLETED entry
brings back what the write replaced (still kept by retention) and hides what it added, and the broker's
answers follow; a write that a later one replaced is refused by name."""
from __future__ import annotations

import pinot_sink
from pinot_sink.cli import main
from pinot_sink.controller import ControllerClient
from pinot_sink.history import LIVE, REPLACED, REVERTED, table_history

from .cluster import by_day_sql, per_day
from .frames import events, events_config, events_schema

FAST = {"retry.initial-backoff": "100ms", "retry.max-backoff": "1s", "sink.time-bucket": "day"}


def test_undo_an_overwrite_then_an_append_on_a_real_cluster(spark, pinot, capsys):
    table = "rp_undo"
    pinot.create(events_schema(table), events_config(table))
    sql = by_day_sql(table)

    def write(df, mode="append", **options):
        return pinot_sink.write(df, table, mode=mode, url=pinot.url, **FAST, **options)

    a = events(spark, 0, 1200, [0, 1])
    first = write(a, **{"write.id": "load-a", "commit.note": "first load"})
    b = events(spark, 1200, 1800, [1, 2])
    second = write(b, **{"write.id": "load-b"})
    pinot.wait_rows(sql, per_day(a.unionByName(b)))
    live_before = pinot.live_segments(table)
    c = events(spark, 5000, 5300, [3])
    third = write(c, "overwrite", **{"write.id": "reload"})
    pinot.wait_rows(sql, per_day(c))

    history = {run.run_tag: run for run in table_history(ControllerClient(pinot.url), table)}
    assert history[third.run_tag].status == LIVE
    assert history[first.run_tag].status == REPLACED and history[second.run_tag].status == REPLACED

    # a write that a later one replaced cannot be undone: the refusal names the later run
    assert main(["undo", "--url", pinot.url, "--table", table, "--write-id", second.write_id]) == 1
    err = capsys.readouterr().err
    assert "a later write replaced its segments" in err and third.run_tag in err

    assert main(["undo", "--url", pinot.url, "--table", table, "--write-id", third.write_id]) == 0
    pinot.wait_rows(sql, per_day(a.unionByName(b)))  # the overwritten rows are back
    assert pinot.live_segments(table) == live_before

    assert main(["undo", "--url", pinot.url, "--table", table, "--write-id", second.write_id]) == 0
    pinot.wait_rows(sql, per_day(a))  # the append's rows are gone
    history = {run.run_tag: run for run in table_history(ControllerClient(pinot.url), table)}
    assert history[second.run_tag].status == REVERTED and history[first.run_tag].status == LIVE


def test_undo_of_an_append_a_compaction_merged_after_retention_names_the_compaction(spark, pinot, capsys):
    """Pinot's RetentionManager drops an append's COMPLETED entry at its next run (it replaced nothing) while the
    compaction that merged the append's segments keeps them (its replaced segments wait out their period): the
    undo of the append said to delete its segments by name (not live: no row would go); it names the compaction."""
    table = "rp_undo_compacted"
    pinot.create(events_schema(table), events_config(table))
    sql = by_day_sql(table)
    a, b = events(spark, 0, 400, [0, 1]), events(spark, 400, 700, [0, 1])
    first = pinot_sink.write(a, table, url=pinot.url, **FAST, **{"write.id": "hour-a"})
    pinot_sink.write(b, table, url=pinot.url, **FAST, **{"write.id": "hour-b"})
    report = pinot_sink.compact(table, url=pinot.url)
    assert not report.failed and report.groups
    pinot.wait_rows(sql, per_day(a.unionByName(b)))
    pinot.must("GET", "/periodictask/run", params={"taskname": "RetentionManager", "tableName": table, "type": "OFFLINE"})
    pinot.wait(lambda: first.run_tag not in {r.run_tag for r in table_history(ControllerClient(pinot.url), table)
                                             if r.lineage_id}, 60, "the append's lineage entry dropped by retention")
    capsys.readouterr()
    assert main(["undo", "--url", pinot.url, "--table", table, "--write-id", "hour-a"]) == 1
    err = capsys.readouterr().err
    assert "a later write replaced its segments" in err and "deleted by name" not in err, err
    pinot.wait_rows(sql, per_day(a.unionByName(b)))
