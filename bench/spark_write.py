"""Wall time of both entry points, df.write.format("pinot") and pinot_sink.write through mapInArrow, to a local
directory against df.write.parquet of the same DataFrame and against each entry point's no-op floor.

All writes run in the same Spark session on the same cached DataFrame (the orders of
examples/local_backfill.py), alternating, best of --repeat each; the ratios go into
docs/performance-spark.md. On pyspark 3.x (no Python Data Source API) only the mapInArrow rows are run.

    python bench/spark_write.py [--rows 2000000] [--partitions 4] [--repeat 2] [--no-doc]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "performance-spark.md"
HAND_KEPT = "<!-- kept by hand: bench/spark_write.py rewrites only what is above this line -->"


def load_example():
    spec = importlib.util.spec_from_file_location("local_backfill", REPO / "examples" / "local_backfill.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def register_arrow_noop(spark) -> None:
    """A Python data source that only counts its Arrow batches: the JVM -> Python transfer floor."""
    from pyspark.sql.datasource import DataSource, DataSourceArrowWriter, WriterCommitMessage

    class CountingWriter(DataSourceArrowWriter):
        def write(self, iterator):
            for _ in iterator:
                pass
            return WriterCommitMessage()

    class ArrowNoop(DataSource):
        @classmethod
        def name(cls):
            return "bench_arrow_noop"

        def writer(self, schema, overwrite):
            return CountingWriter()

    spark.dataSource.register(ArrowNoop)


def map_in_arrow_noop(df) -> None:
    """mapInArrow that only iterates its Arrow batches and returns one row per task: that entry point's floor."""
    import pyarrow as pa

    def count(batches):
        rows = sum(batch.num_rows for batch in batches)
        yield pa.RecordBatch.from_arrays([pa.array([rows], pa.int64())], names=["rows"])

    df.mapInArrow(count, "rows long").collect()


def _busy_jiffies() -> tuple[int, int]:
    """(busy, total) clock ticks of all CPUs so far, from /proc/stat (Linux): the JVM, its Python workers
    and anything else running. (0, 0) where there is no /proc/stat."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(x) for x in stat.readline().split()[1:]]
    except OSError:
        return 0, 0
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    return sum(ticks) - idle, sum(ticks)


def _tree_ticks() -> int:
    """CPU clock ticks (user + system, and of reaped children) of this process and all its descendants: the
    driver, Spark's JVM, the Python daemon and its workers. Unlike /proc/stat's machine-wide figure, other
    users of a shared machine do not count. 0 where there is no /proc."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[pid] = int(fields[1])
        ticks[pid] = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    tree, frontier = {os.getpid()}, [os.getpid()]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in tree:
                tree.add(pid)
                frontier.append(pid)
    return sum(ticks.get(pid, 0) for pid in tree)


CPU_SECONDS: dict[str, list[float]] = {}
TREE_CPU_SECONDS: dict[str, list[float]] = {}


