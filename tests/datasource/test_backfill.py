"""Window backfills through df.write (issue 13): real local Spark, the loopback controller.

The table: 30 daily segments, 2024-02-15 .. 2024-03-15 (20 rows a day), cut per day by sink.time-bucket.
"""
from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pytest

import pinot_sink
from tests.datasource.helpers import controller_writer as writer
from tests.datasource.helpers import read_tar_bytes

pytestmark = pytest.mark.spark

DAY_MS = 86_400_000
FIRST_DAY_MS = 1_707_955_200_000  # 2024-02-15T00:00:00Z
MARCH_1 = 15  # day index of 2024-03-01


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    pinot_sink.register(spark)


def day_rows(spark, days, per_day: int, *, value_base: int = 0, partitions: int = 1):
    """``per_day`` rows on each day index of ``days``: value = value_base + row, ts spread over the day."""
    from pyspark.sql import functions as F

    days = list(days)
    day_of = F.element_at(F.array(*[F.lit(d) for d in days]),
                          (F.floor(F.col("id") / per_day) + 1).cast("int")).cast("long")
    return spark.range(0, len(days) * per_day, numPartitions=partitions).select(
        F.lit("US").alias("country"),
        (F.lit(value_base) + F.col("id")).alias("value"),
        F.timestamp_millis(F.lit(FIRST_DAY_MS) + day_of * DAY_MS + (F.col("id") % per_day) * 3_600_000)
        .alias("ts"),
    )


def per_day(controller, tmp_path) -> dict[int, tuple[int, int]]:
    """day index -> (rows, smallest value) over the live segments."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    segments = controller.segments("events")
    rows = read_tar_bytes({n: segments[n].tar_bytes for n in controller.live_segments("events")}, tmp_path)
    ts = rows.column("ts")
    millis = (ts.cast(pa.int64()) if pa.types.is_timestamp(ts.type) else ts).to_pylist()
    days = [(t - FIRST_DAY_MS) // DAY_MS for t in millis]
    counts, low = Counter(days), {}
    for day, value in zip(days, rows.column("value").to_pylist()):
        low[day] = min(value, low.get(day, value))
    return {int(d): (counts[d], low[d]) for d in counts}


@pytest.fixture
def thirty_days(spark, fake_controller, tmp_path):
    writer(day_rows(spark, range(30), 20), fake_controller, **{"sink.time-bucket": "day"}).mode("append").save()
    assert len(fake_controller.live_segments()) == 30  # one per day
    before = per_day(fake_controller, tmp_path / "before")
    assert before == {d: (20, 20 * d) for d in range(30)}
    return before


def test_a_week_replaced_with_another_partitioning_leaves_the_other_23_days(spark, fake_controller, tmp_path,
                                                                           thirty_days):
    old = set(fake_controller.live_segments())
    week = range(MARCH_1, MARCH_1 + 7)
    # 3 partitions, cut by rows (segments span several days): nothing like the original run's segments.
    result_df = day_rows(spark, week, 8, value_base=100_000, partitions=3)
    writer(result_df, fake_controller, **{"overwrite.time-range": "2024-03-01/2024-03-08",
                                          "sink.buffer-flush.max-rows": 10}).mode("overwrite").save()
    after = per_day(fake_controller, tmp_path / "after")
    assert {d: after[d] for d in range(30) if d not in week} == {d: thirty_days[d] for d in range(30)
                                                                  if d not in week}
    assert {d: after[d][0] for d in week} == {d: 8 for d in week}
    assert all(after[d][1] >= 100_000 for d in week)
    entries = list(fake_controller.tables["events"].lineage.values())
    assert [e.state for e in entries] == ["COMPLETED", "COMPLETED"]  # one entry for the whole window
    replaced = set(entries[1].segments_from)
    assert len(replaced) == 7 and replaced < old
    assert set(fake_controller.live_segments()) == (old - replaced) | set(entries[1].segments_to)


def test_dynamic_overwrite_replaces_exactly_the_days_in_the_data(spark, fake_controller, tmp_path, thirty_days):
    days = [3, 17, 27]
    writer(day_rows(spark, days, 5, value_base=500_000, partitions=2), fake_controller, **{
        "overwrite.time-range": "dynamic", "segment-name.type": "normalizedDate"}).mode("overwrite").save()
    after = per_day(fake_controller, tmp_path / "after")
    assert {d: after[d] for d in range(30) if d not in days} == {d: thirty_days[d] for d in range(30)
                                                                  if d not in days}
    assert {d: after[d] for d in days} == {d: (5, 500_000 + 5 * i) for i, d in enumerate(days)}
    entries = list(fake_controller.tables["events"].lineage.values())
    assert len(entries) == 2 and len(entries[1].segments_from) == 3


@pytest.mark.slow  # issue 36: among the heaviest of make test (55-105 s at load 20, several Spark jobs); make test-slow runs it
def test_straddling_segments_and_rows_outside_the_window_publish_nothing(spark, fake_controller, tmp_path):
    # Segments of 25 rows, 20 a day: days 0-1, 1-2, 2-3, 3-4, 5.
    writer(day_rows(spark, range(6), 20), fake_controller, **{"sink.buffer-flush.max-rows": 25}) \
        .mode("append").save()
    live, uploads = set(fake_controller.live_segments()), len(fake_controller.uploads())
    new_days = day_rows(spark, [2], 4, value_base=9000)
    with pytest.raises(Exception, match=r"2 segment\(s\) straddle .*overwrite.straddling=include"):
        writer(new_days, fake_controller, **{"overwrite.time-range": "2024-02-17/2024-02-18"}) \
            .mode("overwrite").save()
    with pytest.raises(Exception, match=r"4 row\(s\) of the DataFrame are outside overwrite.time-range "
                                        r"2024-02-18T00:00:00Z/2024-02-19T00:00:00Z .* ts=2024-02-17T00:00:00Z"):
        # straddlers included: the driver's check before the tasks passes, the rows outside are found after
        writer(new_days, fake_controller, **{"overwrite.time-range": "2024-02-18/2024-02-19",
                                             "overwrite.straddling": "include"}).mode("overwrite").save()
    assert set(fake_controller.live_segments()) == live and len(fake_controller.uploads()) == uploads
    # A failure mid-upload (the first upload passes, then every one fails) reverts the window's entry.
    fake_controller.fail_next(2, status=500, message="deep store unavailable", method="POST",
                              path="/v2/segments", after=1)  # 2 segments; the second fails both attempts
    with pytest.raises(Exception, match="the table is as it was"):
        writer(day_rows(spark, [2], 4, value_base=9000, partitions=2), fake_controller, **{
            "overwrite.time-range": "2024-02-17/2024-02-18", "overwrite.straddling": "include",
            "retry.max-attempts": 2, "push-parallelism": 1, "sink.buffer-flush.max-rows": 2}).mode("overwrite").save()
    assert set(fake_controller.live_segments()) == live
    assert [e.state for e in fake_controller.tables["events"].lineage.values()][-1] == "REVERTED"
    # include: the two straddling segments (days 1-2 and 2-3, 50 rows of which 30 outside) go whole.
    writer(new_days, fake_controller, **{"overwrite.time-range": "2024-02-17/2024-02-18",
                                         "overwrite.straddling": "include"}).mode("overwrite").save()
    after = per_day(fake_controller, tmp_path / "after")
    assert after == {0: (20, 0), 1: (5, 20), 2: (4, 9000), 3: (5, 75), 4: (20, 80), 5: (20, 100)}
