"""The Spark 4 Python Data Source: ``df.write.format("pinot")``, ``df.writeStream.format("pinot")`` and
``spark.read.format("pinot").load(path)`` (the reader: ``pinot_sink.reading`` plans and decodes, Spark-free).

Only Spark's classes live here; the work is Spark-free: ``pinot_sink.job.prepare_job`` on the driver,
``pinot_sink.task.write_partition`` in each task, ``pinot_sink.commit.commit_job`` / ``abort_job`` on the
driver. Spark pickles the writer on the driver and runs ``commit``/``abort`` against the pickled copy, so
all state lives in the ``WriteJob`` (made before any task) and in the task reports.
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Iterator

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition, WriterCommitMessage

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


from pinot_sink.storage.layout import local_path
from pinot_sink.storage.staging import remove_empty_root

from .commit import abort_job, commit_job
from .job import WriteJob, check_staging_reachable, ensure_log_handler, prepare_job
from .options import pop_option
from .reports import TaskReport, WriteResult, read_result
from .spark_task import message_first, task_kwargs
from .task import PinotWriteError, write_partition

# Mistakes a user fixes from the message alone: Spark shows them without the Python traceback around them
# (pinot_sink.spark_task.message_first, which the mapInArrow tasks use too).
_message_first = message_first


log = logging.getLogger("pinot_sink")

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
        with _message_first():  # a bad value is one line (column, row, value, option), not a traceback
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

    def _release_unused_root(self) -> None:
        """This writer's own private staging root, which no task used (they stage in their writer's)."""
        if self.job.stage_is_driver_local:
            remove_empty_root(local_path(self.job.stage_root), self.job.table)

    @staticmethod
    def _query_id(reports: list[TaskReport | None]) -> str | None:
        query_ids = {r.query_id for r in reports if r is not None}
        return query_ids.pop() if len(query_ids) == 1 else None

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        reports = _reports(messages)
        if all(r is None for r in reports):
            self._release_unused_root()
            return  # no task reported: nothing was written
        commit_job(self.job, reports, query_id=self._query_id(reports), batch_id=batchId)
        if self.job.options.compaction.enabled:  # compaction.*: on the driver, after the batch is committed
            from .compaction.stream import after_batch

            after_batch(self.job, self._query_id(reports), batchId)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        reports = _reports(messages)
        if all(r is None for r in reports):
            # Every task failed: no report names the query or the run its tasks staged for (PySpark's committing
            # writer is not theirs, see WriteJob.run_of), so nothing here can find their staging, and a record
            # of a run of an unknown query would only mislead. A failed attempt removed its own tarballs
            # (task.write_partition); its error note and its private root are left for `pinot-sink recover`.
            self._release_unused_root()
            ensure_log_handler()
            log.warning("pinot_sink: micro-batch %s of %s aborted, no task reported: nothing was committed, the "
                        "table is as it was; the failed tasks' error notes are left for `pinot-sink recover`",
                        batchId, self.job.table)
            return
        abort_job(self.job, reports, query_id=self._query_id(reports), batch_id=batchId)


class PinotInputPartition(InputPartition):
    """One or more segments (``segments-per-partition``) read by one Spark task."""

    def __init__(self, sources) -> None:
        super().__init__(sources)
        self.sources = sources


# Spark up to 4.3 keeps the read a filter pushdown planned on the data source shared by every query of a
# DataFrame (PythonDataSourceV2.readInfo), and a later query with no pushable filter reads with it
# (``df.filter(ts >= x).count()`` then ``df.count()`` gave the filtered count): segments a pushed filter pruned
# would be rows lost. Upstream Spark moved that read into the scan (PythonScanBuilder.readInfo) in the change
# that added DataSourceReader.pushLimit, so pushed filters prune segments only where pushLimit exists.
PUSHDOWN_SCOPED_TO_SCAN = hasattr(DataSourceReader, "pushLimit")


class PinotBatchReader(DataSourceReader):
    """Reads the plan's segments: a partition per group, each segment's time range checked in its task (the
    driver never decompresses a tarball but the first, for the schema). No ``pushFilters``: pyspark refuses a
    reader that has one unless ``spark.sql.python.filterPushdown.enabled`` is on (PinotPushdownReader)."""

    def __init__(self, plan, spark_schema) -> None:
        from pyspark.sql.pandas.types import to_arrow_schema

        self.plan = plan
        self.arrow_schema = to_arrow_schema(spark_schema, timezone="UTC")  # exactly what Spark checks batches against

    def partitions(self):
        return [PinotInputPartition(group) for group in self.plan.groups()]

    def read(self, partition):
        import pyarrow as pa

        from .reading import read_group

        # A plan with no partition (every segment outside the time range, known on the driver): pyspark hands
        # the reader one bare InputPartition(None) of its own instead (plan_data_source_read), to read nothing.
        for table in read_group(self.plan, getattr(partition, "sources", None) or ()):
            for batch in table.to_batches(max_chunksize=self.plan.batch_rows):
                yield pa.RecordBatch.from_arrays(
                    [column.cast(field.type) for column, field in zip(batch.columns, self.arrow_schema)],
                    schema=self.arrow_schema)


class PinotPushdownReader(PinotBatchReader):
    """The reader with the ``filter-pushdown`` option: ``pushFilters`` skips whole segments whose metadata time
    range cannot meet the pushed comparisons on the time column, and hands every filter back (Spark still
    filters the rows). Only where the pushdown's read is scoped to its scan (``PUSHDOWN_SCOPED_TO_SCAN``;
    tests/datasource/test_read_source.py keeps the case where it is not)."""

    def pushFilters(self, filters):
        low, high = time_bounds(filters, self.plan.time_column, self.plan.time_unit)
        if low is not None or high is not None:
            self.plan = self.plan.with_bounds(low, high)
        return filters  # every one: the bounds skip whole segments, Spark filters the rows


def time_bounds(filters, time_column: str | None, time_unit: str | None) -> tuple[int | None, int | None]:
    """[low, high] epoch millis (inclusive, rounded outward) that the pushed comparisons of the time column allow;
    None where they set no bound. Instants (TIMESTAMP) and whole numbers in the column's unit are understood."""
    import math
    from datetime import datetime

    from pyspark.sql.datasource import (EqualTo, GreaterThan, GreaterThanOrEqual, In, LessThan,
                                        LessThanOrEqual)
    from type_mapping.datetime_formats import stored_to_millis

    def millis(value, up: bool) -> int | None:
        if isinstance(value, datetime):  # naive: the worker's local time, as pyspark made it
            exact = value.timestamp() * 1000
            return math.ceil(exact) if up else math.floor(exact)
        if isinstance(value, int) and not isinstance(value, bool) and time_unit:
            return stored_to_millis(value, time_unit)
        return None

    low = high = None
    for f in filters if time_column else ():
        if not isinstance(f, (EqualTo, In, GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual)) or \
                tuple(f.attribute) != (time_column,):
            continue
        values = f.value if isinstance(f, In) else (f.value,)
        if isinstance(f, (GreaterThan, GreaterThanOrEqual, EqualTo, In)):
            found = [millis(v, up=False) for v in values]
            if found and None not in found:
                low = max(low, min(found)) if low is not None else min(found)
        if isinstance(f, (LessThan, LessThanOrEqual, EqualTo, In)):
            found = [millis(v, up=True) for v in values]
            if found and None not in found:
                high = min(high, max(found)) if high is not None else max(found)
    return low, high


