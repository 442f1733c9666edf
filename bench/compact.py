"""Compaction's cost against building the same rows fresh, and its peak memory against the target size.

Small segments are written the way a streaming query writes them (one committed micro-batch each: the task's
own path and the commit, into a folder with its manifests), from the orders of examples/local_backfill.py (sortedColumn, inverted
indexes, raw columns, a multi-value and a mostly-null column). Then, each in a fresh process:

* **compact**: ``pinot_sink.compact`` of the folder (embedded, concat) into ``--target-size`` segments;
* **fresh**: the same rows built as one write (``write_partition``, the Spark task's path from Arrow
  batches) cut at the row count the compaction's segments have, so the two make the same segments.

CPU seconds (user + system of the process, ``getrusage``) beside wall time; peak RSS above the RSS once
everything is imported (the interpreter, numpy, pyarrow) and every page of their code made resident
(``_load_code_pages``), against the target size (the untarred segment's
size, docs/compaction.md). ``--repeat N``: each phase N times, the run of least CPU kept. ``--repo DIR``
(repeatable): another checkout's compaction of the same small segments, measured by this script in the same
run (e.g. ``git archive 3c6afd7 | tar -x -C /tmp/base``; a checkout from before be35aec measured
``--target-size`` as the tarball).

    python bench/compact.py [--rows 2000000] [--small-rows 10000] [--target-size 32mb] [--work DIR]
                            [--repeat 1] [--repo DIR ...]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = os.environ.get("PINOT_SINK_BENCH_CODE", str(ROOT))  # --repo: the code under test is that checkout's
sys.path.insert(0, CODE)
sys.path.insert(0, str(ROOT / "bench"))


def _rss_mb() -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _load_code_pages() -> None:
    """Every page of the shared libraries and modules this process has mapped from files, made resident
    before the base RSS is taken. Without it, how much of a library (libarrow.so: 13 or 21 MB) is resident
    after the imports depends on the page cache and the kernel's fault-around, not on this code: two venvs
    of the same packages measured 129 and 140 MB after the same imports, and the code pages the phase then
    touched (8 MB more in one than the other, half a 16mb target) counted as its memory. Code is not memory
    the phase's rows or segments hold: loaded here, the peak above the base is the heap and mappings the phase
    made. Linux only; a page past a file's end (a mapping may run beyond it) is never read."""
    import ctypes
    page = os.sysconf("SC_PAGE_SIZE")
    with open("/proc/self/maps") as handle:
        mappings = [line.split() for line in handle]
    for fields in mappings:
        if len(fields) < 6 or "r" not in fields[1] or not fields[5].startswith("/"):
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        try:
            size = os.stat(fields[5]).st_size
        except OSError:
            continue
        end = min(end, start + max(0, size - int(fields[2], 16)))
        for address in range(start, end, page):
            ctypes.string_at(address, 1)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _example():
    from partition_build import checkout_example

    return checkout_example(str(ROOT))


def _options(example, out: Path) -> dict:
    return {"table-name": "orders", "output-uri": str(out), "schema": json.dumps(example.SCHEMA),
            "table-config": json.dumps(example.TABLE_CONFIG)}


PIECE = 4_000_000  # rows made at once: a larger table's list column overflows one Arrow chunk


