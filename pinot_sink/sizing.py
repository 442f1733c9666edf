"""Is this write about to make many small segments, and why: said on the driver before the commit.

Every segment costs each query that touches the table, a ZooKeeper entry and server start-up time for the
table's whole life; Pinot's guidance is segments of about 100-500 MB. A write that staged many small
segments is told so before they become visible (the commit goes on: a warning, not an error), in the words
a user acts on: what the options asked for, what the write makes, and which option or step changes it.
"""
from __future__ import annotations

from typing import Sequence

from .options import BufferLimits, WriteOptions
from .reports import SegmentRecord

MIN_SEGMENTS = 20              # fewer segments than this are never worth a warning
SMALL_SEGMENT_BYTES = 8 << 20  # a tarball below this on average is small for Pinot (100-500 MB untarred is the aim)


def _size(nbytes: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if nbytes < 1024 or unit == "GB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return ""


def small_segments_warning(options: WriteOptions, segments: Sequence[SegmentRecord]) -> str | None:
    """One paragraph for the log when ``segments`` are many and small, else None."""
    if len(segments) < MIN_SEGMENTS:
        return None
    average_bytes = sum(s.tar_bytes for s in segments) / len(segments)
    if average_bytes >= SMALL_SEGMENT_BYTES:
        return None
    rows = sum(s.rows for s in segments)
    limits = options.buffer
    full = sum(1 for s in segments if s.rows == limits.max_rows)
    made = (f"this write is about to commit {len(segments)} segments of {rows // len(segments):,} rows and "
            f"{_size(average_bytes)} on average ({rows:,} rows)")
    if full * 2 >= len(segments):
        default = BufferLimits().max_rows
        asked = (f"sink.buffer-flush.max-rows={limits.max_rows:,} asked for a segment every {limits.max_rows:,} rows"
                 + ("" if limits.max_rows == default else f" (the default is {default:,})"))
        fix = "set sink.buffer-flush.max-rows higher (and sink.buffer-flush.max-size, see docs/options.md)"
    elif options.window.time_bucket:
        asked = (f"sink.time-bucket={options.window.time_bucket} cuts a segment per {options.window.time_bucket} "
                 f"in every Spark partition, and the input's partitions each hold a little of many "
                 f"{options.window.time_bucket}s")
        fix = ("write with pinot_sink.write(df, ...), which clusters the rows by bucket first, or "
               "repartition by the bucket before df.write (docs/backfill.md)")
    else:
        partitions = len({s.partition_id for s in segments})
        asked = (f"each Spark partition makes its own segments, and this DataFrame's {partitions} partitions "
                 f"hold about {rows // max(partitions, 1):,} rows each")
        fix = "coalesce or repartition the DataFrame to fewer partitions (or set sink.parallelism with pinot_sink.write)"
    return (f"pinot_sink: {asked}: {made}. Pinot serves best with segments of about 100-500 MB: each "
            f"segment costs every query, ZooKeeper and server start-up for the table's whole life. To make "
            f"fewer, larger segments, {fix}.")
