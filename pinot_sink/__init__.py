"""pinot_sink: write Spark DataFrames into Apache Pinot OFFLINE tables.

The write, one module each (docs/architecture.md): on the driver ``pinot_sink.job.prepare_job`` (options,
schema, table config, the write's identity); in each task ``pinot_sink.task.write_partition``, which drives
``pinot_sink.partition_writer`` (Arrow batches -> ``pinot_sink.ingestion`` -> ``type_mapping`` stored values
-> a ``pinot_sink.buffer`` -> ``pinot_sink.segment`` builder -> the tarball staged, never published); then
on the driver ``pinot_sink.commit``, the single committer (one lineage entry through
``pinot_sink.controller``, or a move into ``output-uri`` without a controller). Every error raised on
purpose derives from ``PinotSinkError``.

Entry points: ``pinot_sink.write(df, table, ...)`` on Spark 3.3+ (``pinot_sink.spark_write``), and on
Spark 4 ``df.write.format("pinot")``, found with no import through the top-level ``pyspark_pinot``
package; importing this package also registers ``pinot`` and ``pinot_sink`` on the active SparkSession,
if there is one, and ``pinot_sink.register(spark)`` does it explicitly. pyspark is optional: nothing here
imports it until a Spark entry point is used (the CLI and the segment builder run without it).
"""
from __future__ import annotations

import logging

from type_mapping.errors import PinotSinkError

__version__ = "0.1.0"
__all__ = ["PinotSinkError", "register", "write", "read", "read_batches", "jvm_pinot_provider"]

JVM_PINOT_NOTICE = (
    "a JVM data source named 'pinot' is on the classpath ({provider}); Spark resolves format('pinot') to it, "
    "not to pinot_sink. Use format('pinot_sink'), which always reaches this package."
)


def jvm_pinot_provider(spark) -> str | None:
    """The class of a JVM data source registered as ``pinot`` (Pinot's Spark connector), or None.

    JVM and built-in sources win over Python sources of the same name, so this decides whether
    ``format("pinot")`` reaches us. Looks through Spark's ``DataSourceRegister`` services via py4j."""
    try:
        jvm = spark._jvm
        loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        register_class = jvm.java.lang.Class.forName("org.apache.spark.sql.sources.DataSourceRegister", True, loader)
        services = jvm.java.util.ServiceLoader.load(register_class, loader).iterator()
        while services.hasNext():
            try:
                provider = services.next()
            except Exception:  # a broken provider on the classpath; Spark skips it too
                continue
            if str(provider.shortName()).lower() == "pinot":
                return str(provider.getClass().getName())
    except Exception:  # Spark Connect or no JVM access: cannot tell
        return None
    return None


def register(spark=None) -> bool:
    """Register ``pinot`` and ``pinot_sink`` on ``spark`` (default: the active session).

    Returns True when ``format("pinot")`` reaches this package, False when a JVM source shadows it (a
    warning says so; ``format("pinot_sink")`` works either way). Needs pyspark 4.0+."""
    from .spark_write import data_source_missing

    missing = data_source_missing()
    if missing:
        raise RuntimeError(f"pinot_sink.register: {missing}")
    from pyspark.sql import SparkSession

    from .datasource import PinotDataSource, PinotSinkDataSource

    spark = spark or SparkSession.getActiveSession()
    if spark is None:
        raise RuntimeError("pinot_sink.register: no active SparkSession; pass one")
    done = getattr(spark, "_pinot_sink_registered", None)
    if done is not None:  # again (an import, then register()): Spark would warn of each replacement again
        return done
    from .spark_python import use_driver_python

    use_driver_python(spark)  # local mode: the workers that look format("pinot") up must import this package
    spark.dataSource.register(PinotDataSource)
    spark.dataSource.register(PinotSinkDataSource)
    provider = jvm_pinot_provider(spark)
    if provider:
        logging.getLogger("pinot_sink").warning(JVM_PINOT_NOTICE.format(provider=provider))
    spark._pinot_sink_registered = not provider
    return not provider


def compact(table: str, **kwargs):
    """Merge ``table``'s small segments into right-sized ones per time bucket, atomically and exactly once
    (``pinot_sink.compaction.run.compact``: ``url=`` or ``output_uri=``, ``target_size``, ``time_range``,
    ``min_segment_size``, ``mode``, ``dry_run``); returns its report. Needs no Spark."""
    from .compaction import compact as _compact

    return _compact(table, **kwargs)


def write(df, table_name: str, *, mode: str = "append", entry_point: str | None = None, partition_by=None,
          **options):
    """Write ``df`` into the Pinot table ``table_name`` (``mode``: append | overwrite | error | ignore) on
    Spark 3.3+, with ``sink.parallelism`` honoured and rows clustered by the table config's partitions
    (``partition_by``, if given, must name its columns); returns the ``WriteResult``. The data source on
    Spark 4, ``mapInArrow`` on Spark 3 (``entry_point`` data-source | map-in-arrow picks one); see
    ``pinot_sink.spark_write``."""
    from .spark_write import write as _write

    return _write(df, table_name, mode=mode, entry_point=entry_point, partition_by=partition_by, **options)


def read(paths_or_uris, columns=None, time_range=None, **storage_options):
    """Pinot segments (tarballs or folders, local or remote, folders and globs of them) as one
    ``pyarrow.Table``; no Spark needed. See ``pinot_sink.reading.read`` and docs/reading.md."""
    from .reading import read as _read

    return _read(paths_or_uris, columns, time_range, **storage_options)


def read_batches(paths_or_uris, columns=None, time_range=None, *, batch_rows: int = 131_072, **storage_options):
    """``read`` as an iterator of ``pyarrow.RecordBatch``: one segment decoded at a time (bounded memory)."""
    from .reading import read_batches as _read_batches

    return _read_batches(paths_or_uris, columns, time_range, batch_rows=batch_rows, **storage_options)


def _register_on_import() -> None:
    import sys

    if "pyspark.sql" not in sys.modules:  # no pyspark loaded, so no session: keep plain imports fast
        return
    try:
        from pyspark.sql import SparkSession

        if SparkSession.getActiveSession() is not None:
            register()
    except Exception as exc:  # never break an import over registration
        logging.getLogger("pinot_sink").debug("pinot_sink: not registered on import: %s", exc)


_register_on_import()