def spark_type(arrow_type):
    """The Spark type of a column ``pinot_sink.read`` gives (docs/reading.md): ints, floats, bool, string, binary,
    timestamp (UTC instants), arrays of them for multi-value columns."""
    import pyarrow as pa
    from pyspark.sql import types as T

    if pa.types.is_list(arrow_type):
        return T.ArrayType(spark_type(arrow_type.value_type), containsNull=True)
    simple = {pa.int32(): T.IntegerType(), pa.int64(): T.LongType(), pa.float32(): T.FloatType(),
              pa.float64(): T.DoubleType(), pa.bool_(): T.BooleanType(), pa.string(): T.StringType(),
              pa.large_string(): T.StringType(), pa.binary(): T.BinaryType(), pa.large_binary(): T.BinaryType()}
    if arrow_type in simple:
        return simple[arrow_type]
    if pa.types.is_timestamp(arrow_type):
        return T.TimestampType()
    raise TypeError(f"no Spark type for Arrow {arrow_type}")


class PinotDataSource(DataSource):
    """``df.write.format("pinot")`` and ``spark.read.format("pinot")``. Options: docs/options.md, docs/reading.md."""

    @classmethod
    def name(cls) -> str:
        return "pinot"

    def _plan(self):
        if getattr(self, "_read_plan", None) is None:
            from .reading import plan_read

            with _message_first():
                self._read_plan = plan_read(self.options)
        return self._read_plan

    def schema(self):
        from pyspark.sql.types import StructField, StructType

        return StructType([StructField(f.name, spark_type(f.type), True) for f in self._plan().schema])

    def reader(self, schema) -> PinotBatchReader:
        """``schema``: ours, or one the user gave (``.schema("id LONG, ts TIMESTAMP")``): its columns are read."""
        with _message_first():
            from pyspark.sql.pandas.types import to_arrow_schema

            plan = self._plan().with_columns(schema.fieldNames(), to_arrow_schema(schema, timezone="UTC"))
            if not plan.filter_pushdown:
                return PinotBatchReader(plan, schema)
            if not PUSHDOWN_SCOPED_TO_SCAN:
                import pyspark

                raise ValueError(
                    f"option 'filter-pushdown': pyspark {pyspark.__version__} keeps the read a pushdown planned for "
                    "one query of a DataFrame and reads the DataFrame's later queries with it (their rows would "
                    "be missing); prune by the option 'time-range' instead")
            return PinotPushdownReader(plan, schema)

    def writer(self, schema, overwrite: bool) -> PinotBatchWriter:
        if _ARROW_WRITER_MISSING:
            raise RuntimeError(_ARROW_WRITER_MISSING)
        with _message_first():
            job = _prepared_job(self.options, overwrite)
            return PinotBatchWriter(job or prepare_job(self.options, schema, overwrite=overwrite))

    def streamWriter(self, schema, overwrite: bool) -> PinotStreamWriter:
        if _STREAM_WRITER_MISSING or _ARROW_WRITER_MISSING:
            raise RuntimeError(_STREAM_WRITER_MISSING or _ARROW_WRITER_MISSING)
        with _message_first():
            return PinotStreamWriter(prepare_job(self.options, schema, overwrite=overwrite, streaming=True))


