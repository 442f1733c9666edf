"""A Spark standalone cluster on loopback for tests: one master and N workers, each its own JVM process
(started with pyspark's bundled ``spark-class``, as ``sbin/start-master.sh`` / ``start-worker.sh`` would),
on free ports, with bounded waits, stopped (with the executors they launched) by ``stop()``."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

START_TIMEOUT_S = 90
# Short-lived test JVMs: the C1 compiler and the serial collector start faster and use less memory.
QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


@dataclass
class StandaloneCluster:
    workers: int = 2
    worker_cores: int = 1
    worker_memory: str = "1g"
    work_dir: Path = Path("spark-work")
    processes: list[subprocess.Popen] = field(default_factory=list)
    master_url: str = ""

    def _env(self) -> dict[str, str]:
        return dict(os.environ, SPARK_HOME=str(spark_home()), SPARK_LOCAL_IP="127.0.0.1",
                    SPARK_DAEMON_MEMORY="256m", SPARK_DAEMON_JAVA_OPTS=QUICK_JVM, SPARK_WORKER_DIR=str(self.work_dir / "work"),
                    SPARK_LOG_DIR=str(self.work_dir / "logs"), SPARK_NO_DAEMONIZE="1")

    def _spawn(self, name: str, *args: str) -> subprocess.Popen:
        log = open(self.work_dir / f"{name}.log", "wb")
        try:
            # Own process group: stop() ends the daemon and the executor JVMs a worker forked, and nothing else.
            process = subprocess.Popen([str(spark_home() / "bin" / "spark-class"), *args], env=self._env(),
                                       stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        finally:
            log.close()
        self.processes.append(process)
        return process

    def log_tail(self, chars: int = 3000) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-chars:]}"
                         for p in sorted(self.work_dir.glob("*.log")))

    def _wait_for(self, what: str, ready, deadline: float) -> None:
        while time.monotonic() < deadline:
            if ready():
                return
            if any(p.poll() is not None for p in self.processes):
                raise RuntimeError(f"a cluster process exited while waiting for {what}:\n{self.log_tail()}")
            time.sleep(0.3)
        raise TimeoutError(f"timed out after {START_TIMEOUT_S}s waiting for {what}:\n{self.log_tail()}")

    def start(self) -> "StandaloneCluster":
        self.work_dir.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        port = free_port()
        self.master_url = f"spark://127.0.0.1:{port}"
        self._spawn("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                    "--webui-port", str(free_port()))
        self._wait_for("the master", lambda: _listening(port), deadline)
        for index in range(self.workers):
            self._spawn(f"worker-{index}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                        "--port", str(free_port()), "--webui-port", str(free_port()), "--cores",
                        str(self.worker_cores), "--memory", self.worker_memory,
                        "--work-dir", str(self.work_dir / f"work-{index}"), self.master_url)
        self._wait_for(f"{self.workers} workers to register", lambda: self._registered() >= self.workers, deadline)
        return self

    def _registered(self) -> int:
        log = self.work_dir / "master.log"
        return log.read_text(errors="replace").count("Registering worker") if log.exists() else 0

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
            try:  # executors the worker forked share its group; make sure none outlives the test
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.processes.clear()


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False
