"""``pinot_sink.write(df, ...)``: the one call that writes on every Spark, 3.3 to 4.x.

Two entry points run the same job (driver ``prepare_job`` -> per task ``write_partition`` -> driver
``commit_job`` or ``abort_job``), with the same options, segment names and commit protocol:

- ``data-source``: ``df.write.format("pinot_sink")``, the Spark 4 Python Data Source (``pinot_sink.datasource``).
  The default where pyspark has that API (4.0+, or a runtime that backports it).
- ``map-in-arrow``: ``df.mapInArrow`` (Spark 3.3+). Each task hands its Arrow batches to ``write_partition``
  and returns its pickled ``TaskReport`` as its only output row; the driver collects them, which gives it
  exactly one report per partition, from the attempt Spark kept (a failed or losing speculative attempt's
  output is discarded by Spark, as its commit message would be), then commits, or aborts on any failure
  and re-raises. The default on Spark 3.x.

``entry_point=`` or the ``PINOT_SINK_ENTRY_POINT`` environment variable picks one explicitly (tests, bench).
"""
from __future__ import annotations

import logging
import os
import pickle
import re
from functools import partial
from typing import Any, Iterable, Iterator

from type_mapping.errors import PinotSinkError

from .commit import abort_job, commit_job
from .job import check_staging_reachable, prepare_job, release_private_stage_root
from .options import pop_option
from .partitioning import PartitionByError, check_partition_by, source_partition_ids
from .primary_keys import PrimaryKeyTableError
from .reports import WriteResult
from .spark_task import message_first, task_kwargs
from .task import segment_keys_of_input, write_partition

log = logging.getLogger("pinot_sink")

ENTRY_POINTS = ("data-source", "map-in-arrow")
ENTRY_POINT_ENV = "PINOT_SINK_ENTRY_POINT"
MODES = ("append", "overwrite")
# Spark's save modes, as DataFrameWriter.mode spells them -> what they mean here
SPARK_MODES = {"append": "append", "overwrite": "overwrite", "error": "error", "errorifexists": "error",
               "default": "error", "ignore": "ignore"}
REPORT_COLUMN = "pinot_sink_report"
MIN_PYSPARK = (3, 3)  # DataFrame.mapInArrow
INSTALL_HINT = "pip install 'pinot-sink[spark]' (or use the cluster's own pyspark 3.4+, with pandas)"


def pyspark_version() -> tuple[int, int]:
    """(major, minor) of the installed pyspark; a Spark entry point without pyspark says what to install."""
    try:
        import pyspark
    except ImportError as exc:
        raise ModuleNotFoundError(f"pinot_sink's Spark entry points need pyspark: {INSTALL_HINT} ({exc})") from None
    major, minor = (int(part) for part in pyspark.__version__.split(".")[:2])
    if (major, minor) < MIN_PYSPARK:
        raise RuntimeError(f"pinot_sink needs pyspark 3.3 or later (DataFrame.mapInArrow); this is pyspark "
                           f"{pyspark.__version__}")
    return major, minor


def data_source_missing() -> str | None:
    """Why ``format("pinot")`` cannot work on this pyspark (no Python Data Source API with an Arrow batch
    writer: before 4.0, unless a vendor runtime backports it), or None when it can."""
    version = pyspark_version()
    try:
        from .datasource import _ARROW_WRITER_MISSING
    except ImportError as exc:  # pyspark.sql.datasource itself is missing
        return (f"format('pinot') needs pyspark 4.0+ (the Python Data Source API; this is pyspark "
                f"{'.'.join(map(str, version))}: {exc}); on Spark 3.3-3.5 use pinot_sink.write(df, table, ...)")
    return _ARROW_WRITER_MISSING


def choose_entry_point(entry_point: str | None = None) -> str:
    """``entry_point``, else $PINOT_SINK_ENTRY_POINT, else the data source where pyspark has its API."""
    chosen = (entry_point or os.environ.get(ENTRY_POINT_ENV) or "").strip().lower()
    missing = data_source_missing()
    if not chosen:
        return "map-in-arrow" if missing else "data-source"
    if chosen not in ENTRY_POINTS:
        raise ValueError(f"pinot_sink.write: entry_point (or ${ENTRY_POINT_ENV}) must be one of "
                         f"{', '.join(ENTRY_POINTS)}, got {chosen!r}")
    if chosen == "data-source" and missing:
        raise RuntimeError(f"pinot_sink.write: entry_point 'data-source': {missing}")
    return chosen


