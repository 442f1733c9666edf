"""A table's life over weeks, as a data engineer lives it, against a real controller, server and broker: hourly
appends (with an ``output-uri`` copy), an overwrite of a day, a rerun, undos in the order they are allowed, a
compaction, Pinot's retention, and a push of the writes' folder; after every step the broker answers what
Spark says the rows are. Two defects lived here: the undo of the overwrite brought back the first run of a
write rerun since (its rows twice), and the folder's push after the compaction and retention doubled every
row."""
from __future__ import annotations

import pytest

import pinot_sink
from pinot_sink.cli import main as cli

from .cluster import by_day_sql, per_day
from .frames import events, events_config, events_schema, on_days

FAST = {"retry.initial-backoff": "100ms", "retry.max-backoff": "1s", "sink.time-bucket": "day"}


def test_appends_overwrite_rerun_undos_compaction_retention_and_a_push(spark, pinot, tmp_path, capsys):
    table = "rp_life"
    pinot.create(events_schema(table), events_config(table))
    out = str(tmp_path / "out")
    sql = by_day_sql(table)

    def write(df, write_id: str, mode: str = "append", **options):
        return pinot_sink.write(df, table, mode=mode, url=pinot.url, **FAST,
                                **{"write.id": write_id, "output-uri": out, **options})

    def undo(write_id: str) -> tuple[int, str]:
        capsys.readouterr()
        code = cli(["undo", "--url", pinot.url, "--table", table, "--write-id", write_id])
        return code, capsys.readouterr().err

    hourly = events(spark, 0, 600, [0, 1, 2])
    write(hourly, "hourly")
    other = events(spark, 600, 900, [0, 2])
    write(other, "other")
    day1 = events(spark, 5000, 5200, [1], scale=3)
    overwrite = write(day1, "fix-day1", "overwrite", **{"overwrite.time-range": "2023-11-16/2023-11-17"})
    rerun_rows = events(spark, 0, 600, [0, 1, 2], scale=2)
    rerun = write(rerun_rows, "hourly")  # replaces the live segments of 'hourly': its day 1 was held out
    pinot.wait_rows(sql, per_day(rerun_rows.unionByName(on_days(other, [1], keep=False)).unionByName(day1)))

    code, err = undo("fix-day1")  # would put the first run's day 1 beside the rerun's
    assert code == 1 and f"undo run {rerun.run_tag} first" in err, err
    assert undo(rerun.run_tag)[0] == 0
    assert undo(overwrite.run_tag)[0] == 0
    both = hourly.unionByName(other)
    pinot.wait_rows(sql, per_day(both))

    report = pinot_sink.compact(table, url=pinot.url)
    assert not report.failed and report.groups
    pinot.wait_rows(sql, per_day(both))
    config = events_config(table)
    config["segmentsConfig"]["replacedSegmentsRetentionPeriod"] = "1s"  # retention's work within the test
    pinot.must("PUT", f"/tables/{table}", json=config)

    def retention_done() -> bool:  # one run each poll: the merged segments deleted, then the entries dropped
        pinot.must("GET", "/periodictask/run",
                   params={"taskname": "RetentionManager", "tableName": table, "type": "OFFLINE"})
        return not any(e["segmentsFrom"] for e in pinot.lineage(table).values() if e["state"] == "COMPLETED")

    pinot.wait(retention_done, 90, "the merged segments deleted and the compaction's entries dropped")
    with pytest.raises(SystemExit, match="a compaction merged into live segment"):  # it added every row again
        cli(["push", f"{out}/{table}", "--url", pinot.url, "--table", table])
    pinot.wait_rows(sql, per_day(both))
