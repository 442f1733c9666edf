"""Peak memory of a task is bounded by max-size, not by the partition: at most 3x max-size (issue 22).

Runs the executor's write path (``write_partition`` with one builder thread, as a Spark task with one core)
in a fresh subprocess so its peak RSS is its own, on partitions of 10x max-size (ten segments each) at two
max-size settings. The baseline is taken after a small warm-up task in the same process, with its memory
handed back: a Spark Python worker is reused across tasks, so the modules, kernels and allocator set-up
every task pays once are not a cost of this task's buffer, while everything the measured task holds (its
buffers, its builds, the allocator's fragmentation over them) is counted. The high-water mark is reset after
the warm-up (``/proc/self/clear_refs``), so the peak read is the task's own. What a task holds at its peak:
with one builder thread each segment is built on the task's thread as it is cut, so the segment being built
(its rows, given up column by column as their indexes are built, smallest columns first; the indexes go to a
spill file as they are made), the largest column's working arrays and what is left of the last converted
group; the rest is glibc heap space freed by one column and not reused by the next (docs/performance.md,
"Task memory": the breakdown).
Documented in docs/data-source.md ("Memory"). A bound, not a timing.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = Path(__file__).with_name("memory_probe.py")
MB = 1024**2
# The probe's rows take ~57.5 bytes each once converted: 10x max-size is ten segments cut by size.
BYTES_PER_ROW = 57.5
# 3x max-size flat, no fixed allowance. Measured with the warm baseline (2026-11-27 evening, load 4-7, the
# build on the task's thread): 16mb 36.3-38.0 MB (2.3-2.4x), 32mb 67.4-73.6 MB (2.1-2.3x), 6-8 runs each; one
# code's spread was ~2 MB at 16mb and ~6 MB at 32mb, so the bound (48 / 96 MB) leaves 10 / 22 MB, three
# times the spread or more (docs/performance.md, "Task memory"). The code before measured 52-59 / 104-113 MB
# (a background build thread with a heap of its own), and 3x max-size + 28 MB was allowed then.
BOUND_TIMES_MAX_SIZE = 3


def probe(rows: int, max_size: str) -> dict:
    out = subprocess.run([sys.executable, str(PROBE), str(rows), max_size], check=True, capture_output=True,
                         text=True, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("max_size_mb", [16, 32])
def test_a_partition_of_ten_times_max_size_peaks_under_three_times_max_size(max_size_mb):
    rows = int(10 * max_size_mb * MB / BYTES_PER_ROW)
    run = probe(rows, f"{max_size_mb}mb")
    assert run["rows"] == rows and run["segments"] >= 9  # cut by size, about ten segments
    assert run["rss_peak"] > run["rss_before"]  # the high-water mark was reset before the task: its own peak
    growth = run["rss_peak"] - run["rss_before"]
    bound = BOUND_TIMES_MAX_SIZE * max_size_mb * MB
    print(f"max-size {max_size_mb}mb: peak {growth / MB:.1f} MB above the warm baseline, "
          f"{growth / (max_size_mb * MB):.2f}x max-size (bound {bound / MB:.0f} MB)")
    assert growth < bound, (f"max-size {max_size_mb}mb, {rows} rows: peak grew {growth / MB:.0f} MB over the "
                            f"baseline, over the bound {bound / MB:.0f} MB (3x max-size)")
