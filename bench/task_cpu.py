"""CPU of one Spark task's whole path above the JVM -> Python transfer, outside Spark: ``write_partition``
(convert, buffer, build on the task's build thread, stage) over the orders of examples/local_backfill.py,
fed as the 10,000-row Arrow batches Spark hands a Python writer, one builder thread (spark.task.cpus = 1).

CPU-seconds of the whole process (``time.process_time``: every thread, so the build thread counts) beside
wall seconds, best of --repeat, with the load average; beside them the best user seconds and the system
seconds of that write (``getrusage``: the system part is mostly writing the segment file and its fsync, which
any writer pays, so "our own CPU" is best read in user time). The baseline in the same run is the same batches
through a loop that only touches them (``--repo`` adds another checkout's code, e.g. the commit before a
change, run in a subprocess on the same batches, so "before / after" is a ratio of one run too):

    python bench/task_cpu.py [--rows 1000000] [--repeat 5] [--max-rows 1000000] [--repo DIR] [--profile]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def batches_of(table, size: int = 10_000):
    return table.to_batches(max_chunksize=size)


def measure(repo: str, rows: int, repeat: int, max_rows: int, profile: bool, options: dict | None = None) -> dict:
    """Best CPU / wall seconds of write_partition with ``repo``'s code (this process's sys.path); ``options``:
    more write options (bench/tar_codecs.py: build.tar-codec)."""
    sys.path.insert(0, str(HERE))
    import logging

    logging.disable(logging.INFO)
    from partition_build import checkout_example, make_orders

    example = checkout_example(repo)
    from pinot_sink.job import prepare_job
    from pinot_sink.task import write_partition

    table = make_orders(rows)
    batches = batches_of(table)
    cpu_times, wall_times, user_sys = [], [], []
    profiler = None
    for i in range(repeat):
        out = tempfile.mkdtemp(prefix="bench-task-cpu-")
        job = prepare_job({"table-name": example.TABLE, "schema": json.dumps(example.SCHEMA),
                           "table-config": json.dumps(example.TABLE_CONFIG), "output-uri": out,
                           "sink.buffer-flush.max-rows": str(max_rows), "sink.buffer-flush.max-size": "1gb",
                           "creation-time": "0", **(options or {})}, table.schema, overwrite=False, streaming=False)
        if profile and i == repeat - 1:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        usage, cpu, wall = resource.getrusage(resource.RUSAGE_SELF), time.process_time(), time.perf_counter()
        report = write_partition(job, iter(batches), partition_id=0, threads=1)
        cpu_times.append(time.process_time() - cpu)
        wall_times.append(time.perf_counter() - wall)
        after = resource.getrusage(resource.RUSAGE_SELF)
        user_sys.append((after.ru_utime - usage.ru_utime, after.ru_stime - usage.ru_stime))
        if profiler is not None:
            profiler.disable()
        assert report.rows == rows, report.rows
        tar_bytes = sum(f.stat().st_size for f in Path(out).rglob("*.tar.gz"))
        subprocess.run(["rm", "-rf", out], check=True)
    if profiler is not None:
        import pstats

        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(45)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(repeat):
        for batch in batches:  # what the no-op writer does with its batches
            batch.num_rows
    floor_cpu = (time.process_time() - cpu) / repeat
    return {"cpu": min(cpu_times), "wall": min(wall_times), "cpus": cpu_times, "floor_cpu": floor_cpu,
            "user_sys": min(user_sys), "segments": len(report.segments), "tar_bytes": tar_bytes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--max-rows", type=int, default=1_000_000)
    parser.add_argument("--repo", action="append", default=[], help="another checkout to compare (repeatable)")
    parser.add_argument("--profile", action="store_true", help="cProfile the last run (to stderr)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure this checkout, print JSON
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.rows, args.repeat, args.max_rows, args.profile)))
        return 0
    repos = [str(HERE.parent)] + [str(Path(r).resolve()) for r in args.repo]
    results = {}
    for round_ in range(2):  # alternate the checkouts twice: load drifts
        for repo in repos:
            out = subprocess.run([sys.executable, __file__, "--one", repo, "--rows", str(args.rows), "--repeat",
                                  str(args.repeat), "--max-rows", str(args.max_rows)]
                                 + (["--profile"] if args.profile and round_ == 0 else []),
                                 check=True, capture_output=True, text=True,
                                 env={**os.environ, "PYTHONPATH": repo})
            if args.profile and round_ == 0:
                sys.stderr.write(out.stderr)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            best = results.get(repo)
            if best is None or r["cpu"] < best["cpu"]:
                results[repo] = r if best is None else {**r, "user_sys": min(r["user_sys"], best["user_sys"])}
            else:
                best["user_sys"] = min(r["user_sys"], best["user_sys"])
    load = os.getloadavg()
    print(f"write_partition, {args.rows:,} orders rows in 10k-row batches, one builder thread, max-rows "
          f"{args.max_rows:,}; best of {args.repeat} x 2 rounds; load average {load[0]:.1f} {load[1]:.1f}")
    base = results[repos[0]]
    for repo in repos:
        r = results[repo]
        print(f"  {repo}: {r['cpu']:.3f} CPU-s ({r['cpu'] / args.rows * 1e9:.0f} ns/row, "
              f"{r['cpu'] / base['cpu']:.2f}x this checkout), wall {r['wall']:.3f} s, {r['segments']} segment(s); "
              f"best user {r['user_sys'][0]:.3f} s ({r['user_sys'][0] / base['user_sys'][0]:.2f}x), that write's "
              f"system {r['user_sys'][1]:.3f} s; "
              f"touching the batches alone {r['floor_cpu'] * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
