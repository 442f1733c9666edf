"""A real Spark streaming query with ``compaction.every-batches``: the driver compacts after every third
micro-batch, never the batch it just committed, and a replay of the last batch after a crash still replaces
it: every row once, far fewer segments."""
from __future__ import annotations

import pytest

import pinot_sink
from pinot_sink.naming import segment_replaces
from tests.datasource.helpers import read_tar_bytes
from tests.datasource.test_streaming import drop_file, run_available

pytestmark = [pytest.mark.spark, pytest.mark.slow]


COMPACTION = {"compaction.every-batches": 3, "compaction.target-size": "1mb"}


def test_a_streaming_query_compacts_every_three_batches(spark, fake_controller, tmp_path):
    pinot_sink.register(spark)
    (source := tmp_path / "in").mkdir()
    checkpoint = tmp_path / "checkpoint"
    for index in range(6):  # six micro-batches of 200 rows, one file each
        drop_file(source, index)
    run_available(spark, source, checkpoint, fake_controller, **COMPACTION)
    live = fake_controller.live_segments()
    compacted = [n for n in live if segment_replaces(n) == "compact"]
    # batches 0-4 compacted into one segment; batch 5 (just committed, cut at 150 rows: 2 segments) left
    assert len(compacted) == 1 and len(live) == 3
    # The driver died before Spark recorded batch 5's commit: the restart replays it, then batch 6.
    (checkpoint / "commits" / "5").unlink()
    (checkpoint / "commits" / ".5.crc").unlink(missing_ok=True)
    drop_file(source, 6)
    run_available(spark, source, checkpoint, fake_controller, **COMPACTION)
    segments = fake_controller.segments()
    blobs = {n: segments[n].tar_bytes for n in fake_controller.live_segments()}
    assert sorted(read_tar_bytes(blobs, tmp_path).column("value").to_pylist()) == list(range(1400))