def _orders(rows: int, first: int = 0, total: int | None = None):
    """The example's orders ``first .. first + rows`` of ``total``, their times in one day: one bucket, so
    segments are cut by size, not by day."""
    import numpy as np
    import pyarrow as pa
    from partition_build import make_orders

    total = total or rows
    table = make_orders(rows, seed=7 + first // PIECE)
    times = (1_704_067_200_000 + np.arange(first, first + rows, dtype=np.int64) * (86_400_000 // total)) * 1000
    table = table.set_column(table.schema.get_field_index("order_id"), "order_id",
                             pa.array(np.arange(first, first + rows, dtype=np.int64)))
    return table.set_column(table.schema.get_field_index("order_time"), "order_time",
                            pa.array(times, pa.timestamp("us", tz="UTC")))


def _pieces(rows: int, size: int = PIECE):
    """The orders a piece at a time (``_orders``): 1 GB of segments is ~35M rows, ~5 GB as one Arrow table."""
    for first in range(0, rows, size):
        yield _orders(min(size, rows - first), first, rows)


def generate(args) -> None:
    from pinot_sink.job import prepare_job
    from pinot_sink.commit import commit_job
    from pinot_sink.task import write_partition

    example = _example()
    out = Path(args.work) / "small"
    job, number = None, 0
    for table in _pieces(args.rows, PIECE // args.small_rows * args.small_rows or args.small_rows):
        job = job or prepare_job(_options(example, out), table.schema, overwrite=False, streaming=True)
        for start in range(0, table.num_rows, args.small_rows):
            batch = table.slice(start, args.small_rows).to_batches()
            report = write_partition(job, batch, partition_id=0, task_attempt_id=number, query_id="bench",
                                     batch_id=number, threads=1)
            commit_job(job, [report], query_id="bench", batch_id=number)
            number += 1


def _pyarrow_lazy_imports() -> None:
    """What pyarrow imports on its first ``pa.array`` of a numpy array (pandas, where installed, and numpy.ma:
    ~0.3 CPU-s and ~40 MB once per process). The fresh phase pays it making its rows, before its measure;
    the compaction pays it here, before its own, so that neither counts it."""
    import numpy as np
    import pyarrow as pa

    pa.array(np.zeros(1))


def run_compact(args) -> dict:
    from pinot_sink.compaction.run import compact
    import pinot_sink.segment.read.reader  # noqa: F401  (imported before the base RSS is taken)
    import fsspec.implementations.local  # noqa: F401  (~0.045 CPU-s once a process: the fresh phase's
    # prepare_job imports it before its measure, the compaction's store opening inside its own)

    _pyarrow_lazy_imports()
    example = _example()
    work = Path(args.work)
    out = work / "compact"
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(work / "small", out)
    _load_code_pages()
    base, cpu, wall = _rss_mb(), _cpu(), time.perf_counter()
    report = compact("orders", output_uri=str(out), target_size=args.target_size,
                     options={"schema": json.dumps(example.SCHEMA), "table-config": json.dumps(example.TABLE_CONFIG)})
    cpu, wall = _cpu() - cpu, time.perf_counter() - wall
    assert not report.failed, report.summary()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    groups = report.groups
    sizes = sorted((_untarred(p) for p in (out / "orders").glob("*.tar.gz")), reverse=True)
    return {"cpu_s": cpu, "wall_s": wall, "peak_mb": peak, "base_mb": base,
            "segments_before": sum(g.segments_before for g in groups), "bytes_before": sum(g.bytes_before for g in groups),
            "segments_after": sum(g.segments_after for g in groups), "rows": sum(g.rows_after for g in groups),
            "builds": sum(g.builds for g in groups), "sizes_mb": [round(s / 1024**2, 2) for s in sizes],
            "rows_per_segment": -(-sum(g.rows_after for g in groups) // max(1, len(sizes)))}


def _untarred(tarball: Path) -> int:
    import tarfile

    with tarfile.open(tarball) as archive:
        return sum(member.size for member in archive if member.isfile())


def run_fresh(args, rows_per_segment: int) -> dict:
    from pinot_sink.job import prepare_job
    from pinot_sink.task import write_partition

    example = _example()
    out = Path(args.work) / "fresh"
    shutil.rmtree(out, ignore_errors=True)
    options = {**_options(example, out), "sink.buffer-flush.max-rows": str(rows_per_segment),
               "sink.buffer-flush.max-size": "4gb"}
    making = [0.0]  # CPU-s spent making pieces inside the measure, taken off it

    def made():
        pieces = _pieces(args.rows)
        while True:
            started = time.thread_time()
            piece = next(pieces, None)
            making[0] += time.thread_time() - started
            if piece is None:
                return
            yield from piece.to_batches(max_chunksize=10_000)

    if args.rows <= PIECE:
        table = _orders(args.rows)
        batches = table.to_batches(max_chunksize=10_000)
    else:  # made as they are written: all of them at once would be ~5 GB per 35M rows
        table = _orders(1)
        batches = made()
    job = prepare_job(options, table.schema, overwrite=False)
    _load_code_pages()
    base, cpu, wall = _rss_mb(), _cpu(), time.perf_counter()
    report = write_partition(job, batches, partition_id=0, task_attempt_id=0)
    cpu, wall = _cpu() - cpu - making[0], time.perf_counter() - wall
    return {"cpu_s": cpu, "wall_s": wall, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "base_mb": base, "segments": len(report.segments),
            "sizes_mb": sorted((round(_untarred(Path(s.staged_uri[len("file://"):])) / 1024**2, 2)
                                for s in report.segments), reverse=True)}


def _child(phase: str, args, *extra: str, repo: Path = ROOT) -> dict:
    """One phase in a fresh process (this script, measuring ``repo``'s code), ``--repeat`` times."""
    command = [sys.executable, __file__, "--phase", phase, "--rows", str(args.rows), "--small-rows",
               str(args.small_rows), "--target-size", args.target_size, "--work", args.work, *extra]
    env = {**os.environ, "PYTHONPATH": str(repo), "PINOT_SINK_BENCH_CODE": str(repo)}
    best = {}
    for _ in range(1 if phase == "generate" else args.repeat):
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        if done.returncode:
            raise SystemExit(f"{phase} failed:\n{done.stderr[-4000:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}
        if not best or result.get("cpu_s", 0) < best.get("cpu_s", 0):
            best = result
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--small-rows", type=int, default=10_000)
    parser.add_argument("--target-size", default="32mb")
    parser.add_argument("--work")
    parser.add_argument("--phase", choices=("generate", "compact", "fresh"))
    parser.add_argument("--rows-per-segment", type=int)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--repo", action="append", default=[], help="another checkout's compaction (repeatable)")
    args = parser.parse_args()
    import logging

    logging.disable(logging.INFO)
    if args.phase == "generate":
        generate(args)
        return 0
    if args.phase == "compact":
        print(json.dumps(run_compact(args)))
        return 0
    if args.phase == "fresh":
        print(json.dumps(run_fresh(args, args.rows_per_segment)))
        return 0
    from pinot_sink.options import parse_size

    own = args.work is None
    args.work = args.work or tempfile.mkdtemp(prefix="pinot-sink-bench-compact-")
    try:
        started = time.perf_counter()
        # A given --work keeps its small segments: a later run of the same --rows / --small-rows reuses them
        stamp = Path(args.work) / "small" / f".generated-{args.rows}-{args.small_rows}"
        if not stamp.exists():
            shutil.rmtree(Path(args.work) / "small", ignore_errors=True)
            _child("generate", args)
            stamp.touch()
        print(f"generated {args.rows} rows as small segments of {args.small_rows} rows in "
              f"{time.perf_counter() - started:.0f}s", file=sys.stderr)
        compacted = _child("compact", args)
        others = {repo: _child("compact", args, repo=Path(repo).resolve()) for repo in args.repo}
        fresh = _child("fresh", args, "--rows-per-segment", str(compacted["rows_per_segment"]))
        target_mb = parse_size(args.target_size) / 1024**2
        print(f"compaction of {compacted['segments_before']} small segments "
              f"({compacted['bytes_before'] / 1024**2:.0f} MB tarred, {compacted['rows']} rows) into {compacted['segments_after']} ({compacted['builds']} builds), "
              f"target {args.target_size}: untarred sizes {compacted['sizes_mb']} MB")
        print(f"fresh build of the same rows: {fresh['segments']} segments, untarred sizes {fresh['sizes_mb']} MB")
        print(f"{'':<12} {'CPU-s':>8} {'wall s':>8} {'peak RSS MB':>12} {'above imports MB':>17} {'/ fresh CPU':>12} "
              f"{'/ target':>9}")
        rows = [("compact", compacted), *((f"compact@{Path(r).name}", o) for r, o in others.items()), ("fresh", fresh)]
        for name, r in rows:
            above = r["peak_mb"] - r["base_mb"]
            print(f"{name:<12} {r['cpu_s']:>8.2f} {r['wall_s']:>8.2f} {r['peak_mb']:>12.0f} {above:>17.0f} "
                  f"{r['cpu_s'] / fresh['cpu_s']:>11.2f}x {above / target_mb:>8.2f}x")
        print(f"compaction / fresh build CPU-s: {compacted['cpu_s'] / fresh['cpu_s']:.2f}x (goal <= 1.3x); "
              f"compaction memory above imports / target size: "
              f"{(compacted['peak_mb'] - compacted['base_mb']) / target_mb:.2f}x (goal <= 3x)")
    finally:
        if own:
            shutil.rmtree(args.work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
