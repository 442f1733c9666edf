"""The driver of the cluster test, in its own process (a test process already holds a local SparkContext):
``python driver_job.py MASTER_URL CONTROLLER_URL OUTPUT_URI ENTRY_POINT [ENTRY_POINT ...]``.

Each entry point appends 2,000 rows (ids disjoint per entry point) in 4 partitions over the two executors,
and attempt 0 of partition 1 fails once after staging some segments, so the retry may run on the other
executor. Executors find the package as docs/deploy.md tells users: the same Python with pinot_sink
installed on every node (here PYSPARK_PYTHON, the test's virtualenv); tasks stage under OUTPUT_URI, which
every process can reach (on one machine, a local folder; on a real cluster, s3:// or a shared mount)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROWS = 2000


def main(master: str, controller: str, output_uri: str, entry_points: list[str]) -> None:
    from pyspark.sql import SparkSession, functions as F

    import pinot_sink
    from tests.cluster.standalone import QUICK_JVM
    from tests.datasource.test_exactly_once import failing_once  # pickled by value: executors need no tests/

    spark = (SparkSession.builder.master(master).appName("pinot-sink-cluster-test")
             .config("spark.ui.enabled", "false").config("spark.driver.memory", "512m")
             .config("spark.executor.memory", "512m").config("spark.executor.cores", "1")
             .config("spark.cores.max", "2").config("spark.sql.shuffle.partitions", "4")
             .config("spark.task.maxFailures", "3").config("spark.driver.extraJavaOptions", QUICK_JVM)
             .config("spark.executor.extraJavaOptions", QUICK_JVM).getOrCreate())
    spark.sparkContext.setLogLevel("WARN")
    deadline = time.monotonic() + 60
    while spark.sparkContext._jsc.sc().getExecutorIds().size() < 2:  # both workers' executors, bounded
        if time.monotonic() > deadline:
            raise TimeoutError("the two executors did not register within 60 s")
        time.sleep(0.2)
    executors = spark.range(0, 8, numPartitions=8).rdd.mapPartitions(_executor_id).distinct().collect()
    print("EXECUTORS", len(set(executors)), flush=True)

    for index, entry_point in enumerate(entry_points):
        start = index * ROWS
        df = spark.range(start, start + ROWS, numPartitions=4).select(
            F.lit("US").alias("country"), F.col("id").alias("value"),
            F.timestamp_millis(F.lit(1_700_000_000_000) + F.col("id") * 1000).alias("ts"))
        df = df.mapInArrow(failing_once(partition=1, after_rows=400), df.schema)
        pinot_sink.write(df, "events", mode="append", entry_point=entry_point, **{
            "url": controller, "output-uri": output_uri, "sink.buffer-flush.max-rows": 200,
            "retry.initial-backoff": "10ms"})
        print("WROTE", entry_point, flush=True)
    spark.stop()


def _executor_id(rows):
    import os

    yield os.getppid()  # the pyspark daemon that forked this Python worker: one per executor


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: tests.cluster importable
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
