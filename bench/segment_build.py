"""Segment build throughput and memory: ``build_segment`` vs ``pyarrow.parquet.write_table`` on one table.

The table (default 1 000 000 rows, 10 columns: two id columns, low- and high-cardinality strings, doubles,
a small int, a millisecond timestamp) is generated once with a fixed seed and saved as an Arrow IPC
file. Every measurement then runs in a fresh subprocess that memory-maps that file, so each reports its
own peak RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``) next to the RSS it had before the step.
The segment has a time column and inverted indexes on ``country`` and ``event_type``; everything else is
Pinot's default (dictionary-encoded, v3). The tar.gz step (``write_tarball``) is timed apart by wrapping
it at run time; the builder's own code is untouched. The figure of merit is the ratio to Parquet, measured
in the same run on the same machine.

    .venv/bin/python bench/segment_build.py [--rows 1000000] [--repeat 3] [--profile 25] [--threads N]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

REPO = Path(__file__).resolve().parents[1]

SCHEMA = {
    "schemaName": "bench_events",
    "dimensionFieldSpecs": [
        {"name": "event_id", "dataType": "LONG"},
        {"name": "user_id", "dataType": "INT"},
        {"name": "country", "dataType": "STRING"},
        {"name": "event_type", "dataType": "STRING"},
        {"name": "city", "dataType": "STRING"},
        {"name": "session", "dataType": "STRING"},
    ],
    "metricFieldSpecs": [
        {"name": "price", "dataType": "DOUBLE"},
        {"name": "score", "dataType": "DOUBLE"},
        {"name": "qty", "dataType": "INT"},
    ],
    "dateTimeFieldSpecs": [
        {"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:TIMESTAMP", "granularity": "1:MILLISECONDS"}
    ],
}
TABLE_CONFIG = {
    "tableName": "bench_events",
    "tableType": "OFFLINE",
    "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
    "tableIndexConfig": {"loadMode": "MMAP", "invertedIndexColumns": ["country", "event_type"]},
    "tenants": {},
    "metadata": {},
}


def make_table(rows: int, seed: int = 42) -> pa.Table:
    """Stored-form columns (what ``type_mapping.convert`` hands the builder), deterministic."""
    rng = np.random.default_rng(seed)
    countries = np.array([f"C{i:02d}" for i in range(20)])
    event_types = np.array(["view", "click", "cart", "buy", "refund", "share", "like", "search"])
    cities = np.array([f"city_{i}" for i in range(1000)])
    session_ids = rng.integers(0, 2**63, size=rows, dtype=np.int64)
    return pa.table({
        "event_id": pa.array(np.arange(rows, dtype=np.int64) * 7 + 1_000_000),
        "user_id": pa.array(rng.integers(0, 5_000_000, rows, dtype=np.int32)),
        "country": pa.array(countries[rng.zipf(1.5, rows) % len(countries)]),
        "event_type": pa.array(event_types[rng.integers(0, len(event_types), rows)]),
        "city": pa.array(cities[rng.integers(0, len(cities), rows)]),
        "session": pa.array(np.char.mod("%016x", session_ids.view(np.uint64)).astype(object)),
        "price": pa.array(np.round(rng.gamma(2.0, 20.0, rows), 2)),
        "score": pa.array(rng.random(rows)),
        "qty": pa.array(rng.integers(1, 20, rows, dtype=np.int32)),
        "ts": pa.array(1_700_000_000_000 + np.sort(rng.integers(0, 86_400_000, rows)).astype(np.int64)),
    })


# --- measurements (each in its own process) ----------------------------------------------------------


def _rss_kib() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def _load(path: str) -> pa.Table:
    with pa.memory_map(path) as source:
        return pa.ipc.open_file(source).read_all()


def measure_parquet(table_path: str, out_dir: str) -> dict:
    import pyarrow.parquet as pq

    table = _load(table_path)
    path = os.path.join(out_dir, "bench.parquet")
    rss_before = _rss_kib()
    cpu_start, start = time.process_time(), time.perf_counter()
    pq.write_table(table, path)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    with open(path, "rb+") as written:  # write_table does not fsync; the segment writer does
        os.fsync(written.fileno())
    return {"seconds": seconds, "cpu_seconds": cpu, "fsync_seconds": time.perf_counter() - start,
            "bytes": os.path.getsize(path), "rss_before_kib": rss_before, "peak_rss_kib": peak}


def measure_segment(table_path: str, out_dir: str, profile_top: int = 0, threads: int | None = None) -> dict:
    from pinot_sink.segment import builder
    from type_mapping.pinot_schema import PinotSchema
    from type_mapping.stored import PinotColumns

    table = _load(table_path)
    schema = PinotSchema.from_json(SCHEMA)
    tar_seconds = []
    write_tarball = builder.write_tarball

    tar_cpu_seconds = []

    def timed_tarball(*args, **kwargs):
        start, cpu_start = time.perf_counter(), time.process_time()
        try:
            return write_tarball(*args, **kwargs)
        finally:
            tar_seconds.append(time.perf_counter() - start)
            tar_cpu_seconds.append(time.process_time() - cpu_start)

    builder.write_tarball = timed_tarball
    fsync_seconds = []
    fsync = os.fsync

    def timed_fsync(fd):  # the tarball is fsynced before its rename; disk latency, not our CPU
        start = time.perf_counter()
        try:
            return fsync(fd)
        finally:
            fsync_seconds.append(time.perf_counter() - start)

    os.fsync = timed_fsync
    columns = PinotColumns(table, {})
    rss_before = _rss_kib()
    profiler = None
    if profile_top:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    cpu_start, start = time.process_time(), time.perf_counter()
    built = builder.build_segment(columns, schema, builder.TableConfig.from_json(TABLE_CONFIG, schema), out_dir, "bench_events_0",
                                  creation_time_ms=1_700_000_000_000, options=builder.BuildOptions(threads=threads))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    if not tar_seconds:
        raise RuntimeError("builder.write_tarball was not called: the tar.gz step can no longer be timed apart")
    fsync_total = sum(fsync_seconds)
    result = {"seconds": seconds - fsync_total, "cpu_seconds": cpu, "fsync_seconds": fsync_total,
              "tar_seconds": sum(tar_seconds) - fsync_total, "tar_cpu_seconds": sum(tar_cpu_seconds),
              "bytes": built.tar_bytes,
              "rss_before_kib": rss_before, "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
    if profiler is not None:
        import io
        import pstats

        profiler.disable()
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(profile_top)
        result["profile"] = text.getvalue()
    return result


def _child(kind: str, table_path: str, profile_top: int, threads: int | None) -> None:
    with tempfile.TemporaryDirectory() as out_dir:
        if kind == "parquet":
            result = measure_parquet(table_path, out_dir)
        else:
            result = measure_segment(table_path, out_dir, profile_top, threads)
    print(json.dumps(result))


def run_child(kind: str, table_path: Path, profile_top: int = 0, threads: int | None = None) -> dict:
    command = [sys.executable, __file__, "--child", kind, "--table", str(table_path), "--profile", str(profile_top)]
    if threads is not None:
        command += ["--threads", str(threads)]
    completed = subprocess.run(command, check=True, capture_output=True, text=True, cwd=REPO)
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0,
                        help="also print the top N functions of one profiled build (cProfile sees the main "
                             "thread only: add --threads 1 to see the column work)")
    parser.add_argument("--threads", type=int, default=None,
                        help="BuildOptions.threads for the segment (default: the builder's, usable CPUs up to 4)")
    parser.add_argument("--child", choices=["parquet", "segment"], help=argparse.SUPPRESS)
    parser.add_argument("--table", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.table, args.profile, args.threads)
        return

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as work:
        table_path = Path(work) / "bench.arrow"
        table = make_table(args.rows)
        with pa.OSFile(str(table_path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
        arrow_mib = table.nbytes / 2**20
        del table
        runs = {"parquet": [], "segment": []}
        for _ in range(args.repeat):  # interleaved, so drift hits both alike
            for kind in runs:
                os.sync()  # start each measurement without the previous one's dirty pages
                runs[kind].append(run_child(kind, table_path, threads=args.threads))
        profile = run_child("segment", table_path, args.profile, args.threads)["profile"] if args.profile else None

    def summary(kind: str) -> dict:
        best = min(runs[kind], key=lambda r: r["seconds"])
        return {
            "median_s": statistics.median(r["seconds"] for r in runs[kind]),
            "cpu_s": statistics.median(r["cpu_seconds"] for r in runs[kind]),
            "fsync_s": statistics.median(r["fsync_seconds"] for r in runs[kind]),
            "best_s": best["seconds"],
            "tar_s": statistics.median(r.get("tar_seconds", 0.0) for r in runs[kind]),
            "tar_cpu_s": statistics.median(r.get("tar_cpu_seconds", 0.0) for r in runs[kind]),
            "build_cpu_s": statistics.median(r["cpu_seconds"] - r.get("tar_cpu_seconds", 0.0) for r in runs[kind]),
            "mib": best["bytes"] / 2**20,
            "rss_before_mib": max(r["rss_before_kib"] for r in runs[kind]) / 1024,
            "peak_rss_mib": max(r["peak_rss_kib"] for r in runs[kind]) / 1024,
        }

    parquet, segment = summary("parquet"), summary("segment")
    rows = args.rows
    print(f"{rows:,} rows, 10 columns, {arrow_mib:.0f} MiB in Arrow; {args.repeat} runs each; "
          "wall seconds median (best), fsync excluded and listed apart; "
          f"{os.cpu_count()} CPUs, 1-min load average {load_before:.1f} before / {os.getloadavg()[0]:.1f} after")
    print("| step | wall s | CPU s | rows/s | output MiB | fsync s | RSS before MiB | peak RSS MiB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, r in (("parquet.write_table (snappy)", parquet), ("build_segment, total", segment)):
        print(f"| {label} | {r['median_s']:.2f} ({r['best_s']:.2f}) | {r['cpu_s']:.2f} | "
              f"{rows / r['median_s']:,.0f} | {r['mib']:.1f} | {r['fsync_s']:.2f} | {r['rss_before_mib']:.0f} | "
              f"{r['peak_rss_mib']:.0f} |")
    without_tar = segment["median_s"] - segment["tar_s"]
    from pinot_sink.segment import tarball
    from pinot_sink.segment.builder import default_threads as builder_threads

    print(f"| of which tar.gz (gzip level {tarball.GZIP_LEVEL} + tar) | {segment['tar_s']:.2f} | "
          f"{segment['tar_cpu_s']:.2f} | | | | | |")
    print(f"| build_segment without tar.gz | {without_tar:.2f} | {segment['build_cpu_s']:.2f} | "
          f"{rows / without_tar:,.0f} | | | | |")
    threads = args.threads if args.threads is not None else f"default ({builder_threads()})"
    print(f"segment builder threads: {threads}")
    print(f"segment / parquet wall-time ratio: {segment['median_s'] / parquet['median_s']:.2f}x "
          f"(without tar.gz: {without_tar / parquet['median_s']:.2f}x); rows/s of the index build vs Parquet: "
          f"{parquet['median_s'] / without_tar:.2f}x; CPU-time ratio without tar.gz: "
          f"{segment['build_cpu_s'] / parquet['cpu_s']:.2f}x")
    if profile:
        print(profile)


if __name__ == "__main__":
    main()
