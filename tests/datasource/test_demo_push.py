"""`make demo`'s job (examples/local_backfill.py), small, then the push command it prints, run as printed
(issue 32 item 7): against a controller without the table (the quick start's), which --create-table creates
from the schema and table config the demo wrote. The printed URL is the quick start's port 9000; the test
controller listens elsewhere, so only that URL is swapped. A Spark driver of its own: slow."""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.spark, pytest.mark.slow]


def test_the_demos_printed_push_runs_as_printed(fake_controller, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    done = subprocess.run([sys.executable, str(REPO / "examples" / "local_backfill.py"), "--rows", "5000",
                           "--partitions", "2"], capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "verified: the segments hold exactly the DataFrame's rows" in done.stdout
    assert "replaced a statically registered data source" not in done.stderr  # no registration over Spark's own
    [line] = [line for line in done.stdout.splitlines() if line.startswith("upload them with: ")]
    command = shlex.split(line[len("upload them with: "):].replace("http://localhost:9000", fake_controller.url))
    assert "orders" not in fake_controller.tables
    pushed = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert fake_controller.tables["orders"].config["segmentsConfig"]["timeColumnName"] == "order_time"
    live = fake_controller.live_segments("orders")
    assert sum(int(fake_controller.segments("orders")[n].zk["segment.total.docs"]) for n in live) == 5000
