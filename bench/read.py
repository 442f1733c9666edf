"""Read throughput: ``pinot_sink.read`` of one segment against ``pyarrow.parquet.read_table`` of the same rows.

The table is bench/segment_build.py's (default 1 000 000 rows, 10 columns: two ids, low- and high-cardinality
strings, doubles, a small int, a millisecond timestamp), built once into a segment (v3, time column, inverted
indexes on ``country`` and ``event_type``, Pinot's defaults otherwise) and written once as Parquet
(``pq.write_table``'s defaults: Snappy, dictionary pages). Then, best of ``--repeat`` runs each, in this process:

* ``parquet``: ``pq.read_table(path)`` (Arrow's C++ reader, multi-threaded);
* ``segment tar.gz``: ``pinot_sink.read(tarball)``: gunzip + untar into a temp folder, decode, to Arrow;
* ``segment folder``: ``pinot_sink.read(folder)``: the untarred segment (what a server or a compaction that
  untarred once reads).

Wall and CPU seconds (``time.process_time``: every thread of the process) beside each other; the figure of merit
is rows/s as a ratio to Parquet's, measured in the same run. The read tables are checked equal to the input
(Parquet's after the segment's logical types: TIMESTAMP as timestamp[ms, UTC]).

    .venv/bin/python bench/read.py [--rows 1000000] [--repeat 3] [--threads N]
"""
from __future__ import annotations

from type_mapping.table_config import TableConfig

import argparse
import os
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from segment_build import SCHEMA, TABLE_CONFIG, make_table  # noqa: E402
from timing import best  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="pyarrow's CPU pool (default: its own)")
    args = parser.parse_args(argv)
    if args.threads:
        pa.set_cpu_count(args.threads)

    import pinot_sink
    from pinot_sink.segment.builder import BuildOptions, build_segment
    from type_mapping.pinot_schema import PinotSchema
    from type_mapping.stored import PinotColumns

    table = make_table(args.rows)
    with tempfile.TemporaryDirectory(prefix="bench-read-") as temp:
        built = build_segment(PinotColumns(table, {}), PinotSchema.from_json(SCHEMA), TableConfig.from_json(TABLE_CONFIG, PinotSchema.from_json(SCHEMA)), temp,
                              "bench_events_0", 1_700_000_000_000, BuildOptions(sort_by_sorted_column=False))
        tarball = Path(built.tar_path)
        with tarfile.open(tarball) as tar:
            tar.extractall(Path(temp) / "untarred", filter="data")
        folder = Path(temp) / "untarred" / "bench_events_0"
        parquet = Path(temp) / "bench.parquet"
        pq.write_table(table, parquet)

        expected = table.set_column(table.schema.get_field_index("ts"), "ts",
                                    table.column("ts").cast(pa.timestamp("ms", tz="UTC")))
        assert pinot_sink.read(tarball).select(expected.column_names).equals(expected)
        assert pq.read_table(parquet).equals(table)

        cases = {
            "parquet": lambda: pq.read_table(parquet),
            "segment tar.gz": lambda: pinot_sink.read(tarball),
            "segment folder": lambda: pinot_sink.read(folder),
        }
        results = {name: best(action, args.repeat) for name, action in cases.items()}
        sizes = {"parquet": parquet.stat().st_size, "segment tar.gz": tarball.stat().st_size,
                 "segment folder": sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())}

    base_wall, base_cpu = results["parquet"]
    print(f"{args.rows:,} rows, {len(table.columns)} columns, best of {args.repeat}; pyarrow {pa.__version__}, "
          f"{pa.cpu_count()} CPU threads")
    print(f"{'read':<16} {'MB':>7} {'wall s':>8} {'CPU s':>8} {'rows/s (wall)':>14} {'vs parquet':>11} {'CPU vs':>7}")
    for name, (wall, cpu) in results.items():
        print(f"{name:<16} {sizes[name] / 1e6:>7.1f} {wall:>8.3f} {cpu:>8.3f} {args.rows / wall:>14,.0f} "
              f"{base_wall / wall:>10.2f}x {cpu / base_cpu:>6.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
