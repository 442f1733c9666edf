"""Peak memory of a task is bounded by the flush thresholds, not by the partition size.

Runs the executor's write path (``write_partition``, what each Spark task calls) in a fresh subprocess so
its peak RSS is its own. Documented in docs/data-source.md: with max-size 32mb, a task's peak RSS rises
about 195-230 MB above the interpreter's baseline (roughly 6-7x max-size: the buffered rows and the
builder's dictionaries and index buffers coexist, and the next buffer fills while a segment builds
on the task's build thread), whatever the partition holds.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = Path(__file__).with_name("memory_probe.py")
MB = 1024**2
DOCUMENTED_PEAK_OVER_BASELINE = 400 * MB  # for max-size 32mb (docs/data-source.md, "Memory")


def probe(rows: int, max_size: str) -> dict:
    out = subprocess.run([sys.executable, str(PROBE), str(rows), max_size], check=True, capture_output=True,
                         text=True, timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_two_million_rows_at_32mb_stay_under_the_documented_peak():
    # Peak RSS depends on how the build thread and the next buffer overlap, which the scheduler decides:
    # noise only raises it, so the bound is checked on the lower of two runs.
    runs = [probe(2_000_000, "32mb") for _ in range(2)]
    assert all(big["rows"] == 2_000_000 and big["segments"] >= 3 for big in runs)  # cut by size, several segments
    growth = min(big["rss_peak"] - big["rss_before"] for big in runs)
    assert growth < DOCUMENTED_PEAK_OVER_BASELINE, f"peak grew {growth / MB:.0f} MB over baseline"
    # Bounded by the threshold, not the partition: a partition under a third the size peaks about the same,
    # give or take one buffer (32 MB): its second segment is small, so little fills while its first builds.
    small = probe(600_000, "32mb")
    small_growth = small["rss_peak"] - small["rss_before"]
    assert growth < small_growth * 1.35 + 16 * MB + 32 * MB, (
        f"2M rows grew {growth / MB:.0f} MB, 600k rows {small_growth / MB:.0f} MB: not bounded by the threshold")
