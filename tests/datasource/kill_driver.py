"""A real Spark driver, in its own process, that kills itself (SIGKILL: no finally, no abort, no clean-up) at one
phase of its commit; run by test_driver_kill.py:

    python kill_driver.py PHASE OUTPUT_URI WRITE_ID [CONTROLLER_URL [PUSH_MODE]]

It writes ``ROWS`` rows (helpers.events_df) with ``pinot_sink.write(..., entry_point="map-in-arrow")``, whose
commit runs in this very process, so the kill lands exactly where the phase says."""
from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

ROWS = 2000


def die(*args, **kwargs):
    print("KILLED", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


def arm(phase: str) -> None:
    import pinot_sink.commit as commit
    import pinot_sink.spark_write as spark_write
    from pinot_sink.controller import ConsistentPush, ControllerClient
    from pinot_sink.storage.stores import DirectoryStore

    if phase == "staged":  # every task staged its segments; the commit never starts
        spark_write.commit_job = die
    elif phase == "started":  # the lineage entry is open, nothing uploaded
        ConsistentPush.upload = die
    elif phase == "uploaded":  # every segment uploaded (hidden), the end never sent
        ControllerClient.end_replace = die
    elif phase == "ended":  # the entry is COMPLETED; the manifest and the clean-up never happen
        commit._yield_to_a_concurrent_run = die
    elif phase == "publishing":  # embedded: one tarball moved into the table folder
        real = commit.publish_into_directory

        def one_then_die(root, table, staged, options=None):
            name = sorted(staged)[0]
            real(root, table, {name: staged[name]}, options)
            die()

        commit.publish_into_directory = one_then_die
    elif phase == "moved":  # embedded: every tarball moved, none of the replaced ones deleted
        DirectoryStore.delete = die
    elif phase == "deleted":  # embedded: the replaced ones deleted; the manifest never says committed
        commit.write_committed = die
    else:
        raise SystemExit(f"unknown phase {phase}")


def main(phase: str, output_uri: str, write_id: str, controller: str | None, push_mode: str = "tar") -> None:
    from pyspark.sql import SparkSession

    import pinot_sink
    from tests.cluster.standalone import QUICK_JVM
    from tests.datasource.helpers import SCHEMA, TABLE_CONFIG, events_df

    spark = (SparkSession.builder.master("local[2]").appName("pinot-sink-kill-test")
             .config("spark.ui.enabled", "false").config("spark.driver.memory", "512m")
             .config("spark.driver.extraJavaOptions", QUICK_JVM).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    options = {"output-uri": output_uri, "write.id": write_id, "sink.buffer-flush.max-rows": 400}
    if controller:
        options.update({"url": controller, "retry.initial-backoff": "10ms", "retry.max-backoff": "50ms",
                        "push-mode": push_mode})
    else:
        options.update({"schema": json.dumps(SCHEMA), "table-config": json.dumps(TABLE_CONFIG)})
    arm(phase)
    pinot_sink.write(events_df(spark, ROWS, partitions=2), "events", entry_point="map-in-arrow", **options)
    print("NOT KILLED", flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: tests importable
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None, *sys.argv[5:6])
