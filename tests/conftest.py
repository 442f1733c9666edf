"""Shared fixtures. Spark tests use one local[2] session for the whole run (starting a JVM is slow)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _shared_dir() -> Path:
    """The project's shared/ folder (fixtures): $PINOT_SINK_SHARED, else beside the repo (as in CI), else
    beside the repository a local clone was made from (a scratch clone in a temp folder)."""
    if os.environ.get("PINOT_SINK_SHARED"):
        return Path(os.environ["PINOT_SINK_SHARED"])
    beside = REPO.parent / "shared"
    if beside.is_dir():
        return beside
    try:
        origin = subprocess.run(["git", "-C", str(REPO), "config", "remote.origin.url"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        origin = ""
    if origin and Path(origin).is_dir():
        return Path(origin).resolve().parent / "shared"
    return beside


SHARED = _shared_dir()
PINOT_BUILT = SHARED / "fixtures" / "pinot-built"
PINOT_SEGMENTS = SHARED / "fixtures" / "pinot-segments"

# Each test process gets its own temp folder, which the Spark JVM, its Python workers and the drivers tests
# start inherit (TMPDIR). A write without output-uri stages in a private root there, and `pinot-sink recover`
# (rightly) lists a table's roots whose driver has ended: a driver another xdist worker killed, or one an
# earlier run left in /tmp, must not show up in this process's recover.
TEST_TMP = tempfile.mkdtemp(prefix="pinot-sink-tests-")
os.environ["TMPDIR"] = TEST_TMP
tempfile.tempdir = None


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(TEST_TMP, ignore_errors=True)


# Spark 4 starts Python workers with PYSPARK_PYTHON; they must be this interpreter (pyarrow, this package).
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


@pytest.fixture(scope="session")
def spark():
    from pinot_sink.java_check import problem

    message = problem()
    if message:
        pytest.fail(message)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2,3]")  # 3 attempts per task: retry tests
        .appName("pinot-sink-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.python.worker.reuse", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("WARN")
    yield session
    session.stop()


@pytest.fixture
def arrows_own_pool():
    """Arrow's own allocator (mimalloc or jemalloc) as the process's pool for one test, as a reading process has
    it (an earlier write in this process may have settled it on the system's: allocator.settle)."""
    import pyarrow as pa

    before = pa.default_memory_pool()
    for factory in (pa.mimalloc_memory_pool, pa.jemalloc_memory_pool):
        try:
            pool = factory()
            break
        except NotImplementedError:
            pass
    else:
        pytest.skip("this pyarrow has neither mimalloc nor jemalloc")
    pa.set_memory_pool(pool)
    yield pool
    pa.set_memory_pool(before)


@pytest.fixture(scope="session")
def java_oracle(tmp_path_factory):
    """One JVM answering the whole session's Java comparisons (tests/java_oracle.py); skipped with the reason
    when there is no JDK 17 (the JVM Pinot runs) with javac."""
    from java_oracle import JavaOracle
    from pinot_sink.java_check import jdk_home

    jdk = jdk_home(17)
    if jdk is None:
        pytest.skip("no JDK 17 with javac found (JAVA_HOME or /usr/lib/jvm): Java's answers cannot be computed")
    oracle = JavaOracle(jdk, tmp_path_factory.mktemp("java-oracle"))
    yield oracle
    oracle.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A report's text with a lone surrogate in it (the function replays' edge literals) cannot travel to
    pytest-xdist's controller (execnet sends UTF-8): such text is escaped, nothing else changes."""
    outcome = yield
    report = outcome.get_result()
    text = str(report.longrepr) if report.longrepr is not None else ""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        report.longrepr = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if hasattr(report, "wasxfail"):
        report.wasxfail = report.wasxfail.encode("utf-8", "backslashreplace").decode("utf-8")


def pytest_collection_modifyitems(config, items):
    """The tiers of `make check` / `make test` by what a test starts: ``spark`` for the shared session,
    ``jvm`` for the Java comparisons (``make check`` runs neither)."""
    for item in items:
        names = getattr(item, "fixturenames", ())
        if "spark" in names:
            item.add_marker(pytest.mark.spark)
        if "java_oracle" in names:
            item.add_marker(pytest.mark.jvm)


@pytest.fixture(scope="session")
def pinot_built() -> Path:
    if not PINOT_BUILT.is_dir():
        pytest.fail(f"fixtures not found at {PINOT_BUILT} (shared/ must sit beside the repo)")
    return PINOT_BUILT


@pytest.fixture(scope="session")
def pinot_segments() -> Path:
    if not PINOT_SEGMENTS.is_dir():
        pytest.fail(f"fixtures not found at {PINOT_SEGMENTS} (shared/ must sit beside the repo)")
    return PINOT_SEGMENTS

from fake_controller import fake_controller  # noqa: E402,F401  (the test Pinot controller fixture, issue #4)
