"""A real cluster: a standalone master and two workers as separate processes on loopback, the driver in a
third, executors forked by the workers; a job writes through the loopback test controller and every row
is counted exactly once, with a task attempt failing once (its retry may land on the other executor)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyspark
import pytest

from tests.cluster.driver_job import ROWS
from tests.cluster.standalone import StandaloneCluster
from tests.datasource.helpers import controller_values

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ENTRY_POINTS = ["data-source", "map-in-arrow"] if int(pyspark.__version__.split(".")[0]) >= 4 else ["map-in-arrow"]


@pytest.fixture
def cluster(tmp_path):
    cluster = StandaloneCluster(workers=2, worker_cores=1, worker_memory="1g", work_dir=tmp_path / "spark")
    try:
        yield cluster.start()
    finally:
        cluster.stop()


def test_two_workers_write_every_row_once(cluster, fake_controller, tmp_path):
    # docs/deploy.md: the package installed in the Python every node runs (PYSPARK_PYTHON).
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable,
               SPARK_LOCAL_IP="127.0.0.1")
    command = [sys.executable, str(Path(__file__).with_name("driver_job.py")), cluster.master_url,
               fake_controller.url, str(tmp_path / "staging"), *ENTRY_POINTS]
    driver = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240,
                            cwd=Path(__file__).resolve().parents[2])
    assert driver.returncode == 0, f"{driver.stdout}\n{driver.stderr[-5000:]}\n{cluster.log_tail()}"
    assert "EXECUTORS 2" in driver.stdout  # tasks ran in both workers' executors
    assert controller_values(fake_controller, tmp_path / "read") == list(range(ROWS * len(ENTRY_POINTS)))
