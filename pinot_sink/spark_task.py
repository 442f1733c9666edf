"""The running Spark task's ids and cores, as ``write_partition`` takes them, and how its errors are reported
(both Spark entry points)."""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator

from type_mapping.errors import PinotSinkError

HIDE_TRACEBACK_ENV = "SPARK_HIDE_TRACEBACK"  # read by pyspark's worker when it reports an exception to the JVM


@contextmanager
def message_first() -> Iterator[None]:
    """Spark reports a Python worker's error as a traceback with the message last; for a user's mistake (our
    errors: ``PinotSinkError``, naming the column, row, value and option) the message is all that helps, so
    this worker (a task, or Spark's short-lived planner or committer process) reports it alone."""
    os.environ.pop(HIDE_TRACEBACK_ENV, None)  # a reused worker: an earlier task's user error must not hide a bug's
    try:
        yield
    except PinotSinkError:
        os.environ[HIDE_TRACEBACK_ENV] = "1"
        raise


def task_kwargs() -> dict:
    """Partition id, attempt number, the application-unique task attempt id (names the staging folder) and
    the task's cores (spark.task.cpus): more builder threads would only fight the executor's other tasks."""
    from pyspark import TaskContext

    context = TaskContext.get()
    return dict(partition_id=context.partitionId(), attempt=context.attemptNumber(),
                task_attempt_id=context.taskAttemptId(), threads=max(1, int(context.cpus())))
