"""The PYSPARK_PYTHON trap: a script run with the virtualenv's python (not activated), with a python3 on PATH
that lacks the package. Real subprocesses, each its own local Spark."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Two Spark drivers of their own: `make test` runs them on the Spark 3 lines (test-spark33/35 run all of
# tests/spark3), `make test-slow` on Spark 4.
pytestmark = [pytest.mark.spark, pytest.mark.slow]

JOB = textwrap.dedent('''
    import json, sys, tempfile
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    import pinot_sink
    from pinot_sink.spark_python import WorkerPythonError, check_executors
    schema = {"schemaName": "events", "dimensionFieldSpecs": [{"name": "id", "dataType": "LONG"}]}
    try:
        result = pinot_sink.write(spark.range(10), "events", schema=json.dumps(schema),
                                  **{"output-uri": tempfile.mkdtemp()})
    except Exception as exc:
        print("ERROR", type(exc).__name__, str(exc))
        sys.exit(3)
    print("ROWS", result.rows)
    # The executor probe, pointed at the python3 that lacks the package (as a cluster's executors would be)
    spark.sparkContext.pythonExec = sys.argv[1]
    try:
        check_executors(spark, tasks=1)
    except WorkerPythonError as exc:
        print("PROBE", str(exc))
''')


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> Path:
    """A python3 on PATH without pyarrow (a fresh virtualenv with nothing installed)."""
    folder = tmp_path_factory.mktemp("bare")
    venv.create(folder / "env", with_pip=False)
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(folder / "env" / "bin" / "python3")
    return bin_dir / "python3"


def _run(tmp_path, bare_python, **env_extra) -> subprocess.CompletedProcess:
    script = tmp_path / "job.py"
    script.write_text(JOB)
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "VIRTUAL_ENV")}
    env["PATH"] = f"{bare_python.parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(REPO)
    env.update(env_extra)
    return subprocess.run([sys.executable, str(script), str(bare_python)], capture_output=True, text=True,
                          env=env, timeout=600, cwd=tmp_path)


def test_local_write_uses_the_running_interpreter_when_nothing_is_configured(tmp_path, bare_python):
    done = _run(tmp_path, bare_python)
    assert "ROWS 10" in done.stdout, done.stdout + done.stderr[-3000:]
    [probe] = [line for line in done.stdout.splitlines() if line.startswith("PROBE")]
    assert f"its Python ({bare_python}) cannot import pinot_sink (ModuleNotFoundError: No module named " in probe
    assert "executor host " in probe and "docs/deploy.md" in probe


def test_a_configured_python_without_the_package_is_one_line_naming_pyspark_python(tmp_path, bare_python):
    done = _run(tmp_path, bare_python, PYSPARK_PYTHON=str(bare_python))
    assert done.returncode == 3, done.stdout + done.stderr[-3000:]
    [line] = [line for line in done.stdout.splitlines() if line.startswith("ERROR")]
    assert line.startswith(f"ERROR WorkerPythonError Spark's Python workers run {bare_python} (PYSPARK_PYTHON")
    assert f"set PYSPARK_PYTHON={sys.executable} before the SparkSession starts" in line
