"""Every write mode against a real Pinot cluster, checked through the broker against Spark's own answers:
append, a rerun by ``write.id``, window and dynamic overwrite, whole-table overwrite; tar, metadata and URI
push; ``table.create=if-missing``."""
from __future__ import annotations

import pinot_sink

from .cluster import by_day_sql, per_day
from .frames import day_ms, events, events_config, events_schema, on_days
from .servers import file_server

FAST = {"retry.initial-backoff": "100ms", "retry.max-backoff": "1s", "sink.time-bucket": "day"}


def test_append_rerun_and_every_overwrite(spark, pinot):
    table = "rp_modes"
    pinot.create(events_schema(table), events_config(table))
    sql = by_day_sql(table)

    def write(df, mode="append", **options):
        return pinot_sink.write(df, table, mode=mode, url=pinot.url, **FAST, **options)

    a = events(spark, 0, 3000, [0, 1, 2])
    write(a, **{"write.id": "a"})
    pinot.wait_rows(sql, per_day(a))
    write(events(spark, 0, 3000, [0, 1, 2], partitions=4), **{"write.id": "a"})  # its rerun: replaced, not doubled
    pinot.wait_rows(sql, per_day(a))
    b = events(spark, 3000, 4000, [1, 2, 3])
    write(b)
    table_now = a.unionByName(b)
    pinot.wait_rows(sql, per_day(table_now))

    c = events(spark, 10_000, 10_500, [1], scale=3)  # day 1 replaced in one lineage entry
    write(c, "overwrite", **{"overwrite.time-range": f"{day_ms(1)}/{day_ms(2)}"})
    table_now = on_days(table_now, [1], keep=False).unionByName(c)
    pinot.wait_rows(sql, per_day(table_now))

    d = events(spark, 20_000, 20_400, [2, 4], scale=5)  # the days the DataFrame holds: 2 and 4
    write(d, "overwrite", **{"overwrite.time-range": "dynamic"})
    table_now = on_days(table_now, [2, 4], keep=False).unionByName(d)
    pinot.wait_rows(sql, per_day(table_now))

    e = events(spark, 30_000, 30_200, [5, 6])
    write(e, "overwrite")
    pinot.wait_rows(sql, per_day(e))
    assert set(pinot.lineage_states(table)) == {"COMPLETED"}


def test_metadata_and_uri_push(spark, pinot, tmp_path):
    table = "rp_push_modes"
    pinot.create(events_schema(table), events_config(table))
    sql = by_day_sql(table)
    first = events(spark, 0, 1500, [0, 1])
    out = tmp_path / "deep"
    pinot_sink.write(first, table, url=pinot.url, **FAST, **{"push-mode": "metadata", "output-uri": str(out)})
    pinot.wait_rows(sql, per_day(first))
    zk = pinot.must("GET", f"/segments/{table}/zkmetadata", params={"type": "OFFLINE"})
    assert zk and all(m["segment.download.url"].startswith("file:") for m in zk.values())  # served from output-uri

    second = events(spark, 1500, 2500, [1, 2])
    # The controller downloads a URI push itself and refuses file:// (recorded: "Unsupported URI"): a loopback
    # HTTP server over output-uri, named by push.segment-uri-prefix.
    with file_server(out) as prefix:
        pinot_sink.write(second, table, url=pinot.url, **FAST, **{"push-mode": "uri", "output-uri": str(out),
                                                                   "push.segment-uri-prefix": prefix})
    pinot.wait_rows(sql, per_day(first.unionByName(second)))
    zk = pinot.must("GET", f"/segments/{table}/zkmetadata", params={"type": "OFFLINE"})
    served = sorted("file" if m["segment.download.url"].startswith("file:") else "controller" for m in zk.values())
    assert "controller" in served  # the controller downloaded the URI pushes and serves them from its deep store


def test_table_create_if_missing(spark, pinot):
    table = "rp_created"
    pinot.drop(table)
    options = {"table.create": "if-missing", "table.time-column": "ts", "table.metric-columns": "value"}
    first = events(spark, 0, 1000, [0, 1])
    pinot_sink.write(first, table, url=pinot.url, **FAST, **options)
    sql = by_day_sql(table)
    pinot.wait_rows(sql, per_day(first))
    schema = pinot.must("GET", f"/tables/{table}/schema")
    assert [f["name"] for f in schema["metricFieldSpecs"]] == ["value"]
    assert pinot.must("GET", f"/tables/{table}", params={"type": "offline"})["OFFLINE"]["segmentsConfig"][
        "timeColumnName"] == "ts"
    second = events(spark, 1000, 1600, [1, 2])  # the table exists now: used as it is
    pinot_sink.write(second, table, url=pinot.url, **FAST, **options)
    pinot.wait_rows(sql, per_day(first.unionByName(second)))
