"""The running Spark task's ids and cores, as ``write_partition`` takes them (both Spark entry points)."""
from __future__ import annotations


def task_kwargs() -> dict:
    """Partition id, attempt number, the application-unique task attempt id (names the staging folder) and
    the task's cores (spark.task.cpus): more builder threads would only fight the executor's other tasks."""
    from pyspark import TaskContext

    context = TaskContext.get()
    return dict(partition_id=context.partitionId(), attempt=context.attemptNumber(),
                task_attempt_id=context.taskAttemptId(), threads=max(1, int(context.cpus())))
