"""CPU of one Spark task's own work, outside Spark: convert a 500k-row orders partition and build its segment.

The rows are the orders of examples/local_backfill.py (same schema and table config: sortedColumn,
two inverted indexes, two raw columns, a multi-value and a mostly-null column), generated with numpy
as the Arrow batches Spark hands a task. One thread, as in a Spark task (spark.task.cpus = 1), warm
process, best of --repeat. This is the part of `df.write.format("pinot")` above the JVM -> Python
transfer (bench/spark_write.py measures the whole write).

    python bench/partition_build.py [--rows 500000] [--repeat 5] [--repo DIR]

``--repo`` runs the code of another checkout (e.g. a git worktree of an older commit) with this script.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa


def checkout_example(repo: str):
    """``repo``'s examples/local_backfill.py (its table's schema and config), with ``repo``'s code first on
    sys.path: what this process then imports of pinot_sink is that checkout's, the one measured."""
    sys.path.insert(0, repo)
    spec = importlib.util.spec_from_file_location("local_backfill", Path(repo) / "examples" / "local_backfill.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


def make_orders(rows: int, seed: int = 7) -> pa.Table:
    rng = np.random.default_rng(seed)
    countries = np.array(["US", "US", "US", "DE", "FR", "GB", "JP", "BR", "IN", "CA"])
    devices = np.array(["ios", "android", "web", "web"])
    tags = np.array(["sale", "gift", "prime", "new", "bulk"])
    lengths = rng.integers(0, 3, rows)  # 0-2 tags, as the example's slice: empty rows become [default]
    offsets = np.zeros(rows + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    coupon = np.where(rng.random(rows) < 0.1, "WINTER10", None)
    start_ms = 1_704_067_200_000
    return pa.table({
        "order_id": pa.array(np.arange(rows, dtype=np.int64)),
        "customer_id": pa.array(rng.integers(0, 200_000, rows, dtype=np.int64)),
        "country": pa.array(countries[rng.integers(0, 10, rows)]),
        "device": pa.array(devices[rng.integers(0, 4, rows)]),
        "product_id": pa.array(rng.integers(0, 5000, rows, dtype=np.int32)),
        "is_returning": pa.array(rng.random(rows) < 1 / 3),
        "tags": pa.ListArray.from_arrays(pa.array(offsets), pa.array(tags[rng.integers(0, 5, int(offsets[-1]))])),
        "coupon": pa.array(coupon, pa.string()),
        "quantity": pa.array(rng.integers(1, 6, rows, dtype=np.int32)),
        "price": pa.array(np.round(rng.integers(0, 20_000, rows) / 100 + 0.99, 2)),
        "order_time": pa.array((start_ms + np.arange(rows) * (2_592_000_000 // rows)) * 1000,
                               pa.timestamp("us", tz="UTC")),
    })


def best(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.process_time()
        action()
        times.append(time.process_time() - started)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--repo", default=str(Path(__file__).resolve().parents[1]))
    args = parser.parse_args()
    example = checkout_example(args.repo)
    import json

    try:
        from pinot_sink.job import prepare_job
    except ImportError:  # a checkout from before the job / task / commit split
        from pinot_sink.datasource import prepare_job
    from pinot_sink.segment import builder
    from type_mapping.convert import ConversionOptions, to_pinot_columns

    table = make_orders(args.rows)
    out = tempfile.mkdtemp(prefix="bench-partition-")
    job = prepare_job({"table-name": example.TABLE, "schema": json.dumps(example.SCHEMA),
                       "table-config": json.dumps(example.TABLE_CONFIG), "output-uri": out},
                      table.schema, overwrite=False, streaming=False)
    conversion = job.options.conversion
    options = conversion if isinstance(conversion, ConversionOptions) else ConversionOptions(**conversion)
    schema = job.segment_schema()

    def convert():
        return to_pinot_columns(table, schema, plan=job.plan, options=options)  # a keyword in every version

    columns = convert()
    tar_cpu = []
    write_tarball = builder.write_tarball

    def timed_tarball(*a, **k):
        started = time.process_time()
        try:
            return write_tarball(*a, **k)
        finally:
            tar_cpu.append(time.process_time() - started)

    builder.write_tarball = timed_tarball

    def build():
        builder.build_segment(columns, schema, job.table_config, out, "orders_0", creation_time_ms=0,
                              options=builder.BuildOptions(threads=1))

    convert_s, build_s = best(convert, args.repeat), best(build, args.repeat)
    import pinot_sink

    print(f"code: {Path(pinot_sink.__file__).parents[1]}; {args.rows:,} rows, one thread, best of {args.repeat} CPU seconds; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"conversion to stored types: {convert_s * 1000:.0f} ms")
    print(f"segment build: {build_s * 1000:.0f} ms (of which tar.gz {min(tar_cpu) * 1000:.0f} ms)")
    print(f"total: {(convert_s + build_s) * 1000:.0f} ms, {args.rows / (convert_s + build_s):,.0f} rows per CPU-second")
    return 0


if __name__ == "__main__":
    sys.exit(main())
