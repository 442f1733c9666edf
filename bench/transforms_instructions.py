"""Instructions of ``bench/transforms.py``'s ingestion (the five transforms, then with the filter) per checkout,
counted by valgrind's callgrind: the same code on the same rows gives the same count on a shared machine, where
the CPU-seconds of ``bench/transforms.py`` move by more than the differences asked about ("unchanged or
faster" against an older checkout).

Each checkout's own ``bench/transforms.py`` makes the rows and the pipelines (its ``make_table``, ``SCHEMA`` and
``TABLE_CONFIG``: the file is unchanged since issue 23 was filed), so its own package is the one counted. One
``apply`` of each pipeline runs first, uncounted (lazy imports, compiled expressions' caches: a reused worker),
then one of each is counted between callgrind's client requests (``task_instructions.py``'s markers).

    python bench/transforms_instructions.py [--rows 1000000] [--repo DIR ...]
"""
from __future__ import annotations

import argparse
import ctypes
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from type_mapping.table_config import TableConfig

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
KINDS = ("five transforms", "five transforms + filter")


def run_checkout(repo: str, rows: int, helper: str) -> None:
    """Inside valgrind: the checkout's own transforms bench module, then two counted applies."""
    spec = importlib.util.spec_from_file_location("checkout_transforms", Path(repo) / "bench" / "transforms.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)  # puts the checkout first on sys.path, then imports its package
    table = bench.make_table(rows)
    schema = bench.PinotSchema.from_json(bench.SCHEMA)
    no_filter = {**bench.TABLE_CONFIG, "ingestionConfig": {
        "transformConfigs": bench.TABLE_CONFIG["ingestionConfig"]["transformConfigs"]}}
    pipelines = [bench.IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), table.schema)
                 for config in (no_filter, bench.TABLE_CONFIG)]
    markers = ctypes.CDLL(helper)
    for pipeline in pipelines:
        pipeline.apply(table, 0)
        markers.task_start()
        pipeline.apply(table, 0)
        markers.task_stop()


def count(repo: str, rows: int, workdir: str, helper: str) -> list[int]:
    out = os.path.join(workdir, f"cg.{Path(repo).name}.{time.time_ns()}")
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p", "--instr-atstart=no",
               sys.executable, __file__, "--one", repo, "--rows", str(rows), "--helper", helper]
    subprocess.run(command, check=True, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    dumps = sorted((p for p in os.listdir(workdir)
                    if re.fullmatch(re.escape(os.path.basename(out)) + r"\.\d+\.\d+", p)),
                   key=lambda p: int(p.rsplit(".", 1)[1]))
    counts = []
    for name in dumps:
        with open(os.path.join(workdir, name)) as f:
            totals = [line for line in f if line.startswith(("summary:", "totals:"))]
        counts.append(int(totals[0].split()[1]))
    counted = counts[-len(KINDS):]  # the dumps named "task" (an earlier one, if any, is start-up's)
    assert len(counted) == len(KINDS), counts
    return counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repo", action="append", default=[], help="another checkout to compare (repeatable)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: the process valgrind runs
    parser.add_argument("--helper", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run_checkout(args.one, args.rows, args.helper)
        return

    sys.path.insert(0, str(HERE))
    from task_instructions import compile_helper

    with tempfile.TemporaryDirectory(prefix="bench-transforms-instr-") as workdir:
        helper = compile_helper(workdir)
        if helper is None:
            sys.exit("needs cc and valgrind's headers (valgrind/callgrind.h)")
        checkouts = [str(ROOT)] + [str(Path(r).resolve()) for r in args.repo]
        results = {repo: count(repo, args.rows, workdir, helper) for repo in checkouts}
    print(f"{args.rows} rows, instructions of one apply (load {os.getloadavg()[0]:.2f}):")
    for i, kind in enumerate(KINDS):
        here = results[str(ROOT)][i]
        print(f"  {kind}: this checkout {here / 1e6:.1f} M ({here / args.rows:.0f} per row)")
        for repo in checkouts[1:]:
            print(f"    {repo}: {results[repo][i] / 1e6:.1f} M, this one is {here / results[repo][i]:.2f}x of it")


if __name__ == "__main__":
    main()