def timed(action, label: str | None = None) -> float:
    busy_before, _ = _busy_jiffies()
    tree_before = _tree_ticks()
    started = time.perf_counter()
    action()
    seconds = time.perf_counter() - started
    if label:
        tick = os.sysconf("SC_CLK_TCK")
        CPU_SECONDS.setdefault(label, []).append((_busy_jiffies()[0] - busy_before) / tick)
        TREE_CPU_SECONDS.setdefault(label, []).append((_tree_ticks() - tree_before) / tick)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--max-rows", type=int, default=1_000_000)
    parser.add_argument("--no-doc", action="store_true", help="print only, do not rewrite the doc")
    args = parser.parse_args()

    example = load_example()
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("bench-spark-write")
             .config("spark.ui.enabled", "false").config("spark.driver.memory", "3g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    import pinot_sink
    from pinot_sink.spark_write import data_source_missing

    has_data_source = data_source_missing() is None
    if has_data_source:
        pinot_sink.register(spark)
    df = example.generate(spark, args.rows, args.partitions).cache()
    df.count()
    work = Path(tempfile.mkdtemp(prefix="bench-spark-write-"))

    def pinot_write():
        shutil.rmtree(work / "pinot", ignore_errors=True)
        (df.write.format("pinot").option("table-name", example.TABLE).option("schema", json.dumps(example.SCHEMA))
           .option("table-config", json.dumps(example.TABLE_CONFIG)).option("output-uri", str(work / "pinot"))
           .option("sink.buffer-flush.max-rows", args.max_rows).option("sink.buffer-flush.max-size", "1gb")
           .mode("append").save())

    def pinot_map_in_arrow_write():
        shutil.rmtree(work / "pinot", ignore_errors=True)
        pinot_sink.write(df, example.TABLE, mode="append", entry_point="map-in-arrow", **{
            "schema": json.dumps(example.SCHEMA), "table-config": json.dumps(example.TABLE_CONFIG),
            "output-uri": str(work / "pinot"), "sink.buffer-flush.max-rows": args.max_rows,
            "sink.buffer-flush.max-size": "1gb"})

    def parquet_write():
        shutil.rmtree(work / "parquet", ignore_errors=True)
        df.write.mode("overwrite").parquet(str(work / "parquet"))

    def noop_write():
        df.write.format("bench_arrow_noop").mode("append").save()

    if has_data_source:
        register_arrow_noop(spark)
    else:  # pyspark 3.x: the mapInArrow entry point stands in for both
        pinot_write, noop_write = pinot_map_in_arrow_write, lambda: map_in_arrow_noop(df)

    pinot_times, parquet_times, noop_times, mia_times, mia_noop_times = [], [], [], [], []
    # Warm-up, reported apart: the first pinot write starts the Python workers and imports pyarrow/numpy/
    # pinot_sink in each (a once-per-executor cost); the first parquet write warms the JVM code paths.
    cold_pinot = timed(pinot_write)
    cold_parquet = timed(parquet_write)
    for _ in range(args.repeat):
        parquet_times.append(timed(parquet_write, "parquet"))
        pinot_times.append(timed(pinot_write, "pinot"))
        noop_times.append(timed(noop_write, "noop"))
        mia_times.append(timed(pinot_map_in_arrow_write, "mapInArrow"))
        mia_noop_times.append(timed(lambda: map_in_arrow_noop(df), "mapInArrow no-op"))
    pinot_mb = sum(p.stat().st_size for p in (work / "pinot").rglob("*.tar.gz")) / 1024**2
    parquet_mb = sum(p.stat().st_size for p in (work / "parquet").rglob("*.parquet")) / 1024**2
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)

    best_pinot, best_parquet = min(pinot_times), min(parquet_times)
    ratio = best_pinot / best_parquet
    import pyspark

    best_mia, best_mia_noop = min(mia_times), min(mia_noop_times)
    entry = "df.write.format('pinot')" if has_data_source else "pinot_sink.write (mapInArrow)"
    lines = [
        f"pyspark {pyspark.__version__}, rows {args.rows:,}, partitions {args.partitions}, local[2], "
        f"segment max-rows {args.max_rows:,}",
        f"{entry}: best {best_pinot:.2f}s of {['%.2f' % t for t in pinot_times]}, "
        f"{args.rows / best_pinot:,.0f} rows/s, {pinot_mb:.1f} MB of tarballs",
        f"df.write.parquet:         best {best_parquet:.2f}s of {['%.2f' % t for t in parquet_times]}, "
        f"{args.rows / best_parquet:,.0f} rows/s, {parquet_mb:.1f} MB of parquet",
        f"Python Arrow no-op writer (transfer floor): best {min(noop_times):.2f}s of "
        f"{['%.2f' % t for t in noop_times]}",
        f"ratio pinot / parquet: {ratio:.2f}x (target: at most 1.3x); pinot / no-op floor: "
        f"{best_pinot / min(noop_times):.2f}x",
        f"pinot_sink.write via mapInArrow: best {best_mia:.2f}s of {['%.2f' % t for t in mia_times]}, "
        f"{best_mia / best_parquet:.2f}x parquet, {best_mia / best_pinot:.2f}x the data source; its no-op floor "
        f"(mapInArrow only iterating) best {best_mia_noop:.2f}s of {['%.2f' % t for t in mia_noop_times]}, "
        f"mapInArrow / its floor {best_mia / best_mia_noop:.2f}x",
        f"per round (parquet, pinot, no-op back to back), median ratios: pinot / parquet "
        f"{statistics.median(p / q for p, q in zip(pinot_times, parquet_times)):.2f}x, no-op / parquet "
        f"{statistics.median(n / q for n, q in zip(noop_times, parquet_times)):.2f}x",
        f"first (cold) runs, not in the ratio: pinot {cold_pinot:.2f}s (Python worker start and imports), "
        f"parquet {cold_parquet:.2f}s",
    ]
    if CPU_SECONDS.get("pinot"):
        cpus = os.cpu_count() or 1

        def cpu_of(label: str, times: list[float]) -> str:
            spent = CPU_SECONDS[label][times.index(min(times))]
            return f"{spent:.2f} CPU-s ({100 * spent / (min(times) * cpus):.0f}% of {cpus} cores busy)"

        lines.append(f"machine CPU time of the best runs: pinot {cpu_of('pinot', pinot_times)}, parquet "
                     f"{cpu_of('parquet', parquet_times)}, no-op {cpu_of('noop', noop_times)}, mapInArrow "
                     f"{cpu_of('mapInArrow', mia_times)}")
    if TREE_CPU_SECONDS.get("pinot"):
        best_cpu = {label: min(values) for label, values in TREE_CPU_SECONDS.items()}
        lines.append(
            f"CPU-s of this session's processes (driver, JVM, Python workers; best of each, load average "
            f"{os.getloadavg()[0]:.1f}): pinot {best_cpu['pinot']:.2f}, parquet {best_cpu['parquet']:.2f}, no-op "
            f"{best_cpu['noop']:.2f}, mapInArrow {best_cpu['mapInArrow']:.2f}, mapInArrow no-op "
            f"{best_cpu['mapInArrow no-op']:.2f}; our own work (pinot - no-op) "
            f"{best_cpu['pinot'] - best_cpu['noop']:.2f} CPU-s, {(best_cpu['pinot'] - best_cpu['noop']) / args.rows * 1e9:.0f} "
            f"ns/row; pinot / parquet CPU {best_cpu['pinot'] / best_cpu['parquet']:.2f}x")
    print("\n".join(lines))
    if not args.no_doc:
        write_doc(args, lines, ratio)
    return 0