def write(df, table_name: str, *, mode: str = "append", entry_point: str | None = None,
          partition_by: str | Iterable[str] | None = None, **options: Any) -> WriteResult:
    """Write ``df`` into the Pinot table ``table_name``; returns what the write committed. ``mode`` as for
    Spark's other sources: append, overwrite, error / errorifexists (fail when the table holds segments)
    or ignore (then do nothing). ``partition_by`` (Spark's ``partitionBy``): the columns of the table
    config's ``segmentPartitionConfig``, else an error; rows are clustered so each segment holds one
    partition id per column whether it is given or not (pinot_sink.partitioning). Options as in
    docs/options.md; dotted names go in as a dict:
    ``write(df, "events", **{"sink.parallelism": 8, "url": "http://controller:9000"})``.

    Options, schema and table config are checked here, on the driver, before Spark runs anything: a mistake
    is one ``WriteCheckError`` line, not a Spark traceback."""
    asked, mode = mode, SPARK_MODES.get((mode or "append").lower())
    if mode is None:
        raise WriteCheckError(f"pinot_sink.write: mode must be one of {', '.join(SPARK_MODES)}, got {asked!r}")
    chosen = choose_entry_point(entry_point)
    if df.isStreaming:
        raise WriteCheckError("pinot_sink.write writes a batch DataFrame; write a streaming one with "
                             "df.writeStream.format('pinot') (pyspark 4.1+)")
    from .spark_python import ensure_worker_python

    _make_active(df.sparkSession)
    ensure_worker_python(df.sparkSession)  # before any Spark job: workers that cannot import us, in one line
    # applied here, before the rows reach the tasks (option names are case-insensitive, as Spark's)
    dedup_batch = pop_option(options, "upsert.dedup-batch")
    checked = _checked_job(df, table_name, mode, options)
    try:
        mode, df, options = _before_the_write(df, checked, table_name, mode, partition_by, options, dedup_batch)
    except BaseException:
        # nothing was staged yet: the job's private staging root goes (once Spark runs, the commit or the
        # abort removes it)
        release_private_stage_root(checked)
        raise
    if mode == "ignore":
        release_private_stage_root(checked)
        return _nothing_written(checked)
    try:
        if chosen == "data-source":
            from .datasource import PinotSinkDataSource, write as write_data_source

            df.sparkSession.dataSource.register(PinotSinkDataSource)  # the name datasource.write uses
            return write_data_source(df, table_name, mode=mode, job=checked, **options)
        return write_map_in_arrow(df, table_name, mode=mode, job=checked, **options)
    except Exception as exc:
        cause = None if isinstance(exc, PinotSinkError) else task_error(exc)
        if cause is None:
            raise
        # Spark's exception holds the task's traceback and its own; the cause is our error's one line
        raise WriteFailedError(f"pinot_sink.write to table {table_name} failed: {cause}") from None


# The line a Python worker's traceback ends with when one of our errors stopped it
_OUR_ERROR_LINE = re.compile(r"^(?:pinot_sink|type_mapping)(?:\.\w+)*\.\w+: (.+)$", re.M)


def task_error(exc: BaseException) -> str | None:
    """Our error's message in a Spark exception (a task's or the committer's ``PythonException``), or None."""
    found = _OUR_ERROR_LINE.findall(str(exc))
    return found[-1].strip() if found else None


def _before_the_write(df, checked, table_name: str, mode: str, partition_by, options: dict[str, Any],
                      dedup_batch: str | None):
    """The save mode against the table, ``partition_by``, the clustering: ``(mode, df, options)`` to write
    with (mode ``ignore``: nothing to write)."""
    try:
        partitioned = check_partition_by(partition_by, checked.table_config, checked.segment_schema(), table_name)
    except PartitionByError as exc:
        raise WriteCheckError(f"pinot_sink.write to table {table_name}: {exc}") from None
    if mode in ("error", "ignore"):
        existing = sorted(checked.store().list())
        if existing and mode == "error":
            raise WriteCheckError(f"table {table_name} already holds {len(existing)} segment(s) and the save mode "
                                 f"is 'error' (Spark's default): use mode 'append' to add to them or 'overwrite' to "
                                 f"replace them")
        if existing:
            log.info("pinot_sink: table %s already holds %d segment(s); save mode 'ignore': nothing written",
                     table_name, len(existing))
            return "ignore", df, options
        mode = "append"
    try:
        df = keyed_rows(df, checked, dedup_batch)
    except PinotSinkError as exc:
        raise WriteCheckError(f"pinot_sink.write to table {table_name}: {exc}") from None
    df, options = clustered(df, checked, options, partitioned)
    return mode, df, options


