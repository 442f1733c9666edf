"""Instructions of one Spark task's whole path (bench/task_cpu.py's ``write_partition`` over the orders in
Spark's 10,000-row Arrow batches, one builder thread), counted by valgrind's callgrind: the same code on the same
input gives the same count whatever else the machine runs, so a before / after ratio resolves on a shared
machine where CPU-seconds do not. CPU-seconds (best of --repeat, outside valgrind, task_cpu.py's measure) are
printed beside: instructions are not time (cache misses, page faults and the kernel are not counted).

Only the task is counted (every thread: the build thread and Arrow's pools), not start-up, imports or making
the batches: a 4-line helper compiled into a temporary folder (``cc`` and valgrind's headers,
``valgrind/callgrind.h``, are needed) issues callgrind's client requests around ``write_partition``
(instrumentation off until then: start-up runs ~10x faster under valgrind), so the dump holds the task alone.
(libc's symbols called through ctypes are invisible to callgrind's ``--zero-before``, and C-API markers
like ``Py_GetCompiler`` gave wrong counts: the client requests are the reliable way.)
A first ``write_partition`` on the same batches runs before the count (a reused Spark Python worker; lazy imports
and first-call caches are paid once per process; ``--cold`` counts the first call instead).

    python bench/task_instructions.py [--rows 200000] [--repeat 5] [--repo DIR ...] [--annotate N] [--cold]

The first checkout is this one; each ``--repo`` (e.g. ``git archive b13022b | tar -x -C /tmp/base``) is run on
the same batches (made by this checkout's bench/partition_build.py) and printed as a ratio to this one.
``--annotate N`` prints callgrind_annotate's top N functions by self cost per checkout.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


HELPER = r"""
#include <valgrind/callgrind.h>
void task_start(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_ZERO_STATS; }
void task_stop(void) { CALLGRIND_DUMP_STATS_AT("task"); CALLGRIND_STOP_INSTRUMENTATION; }
"""


def compile_helper(workdir: str) -> str | None:
    source, library = os.path.join(workdir, "markers.c"), os.path.join(workdir, "markers.so")
    with open(source, "w") as f:
        f.write(HELPER)
    done = subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", library, source], capture_output=True)
    return library if done.returncode == 0 else None


def run_task(repo: str, rows: int, cold: bool, helper: str) -> None:
    """Inside valgrind: set up, then one counted write_partition between the two libc markers."""
    sys.path.insert(0, str(HERE))
    import logging

    logging.disable(logging.INFO)
    from partition_build import checkout_example, make_orders

    example = checkout_example(repo)
    from pinot_sink.job import prepare_job
    from pinot_sink.task import write_partition

    table = make_orders(rows)
    batches = table.to_batches(max_chunksize=10_000)
    markers = ctypes.CDLL(helper)
    start, stop = markers.task_start, markers.task_stop

    def one(counted: bool):
        out = tempfile.mkdtemp(prefix="bench-task-instr-")
        job = prepare_job({"table-name": example.TABLE, "schema": json.dumps(example.SCHEMA),
                           "table-config": json.dumps(example.TABLE_CONFIG), "output-uri": out,
                           "sink.buffer-flush.max-rows": str(rows), "sink.buffer-flush.max-size": "1gb",
                           "creation-time": "0"}, table.schema, overwrite=False, streaming=False)
        if counted:
            start()
        report = write_partition(job, iter(batches), partition_id=0, threads=1)
        if counted:
            stop()
        assert report.rows == rows, report.rows
        shutil.rmtree(out)

    if not cold:
        one(False)
    one(True)


def count(repo: str, rows: int, cold: bool, annotate: int, workdir: str, helper: str) -> int:
    out = os.path.join(workdir, f"cg.{Path(repo).name}.{time.time_ns()}")
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p", "--instr-atstart=no",
               sys.executable, __file__, "--one", repo, "--rows", str(rows), "--helper", helper]
    command += ["--cold"] if cold else []
    subprocess.run(command, check=True, capture_output=True, text=True,
                   env={**os.environ, "PYTHONPATH": repo, "PYTHONHASHSEED": "0"})
    # out.<pid>.<n>: the task's dump (the last numbered one)
    dumps = [p for p in os.listdir(workdir) if re.fullmatch(re.escape(os.path.basename(out)) + r"\.\d+\.\d+", p)]
    assert dumps, os.listdir(workdir)
    path = os.path.join(workdir, max(dumps, key=lambda p: int(p.rsplit(".", 1)[1])))
    with open(path) as f:
        totals = [line for line in f if line.startswith(("summary:", "totals:"))]
    instructions = int(totals[0].split()[1])
    if annotate:
        text = subprocess.run(["callgrind_annotate", "--threshold=100", path], check=True, capture_output=True,
                              text=True).stdout
        lines = [line for line in text.splitlines() if re.match(r"\s*[\d,]+ \(", line)]
        print(f"--- {repo}: top {annotate} functions by self instructions", file=sys.stderr)
        for line in lines[:annotate]:
            print("   " + line.strip()[:160], file=sys.stderr)
    return instructions


def cpu_seconds(repo: str, rows: int, repeat: int) -> float:
    out = subprocess.run([sys.executable, str(HERE / "task_cpu.py"), "--one", repo, "--rows", str(rows),
                          "--repeat", str(repeat), "--max-rows", str(rows)], check=True, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": repo})
    return json.loads(out.stdout.strip().splitlines()[-1])["cpu"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5, help="CPU-seconds: best of this many, two rounds")
    parser.add_argument("--repo", action="append", default=[], help="another checkout to compare (repeatable)")
    parser.add_argument("--annotate", type=int, default=0, help="print the top N functions per checkout")
    parser.add_argument("--cold", action="store_true", help="count the process's first write_partition")
    parser.add_argument("--no-cpu", action="store_true", help="instructions only")
    parser.add_argument("--keep", help="keep callgrind's files in this folder (for callgrind_annotate)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: the process valgrind runs
    parser.add_argument("--helper", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run_task(args.one, args.rows, args.cold, args.helper)
        return 0
    repos = [str(HERE.parent)] + [str(Path(r).resolve()) for r in args.repo]
    instructions, cpus = {}, {}
    with tempfile.TemporaryDirectory(prefix="bench-task-instr-") as workdir:
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            workdir = args.keep
        helper = compile_helper(workdir)
        if helper is None:
            parser.error("needs a C compiler (cc) and valgrind's headers (valgrind/callgrind.h)")
        for repo in repos:
            instructions[repo] = count(repo, args.rows, args.cold, args.annotate, workdir, helper)
    if not args.no_cpu:
        for _ in range(2):  # alternate: load drifts
            for repo in repos:
                cpu = cpu_seconds(repo, args.rows, args.repeat)
                cpus[repo] = min(cpus.get(repo, cpu), cpu)
    load = os.getloadavg()
    print(f"write_partition, {args.rows:,} orders rows in 10k-row batches, one builder thread, one segment; "
          f"{'cold' if args.cold else 'warm'} process; instructions by callgrind; CPU-s best of {args.repeat} x 2 "
          f"rounds; load average {load[0]:.1f} {load[1]:.1f}")
    base = repos[0]
    for repo in repos:
        line = (f"  {repo}: {instructions[repo] / 1e9:.3f} G instructions ({instructions[repo] / args.rows:.0f} "
                f"per row), {instructions[repo] / instructions[base]:.3f}x this checkout")
        if cpus:
            line += f"; {cpus[repo]:.3f} CPU-s, {cpus[repo] / cpus[base]:.2f}x"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
