"""Which Python Spark's workers run, and whether it can import this package.

Spark starts its Python workers with ``spark.pyspark.python`` / ``$PYSPARK_PYTHON``, else the ``python3`` on
PATH: a script run with a virtualenv's python, not activated, gets workers without pyarrow or pinot_sink,
and the error arrives 17 lines into a traceback (``DATA_SOURCE_NOT_FOUND``, ``No module named
'pinot_sink'``). Here, before a write:

* local mode, nothing configured: the workers are made to run this interpreter (the driver's), which is
  what the user meant; a configured interpreter that cannot import the package is one line naming
  ``PYSPARK_PYTHON``;
* a cluster: one small probe job runs a task on the executors; a host whose Python cannot import the
  package is named in one line with its interpreter. The probe is shipped by value (it references nothing
  of this package), so it runs where the package is missing.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

from type_mapping.errors import PinotSinkError

PYTHON_CONF = "spark.pyspark.python"
DRIVER_PYTHON_CONF = "spark.pyspark.driver.python"
PYTHON_ENV = "PYSPARK_PYTHON"
REQUIRED = ("pyarrow", "pinot_sink")

# Defined by exec in a namespace named __main__, so cloudpickle ships the function itself, not a reference
# to this module (which the executor may lack: that is what it looks for).
_PROBE_SOURCE = '''
def probe(_rows):
    import importlib, socket, sys
    problem = None
    for name in REQUIRED:
        try:
            importlib.import_module(name)
        except Exception as exc:
            problem = "%s: %s" % (type(exc).__name__, exc)
            break
    yield (socket.gethostname(), sys.executable, problem)
'''


class WorkerPythonError(PinotSinkError, RuntimeError):
    """Spark's Python workers cannot import this package; the message names the host and the fix."""


def _probe_function():
    namespace = {"__name__": "__main__", "REQUIRED": REQUIRED}
    exec(_PROBE_SOURCE, namespace)  # noqa: S102 - fixed source above
    return namespace["probe"]


def _imports_package(python: str) -> str | None:
    """None when ``python`` imports pyarrow and pinot_sink (with this process's PYTHONPATH, as Spark's
    local workers get it), else why not."""
    found = shutil.which(python) or python
    try:
        done = subprocess.run([found, "-c", f"import {', '.join(REQUIRED)}"], capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot run it ({exc})"
    if done.returncode == 0:
        return None
    lines = (done.stderr or done.stdout).strip().splitlines()
    return lines[-1] if lines else f"exit code {done.returncode}"


def _same_interpreter(python: str) -> bool:
    """The same interpreter *and environment*: a virtualenv's python is a link to the base interpreter,
    so the resolved binary alone would call the system python3 the same as the venv's."""
    found = shutil.which(python)
    if not found:
        return False
    mine = os.path.abspath(sys.executable)
    return os.path.abspath(found) == mine or (
        os.path.dirname(os.path.abspath(found)) == os.path.dirname(mine)
        and os.path.realpath(found) == os.path.realpath(mine))


def ensure_worker_python(spark) -> None:
    """Before a write: make or check Spark's Python workers (see the module doc). Raises
    ``WorkerPythonError`` in one line when they cannot import the package."""
    if not spark.sparkContext.master.startswith("local"):
        check_executors(spark)
        return
    use_driver_python(spark)


def use_driver_python(spark) -> None:
    """Local mode: with nothing configured, Spark's Python workers run this interpreter; a configured one
    that cannot import the package is one line naming ``PYSPARK_PYTHON``. Nothing on a cluster."""
    sc = spark.sparkContext
    if not sc.master.startswith("local"):
        return
    configured = sc.getConf().get(PYTHON_CONF) or os.environ.get(PYTHON_ENV)
    if configured:
        problem = None if _same_interpreter(configured) else _imports_package(configured)
        if problem:
            raise WorkerPythonError(
                f"Spark's Python workers run {configured} ({PYTHON_ENV} / {PYTHON_CONF}), which cannot import "
                f"pinot_sink ({problem}): set {PYTHON_ENV}={sys.executable} before the SparkSession starts")
        return
    if _same_interpreter(sc.pythonExec or "python3"):
        return
    # Nothing configured: Spark would start the python3 on PATH. This driver's interpreter is the one that
    # has the package; the live SparkConf is what Spark reads when it starts a worker (planner or task).
    try:
        live = sc._jsc.sc().conf()
        live.set(PYTHON_CONF, sys.executable)
        live.set(DRIVER_PYTHON_CONF, sys.executable)
        sc.pythonExec = sys.executable
    except Exception as exc:  # Spark Connect, or a JVM we cannot reach
        problem = _imports_package(sc.pythonExec or "python3")
        if problem:
            raise WorkerPythonError(
                f"Spark's Python workers would run {sc.pythonExec or 'python3'} from PATH, which cannot import "
                f"pinot_sink ({problem}), and this session cannot be pointed at {sys.executable} ({exc}): set "
                f"{PYTHON_ENV}={sys.executable} before the SparkSession starts") from None


def check_executors(spark, tasks: int | None = None) -> list[tuple[str, str, str]]:
    """Run the probe on the executors (one task per default-parallelism slot); raise in one line naming the
    first host whose Python cannot import the package. Returns the problems found (empty: none)."""
    sc = spark.sparkContext
    count = max(1, tasks or sc.defaultParallelism)
    seen = sc.parallelize(range(count), count).mapPartitions(_probe_function()).collect()
    problems = sorted({(host, python, problem) for host, python, problem in seen if problem})
    if problems:
        host, python, problem = problems[0]
        others = f" (and {len(problems) - 1} more host(s))" if len(problems) > 1 else ""
        raise WorkerPythonError(
            f"executor host {host}{others}: its Python ({python}) cannot import pinot_sink ({problem}); install "
            f"the package on every executor (docs/deploy.md) or point {PYTHON_ENV} at a Python that has it")
    return []
