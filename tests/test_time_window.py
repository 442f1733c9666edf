"""pinot_sink.time_window: parsing windows, Pinot's selection rule, buckets, and the per-bucket buffer."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.buffer import BucketBuffer
from pinot_sink.time_window import (DYNAMIC, INSIDE, INVALID, NO_TIME, OUTSIDE, STRADDLING, StraddlingSegmentsError,
                                    TimeWindow, TimeWindowError, bucket_keys, classify, merge_windows,
                                    parse_time_range, pinot_selects, rows_outside, select_replaced,
                                    windows_of_buckets)
from pinot_sink.controller.store import zk_time_range
from type_mapping.stored import PinotColumns

DAY = 86_400_000
MARCH_1 = 1_709_251_200_000  # 2024-03-01T00:00:00Z
WEEK = TimeWindow(MARCH_1, MARCH_1 + 7 * DAY)


@pytest.mark.parametrize("text, start, end", [
    ("2024-03-01/2024-03-08", MARCH_1, MARCH_1 + 7 * DAY),
    ("2024-03-01T06:00:00Z/2024-03-01T07:00:00.5Z", MARCH_1 + 6 * 3_600_000, MARCH_1 + 7 * 3_600_000 + 500),
    ("2024-03-01T00:00+01:00/2024-03-02 00:00", MARCH_1 - 3_600_000, MARCH_1 + DAY),
    ("2024-07-01T00:00[Europe/Paris]/2024-07-02", 1_719_784_800_000, 1_719_878_400_000),
    (f" {MARCH_1} / {MARCH_1 + 1} ", MARCH_1, MARCH_1 + 1),
])
def test_time_ranges_parse_as_utc_unless_zoned(text, start, end):
    assert parse_time_range(text) == TimeWindow(start, end)


def test_bad_time_ranges_say_what_is_expected():
    assert parse_time_range(" Dynamic ") == DYNAMIC
    for text, message in [("2024-03-01", "not START/END"), ("2024-03-08/2024-03-01", "before the end"),
                          ("2024-03-01/2024-03-01", "before the end"), ("march/april", "neither epoch millis"),
                          ("2024-03-01T00:00[Mars/Olympus]/2024-03-02", "unknown time zone")]:
        with pytest.raises(TimeWindowError, match=message):
            parse_time_range(text)


def test_classification_follows_pinots_rule():
    s, e = WEEK.start_ms, WEEK.end_ms
    cases = [
        ((s, e - 1), INSIDE),  # start inclusive, the segment's max strictly before the end
        ((s, e), STRADDLING),  # a row at the end instant belongs to the next window
        ((s - 1, s + 5), STRADDLING), ((s - DAY, s), STRADDLING),  # its max on the start: overlaps
        ((s - DAY, s - 1), OUTSIDE), ((e, e + DAY), OUTSIDE),
        ((s - DAY, e + DAY), STRADDLING),
        ((-1, -1), NO_TIME), ((None, None), NO_TIME), ((s + 5, s + 4), INVALID),
    ]
    for (start, end), verdict in cases:
        assert classify(start, end, WEEK) == verdict, (start, end)
    # GET /segments/{t}/select: no-time segments always, invalid never, straddling unless excludeOverlapping.
    assert pinot_selects(-1, -1, WEEK, exclude_overlapping=True)
    assert not pinot_selects(s + 5, s + 4, WEEK, exclude_overlapping=False)
    assert pinot_selects(s - 1, s + 5, WEEK, exclude_overlapping=False)
    assert not pinot_selects(s - 1, s + 5, WEEK, exclude_overlapping=True)


def test_select_replaced_refuses_straddlers_unless_included():
    s = WEEK.start_ms
    ranges = {"in": (s, s + DAY - 1), "last_day": (s + 6 * DAY, s + 7 * DAY - 1), "before": (s - DAY, s - 1),
              "edge": (s - 1, s + 1), "untimed": (-1, -1), "broken": (s + 2, s + 1)}
    with pytest.raises(StraddlingSegmentsError, match=r"2 segment\(s\) .*edge \[2024-02-29T23:59:59.999Z .. "
                                                       r"2024-03-01T00:00:00.001Z\], untimed \[no time range\]"):
        select_replaced(ranges, [WEEK], include_straddling=False)
    # the way out that keeps every row: a compaction rewrites a table's segments one per day
    with pytest.raises(StraddlingSegmentsError, match=r"pinot-sink compact`? \(the segments it merges come out one segment per day"):
        select_replaced({"edge": ranges["edge"]}, [WEEK], include_straddling=False)
    assert select_replaced({k: ranges[k] for k in ("in", "last_day", "before", "broken")}, [WEEK],
                           include_straddling=False) == {"in", "last_day"}
    assert select_replaced(ranges, [WEEK], include_straddling=True) == {"in", "last_day", "edge", "untimed"}
    assert select_replaced(ranges, [], include_straddling=False) == set()


def test_zk_time_ranges_read_as_pinot_reads_them():
    assert zk_time_range({"segment.start.time": "1709251200000", "segment.end.time": "1709337599999",
                          "segment.time.unit": "MILLISECONDS"}) == (MARCH_1, MARCH_1 + DAY - 1)
    assert zk_time_range({"segment.start.time": "19783", "segment.end.time": "19784",
                          "segment.time.unit": "DAYS"}) == (MARCH_1, MARCH_1 + DAY)  # an old entry in days
    assert zk_time_range({"segment.start.time": "-1", "segment.end.time": "-1"}) == (-1, -1)
    assert zk_time_range({}) == (-1, -1)


def test_buckets_and_merged_windows():
    millis = np.array([MARCH_1 - 1, MARCH_1, MARCH_1 + DAY - 1, MARCH_1 + 3 * DAY], dtype=np.int64)
    keys = bucket_keys(millis, DAY)
    assert list(keys - keys[1]) == [-1, 0, 0, 3]
    # Touching days merge, so a segment spanning two replaced days is inside, not straddling.
    assert windows_of_buckets(set(keys), DAY) == [TimeWindow(MARCH_1 - DAY, MARCH_1 + DAY),
                                                  TimeWindow(MARCH_1 + 3 * DAY, MARCH_1 + 4 * DAY)]
    assert merge_windows([TimeWindow(5, 9), TimeWindow(1, 5), TimeWindow(20, 30)]) == [TimeWindow(1, 9),
                                                                                      TimeWindow(20, 30)]
    assert rows_outside(millis, WEEK) == (1, MARCH_1 - 1)
    assert rows_outside(millis[1:], WEEK) == (0, None)


def test_bucket_buffer_cuts_one_bucket_per_segment_within_max_size():
    day_of_row = np.array([0, 1, 2] * 400, dtype=np.int64)  # three days arriving interleaved
    table = pa.table({"day": day_of_row, "row": np.arange(1200, dtype=np.int64)})
    part_bytes = table.nbytes // 12
    buffer = BucketBuffer(max_rows=150, max_bytes=part_bytes * 3, keys=lambda p: p.table.column("day").to_numpy())
    cuts, held = [], []
    for first in range(0, 1200, 100):
        cuts += buffer.add(PinotColumns(table.slice(first, 100)))
        held.append(buffer.nbytes)
    cuts += buffer.drain_all()
    assert max(held) < part_bytes * 3
    assert all(len(set(c.table.column("day").to_pylist())) == 1 for c in cuts)  # every cut: one day
    assert all(c.num_rows <= 150 for c in cuts)
    rows = sorted(r for c in cuts for r in c.table.column("row").to_pylist())
    assert rows == list(range(1200))
    for cut in cuts:  # rows keep their order within a bucket
        assert cut.table.column("row").to_pylist() == sorted(cut.table.column("row").to_pylist())


def test_epoch_seconds_where_millis_are_asked_are_refused_everywhere():
    """A time range in epoch seconds lands in January 1970, where Pinot keeps no segment: a read, a
    compaction's --time-range or an overwrite matched nothing (or failed far from the cause). The one rule,
    in parse_time_range, asks whether they were seconds; dates before 1971 say what they mean and pass."""
    from pinot_sink.options import OptionError, WriteOptions
    from pinot_sink.time_window import TimeWindowError, parse_time_range

    with pytest.raises(TimeWindowError, match=r"'1700000000/1800000000' is epoch millis before 1971 "
                                              r"\(1970-01-20T16:13:20Z\.\.1970-01-21T20:00:00Z\).*epoch seconds\?"):
        parse_time_range("1700000000/1800000000", dynamic=False)
    with pytest.raises(OptionError, match=r"option 'overwrite.time-range': .*epoch seconds\?"):
        WriteOptions.parse({"table-name": "t", "schema": "{}", "overwrite.time-range": "1700000000/1800000000"})
    assert parse_time_range("1700000000000/1800000000000", dynamic=False).end_ms == 1800000000000
    assert parse_time_range("1970-01-01/1970-01-02", dynamic=False).end_ms == 86_400_000
