"""The small-segments warning: what was asked, what the write makes, the option to set (no Spark)."""
from __future__ import annotations

from pinot_sink.options import WriteOptions
from pinot_sink.reports import SegmentRecord
from pinot_sink.sizing import small_segments_warning


def _segments(count: int, rows: int, tar_bytes: int = 53 * 1024, partitions: int = 4) -> list[SegmentRecord]:
    return [SegmentRecord(name=f"s{i}", rows=rows, tar_bytes=tar_bytes, crc=0, staged_uri="", partition_id=i % partitions,
                          sequence_id=i, build_ms=0.0, stage_ms=0.0) for i in range(count)]


def _options(**extra) -> WriteOptions:
    return WriteOptions.parse({"table-name": "events", **extra})


def test_max_rows_too_small_names_the_option_and_the_outcome():
    text = small_segments_warning(_options(**{"sink.buffer-flush.max-rows": "1000"}), _segments(400, 1000))
    assert "sink.buffer-flush.max-rows=1,000 asked for a segment every 1,000 rows (the default is 1,000,000)" in text
    assert "about to commit 400 segments of 1,000 rows and 53.0 KB on average (400,000 rows)" in text
    assert "100-500 MB" in text and "set sink.buffer-flush.max-rows higher" in text
    assert "seed" not in text


def test_time_buckets_over_scattered_partitions_point_at_clustering():
    text = small_segments_warning(_options(**{"sink.time-bucket": "day"}), _segments(28, 7000))
    assert "sink.time-bucket=day cuts a segment per day in every Spark partition" in text
    assert "pinot_sink.write(df, ...), which clusters the rows by bucket" in text


def test_many_small_partitions_point_at_coalesce():
    text = small_segments_warning(_options(), _segments(200, 2000, partitions=200))
    assert "this DataFrame's 200 partitions hold about 2,000 rows each" in text and "coalesce" in text


def test_few_or_large_segments_are_not_warned_about():
    assert small_segments_warning(_options(), _segments(19, 1000)) is None
    assert small_segments_warning(_options(), _segments(50, 1_000_000, tar_bytes=40 << 20)) is None