def write_doc(args, lines: list[str], ratio: float) -> None:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    machine = (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
               f"load average at the end {load} (other jobs share the machine: figures are noisy)")
    text = f"""# Spark write performance

`df.write.format("pinot")` and `pinot_sink.write` through `mapInArrow` (the Spark 3 entry point) into a
local directory against `df.write.parquet` of the same cached DataFrame and each entry point's no-op floor,
in the same Spark session (best of {args.repeat} warm runs each, after one cold run each; 11 columns of generated orders:
LONG, STRING, INT, BOOLEAN, multi-value STRING, nullable STRING, DOUBLE, TIMESTAMP; sorted column, two
inverted indexes, two raw columns). Measured on {machine}, {time.strftime('%Y-%m-%d', time.gmtime())}:

```
{chr(10).join(lines)}
```

Reproduce: `python bench/spark_write.py --rows {args.rows} --partitions {args.partitions} --repeat {args.repeat}`.

Ratio: **{ratio:.2f}x** (target at most 1.3x).

Where the time goes. The "no-op floor" is a Python Arrow data source that only iterates its batches: the
cost of moving rows from the JVM to Python workers, which any Python writer pays; on this machine it alone
is 1.15-1.4x `df.write.parquet`, so the 1.3x target is out of reach for a Python data source here. Above
the floor, the work is CPU-bound with both cores busy (one task per core): per {args.rows // args.partitions:,}-row
partition, profiled outside Spark on one thread, conversion to stored types takes ~0.06 s and the segment
build ~0.3 s (dictionaries, the sortedColumn's row order, bit packing, the inverted indexes, the raw
forward indexes, tar.gz). The cold first write pays for starting the Python workers and importing
pyarrow/numpy/pinot_sink in each, once per executor.
"""
    previous = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    if HAND_KEPT in previous:  # the notes below the marker are kept by hand across runs
        text += "\n" + previous[previous.index(HAND_KEPT):]
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {DOC}")


if __name__ == "__main__":
    sys.exit(main())
