"""Day-one defaults: a write with no buffer options makes production-sized segments, and a write that is
about to make many small ones is told so before its segments become visible (real local Spark)."""
from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

import pinot_sink
from tests.datasource.helpers import SCHEMA, TABLE_CONFIG, embedded_writer, events_df, read_rows, tarballs

pytestmark = pytest.mark.spark


def test_default_options_cut_segments_at_one_million_rows(spark, tmp_path):
    # docs/options.md: a segment per 1,000,000 rows (or 128mb of converted rows), per Spark partition
    embedded_writer(events_df(spark, rows=1_000_001, partitions=1), tmp_path).mode("append").save()
    segments = sorted(Path(tmp_path, "events").glob("*.tar.gz"))
    rows = sorted(read_rows([path]).num_rows for path in segments)
    assert rows == [1, 1_000_000]
    assert all(path.stat().st_size < 128 << 20 for path in segments)


def test_small_segments_are_reported_before_the_commit(spark, tmp_path):
    seen: list[tuple[str, int]] = []

    class Probe(logging.Handler):
        def emit(self, record):
            if "Pinot serves best" in record.getMessage():
                seen.append((record.getMessage(), len(tarballs(tmp_path))))

    probe = Probe(logging.WARNING)
    logging.getLogger("pinot_sink").addHandler(probe)
    try:
        result = pinot_sink.write(events_df(spark, rows=25_000, partitions=1), "events", entry_point="map-in-arrow",
                                  **{"schema": json.dumps(SCHEMA),
                                     "table-config": json.dumps(TABLE_CONFIG),
                                     "output-uri": str(tmp_path), "sink.buffer-flush.max-rows": 1000})
    finally:
        logging.getLogger("pinot_sink").removeHandler(probe)
    assert len(result.segments) == 25
    [(message, visible)] = seen
    assert visible == 0  # said while nothing of the write was in the table yet
    assert "sink.buffer-flush.max-rows=1,000 asked for a segment every 1,000 rows" in message
    assert "25 segments of 1,000 rows" in message
