"""Against Pinot's own segment builder on the same rows: the orders of examples/local_backfill.py as JSON lines,
built by ``~/pinot-verify/pinot-segment-build`` (Pinot's SegmentIndexCreationDriverImpl; a private tool, see
/work/shared/pinot-verify/README.md; never used by the test suite) and by this package.

Pinot's figure is its ``build_ms`` (stderr): reading the JSON lines into GenericRows, the record transformers,
the stats pass and the index build, in a fresh JVM (so JIT-cold: every run starts a new JVM, as a Pinot
ingestion job's segment task does), plus the JVM process's wall and CPU seconds. Ours, in this process, one
thread and the default threads, best of --repeat: the same JSON lines read with pyarrow.json, converted
and built into a segment (and, apart, with the tarball that Pinot's figure does not include).

    python bench/pinot_builder.py [--rows 1000000] [--repeat 3] [--java-runs 2]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
TOOL = Path.home() / "pinot-verify" / "pinot-segment-build"


def write_jsonl(table, path: Path) -> None:
    """The rows as Pinot's JSON record reader takes them: TIMESTAMP as epoch millis, nulls as null."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = {name: table.column(name) for name in table.column_names}
    columns["order_time"] = pc.cast(pc.cast(columns["order_time"], pa.timestamp("ms", tz="UTC")), pa.int64())
    rows = pa.table(columns).to_pylist()
    with open(path, "w") as out:
        for row in rows:
            out.write(json.dumps(row, separators=(",", ":")))
            out.write("\n")


def java_build(schema: Path, config: Path, rows: Path, out: Path) -> tuple[float, float, float]:
    """(build_ms / 1000, process wall s, process CPU s) of one pinot-segment-build run."""
    shutil.rmtree(out, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([str(TOOL), "--schema", str(schema), "--table-config", str(config), "--input", str(rows),
                           "--out", str(out), "--segment-name", "orders_0", "--creation-time", "0"],
                          capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    found = re.search(r"build_ms=(\d+)", done.stderr)
    if done.returncode != 0 or not found:
        raise SystemExit(f"pinot-segment-build failed ({done.returncode}): {done.stdout[-2000:]} {done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return int(found.group(1)) / 1000, wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--java-runs", type=int, default=2)
    args = parser.parse_args()
    if not TOOL.exists():
        print(f"{TOOL} is not installed: see /work/shared/pinot-verify/README.md", file=sys.stderr)
        return 2
    import importlib.util

    import pyarrow.json as pj

    from partition_build import make_orders

    spec = importlib.util.spec_from_file_location("local_backfill", HERE.parent / "examples" / "local_backfill.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    from pinot_sink.segment import builder
    from type_mapping.convert import ConversionOptions, to_pinot_columns

    work = Path(tempfile.mkdtemp(prefix="bench-pinot-builder-"))
    try:
        rows_path, schema_path, config_path = work / "rows.jsonl", work / "schema.json", work / "table.json"
        write_jsonl(make_orders(args.rows), rows_path)
        schema_path.write_text(json.dumps(example.SCHEMA))
        config_path.write_text(json.dumps({"tenants": {}, **example.TABLE_CONFIG}))  # Pinot requires the key
        from pinot_sink.job import prepare_job

        job = prepare_job({"table-name": example.TABLE, "schema": json.dumps(example.SCHEMA),
                           "table-config": json.dumps(example.TABLE_CONFIG), "output-uri": str(work / "ours")},
                          pj.read_json(rows_path).schema, overwrite=False, streaming=False)
        schema, conversion = job.segment_schema(), job.options.conversion
        conversion = conversion if isinstance(conversion, ConversionOptions) else ConversionOptions(**conversion)
        loads = []

        def ours(threads: int, tar: bool) -> tuple[float, float]:
            cpu, wall = time.process_time(), time.perf_counter()
            table = pj.read_json(rows_path)
            columns = to_pinot_columns(table, schema, plan=job.plan, options=conversion)
            original = builder.write_tarball
            if not tar:  # Pinot's figure stops at the segment directory: leave the tarball out
                builder.write_tarball = lambda *a, **k: 0
            try:
                builder.build_segment(columns, schema, builder.TableConfig.from_json(example.TABLE_CONFIG, schema), work / "ours", "orders_0",
                                      creation_time_ms=0, options=builder.BuildOptions(threads=threads))
            finally:
                builder.write_tarball = original
            return time.process_time() - cpu, time.perf_counter() - wall

        java, mine = [], {}
        for _ in range(args.java_runs):  # alternate, so a change in load hits both
            loads.append(os.getloadavg()[0])
            java.append(java_build(schema_path, config_path, rows_path, work / "pinot"))
            for threads in (1, builder.default_threads()):
                for tar in (False, True):
                    for _ in range(args.repeat):
                        cpu, wall = ours(threads, tar)
                        best = mine.get((threads, tar))
                        mine[(threads, tar)] = (min(cpu, best[0]), min(wall, best[1])) if best else (cpu, wall)
        build_s = min(j[0] for j in java)
        print(f"{args.rows:,} orders rows as JSON lines ({rows_path.stat().st_size / 1024**2:.0f} MiB); load average "
              f"{' '.join(f'{x:.1f}' for x in loads)}; {os.cpu_count()} CPUs")
        for j in java:
            print(f"  Pinot (pinot-segment-build, fresh JVM): build_ms {j[0]:.2f} s; whole JVM process wall "
                  f"{j[1]:.2f} s, {j[2]:.2f} CPU-s")
        for (threads, tar), (cpu, wall) in sorted(mine.items()):
            print(f"  pinot_sink, {threads} thread(s), read JSON + convert + build{' + tar.gz' if tar else ''}: "
                  f"wall {wall:.2f} s, {cpu:.2f} CPU-s; Pinot's build_ms / this wall: {build_s / wall:.1f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
