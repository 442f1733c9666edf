"""Where a Spark task's CPU goes, per column and per stage: conversion, each column's dictionary, statistics and
index writers, the sortedColumn's order, and the tar.gz, for the orders of examples/local_backfill.py (the
rows of bench/partition_build.py), one thread, best of --repeat.

Thread CPU time (``time.thread_time``) around each stage, by wrapping the builder's functions at run time
(its code is untouched), so ``--repo`` can point at another checkout to compare in the same session:

    python bench/build_stages.py [--rows 1000000] [--repeat 4] [--repo DIR]
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=4)
    parser.add_argument("--repo", default=str(HERE.parent))
    args = parser.parse_args()
    sys.path.insert(0, args.repo)
    sys.path.insert(0, str(HERE))
    logging.disable(logging.INFO)
    from partition_build import make_orders

    spec = importlib.util.spec_from_file_location("local_backfill", Path(args.repo) / "examples" / "local_backfill.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    from pinot_sink.job import prepare_job
    from pinot_sink.segment import builder, index_writers
    from type_mapping.convert import to_pinot_columns

    table = make_orders(args.rows)
    out = tempfile.mkdtemp(prefix="bench-stages-")
    job = prepare_job({"table-name": example.TABLE, "schema": json.dumps(example.SCHEMA),
                       "table-config": json.dumps(example.TABLE_CONFIG), "output-uri": out, "creation-time": "0"},
                      table.schema, overwrite=False, streaming=False)
    schema = job.segment_schema()
    spent: dict[tuple[str, str], float] = collections.defaultdict(float)
    current = ["*"]

    def timed(label_of, function):
        def wrapper(*a, **k):
            started = time.thread_time()
            try:
                return function(*a, **k)
            finally:
                spent[label_of(*a, **k)] += time.thread_time() - started
        return wrapper

    column_context = builder._column_context

    def context(spec, *a, **k):
        current[0] = spec.name
        return column_context(spec, *a, **k)

    sorted_order = builder._sorted_order

    def order(*a, **k):
        current[0] = "(sortedColumn)"
        return sorted_order(*a, **k)

    builder._column_context = timed(lambda spec, *a, **k: (spec.name, "context (all)"), context)
    builder._sorted_order = timed(lambda *a, **k: ("*", "sortedColumn order (all)"), order)
    builder.build_dictionary = timed(lambda *a, **k: (current[0], "dictionary"), builder.build_dictionary)
    builder.collect_stats = timed(lambda *a, **k: (current[0], "statistics"), builder.collect_stats)
    builder.write_tarball = timed(lambda *a, **k: ("*", "tar.gz"), builder.write_tarball)
    for writer in index_writers.INDEX_WRITERS:
        writer.write = timed(lambda ctx, _id=writer.index_id: (ctx.spec.name, f"{_id} writer"), writer.write)

    best = None
    for _ in range(args.repeat):
        spent.clear()
        started = time.thread_time()
        columns = to_pinot_columns(table, schema, plan=job.plan)
        spent[("*", "conversion")] = time.thread_time() - started
        started = time.thread_time()
        builder.build_segment(columns, schema, job.table_config, out, "orders_0", creation_time_ms=0,
                              options=builder.BuildOptions(threads=1))
        spent[("*", "build (all)")] = time.thread_time() - started
        total = spent[("*", "conversion")] + spent[("*", "build (all)")]
        if best is None or total < best[0]:
            best = (total, dict(spent))
    import pinot_sink

    print(f"code: {Path(pinot_sink.__file__).parents[1]}; {args.rows:,} rows, one thread, best of {args.repeat}: "
          f"{best[0] * 1000:.0f} ms CPU; load average {os.getloadavg()[0]:.1f}")
    for (column, stage), seconds in sorted(best[1].items()):
        print(f"  {column:18s} {stage:26s} {seconds * 1000:7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