def _make_active(spark) -> None:
    """Spark 4 looks Python data sources up in the JVM thread's active session, which a new Python thread
    (its own py4j thread) does not have: ``DATA_SOURCE_NOT_FOUND``. The DataFrame's session is the one meant."""
    try:
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)
    except Exception as exc:  # noqa: BLE001 - Spark Connect has no JVM here (and no such thread state)
        log.debug("pinot_sink: could not set the active session: %s", exc)


class WriteCheckError(PinotSinkError, ValueError):
    """A mistake found on the driver before Spark ran: the message is the whole story, in one line."""


class WriteFailedError(PinotSinkError, RuntimeError):
    """A write Spark ran and our code stopped (a task's bad value, a failed commit): its cause in one line;
    the log says what became of the table."""


def _checked_job(df, table_name: str, mode: str, options: dict[str, Any]):
    """``prepare_job`` on the driver, before Spark: options, schema and table config (and the controller
    they come from) checked, each problem raised as one line naming the option or column."""
    from type_mapping.compat import ConversionError
    from type_mapping.reconcile import PlanError

    from .controller.errors import ControllerError
    from .options import OptionError

    raw = {key: "" if value is None else str(value) for key, value in options.items()}
    raw.pop("sink.parallelism", None)  # applied by the entry point, so prepare_job has nothing to warn of
    named = {value for key, value in raw.items() if key.lower() == "table-name"}
    if named - {table_name}:  # the argument would win over the option without a word
        raise WriteCheckError(f"pinot_sink.write to table {table_name}: option 'table-name' names another table, "
                              f"{sorted(named - {table_name})[0]!r}: give the table once, as the argument")
    try:
        check_staging_reachable(df.sparkSession.sparkContext.master, raw)
        return prepare_job({**raw, "table-name": table_name}, df.schema, overwrite=mode == "overwrite")
    except (PinotSinkError, OptionError, PlanError, ConversionError, ControllerError, ValueError) as exc:
        raise WriteCheckError(f"pinot_sink.write to table {table_name}: {exc}") from None


def bucket_column(df, job):
    """The Spark expression of each row's UTC day/hour bucket (``sink.time-bucket``), or None when the time
    column is not a DataFrame column this can read (made by an ingestion transform, or of another type)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    plan = job.window
    if plan is None or plan.cut_bucket_ms is None or job.pipeline is not None:
        return None
    try:
        source = job.plan.source_for(plan.time_column)
    except KeyError:
        return None
    if source is None or source not in df.columns:
        return None
    data_type = df.schema[source].dataType
    column = F.col(f"`{source}`")
    if isinstance(data_type, (T.TimestampType, getattr(T, "TimestampNTZType", T.TimestampType))):
        millis = F.floor(F.unix_micros(column.cast("timestamp")) / 1000)  # UTC instants, whatever the session zone
    elif isinstance(data_type, T.DateType):
        millis = F.unix_date(column).cast("long") * 86_400_000
    elif isinstance(data_type, T.LongType) and str(
            job.segment_schema().fields[plan.time_column].datetime_format or "").upper() == "1:MILLISECONDS:EPOCH":
        millis = column  # epoch millis as they are
    else:
        return None
    return F.floor(millis / plan.cut_bucket_ms)


def partition_column(df, job, column: str):
    """The Spark expression of each row's Pinot partition id of ``column`` (a pandas UDF running
    pinot_sink.partitioning's conversion and Pinot's function), or None when ``column`` is not fed as it
    is by a DataFrame column of a plain type (then each task still cuts one segment per id)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if job.pipeline is not None:
        return None
    try:
        source = job.plan.source_for(column)
    except KeyError:
        return None
    if source is None or source not in df.columns:
        return None
    data_type = df.schema[source].dataType
    if not isinstance(data_type, _plain_types(T)):  # timestamps reach a pandas UDF in the session's zone
        return None
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    from type_mapping.spark_types import spark_type_to_arrow

    arrow_type, schema, config = spark_type_to_arrow(data_type), job.segment_schema(), job.table_config
    conversion = job.options.conversion

    def ids(values):
        found = source_partition_ids(pa.Array.from_pandas(values, type=arrow_type), column, config, schema,
                                     source=source, conversion=conversion)
        # a batch with a value that does not convert goes to one key: the task then names the row
        return pd.Series(found if found is not None else np.full(len(values), UNCONVERTED_KEY, np.int64))

    ids.__annotations__ = {"values": pd.Series, "return": pd.Series}  # pyspark reads the UDF's kind off them
    return F.pandas_udf(ids, "long")(F.col(f"`{source}`"))


