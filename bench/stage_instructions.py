"""Instructions per build stage and column (bench/build_stages.py's stages, counted by callgrind instead of
timed): conversion, each column's dictionary, statistics, index writers and context, the sortedColumn's order,
the layout and the tar.gz, for the orders rows converted and built as one table on one thread.

callgrind dumps its counters at every stage's entry and exit (a client request through a small C helper, as in
bench/task_instructions.py); each interval's instructions go to the innermost stage open in it (self cost),
so the figures add up to the whole conversion + build. A first build in the same process is not counted.

    python bench/stage_instructions.py [--rows 200000] [--repo DIR] [--top 40] [--task]
"""
from __future__ import annotations

import argparse
import collections
import ctypes
import glob
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

DUMPER = r"""
#include <valgrind/callgrind.h>
void start(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_ZERO_STATS; }
void dump(void) { CALLGRIND_DUMP_STATS; }
"""


def run_stages(repo: str, rows: int, helper: str, task: bool = False) -> None:
    """Inside valgrind: wrap the builder's stages, build once uncounted, once counted; print the stage log.
    ``task``: the stages of a Spark task's path instead (``write_partition`` over 10k-row batches, as
    bench/task_instructions.py counts it), with the buffer's join of its parts as a stage of its own."""
    sys.path.insert(0, str(HERE))
    logging.disable(logging.INFO)
    from partition_build import checkout_example, make_orders

    example = checkout_example(repo)
    import type_mapping.convert as convert
    from pinot_sink.job import prepare_job
    from pinot_sink.segment import builder, index_writers

    marks = ctypes.CDLL(helper)
    table = make_orders(rows)
    out = tempfile.mkdtemp(prefix="bench-stage-instr-")
    job = prepare_job({"table-name": example.TABLE, "schema": json.dumps(example.SCHEMA),
                       "table-config": json.dumps(example.TABLE_CONFIG), "output-uri": out, "creation-time": "0"},
                      table.schema, overwrite=False, streaming=False)
    schema = job.segment_schema()
    stack, log, counting, current = ["(other)"], [], [False], ["*"]

    def event():
        if counting[0]:
            marks.dump()
            log.append(stack[-1])

    def staged(label_of, function):
        def wrapper(*a, **k):
            event()
            stack.append(label_of(*a, **k))
            try:
                return function(*a, **k)
            finally:
                event()
                stack.pop()
        return wrapper

    column_context, sorted_order = builder._column_context, builder._sorted_order

    def context(spec, *a, **k):
        current[0] = spec.name
        return column_context(spec, *a, **k)

    def order(*a, **k):
        current[0] = "(sortedColumn)"
        return sorted_order(*a, **k)

    builder._column_context = staged(lambda spec, *a, **k: f"{spec.name} context", context)
    builder._sorted_order = staged(lambda *a, **k: "* sortedColumn order", order)
    for name, label in (("build_dictionary", "dictionary"), ("collect_stats", "statistics"),
                        ("flatten", "flatten"), ("_reorder_multi_value", "multi-value reorder")):
        setattr(builder, name, staged(lambda *a, _l=label, **k: f"{current[0]} {_l}", getattr(builder, name)))
    builder.write_tarball = staged(lambda *a, **k: "* tar.gz", builder.write_tarball)
    builder.segment_file_parts = staged(lambda *a, **k: "* layout", builder.segment_file_parts)
    convert.convert_column = staged(lambda array, spec, **k: f"{spec.name} conversion", convert.convert_column)
    for writer in index_writers.INDEX_WRITERS:
        writer.write = staged(lambda ctx, _id=writer.index_id: f"{ctx.spec.name} {_id} writer", writer.write)
    to_columns = staged(lambda *a, **k: "* conversion (other)", convert.to_pinot_columns)
    build = staged(lambda *a, **k: "* build (other)", builder.build_segment)

    def once():
        columns = to_columns(table, schema, plan=job.plan)
        build(columns, schema, job.table_config, out, "orders_0", creation_time_ms=0,
              options=builder.BuildOptions(threads=1))

    if task:
        from pinot_sink import partition_writer
        from pinot_sink.task import write_partition
        from type_mapping.stored import PinotColumns

        partition_writer.to_pinot_columns = to_columns
        partition_writer.build_segment = build
        PinotColumns.concat = staticmethod(staged(lambda *a, **k: "* buffer concat", PinotColumns.concat))
        batches = table.to_batches(max_chunksize=10_000)

        def once():  # noqa: F811 (the task's path in place of the one-table build)
            task_out = tempfile.mkdtemp(prefix="bench-stage-instr-")
            task_job = prepare_job({"table-name": example.TABLE, "schema": json.dumps(example.SCHEMA),
                                    "table-config": json.dumps(example.TABLE_CONFIG), "output-uri": task_out,
                                    "sink.buffer-flush.max-rows": str(rows), "sink.buffer-flush.max-size": "1gb",
                                    "creation-time": "0"}, table.schema, overwrite=False, streaming=False)
            write_partition(task_job, iter(batches), partition_id=0, threads=1)

    once()
    counting[0] = True
    marks.start()
    once()
    marks.dump()
    log.append("(other)")
    print("STAGES " + json.dumps(log))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repo", default=str(HERE.parent))
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--task", action="store_true",
                        help="the stages of a Spark task's path (write_partition over 10k-row batches)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--helper", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run_stages(args.one, args.rows, args.helper, args.task)
        return 0
    repo = str(Path(args.repo).resolve())
    with tempfile.TemporaryDirectory(prefix="bench-stage-instr-") as workdir:
        source, helper = os.path.join(workdir, "dump.c"), os.path.join(workdir, "dump.so")
        with open(source, "w") as f:
            f.write(DUMPER)
        subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", helper, source], check=True)
        done = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                               f"--callgrind-out-file={workdir}/cg.%p", sys.executable, __file__, "--one", repo,
                               "--rows", str(args.rows), "--helper", helper] + (["--task"] if args.task else []),
                              check=True, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": repo})
        log = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("STAGES "))[7:])
        dumps = sorted((p for p in glob.glob(f"{workdir}/cg.*.*") if re.search(r"\.\d+\.\d+$", p)),
                       key=lambda p: int(p.rsplit(".", 1)[1]))
        spent: collections.Counter = collections.Counter()
        for label, path in zip(log, dumps):
            with open(path) as f:
                spent[label] += int(next(line for line in f if line.startswith("totals:")).split()[1])
    total = sum(spent.values())
    what = ("a Spark task's path (write_partition, 10k-row batches)" if args.task
            else "converted and built as one table")
    print(f"code: {repo}; {args.rows:,} orders rows {what}, one thread; "
          f"{total / 1e6:.1f} M instructions (self cost per stage)")
    for label, count in spent.most_common(args.top):
        print(f"  {label:40s} {count / 1e6:8.1f} M  {100 * count / total:5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
