"""df.write.format("pinot") against the loopback test controller (real HTTP, real local Spark)."""
from __future__ import annotations

import base64

import pytest

import pinot_sink
from tests.datasource.helpers import events_df
from tests.datasource.helpers import controller_values as table_values
from tests.datasource.helpers import controller_writer as writer

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    pinot_sink.register(spark)


def table_rows(controller) -> int:
    segments = controller.segments("events")
    return sum(int(segments[name].zk["segment.total.docs"]) for name in controller.live_segments("events"))


def test_rerun_of_a_write_replaces_it_atomically(spark, fake_controller, tmp_path):
    df = events_df(spark, rows=2000, partitions=2)
    options = {"sink.buffer-flush.max-rows": 600, "write.id": "backfill_2024-01-01"}
    writer(df, fake_controller, **options).mode("append").save()
    first = sorted(fake_controller.live_segments())
    assert len(first) == 4 and table_rows(fake_controller) == 2000
    assert table_values(fake_controller, tmp_path) == list(range(2000))

    writer(events_df(spark, rows=2000, partitions=3), fake_controller, **options).mode("append").save()
    live = sorted(fake_controller.live_segments())
    assert len(live) == 6 and set(live).isdisjoint(first)  # new run, new names; all old ones replaced
    assert table_values(fake_controller, tmp_path / "again") == list(range(2000))
    entries = list(fake_controller.tables["events"].lineage.values())
    assert [e.state for e in entries] == ["COMPLETED", "COMPLETED"]
    assert sorted(entries[1].segments_from) == first and sorted(entries[1].segments_to) == live


def test_overwrite_replaces_atomically_through_lineage(spark, fake_controller, tmp_path):
    writer(events_df(spark, rows=1000), fake_controller).mode("append").save()
    old = set(fake_controller.live_segments())
    writer(events_df(spark, rows=500, start=5000), fake_controller, **{"push-parallelism": 2}) \
        .mode("overwrite").save()
    live = set(fake_controller.live_segments())
    assert live.isdisjoint(old)
    assert table_values(fake_controller, tmp_path) == list(range(5000, 5500))
    entries = list(fake_controller.tables["events"].lineage.values())
    assert [e.state for e in entries] == ["COMPLETED", "COMPLETED"] and set(entries[1].segments_from) == old
    # Straight away again: a new run tag, so the new names never collide with the live ones.
    writer(events_df(spark, rows=500, start=5000), fake_controller).mode("overwrite").save()
    assert set(fake_controller.live_segments()).isdisjoint(live)
    assert table_values(fake_controller, tmp_path / "again") == list(range(5000, 5500))


def test_failed_job_leaves_the_table_as_it_was(spark, fake_controller, tmp_path):
    from pyspark.sql import functions as F

    writer(events_df(spark, rows=300, partitions=1), fake_controller, **{"segment.name.postfix": "before"}) \
        .mode("append").save()
    before = set(fake_controller.live_segments())
    uploads = len(fake_controller.uploads())
    # Partition 1 has a null time value, which Pinot cannot take; partition 0 builds segments before that.
    bad = events_df(spark, rows=1000, partitions=2).withColumn(
        "ts", F.when(F.col("value") == 900, F.lit(None)).otherwise(F.col("ts")))
    with pytest.raises(Exception, match="partition 1"):
        writer(bad, fake_controller, **{"sink.buffer-flush.max-rows": 100}).mode("append").save()
    assert len(fake_controller.uploads()) == uploads  # tasks only stage: nothing reached the controller
    assert set(fake_controller.live_segments()) == before


def test_auth_and_headers_reach_the_controller(spark, fake_controller):
    token = "Basic " + base64.b64encode(b"admin:s3cret").decode()
    fake_controller.require_auth(token)
    with pytest.raises(Exception, match="401|auth"):
        writer(events_df(spark, rows=10), fake_controller).mode("append").save()
    writer(events_df(spark, rows=10), fake_controller, **{
        "auth.username": "admin", "auth.password": "s3cret", "header.X-Team": "ads",
        "timeout.connect": "5s", "timeout.read": "30s", "retry.max-attempts": 2}).mode("append").save()
    assert table_rows(fake_controller) == 10
    uploads = fake_controller.uploads()
    assert uploads and all(r.header("X-Team") == "ads" for r in uploads)