UNCONVERTED_KEY = -(2**63)


def _plain_types(T):
    return (T.StringType, T.ByteType, T.ShortType, T.IntegerType, T.LongType, T.BooleanType, T.BinaryType,
            T.DecimalType, T.DateType, T.FloatType, T.DoubleType)


def clustered(df, job, options: dict[str, Any], partitioned: list[str]):
    """Rows that belong in one segment brought into one Spark partition (and next to each other) before the
    write: ``sink.time-bucket``'s day/hour and the table config's partition ids, so each makes one segment
    (up to max-rows) instead of one per input partition. ``sink.parallelism`` sets the partition count
    (default: the DataFrame's)."""
    if not partitioned and (job.window is None or job.window.cut_bucket_ms is None):
        return df, options
    keys = None if job.pipeline is not None else _plain_keys(df, job, partitioned)
    if keys is not None:
        # as columns, so a UDF key is computed once (before the shuffle), not again by the sort
        names = [f"__pinot_sink_key_{i}" for i in range(len(keys))]
        for name, key in zip(names, keys):
            df = df.withColumn(name, key)
    else:  # the keys are of values the table config's transforms make, or of a type a pandas UDF alters
        keyed = _keyed_by_ingestion(df, job)
        if keyed is None:
            log.info("pinot_sink: the table config's complex-type step unnests rows: rows are not clustered by "
                     "time bucket or partition id before the write (each task cuts one segment per key)")
            return df, options
        df, names = keyed
    options = dict(options)
    parallelism = options.pop("sink.parallelism", None)  # the repartition below applies it
    from .options import parse_int

    count = parse_int(str(parallelism), "sink.parallelism") if parallelism else df.rdd.getNumPartitions()
    return df.repartition(max(1, count), *names).sortWithinPartitions(*names).drop(*names), options


def _plain_keys(df, job, partitioned: list[str]) -> list | None:
    """The keys as Spark expressions of DataFrame columns that feed the bucket and partition columns as they
    are; None when one of them is not such a column."""
    keys = []
    if job.window is not None and job.window.cut_bucket_ms is not None:
        keys.append(bucket_column(df, job))
    keys += [partition_column(df, job, column) for column in partitioned]
    return None if any(key is None for key in keys) else keys


def _keyed_by_ingestion(df, job):
    """``(df with one key column per bucket / partition column, their names)``, the keys computed from the
    stored values the table config's ingestion steps make (``task.segment_keys_of_input``, in a
    ``mapInArrow`` pass); None when they cannot be had per input row."""
    from pyspark.sql import types as T

    found = segment_keys_of_input(job)
    if found is None:
        return None
    width, keys_of = found
    names = [f"__pinot_sink_key_{i}" for i in range(width)]

    def with_keys(batches):
        import numpy as np
        import pyarrow as pa

        for batch in batches:
            try:
                keys = keys_of(batch)
            except Exception:  # noqa: BLE001 (only clustering is lost; the task names the row in its words)
                keys = [np.full(batch.num_rows, UNCONVERTED_KEY, np.int64)] * width
            yield pa.RecordBatch.from_arrays([*batch.columns, *(pa.array(k, pa.int64()) for k in keys)],
                                             names=[*batch.schema.names, *names])

    schema = T.StructType([*df.schema.fields, *(T.StructField(n, T.LongType(), False) for n in names)])
    return df.mapInArrow(with_keys, schema), names


def _nothing_written(job) -> WriteResult:
    from .job import describe_mode

    return WriteResult(table=job.table, mode="ignore", write_id=None, run_tag=job.run_tag, segments=(),
                       replaced=(), lineage_id=None, destination=describe_mode(job), elapsed_s=0.0, commit_s=0.0)


def write_map_in_arrow(df, table_name: str, *, mode: str = "append", job=None, **options: Any) -> WriteResult:
    """Spark 3.3+: see the module docstring. ``job``: the one ``write`` already prepared for these options."""
    options = {key: "" if value is None else str(value) for key, value in options.items()}
    parallelism = options.pop("sink.parallelism", None)  # applied here, so prepare_job has nothing to warn of
    if job is None:
        check_staging_reachable(df.sparkSession.sparkContext.master, options)
        job = prepare_job({**options, "table-name": table_name}, df.schema, overwrite=mode == "overwrite")
    if parallelism:
        from .options import parse_int

        df = df.repartition(parse_int(parallelism, "sink.parallelism"))
    reports: list = []
    try:
        rows = df.mapInArrow(partial(_write_task, job), f"{REPORT_COLUMN} binary").collect()
        reports = [pickle.loads(row[0]) for row in rows]
        return commit_job(job, reports)
    except BaseException as exc:  # as Spark does for a data source: any failure, the commit's included, aborts
        try:
            abort_job(job, reports, cause=task_error(exc))
        except Exception as abort_error:  # the write's own error is the one to raise
            log.error("pinot_sink: abort after a failed write failed too: %s", abort_error)
        raise


