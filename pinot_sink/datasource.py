"""The Spark 4 Python Data Source: ``df.write.format("pinot")`` and ``df.writeStream.format("pinot")``.

Only Spark's classes live here; the work is Spark-free: ``pinot_sink.job.prepare_job`` on the driver,
``pinot_sink.task.write_partition`` in each task, ``pinot_sink.commit.commit_job`` / ``abort_job`` on the
driver. Spark pickles the writer on the driver and runs ``commit``/``abort`` against the pickled copy, so
all state lives in the ``WriteJob`` (made before any task) and in the task reports.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from pyspark.sql.datasource import DataSource, WriterCommitMessage

try:  # the Arrow writer; without it every row would go through a per-row Python loop
    from pyspark.sql.datasource import DataSourceArrowWriter
except ImportError as _missing:  # pyspark < 4.0: fail when used, with the reason
    _ARROW_WRITER_MISSING: str | None = (
        f"format('pinot') needs pyspark 4.0+ (DataSourceArrowWriter: {_missing}); on Spark 3.3-3.5 use "
        f"pinot_sink.write(df, table, ...)"
    )
    from pyspark.sql.datasource import DataSourceWriter as DataSourceArrowWriter  # noqa: F401
else:
    _ARROW_WRITER_MISSING = None

try:  # the streaming Arrow writer exists from pyspark 4.1; batch writes work without it
    from pyspark.sql.datasource import DataSourceStreamArrowWriter
except ImportError as _missing_stream:
    _STREAM_WRITER_MISSING: str | None = (
        f"writeStream.format('pinot') needs pyspark 4.1+ (DataSourceStreamArrowWriter: {_missing_stream}); "
        f"batch writes work on this version"
    )
    from pyspark.sql.datasource import DataSourceStreamWriter as DataSourceStreamArrowWriter  # noqa: F401
else:
    _STREAM_WRITER_MISSING = None

from type_mapping.errors import PinotSinkError

from .commit import abort_job, commit_job, summary_table
from .job import WriteJob, check_staging_reachable, prepare_job
from .reports import TaskReport, WriteResult, read_result
from .spark_task import task_kwargs
from .task import PinotWriteError, write_partition

# Mistakes a user fixes from the message alone: Spark shows them without the Python traceback around them.
USER_ERRORS = (PinotSinkError,)  # the root of every error this package raises on purpose
HIDE_TRACEBACK_ENV = "SPARK_HIDE_TRACEBACK"  # read by pyspark's worker when it reports an exception to the JVM


@contextmanager
def _message_first() -> Iterator[None]:
    """Spark reports a data source's error as ``[PYTHON_DATA_SOURCE_ERROR] ... Traceback ...`` with the
    message last; for a user's mistake the message is all that helps, so this Python worker (Spark's
    short-lived planner or committer process) reports it alone, in the error's first line."""
    try:
        yield
    except USER_ERRORS:
        os.environ[HIDE_TRACEBACK_ENV] = "1"
        raise


BATCH_ID_PROPERTY = "streaming.sql.batchId"  # set by Spark's MicroBatchExecution on every task
QUERY_ID_PROPERTY = "sql.streaming.queryId"  # stable across restarts from the same checkpoint


@dataclass
class PinotCommitMessage(WriterCommitMessage):
    """Spark's commit message type, carrying the task's report."""

    report: TaskReport


def _reports(messages) -> list[TaskReport | None]:
    return [m.report if m is not None else None for m in messages]


class PinotBatchWriter(DataSourceArrowWriter):
    def __init__(self, job: WriteJob) -> None:
        self.job = job

    def write(self, iterator: Iterator) -> WriterCommitMessage:
        return PinotCommitMessage(write_partition(self.job, iterator, **task_kwargs()))

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        with _message_first():
            commit_job(self.job, _reports(messages))

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        abort_job(self.job, _reports(messages))


