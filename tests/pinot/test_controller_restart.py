"""A controller killed in the middle of a write's uploads and started again, on a real cluster.

The write goes through a second controller of the cluster (``start.sh roles=controller`` on its own port,
beside run.sh's cluster: same ZooKeeper, server and broker), which the test kills with SIGKILL at the 10th
upload and starts again. With retries patient enough to outlast the restart, the write must commit, each row
once. Found here first: segments uploaded just before the kill could not be downloaded by the server (ERROR in
the external view), and the end then waited on Pinot's side for segments that would never load until the
client's deadline, so the write was reverted though every upload had succeeded (``server_load.py``). Whether a
segment goes ERROR here depends on when the server fetches it (it did in some runs, not all): the reset itself is
checked deterministically by tests/controller/test_server_load.py."""
from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from pinot_sink.commit import commit_job
from pinot_sink.controller.client import ControllerClient
from tests.datasource import test_commit as spark_free

from .test_faults import job, once

KILL_AT_UPLOAD = 10


class SecondController:
    """A controller-only JVM of the cluster, started and killed by the test."""

    def __init__(self, start_sh: Path, env: dict[str, str], run: Path, port: int) -> None:
        self.start_sh, self.env, self.run, self.url = start_sh, env, run, f"http://127.0.0.1:{port}"

    def start(self) -> None:
        done = subprocess.run([str(self.start_sh), "roles=controller"], env=self.env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, f"second controller did not start: {done.stdout[-500:]} {done.stderr[-500:]}"

    def kill(self) -> None:
        pid = int((self.run / "cluster.pid").read_text())
        os.kill(pid, signal.SIGKILL)
        while True:  # start.sh refuses while the old JVM is still there
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)

    def stop(self) -> None:
        subprocess.run([str(self.start_sh.parent / "stop.sh")], env=self.env, capture_output=True, timeout=120)


@pytest.fixture
def second_controller(pinot, tmp_path):
    if os.environ.get("PINOT_TEST_CONTROLLER"):
        pytest.skip("needs the cluster tests/pinot/run.sh starts (a second controller joins its ZooKeeper)")
    home = Path(os.environ.get("PINOT_CLUSTER_HOME", "../shared/pinot-cluster/dist")).resolve()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # start.sh waits for a controller, a server and a broker: the server's and broker's ports stay the cluster's
    env = {**os.environ, "PINOT_CLUSTER_HOME": str(home), "PINOT_CLUSTER_RUN": str(tmp_path / "controller2"),
           "PINOT_CONTROLLER_PORT": str(port), "PINOT_CLUSTER_HEAP": "512m"}
    env.pop("PINOT_CLUSTER_FRESH", None)
    controller = SecondController(home.parent / "start.sh", env, tmp_path / "controller2", port)
    controller.start()
    yield controller
    controller.stop()


def test_a_write_outlasts_a_controller_killed_mid_upload_and_started_again(pinot, second_controller, tmp_path,
                                                                            monkeypatch):
    table = "rp_restart_" + hashlib.sha1(str(tmp_path).encode()).hexdigest()[:8]
    pinot.create(dict(spark_free.SCHEMA, schemaName=table),
                 dict(spark_free.CONFIG, tableName=table, tenants={}, segmentsConfig={"replication": "1"}))
    patient = {"write.id": "day", "retry.max-attempts": 1000, "retry.max-backoff": "2s", "retry.max-elapsed": "300s",
               "push-parallelism": 2}
    first = job(table, second_controller.url, tmp_path / "out", **patient)
    commit_job(first, spark_free.run_tasks(first, [(0, 400)]))
    rerun = job(table, second_controller.url, tmp_path / "out", **patient)
    reports = spark_free.run_tasks(rerun, [(0, 5000), (5000, 10000)])  # 40 segments replace the first run's

    uploads, restarted = [], []
    real_post = ControllerClient.post_segment_file

    def post_then_kill(self, *args, **kwargs):
        answer = real_post(self, *args, **kwargs)
        uploads.append(1)
        if len(uploads) == KILL_AT_UPLOAD:
            second_controller.kill()
            restart = threading.Thread(target=second_controller.start, daemon=True)
            restart.start()
            restarted.append(restart)
        return answer

    monkeypatch.setattr(ControllerClient, "post_segment_file", post_then_kill)
    result = commit_job(rerun, reports)
    restarted[0].join(300)
    assert result.rows == 10_000
    assert pinot.lineage_states(table) == ["COMPLETED", "COMPLETED"]
    once(pinot, table, range(10_000))
