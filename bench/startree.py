"""Star-tree cost: ``build_segment`` with a star-tree vs the same segment without it, in one run.

The rows are ``bench/segment_build.py``'s table (default 1 000 000 rows). The tree splits ``country`` (20
values), ``event_type`` (8), ``city`` (1 000) with Pinot's default ``maxLeafRecords`` (10 000) and five function
pairs: ``COUNT__*``, ``SUM__qty``, ``AVG__qty``, ``MIN__price``, ``MAX__price``. ``--double-sums`` swaps in
``SUM__price`` / ``AVG__price``: DOUBLE sums, whose bytes depend on the order Pinot's (unstable) quicksort
leaves equal records in, which this builder reproduces with a Python port of that sort (slow on big inputs).

Each build runs in a fresh subprocess (wall and CPU seconds of the build alone); the figure of merit is the
ratio with / without the tree, best of ``--repeat``, the 1-minute load average printed beside it. With numba
installed (the ``fast`` extra) the DOUBLE-sum sort is compiled code, and loading numba costs ~0.4-0.6 CPU-s
once per process: ``--warm`` builds the same segment once before the timed build in each subprocess, as a
long-lived Spark Python worker (``spark.python.worker.reuse``) builds its later segments.

``--no-numba`` hides numba from the builds (the numpy fallback of a plain install).

    .venv/bin/python bench/startree.py [--rows 1000000] [--repeat 3] [--double-sums] [--warm] [--no-numba] [--threads N]
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

import pyarrow as pa

from type_mapping.table_config import TableConfig

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from segment_build import SCHEMA, TABLE_CONFIG, make_table  # noqa: E402

PAIRS = ["COUNT__*", "SUM__qty", "AVG__qty", "MIN__price", "MAX__price"]
DOUBLE_PAIRS = ["COUNT__*", "SUM__price", "AVG__price", "MIN__price", "MAX__qty"]


def table_config(with_tree: bool, double_sums: bool) -> dict:
    config = json.loads(json.dumps(TABLE_CONFIG))
    if with_tree:
        config["tableIndexConfig"]["starTreeIndexConfigs"] = [{
            "dimensionsSplitOrder": ["country", "event_type", "city"],
            "functionColumnPairs": DOUBLE_PAIRS if double_sums else PAIRS,
        }]
    return config


def _child(table_path: str, with_tree: bool, double_sums: bool, threads: int | None, warm: bool) -> None:
    from pinot_sink.segment.builder import BuildOptions, build_segment
    from type_mapping.pinot_schema import PinotSchema
    from type_mapping.stored import PinotColumns

    with pa.memory_map(table_path) as source:
        table = pa.ipc.open_file(source).read_all()
    schema = PinotSchema.from_json(SCHEMA)
    if warm:
        with tempfile.TemporaryDirectory() as out:
            build_segment(PinotColumns(table, {}), schema, TableConfig.from_json(table_config(with_tree, double_sums), schema), out, "bench_0",
                          1_700_000_000_000, BuildOptions(threads=threads))
    with tempfile.TemporaryDirectory() as out:
        wall, cpu = time.perf_counter(), time.process_time()
        built = build_segment(PinotColumns(table, {}), schema, TableConfig.from_json(table_config(with_tree, double_sums), schema), out,
                              "bench_0", 1_700_000_000_000, BuildOptions(threads=threads))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(json.dumps({"wall": wall, "cpu": cpu, "tar_bytes": built.tar_bytes}))


def run(table_path: Path, with_tree: bool, double_sums: bool, threads: int | None, warm: bool,
        no_numba: bool = False) -> dict:
    args = [sys.executable, __file__, "--child", str(table_path)]
    if warm:
        args.append("--warm")
    if no_numba:
        args.append("--no-numba")
    if with_tree:
        args.append("--with-tree")
    if double_sums:
        args.append("--double-sums")
    if threads is not None:
        args += ["--threads", str(threads)]
    out = subprocess.run(args, check=True, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--double-sums", action="store_true")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--warm", action="store_true", help="time a second build in each subprocess")
    parser.add_argument("--no-numba", action="store_true", help="hide numba: the sort's numpy fallback")
    parser.add_argument("--child", default=None)
    parser.add_argument("--with-tree", action="store_true")
    args = parser.parse_args()
    if args.child:
        if args.no_numba:
            sys.modules["numba"] = None  # an import of it fails, as where it is not installed
        _child(args.child, args.with_tree, args.double_sums, args.threads, args.warm)
        return
    with tempfile.TemporaryDirectory() as tmp:
        table_path = Path(tmp) / "rows.arrow"
        table = make_table(args.rows)
        with pa.OSFile(str(table_path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
        results = {False: [], True: []}
        for _ in range(args.repeat):
            for with_tree in (False, True):  # interleaved, so load changes hit both alike
                results[with_tree].append(run(table_path, with_tree, args.double_sums, args.threads, args.warm,
                                              args.no_numba))
    best = {k: min(v, key=lambda r: r["wall"]) for k, v in results.items()}
    best_cpu = {k: min(r["cpu"] for r in v) for k, v in results.items()}
    load = os.getloadavg()[0]
    pairs = DOUBLE_PAIRS if args.double_sums else PAIRS
    try:
        if args.no_numba:
            raise ImportError
        import numba
        sort = f"numba {numba.__version__}"
    except ImportError:
        sort = "numpy (no numba)"
    print(f"rows {args.rows:,}; tree country/event_type/city; pairs {', '.join(pairs)}; best of {args.repeat}; "
          f"{'warm' if args.warm else 'cold'} processes; big sorts: {sort}; load {load:.1f}")
    print(f"without tree: wall {best[False]['wall']:.2f} s  cpu {best_cpu[False]:.2f} s  "
          f"tar {best[False]['tar_bytes']:,} B")
    print(f"with tree:    wall {best[True]['wall']:.2f} s  cpu {best_cpu[True]:.2f} s  "
          f"tar {best[True]['tar_bytes']:,} B")
    print(f"ratio: wall {best[True]['wall'] / best[False]['wall']:.2f}x  cpu {best_cpu[True] / best_cpu[False]:.2f}x "
          f"(the tree adds {100 * (best[True]['wall'] / best[False]['wall'] - 1):.0f}% wall, "
          f"{100 * (best_cpu[True] / best_cpu[False] - 1):.0f}% CPU)")


if __name__ == "__main__":
    main()
