"""The README's headline call, run as the README runs it: ``.venv/bin/python job.py`` with the virtualenv not
activated (no ``VIRTUAL_ENV``, the venv's bin not on PATH, a ``python3`` on PATH without pyspark),
``PYSPARK_PYTHON`` and ``PYSPARK_DRIVER_PYTHON`` unset, and ``df.write.format("pinot")`` with no import of
pinot_sink, then again with ``import pinot_sink`` before the session starts.

Spark 4 looks ``format("pinot")`` up in a Python worker started from the JVM's environment (PYSPARK_PYTHON,
else PYSPARK_DRIVER_PYTHON, else ``python3`` from PATH): the installed ``pinot_sink_spark_python.pth``
(setup.py) points it at the interpreter that runs the job. Each case is a Spark driver of its own: slow."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]

# The README's snippet as it stands, around a session and a DataFrame the events table takes.
JOB = textwrap.dedent('''
    import sys
    {import_line}
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    df = spark.range(100).select(F.lit("US").alias("country"), F.col("id").alias("value"),
                                 F.timestamp_seconds(F.lit(1_700_000_000) + F.col("id")).alias("ts"))
    (df.write.format("pinot")
       .option("table-name", "events")
       .option("url", sys.argv[1])
       .mode("append")          # or "overwrite": atomic replacement of the table's segments
       .save())
    print("IMPORTED", "pinot_sink" in sys.modules, "WRITTEN")
''')


@pytest.fixture(scope="module")
def bare_path(tmp_path_factory) -> str:
    """A PATH whose ``python3`` has no pyspark (a fresh virtualenv with nothing installed), without this
    virtualenv's bin folder."""
    folder = tmp_path_factory.mktemp("bare")
    venv.create(folder / "env", with_pip=False)
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(folder / "env" / "bin" / "python3")
    mine = os.path.dirname(os.path.abspath(sys.executable))
    rest = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and os.path.abspath(p) != mine]
    return os.pathsep.join([str(bin_dir), *rest])


def _run(tmp_path, bare_path: str, url: str, import_line: str) -> subprocess.CompletedProcess:
    script = tmp_path / "job.py"
    script.write_text(JOB.format(import_line=import_line))
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = bare_path
    # .venv/bin/python job.py, from the job's own folder (not the checkout: nothing found by the cwd)
    return subprocess.run([sys.executable, str(script), url], capture_output=True, text=True, env=env,
                          timeout=600, cwd=tmp_path)


@pytest.mark.parametrize("import_line", ["", "import pinot_sink"], ids=["no-import", "import-before-session"])
def test_readme_snippet_runs_as_the_readme_runs_it(tmp_path, bare_path, fake_controller, import_line):
    assert subprocess.run(["python3", "-c", "import pyspark"], env={"PATH": bare_path},
                          capture_output=True).returncode != 0  # the trap is set: python3 on PATH lacks pyspark
    done = _run(tmp_path, bare_path, fake_controller.url, import_line)
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    assert f"IMPORTED {bool(import_line)} WRITTEN" in done.stdout
    live = fake_controller.live_segments("events")
    docs = fake_controller.segments("events")
    assert live and sum(int(docs[name].metadata["segment.total.docs"]) for name in live) == 100
