"""`pinot-sink build` of the orders (examples/local_backfill.py) from Parquet, the whole process (start-up,
imports, reading, converting, building, tar.gz), against a Python process that reads the same Parquet file
with pyarrow and writes it back as Parquet (the baseline: reading + writing the same data, also from start).

Wall and CPU seconds (user + system of the child, from ``RUSAGE_CHILDREN``) per run, alternating the two,
best of --repeat, with the load average:

    python bench/cli_build.py [--rows 1000000] [--repeat 3] [--data orders|distinct] [--repo DIR]

Both children run as an installed package does: with its modules' bytecode compiled (``compileall`` first) and
PYTHONDONTWRITEBYTECODE unset; ``--source-only`` keeps that variable as the environment has it (a checkout whose
bytecode is never written compiles ~100 modules at every start: ~0.5 CPU-s).

``--data distinct``: a table of one STRING column of ``--rows`` distinct values (40-character texts) beside a
LONG id, the dictionary's worst case. ``--repo DIR``: another checkout's ``pinot-sink build`` (the commit
before a change, ``git archive`` into a folder), alternated with this one's in the same run.
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

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PARQUET_ROUND_TRIP = ("import sys, pyarrow.parquet as pq; "
                      "pq.write_table(pq.read_table(sys.argv[1]), sys.argv[2])")


DISTINCT_SCHEMA = {"schemaName": "distinct", "dimensionFieldSpecs": [{"name": "name", "dataType": "STRING"}],
                   "metricFieldSpecs": [{"name": "id", "dataType": "LONG"}]}
DISTINCT_CONFIG = {"tableName": "distinct_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {},
                   "tableIndexConfig": {}}


def distinct_table(rows: int):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    ids = np.random.default_rng(7).permutation(rows).astype(np.int64)
    names = pc.binary_join_element_wise(pa.array(np.char.mod("%040d", ids)).cast(pa.string()), "", "")
    return pa.table({"name": names, "id": pa.array(ids)})


SOURCE_ONLY = False


def compile_checkout(repo: Path) -> None:
    """Its bytecode, as an install writes it (pip compiles what it installs)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(repo / "pinot_sink"), str(repo / "type_mapping")],
                   check=True, stdout=subprocess.DEVNULL)


def run(command: list[str], repo: Path = REPO) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(repo)}
    if not SOURCE_ONLY:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", choices=("orders", "distinct"), default="orders")
    parser.add_argument("--repo", type=Path, help="another checkout to run alternately (before / after)")
    parser.add_argument("--source-only", action="store_true", help="leave PYTHONDONTWRITEBYTECODE as it is")
    args = parser.parse_args()
    global SOURCE_ONLY
    SOURCE_ONLY = args.source_only
    if not SOURCE_ONLY:
        for repo in [REPO] + ([args.repo.resolve()] if args.repo else []):
            compile_checkout(repo)
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(HERE))
    import importlib.util

    import pyarrow.parquet as pq

    from partition_build import make_orders

    spec = importlib.util.spec_from_file_location("local_backfill", REPO / "examples" / "local_backfill.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    work = Path(tempfile.mkdtemp(prefix="bench-cli-build-"))
    try:
        source = work / "orders.parquet"
        distinct = args.data == "distinct"
        pq.write_table(distinct_table(args.rows) if distinct else make_orders(args.rows), source)
        (work / "schema.json").write_text(json.dumps(DISTINCT_SCHEMA if distinct else example.SCHEMA))
        (work / "table.json").write_text(json.dumps(DISTINCT_CONFIG if distinct else example.TABLE_CONFIG))
        cli = [sys.executable, "-m", "pinot_sink.cli", "build", "--schema", str(work / "schema.json"),
               "--table-config", str(work / "table.json"), "--input", str(source), "--out", str(work / "out"),
               "--creation-time", "0", "--max-rows", "5000000", "--max-size", "512mb"]  # one production-sized segment
        baseline = [sys.executable, "-c", PARQUET_ROUND_TRIP, str(source), str(work / "copy.parquet")]
        ours, theirs, loads, inside, other = [], [], [], [], []
        for _ in range(args.repeat):
            loads.append(os.getloadavg()[0])
            cpu, wall = time.process_time(), time.perf_counter()  # the stricter baseline: no start-up
            pq.write_table(pq.read_table(source), work / "copy.parquet")
            inside.append((time.perf_counter() - wall, time.process_time() - cpu))
            theirs.append(run(baseline))
            shutil.rmtree(work / "out", ignore_errors=True)
            ours.append(run(cli))
            if args.repo:
                segments = sorted(p.name for p in (work / "out").glob("*.tar.gz"))
                shutil.rmtree(work / "out", ignore_errors=True)
                other.append(run(cli, args.repo.resolve()))
        if not args.repo:
            segments = sorted(p.name for p in (work / "out").glob("*.tar.gz"))
        best_ours = min(ours, key=lambda r: r[1])
        best_theirs = min(theirs, key=lambda r: r[1])
        print(f"{args.rows:,} {args.data} rows, Parquet {source.stat().st_size / 1024**2:.1f} MiB; load average "
              f"{' '.join(f'{x:.1f}' for x in loads)}; best of {args.repeat} by CPU")
        print(f"  pinot-sink build (whole process): wall {min(r[0] for r in ours):.2f} s, {best_ours[1]:.2f} CPU-s; "
              f"{len(segments)} segment(s)")
        print(f"  Parquet read + write (whole process): wall {min(r[0] for r in theirs):.2f} s, "
              f"{best_theirs[1]:.2f} CPU-s")
        print(f"  Parquet read + write inside a warm process (no start-up or imports): wall "
              f"{min(r[0] for r in inside):.2f} s, {min(r[1] for r in inside):.2f} CPU-s; ratio CPU "
              f"{best_ours[1] / min(r[1] for r in inside):.2f}x")
        print(f"  ratio: wall {min(r[0] for r in ours) / min(r[0] for r in theirs):.2f}x, CPU "
              f"{best_ours[1] / best_theirs[1]:.2f}x (target: at most 1.5x)")
        if other:
            best_other = min(other, key=lambda r: r[1])
            print(f"  {args.repo}'s pinot-sink build: wall {min(r[0] for r in other):.2f} s, {best_other[1]:.2f} "
                  f"CPU-s; ratio CPU {best_other[1] / best_theirs[1]:.2f}x; this checkout / that one: "
                  f"{best_ours[1] / best_other[1]:.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
