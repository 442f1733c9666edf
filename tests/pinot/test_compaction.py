"""Compaction (issue 33) against a real controller, server and broker: many small appends merged per day in one
lineage entry per bucket group; the broker's answers stay those of the DataFrames; a rerun of a compacted
write id is refused before any upload."""
from __future__ import annotations

import pytest

import pinot_sink
from pinot_sink.spark_write import WriteCheckError

from .cluster import by_day_sql, per_day
from .frames import events, events_config, events_schema

FAST = {"retry.initial-backoff": "100ms", "retry.max-backoff": "1s", "sink.time-bucket": "day"}


def test_small_appends_compacted_per_day_answer_the_same(spark, pinot):
    table = "rp_compact"
    pinot.create(events_schema(table), events_config(table))
    sql = by_day_sql(table)
    table_now = None
    for hour in range(6):  # six small appends over two days, each its own write id
        df = events(spark, hour * 200, hour * 200 + 200, [0, 1], partitions=2)
        pinot_sink.write(df, table, url=pinot.url, **FAST, **{"write.id": f"hourly-{hour}"})
        table_now = df if table_now is None else table_now.unionByName(df)
    want = per_day(table_now)
    pinot.wait_rows(sql, want)
    before = pinot.live_segments(table)
    assert len(before) >= 12

    report = pinot_sink.compact(table, url=pinot.url, target_size="64mb", min_segment_size="64mb")
    assert not report.failed and report.groups
    after = pinot.live_segments(table)
    assert len(after) <= 2 and not set(after) & set(before)  # one segment per day, all new
    pinot.wait_rows(sql, want)  # the same answers from the compacted segments
    assert set(pinot.lineage_states(table)) == {"COMPLETED"}

    with pytest.raises(WriteCheckError, match="write hourly-0 was compacted into"):  # its rows now live in the compacted segments: refused, not doubled
        pinot_sink.write(events(spark, 0, 200, [0, 1]), table, url=pinot.url, **FAST, **{"write.id": "hourly-0"})
    pinot.wait_rows(sql, want)