class PinotStreamWriter(DataSourceStreamArrowWriter):
    def __init__(self, job: WriteJob) -> None:
        self.job = job

    def write(self, iterator: Iterator) -> WriterCommitMessage:
        from pyspark import TaskContext

        context = TaskContext.get()
        raw_batch_id = context.getLocalProperty(BATCH_ID_PROPERTY)
        if raw_batch_id is None:
            raise PinotWriteError("the pinot sink needs micro-batch execution (Spark gave this task no batch id); "
                                  "the continuous trigger is not supported")
        return PinotCommitMessage(write_partition(
            self.job, iterator, query_id=context.getLocalProperty(QUERY_ID_PROPERTY), batch_id=int(raw_batch_id),
            **task_kwargs()))

    @staticmethod
    def _query_id(reports: list[TaskReport | None]) -> str | None:
        query_ids = {r.query_id for r in reports if r is not None}
        return query_ids.pop() if len(query_ids) == 1 else None

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        reports = _reports(messages)
        if all(r is None for r in reports):
            return  # no task reported: nothing was written
        commit_job(self.job, reports, query_id=self._query_id(reports), batch_id=batchId)
        if self.job.options.compaction.enabled:  # compaction.*: on the driver, after the batch is committed
            from .compaction.stream import after_batch

            after_batch(self.job, self._query_id(reports), batchId)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        reports = _reports(messages)
        abort_job(self.job, reports, query_id=self._query_id(reports), batch_id=batchId)


class PinotDataSource(DataSource):
    """``df.write.format("pinot")``. Options: docs/options.md."""

    @classmethod
    def name(cls) -> str:
        return "pinot"

    def writer(self, schema, overwrite: bool) -> PinotBatchWriter:
        if _ARROW_WRITER_MISSING:
            raise RuntimeError(_ARROW_WRITER_MISSING)
        with _message_first():
            return PinotBatchWriter(prepare_job(self.options, schema, overwrite=overwrite))

    def streamWriter(self, schema, overwrite: bool) -> PinotStreamWriter:
        if _STREAM_WRITER_MISSING or _ARROW_WRITER_MISSING:
            raise RuntimeError(_STREAM_WRITER_MISSING or _ARROW_WRITER_MISSING)
        with _message_first():
            return PinotStreamWriter(prepare_job(self.options, schema, overwrite=overwrite, streaming=True))


class PinotSinkDataSource(PinotDataSource):
    """The same source under ``pinot_sink``, a name no JVM connector claims."""

    @classmethod
    def name(cls) -> str:
        return "pinot_sink"


def write(df, table_name: str, *, mode: str = "append", **options) -> WriteResult:
    """``df.write.format("pinot_sink")`` with ``sink.parallelism`` applied (a data source cannot repartition
    its input, so this helper does it first); returns what the write committed. Dotted names go in as a
    dict: ``write(df, "events", **{"sink.parallelism": 8, "url": "http://controller:9000"})``."""
    import logging
    import os
    import tempfile

    options = dict(options)
    check_staging_reachable(df.sparkSession.sparkContext.master, options)
    parallelism = options.pop("sink.parallelism", None)
    if parallelism is not None:
        df = df.repartition(int(parallelism))
    # Spark runs the commit in a process of its own: the result comes back through the job manifest.
    with tempfile.TemporaryDirectory(prefix="pinot-sink-result-") as folder:
        manifest = os.path.join(folder, "manifest.json")
        writer = df.write.format("pinot_sink").option("table-name", table_name).mode(mode)
        for key, value in {**options, "manifest.path": options.get("manifest.path", manifest)}.items():
            writer = writer.option(key, str(value))
        writer.save()
        if options.get("manifest.path"):
            import fsspec

            with fsspec.open(options["manifest.path"], "r") as handle:
                text = handle.read()
        else:
            with open(manifest, encoding="utf-8") as handle:
                text = handle.read()
    result = read_result(text)
    logging.getLogger("pinot_sink").info("%s", summary_table(result))
    return result