def test_metadata_push_with_deep_store(spark, fake_controller, tmp_path):
    deep = tmp_path / "deep"
    writer(events_df(spark, rows=400), fake_controller, **{"push-mode": "metadata", "output-uri": str(deep)}) \
        .mode("append").save()
    live = fake_controller.live_segments()
    assert len(live) == 2 and table_rows(fake_controller) == 400
    assert sorted(p.name for p in (deep / "events").glob("*.tar.gz")) == sorted(f"{n}.tar.gz" for n in live)
    assert all(r.header("UPLOAD_TYPE") == "METADATA" for r in fake_controller.uploads())


def test_transient_controller_errors_are_retried(spark, fake_controller):
    fake_controller.fail_next(2, status=503, method="POST", path="/v2/segments")
    writer(events_df(spark, rows=100, partitions=1), fake_controller).mode("append").save()
    assert table_rows(fake_controller) == 100


def test_failed_overwrite_reverts_and_keeps_the_old_segments(spark, fake_controller, tmp_path):
    writer(events_df(spark, rows=400), fake_controller).mode("append").save()
    old = sorted(fake_controller.live_segments())
    fake_controller.fail_next(50, status=500, message="deep store unavailable", method="POST", path="/v2/segments",
                              after=1)  # the first upload of the replacement passes, then every one fails
    with pytest.raises(Exception, match="consistent push failed|deep store unavailable"):
        writer(events_df(spark, rows=800, start=1000), fake_controller, **{
            "retry.max-attempts": 2, "sink.buffer-flush.max-rows": 200, "push-parallelism": 1}).mode("overwrite").save()
    assert sorted(fake_controller.live_segments()) == old
    assert [e.state for e in fake_controller.tables["events"].lineage.values()] == ["COMPLETED", "REVERTED"]
    assert table_values(fake_controller, tmp_path) == list(range(400))


def test_conversion_build_and_token_options(spark, fake_controller, tmp_path):
    from pyspark.sql import functions as F

    fake_controller.require_auth("Bearer t0ken", "Custom abc")
    df = events_df(spark, rows=100, partitions=1).withColumn(
        "value", F.when(F.col("value") == 7, F.lit(1e30)).otherwise(F.col("value").cast("double")))
    # A DOUBLE too large for LONG becomes null (the metric default 0) with convert.on-overflow=null.
    writer(df, fake_controller, **{"auth.token": "t0ken", "convert.on-overflow": "null", "build.sort": "false",
                                   "build.unsupported-indexes": "skip", "schema.case-sensitive": "true",
                                   "table-type": "offline"}).mode("append").save()
    values = table_values(fake_controller, tmp_path)
    assert len(values) == 100 and values.count(0) == 2  # row 0 and the overflowed row 7
    writer(events_df(spark, rows=10, start=500), fake_controller, **{
        "auth.header-token": "Custom abc", "segment.name.postfix": "h"}).mode("append").save()
    (tmp_path / "b").mkdir()
    assert len(table_values(fake_controller, tmp_path / "b")) == 110


def test_uri_push_to_a_local_directory_fails_before_any_task(spark, fake_controller, tmp_path):
    with pytest.raises(Exception, match="'push-mode'=uri needs an 'output-uri'"):
        writer(events_df(spark, rows=10), fake_controller, **{"push-mode": "uri", "output-uri": str(tmp_path)}) \
            .mode("append").save()
    assert fake_controller.uploads() == []


def test_database_option_scopes_the_table(spark, fake_controller):
    fake_controller.add_simple_table("analytics.events")
    writer(events_df(spark, rows=50, partitions=1), fake_controller, **{"database": "analytics", "tls.verify": "false"}) \
        .mode("append").save()
    assert len(fake_controller.live_segments("analytics.events")) == 1
    assert fake_controller.live_segments("events") == []
