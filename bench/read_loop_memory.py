"""RSS of a long-lived reading process (an executor's reused Python worker, a notebook): segments read in a loop,
nothing kept, on Arrow's own pool (where the reader's large arrays come from, segment/read/pooled.py) against the
system allocator's (a write task's, allocator.settle; numpy's arrays as before) in the same run.

The segments are tests/read_stress_segments.py's (every layout: sorted runs, text, BYTES, BIG_DECIMAL, JSON,
multi-value, nulls, raw), ``--segments`` of ``--rows`` rows. Each (pool, mode) runs in a fresh process:

* ``read``: ``pinot_sink.read`` of one segment after another (one thread);
* ``batches``: ``read_batches(segment, batch_rows=5000)``, every batch dropped;
* ``table``: ``pinot_sink.read`` of all of them (segments side by side on a fresh thread pool per call);
* ``columns``: one segment's columns on two threads (``SegmentReader.read(threads=2)``, a fresh pool per call).

Printed: RSS (MiB) after each tenth of the loop, and the growth from the loop's second tenth to its last per 100
segments read: a plateau reads ~0, a leak grows with the segments read. CPU-s of the loop beside it.

    .venv/bin/python bench/read_loop_memory.py [--segments 6] [--rows 60000] [--reads 300]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODES = ("read", "batches", "table", "columns")


def _worker(folder: str, mode: str, reads: int) -> None:
    import pinot_sink
    from pinot_sink import reading
    from pinot_sink.segment.read.reader import open_segment

    reading.SIDE_BY_SIDE_BYTES = 0  # ``table``: side by side whatever the segments' size
    paths = sorted(Path(folder).glob("*.tar.gz"))
    per_call = len(paths) if mode == "table" else 1
    calls = max(10, reads // per_call)
    rss, start = [], time.process_time()
    for i in range(calls):
        path = paths[i % len(paths)]
        if mode == "read":
            pinot_sink.read(path)
        elif mode == "batches":
            for _ in pinot_sink.read_batches(path, batch_rows=5000):
                pass
        elif mode == "table":
            pinot_sink.read(paths)
        else:
            with open_segment(path) as reader:
                reader.read(threads=2)
        if (i + 1) % (calls // 10) == 0:
            rss.append(int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") >> 20)
    import pyarrow as pa

    print(json.dumps({"pool": pa.default_memory_pool().backend_name, "rss": rss, "segments": calls * per_call,
                      "cpu": time.process_time() - start}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segments", type=int, default=6)
    parser.add_argument("--rows", type=int, default=60_000)
    parser.add_argument("--reads", type=int, default=300)
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.worker[0], args.worker[1], int(args.worker[2]))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from read_stress_segments import build_stress_segment

    with tempfile.TemporaryDirectory() as folder:
        for seed in range(args.segments):
            build_stress_segment(folder, seed, args.rows)
        for mode in MODES:
            for pool in ("mimalloc", "jemalloc", "system"):
                env = dict(os.environ, ARROW_DEFAULT_MEMORY_POOL=pool)
                out = subprocess.run([sys.executable, __file__, "--worker", folder, mode, str(args.reads)], env=env,
                                     capture_output=True, text=True, check=True).stdout
                result = json.loads(out.strip().splitlines()[-1])
                rss = result["rss"]
                growth = (rss[-1] - rss[1]) / (result["segments"] * 0.8) * 100
                print(f"{mode:8s} {result['pool']:9s} RSS MiB per tenth {rss}  growth {growth:+5.1f} MiB/100 "
                      f"segments  CPU-s {result['cpu']:.1f}", flush=True)


if __name__ == "__main__":
    main()