def _write_task(job, batches: Iterable) -> Iterator:
    """One task: its partition's Arrow batches -> ``write_partition`` -> one row, the pickled report."""
    import pyarrow as pa

    with message_first():
        report = write_partition(job, batches, **task_kwargs())
    yield pa.RecordBatch.from_arrays([pa.array([pickle.dumps(report)], pa.binary())], names=[REPORT_COLUMN])


ORDER_COLUMN = "__pinot_sink_order"


def keyed_rows(df, job, dedup_batch: str | None):
    """A primary-key table's rows before the write (``pinot_sink.primary_keys``). ``upsert.dedup-batch=latest``
    keeps one row per primary key, the one the table would keep: upsert the largest comparison value, a tie
    going to the later row (a server's upsert map takes the later doc of a segment on equal values); dedup
    the first row (the first one a dedup table consumes wins); a dimension table the later row (a later doc
    overwrites the key). Later is the DataFrame's order (``monotonically_increasing_id``). It costs a shuffle
    by primary key. A dimension table with ``errorOnDuplicatePrimaryKey`` and no dedup is checked for
    duplicate keys (a shuffle too): its servers would fail to load the table."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from .options import DEDUP_BATCH, _one_of

    dedup_batch = _one_of(None if dedup_batch is None else str(dedup_batch).strip() or None,
                          "upsert.dedup-batch", DEDUP_BATCH)
    plan = job.primary_keys
    if plan is None:
        if dedup_batch:
            raise PrimaryKeyTableError("option 'upsert.dedup-batch': the table has no upsertConfig, dedupConfig or "
                                       "isDimTable, so its rows have no primary key to keep one row of")
        return df
    check_duplicates = plan.settings.dim_table and plan.settings.error_on_duplicate_primary_key
    if not dedup_batch and not check_duplicates:
        return df
    keys = [_source_column(df, job, c, "primary key") for c in plan.key_columns]
    if not dedup_batch:
        found = df.groupBy(*keys).count().where(F.col("count") > 1).limit(1).collect()
        if found:
            key = ", ".join(f"{c}={found[0][i]!r}" for i, c in enumerate(plan.key_columns))
            raise PrimaryKeyTableError(
                f"dimensionTableConfig.errorOnDuplicatePrimaryKey is true and primary key ({key}) occurs "
                f"{found[0]['count']} times: the servers would refuse to load the table; drop the duplicates or "
                f"set 'upsert.dedup-batch'=latest to keep the later row")
        return df
    ordered = df.withColumn(ORDER_COLUMN, F.monotonically_increasing_id())
    order = F.col(ORDER_COLUMN)
    if plan.settings.upsert:
        if len(plan.comparison_columns) != 1:
            raise PrimaryKeyTableError(
                f"option 'upsert.dedup-batch'=latest compares by one comparison column; the table has "
                f"{list(plan.comparison_columns) or 'none'} (with several, each row sets one of them)")
        compared = _source_column(df, job, plan.comparison_columns[0], "comparison")
        sort = [F.col(compared).desc_nulls_last(), order.desc()]
    else:
        sort = [order.asc() if plan.settings.dedup else order.desc()]
    rank = Window.partitionBy(*[F.col(k) for k in keys]).orderBy(*sort)
    return (ordered.withColumn("__pinot_sink_rank", F.row_number().over(rank))
            .where(F.col("__pinot_sink_rank") == 1).drop("__pinot_sink_rank", ORDER_COLUMN))


def _source_column(df, job, column: str, what: str) -> str:
    """The DataFrame column that feeds ``column`` as it is, else an error naming it."""
    try:
        source = job.plan.source_for(column) if job.pipeline is None else None
    except KeyError:
        source = None
    if source is None or source not in df.columns:
        raise PrimaryKeyTableError(
            f"the {what} column {column!r} is not a DataFrame column fed as it is (ingestion transforms make it, "
            f"or it is missing): duplicate keys can only be found among DataFrame columns")
    return source