# pinot_sink.write prepares the job on the driver before Spark runs (its one-line checks, the save mode, the
# clustering need it) and hands it to the writer, which Spark calls in a Python worker of its own: through a
# pickle in the write's private temporary folder, named by this option (so the job is prepared, and the
# controller asked, once). Only a file pinot_sink.write made is read: in a folder it created, owned by this
# user and writable by no one else.
PREPARED_JOB_OPTION = "pinot-sink.prepared-job"
RESULT_FOLDER_PREFIX = "pinot-sink-result-"


def _prepared_job(options, overwrite: bool) -> WriteJob | None:
    import pickle
    import stat

    path = options.get(PREPARED_JOB_OPTION)
    if not path:
        return None
    folder = os.path.dirname(path)
    details = [os.stat(p) for p in (folder, path)]
    if (not os.path.basename(folder).startswith(RESULT_FOLDER_PREFIX)
            or any(d.st_uid != os.getuid() or d.st_mode & (stat.S_IWGRP | stat.S_IWOTH) for d in details)):
        raise PinotWriteError(f"option {PREPARED_JOB_OPTION!r} is pinot_sink.write's own; do not set it")
    with open(path, "rb") as handle:
        job = pickle.load(handle)  # noqa: S301 - written by this user's pinot_sink.write (checked above)
    table = options.get("table-name")
    if table is not None and str(table) != job.table:
        raise PinotWriteError(f"option {PREPARED_JOB_OPTION!r}: prepared for table {job.table}, but this write is "
                              f"to table {table}; do not set it")
    if job.overwrite != overwrite and not job.table_config.refreshes_whole_table:
        raise PinotWriteError(f"option {PREPARED_JOB_OPTION!r}: prepared for overwrite={job.overwrite}, but Spark "
                              f"writes with overwrite={overwrite}")
    return job


class PinotSinkDataSource(PinotDataSource):
    """The same source under ``pinot_sink``, a name no JVM connector claims."""

    @classmethod
    def name(cls) -> str:
        return "pinot_sink"


def write(df, table_name: str, *, mode: str = "append", job: WriteJob | None = None, **options) -> WriteResult:
    """``df.write.format("pinot_sink")`` with ``sink.parallelism`` applied (a data source cannot repartition
    its input, so this helper does it first); returns what the write committed. Dotted names go in as a
    dict: ``write(df, "events", **{"sink.parallelism": 8, "url": "http://controller:9000"})``. ``job``: the
    one ``pinot_sink.write`` already prepared for these options (then the writer uses it as it is)."""
    import pickle
    import tempfile
    from dataclasses import replace

    options = dict(options)
    for name in ("sink.parallelism", "manifest.path"):  # read below by these spellings
        value = pop_option(options, name)
        if value is not None:
            options[name] = value
    check_staging_reachable(df.sparkSession.sparkContext.master, options)
    parallelism = options.pop("sink.parallelism", None)
    if parallelism is not None:
        df = df.repartition(int(parallelism))
    # Spark runs the commit in a process of its own: the result comes back through the job manifest.
    with tempfile.TemporaryDirectory(prefix=RESULT_FOLDER_PREFIX) as folder:
        manifest = os.path.join(folder, "manifest.json")
        options["manifest.path"] = options.get("manifest.path", manifest)
        if job is not None:
            job = replace(job, options=replace(job.options, manifest_path=options["manifest.path"]))
            prepared = os.path.join(folder, "job.pickle")
            with open(os.open(prepared, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as handle:
                pickle.dump(job, handle)
            options[PREPARED_JOB_OPTION] = prepared
        writer = df.write.format("pinot_sink").option("table-name", table_name).mode(mode)
        for key, value in options.items():
            writer = writer.option(key, str(value))
        writer.save()
        if options.get("manifest.path"):
            import fsspec

            with fsspec.open(options["manifest.path"], "r") as handle:
                text = handle.read()
        else:
            with open(manifest, encoding="utf-8") as handle:
                text = handle.read()
    return read_result(text)  # the commit, in Spark's Python worker, logged its summary
