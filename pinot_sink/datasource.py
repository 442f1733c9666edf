"""The Spark data source: ``df.write.format("pinot")`` and ``df.writeStream.format("pinot")``.

Driver (``prepare_job``, before any task): options -> Pinot schema and table config (controller, or the
``schema``/``table-config`` options) -> reconcile with the DataFrame schema (fails fast, naming the column)
-> a snapshot of the segments that already exist -> a picklable ``WriteJob``.

Executor (``write_partition``, one call per task): Arrow batches -> ``type_mapping.convert`` ->
``PartitionBuffer`` -> ``build_segment`` per cut -> deliver (write to output-uri, upload to the controller,
or stage for the driver's consistent push) -> a ``TaskReport`` commit message.

Driver (``commit_job`` / ``abort_job``): summary table; overwrite finishes the consistent push; abort and
commit clean up what failed attempts left behind (see ``pinot_sink.commit``).

Spark pickles the writer on the driver and runs ``commit``/``abort`` against the pickled copy, so all state
lives in the ``WriteJob`` (made before any task) and in the commit messages. Heavy imports stay inside
functions: this module is imported by Spark's planner and by every Python worker.
"""
from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from pyspark.sql.datasource import DataSource, WriterCommitMessage

try:  # the Arrow writer variants; without them every row would go through a per-row Python loop
    from pyspark.sql.datasource import DataSourceArrowWriter, DataSourceStreamArrowWriter
except ImportError as _missing:  # an older pyspark: fail when used, with the reason
    _ARROW_WRITERS_MISSING: str | None = (
        f"pinot_sink needs pyspark's Arrow data source writers (DataSourceArrowWriter, "
        f"DataSourceStreamArrowWriter): {_missing}; upgrade pyspark"
    )
    from pyspark.sql.datasource import DataSourceStreamWriter as DataSourceStreamArrowWriter  # noqa: F401
    from pyspark.sql.datasource import DataSourceWriter as DataSourceArrowWriter  # noqa: F401
else:
    _ARROW_WRITERS_MISSING = None

from .commit import (
    SegmentRecord,
    SegmentStore,
    Snapshot,
    TaskReport,
    check_unique_names,
    remove_orphans,
    reported_segments,
    summary_table,
    undo_append,
)
from .options import WriteOptions

log = logging.getLogger("pinot_sink")

DEFAULT_OUTPUT_URI = "pinot-segments"
BATCH_ID_PROPERTY = "streaming.sql.batchId"  # set by Spark's MicroBatchExecution on every task
QUERY_ID_PROPERTY = "sql.streaming.queryId"  # stable across restarts from the same checkpoint
CONVERT_GROUP_ROWS = 65_536  # Arrow rows converted per call


class PinotWriteError(RuntimeError):
    """A failure while writing one partition; the message names the partition and the segment."""


def _ensure_log_handler() -> None:
    """Python workers have no logging config: send our INFO lines to stderr (the executor log)."""
    if not log.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False


# -----------------------------------------------------------------------------------------------------
# The job, prepared on the driver


@dataclass(frozen=True)
class WriteJob:
    options: WriteOptions
    schema_json: dict
    table_config: dict
    plan: Any  # type_mapping.reconcile.WritePlan
    overwrite: bool
    streaming: bool
    run_tag: str | None  # overwrite runs only: fresh names for the replacement, fixed once per job
    creation_time_ms: int
    client_config: Any  # pinot_sink.controller.ClientConfig, None in embedded mode
    output_uri: str | None  # normalised URI root; tarballs at <output_uri>/<table>/<name>.tar.gz
    stage_uri: str | None  # overwrite with a controller: where tasks leave tarballs for the driver's push
    stage_is_temporary: bool
    snapshot: Snapshot | None  # batch jobs: segments present before the job
    started_at: float

    @property
    def table(self) -> str:
        return self.options.table_name

    @property
    def delivery_root(self) -> str | None:
        """Where tasks put tarballs themselves (None: uploaded straight to the controller only)."""
        if self.client_config is None:
            return self.output_uri
        if self.overwrite:
            return self.stage_uri
        if self.options.push_mode == "tar":
            return self.output_uri  # optional extra copy
        return None  # uri/metadata: the push copies to output_uri itself

    def store(self) -> SegmentStore:
        if self.client_config is not None:
            return SegmentStore(self.table, client_config=self.client_config)
        return SegmentStore(self.table, directory_uri=table_dir_uri(self.output_uri, self.table))

    def segment_schema(self):
        from type_mapping import PinotSchema

        return PinotSchema.from_json(self.schema_json)

    def job_postfix(self, batch_tag: str | None = None) -> str | None:
        """The postfix without the partition id: what all of this job's (or micro-batch's) names share."""
        from .naming import writer_postfix

        return writer_postfix(self.options.segment_name_postfix, partition_id=None, run_tag=self.run_tag,
                              batch_tag=batch_tag)

    def namer(self, *, partition_id: int | None, batch_tag: str | None = None):
        from .naming import make_namer, writer_postfix

        options = self.options
        postfix = writer_postfix(options.segment_name_postfix, partition_id=partition_id, run_tag=self.run_tag,
                                 batch_tag=batch_tag)
        return make_namer(
            options.segment_name_type, options.table_name, self.segment_schema(), self.table_config,
            postfix=postfix, prefix=options.segment_name_prefix, fixed_name=options.segment_name,
        )

    def name_pattern(self, batch_tag: str | None = None) -> str:
        from .naming import job_name_pattern

        return job_name_pattern(self.namer(partition_id=0, batch_tag=batch_tag), self.job_postfix(batch_tag)).pattern


def table_dir_uri(root_uri: str, table: str) -> str:
    from pinot_sink.controller.deep_store import normalise_uri

    return f"{normalise_uri(root_uri)}/{table}"


def local_path(uri: str) -> Path | None:
    """The local directory behind a ``file://`` URI (None for remote stores)."""
    from urllib.parse import unquote, urlsplit

    if uri.startswith("file://"):
        return Path(unquote(urlsplit(uri).path))
    return None


def _client_config(options: WriteOptions):
    from pinot_sink.controller import Auth, ControllerClient, RetryPolicy

    auth = None
    if options.auth_username is not None:
        auth = Auth.basic(options.auth_username, options.auth_password)
    elif options.auth_token:
        auth = Auth.bearer(options.auth_token)
    elif options.auth_header:
        auth = Auth.header(options.auth_header)
    retry = RetryPolicy(
        max_attempts=options.retry_max_attempts,
        max_elapsed_s=options.retry_max_elapsed_s,
        initial_backoff_s=options.retry_initial_backoff_s,
        max_backoff_s=options.retry_max_backoff_s,
    )
    client = ControllerClient(
        options.url, auth=auth, headers=options.headers, database=options.database, verify=options.tls_verify,
        connect_timeout=options.connect_timeout_s, read_timeout=options.read_timeout_s, retry=retry,
    )
    return client, client.config


def _default_table_config(table: str, schema_json: dict) -> dict:
    return {"tableName": f"{table}_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {},
            "tableIndexConfig": {}, "metadata": {}}


def prepare_job(raw_options: Mapping[str, str], spark_schema, *, overwrite: bool, streaming: bool) -> WriteJob:
    """Everything the tasks need, decided once on the driver; fails fast with a clear message."""
    from type_mapping import PinotSchema
    from type_mapping.reconcile import plan_write

    from pinot_sink.controller.deep_store import normalise_uri

    from .naming import SegmentNameError

    _ensure_log_handler()
    options = WriteOptions.parse(raw_options)
    client = client_config = None
    if options.url:
        client, client_config = _client_config(options)
        schema_json = options.schema_json or client.get_schema(options.table_name)
        table_config = options.table_config_json or client.get_table_config(options.table_name)
    else:
        if options.schema_json is None:
            raise ValueError(
                "without 'url' (no controller) the Pinot schema must come from the 'schema' option "
                "(inline JSON or a path), and optionally the table config from 'table-config'"
            )
        schema_json = options.schema_json
        table_config = options.table_config_json or _default_table_config(options.table_name, schema_json)

    pinot_schema = PinotSchema.from_json(schema_json)
    plan = plan_write(
        spark_schema, pinot_schema, ignore_unknown_columns=options.ignore_unknown_columns,
        case_sensitive=options.case_sensitive, table_config=table_config,
    )
    if streaming and overwrite:
        raise ValueError("the pinot sink does not support the 'complete' output mode (it would need to replace "
                         "the whole table every micro-batch); use the 'append' output mode")
    run_tag = _run_tag() if overwrite else None
    creation_time_ms = options.creation_time_ms if options.creation_time_ms is not None else int(time.time() * 1000)

    output_uri = options.output_uri
    if client is None and not output_uri:
        output_uri = DEFAULT_OUTPUT_URI
    output_uri = normalise_uri(output_uri) if output_uri else None
    if client is not None and options.push_mode == "uri" and output_uri and output_uri.startswith("file:"):
        raise ValueError(
            f"push-mode=uri needs an output-uri the controller can download from (s3://, hdfs://, gs://, ...); "
            f"the controller rejects file: URIs ({output_uri}). Use push-mode=metadata or tar with a local "
            f"directory"
        )
    stage_uri, stage_is_temporary = None, False
    if client is not None and overwrite:
        if output_uri:
            stage_uri = output_uri
        else:
            stage_uri = normalise_uri(os.path.join(tempfile.gettempdir(), "pinot-sink-staging", run_tag))
            stage_is_temporary = True

    job = WriteJob(
        options=options, schema_json=schema_json, table_config=table_config, plan=plan, overwrite=overwrite,
        streaming=streaming, run_tag=run_tag, creation_time_ms=creation_time_ms, client_config=client_config,
        output_uri=output_uri, stage_uri=stage_uri, stage_is_temporary=stage_is_temporary, snapshot=None,
        started_at=time.time(),
    )
    try:
        job.namer(partition_id=0, batch_tag="q0_b0" if streaming else None)  # validate names before any task
    except SegmentNameError as exc:
        raise ValueError(f"table {options.table_name}: {exc}") from None
    if not streaming:
        job = _with_snapshot(job)
    log.info("pinot_sink: writing %s (%s) with %s", options.table_name, _mode_text(job), options)
    return job


def _run_tag(now: float | None = None) -> str:
    """``r<UTC yyyyMMddHHmmssSSS>``: fixed once per overwrite job on the driver, so task retries reuse names."""
    now = time.time() if now is None else now
    return time.strftime("r%Y%m%d%H%M%S", time.gmtime(now)) + f"{int(now * 1000) % 1000:03d}"


def _with_snapshot(job: WriteJob) -> WriteJob:
    from dataclasses import replace

    before = frozenset(job.store().list())
    if job.run_tag and any(f"_{job.run_tag}_" in name for name in before):
        # An overwrite in the same millisecond as the one that wrote the live segments: take fresh names.
        job = replace(job, run_tag=_run_tag(time.time() + 0.001))
        return _with_snapshot(job)
    return replace(job, snapshot=Snapshot(before=before, pattern=job.name_pattern()))


def _mode_text(job: WriteJob) -> str:
    mode = "overwrite" if job.overwrite else "append"
    if job.client_config is None:
        return f"{mode}, embedded: segments to {job.output_uri}/{job.table}/, no upload"
    return f"{mode}, controller {job.client_config.url}, push-mode {job.options.push_mode}"


# -----------------------------------------------------------------------------------------------------
# One partition, on an executor


def write_partition(job: WriteJob, batches: Iterable, *, partition_id: int, attempt: int = 0,
                    batch_tag: str | None = None, batch_id: int | None = None) -> TaskReport:
    """Convert, buffer, build and deliver one partition's rows; returns its commit message."""
    from type_mapping.convert import ConversionOptions, to_pinot_columns

    from .buffer import PartitionBuffer

    _ensure_log_handler()
    options = job.options
    schema = job.segment_schema()
    namer = job.namer(partition_id=partition_id, batch_tag=batch_tag)
    conversion = ConversionOptions(**options.conversion)
    buffer = PartitionBuffer(options.max_rows, options.max_bytes)
    report = TaskReport(partition_id=partition_id, attempt=attempt, batch_id=batch_id, started_at=time.time())
    work_dir = Path(tempfile.mkdtemp(prefix=f"pinot-sink-{options.table_name}-p{partition_id}-"))
    source_columns = list(dict.fromkeys(job.plan.source_columns))
    # Spark sends 10,000-row batches; converting a few of them at once saves per-call overhead. A group is
    # held to a quarter of max-size (and to max-rows), so memory stays bounded by the flush thresholds.
    group_rows = max(1, min(CONVERT_GROUP_ROWS, options.max_rows))
    group_bytes = max(1, options.max_bytes // 4)
    pending: list = []
    pending_rows = pending_bytes = 0
    segments = _SegmentPipeline(job, schema, namer, report, work_dir)

    def convert_pending() -> None:
        nonlocal pending, pending_rows, pending_bytes
        import pyarrow as pa

        table = pa.Table.from_batches(pending) if len(pending) > 1 else pending[0]
        first = report.input_rows
        try:
            part = to_pinot_columns(table, schema, job.table_config, plan=job.plan, options=conversion,
                                    row_offset=first)
        except Exception as exc:
            raise PinotWriteError(
                f"table {options.table_name}, partition {partition_id}: rows {first}..{first + pending_rows - 1} "
                f"of the partition: {exc}"
            ) from exc
        report.input_rows += pending_rows
        pending, pending_rows, pending_bytes = [], 0, 0
        for rows in buffer.add(part):
            segments.submit(rows)

    try:
        for batch in batches:
            if batch.num_rows == 0:
                continue
            if job.plan.ignored_columns:
                batch = batch.select(source_columns)
            pending.append(batch)
            pending_rows += batch.num_rows
            pending_bytes += batch.nbytes
            if pending_rows >= group_rows or pending_bytes >= group_bytes:
                convert_pending()
        if pending:
            convert_pending()
        rows = buffer.drain()
        if rows is not None:
            segments.submit(rows)
            del rows  # the build thread frees them before delivering
        segments.finish()
    finally:
        segments.close()  # no build may still be writing into work_dir
        shutil.rmtree(work_dir, ignore_errors=True)
    return report


class _SegmentPipeline:
    """Builds and delivers a task's cut segments on one background thread, in order, while the task keeps
    pulling and converting the next Arrow batches (the JVM feeding those is idle time for this core).

    At most one segment is in flight: ``submit`` first waits for the previous one, so a task holds at most
    the rows being built plus the buffer being filled, segment names and sequence ids are given in cut
    order on the task thread, and ``report.segments`` stays in that order. A background failure surfaces
    from the next ``submit`` or from ``finish``, as the same PinotWriteError ``_emit`` raises."""

    def __init__(self, job: WriteJob, schema, namer, report: TaskReport, work_dir: Path) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self._job, self._schema, self._namer, self._report, self._work_dir = job, schema, namer, report, work_dir
        # The build runs beside the conversion, not instead of it, but on the task's cores: more threads
        # would take cores Spark gave to other tasks (TaskContext is read here, on the task thread).
        self._threads = _task_cpus()
        self._executor = ThreadPoolExecutor(max_workers=1,
                                            thread_name_prefix=f"pinot-sink-build-p{report.partition_id}")
        self._in_flight = None

    def submit(self, rows) -> None:
        self.finish()
        report = self._report
        target = _name_segment(self._job, self._namer, rows, report.partition_id, len(report.segments))
        held = [rows]  # handed over so the build thread can free the rows before delivering the tarball
        del rows
        self._in_flight = self._executor.submit(_emit, self._job, self._schema, held, target, report,
                                                self._work_dir, self._threads)

    def finish(self) -> None:
        """Wait for the segment in flight; raises its error."""
        future, self._in_flight = self._in_flight, None
        if future is not None:
            future.result()

    def close(self) -> None:
        """Wait for the build thread to end (its error, if any, is already being raised or superseded)."""
        self._executor.shutdown(wait=True)


def _task_cpus() -> int | None:
    """The cores Spark gave this task (spark.task.cpus): more builder threads would only fight the
    executor's other tasks for them. None outside a Spark task (the builder then uses the usable CPUs)."""
    from pyspark import TaskContext

    context = TaskContext.get()
    return max(1, int(context.cpus())) if context is not None else None


@dataclass(frozen=True)
class _SegmentTarget:
    name: str
    sequence: int
    where: str  # "table T, partition P, segment NAME": the prefix of this segment's errors


def _name_segment(job: WriteJob, namer, rows, partition: int, sequence: int) -> _SegmentTarget:
    """The name of the partition's ``sequence``-th segment (on the task thread, in cut order)."""
    from .naming import SegmentNameError, column_min_max

    options = job.options
    time_column = namer.time_column if namer.uses_time else None
    low, high = column_min_max(rows.table, time_column) if time_column else (None, None)
    try:
        name = namer.name(sequence, low, high)
    except SegmentNameError as exc:
        raise PinotWriteError(
            f"table {options.table_name}, partition {partition}, segment {sequence} of the partition: {exc} "
            f"(time values go into simple names; pick segment-name.type=normalizedDate or fixed)"
        ) from exc
    where = f"table {options.table_name}, partition {partition}, segment {name}"
    if namer.kind == "fixed" and sequence > 0:
        raise PinotWriteError(
            f"{where}: segment-name.type=fixed allows one segment, but partition {partition} needs more "
            f"(raise sink.buffer-flush.max-rows / max-size, or use segment-name.type=simple)"
        )
    return _SegmentTarget(name, sequence, where)


def _emit(job: WriteJob, schema, held: list, target: _SegmentTarget, report: TaskReport, work_dir: Path,
          threads: int | None) -> None:
    """Build one segment from the rows in ``held`` (taken out of it), deliver it, record it, and release
    the memory. Runs on the task's build thread (``_SegmentPipeline``)."""
    from pinot_sink.segment import BuildOptions, build_segment

    options = job.options
    partition = report.partition_id
    sequence, where = target.sequence, target.where
    root = job.delivery_root
    local_root = local_path(table_dir_uri(root, options.table_name)) if root else None
    out_dir = local_root if local_root is not None else work_dir
    build_options = BuildOptions(segment_version=options.segment_version,
                                 sort_by_sorted_column=options.sort_by_sorted_column,
                                 unsupported_indexes=options.unsupported_indexes,
                                 threads=threads)
    rows = held.pop()
    started = time.monotonic()
    try:
        built = build_segment(rows, schema, job.table_config, out_dir, target.name,
                              creation_time_ms=job.creation_time_ms, options=build_options)
    except Exception as exc:
        raise PinotWriteError(f"{where}: build failed: {exc}") from exc
    build_ms = (time.monotonic() - started) * 1000
    del rows  # the buffered rows are no longer needed; free them before the upload

    started = time.monotonic()
    try:
        uri, uploaded = _deliver(job, built, local_root)
    except Exception as exc:
        raise PinotWriteError(f"{where}: delivery failed: {exc}") from exc
    upload_ms = (time.monotonic() - started) * 1000
    if out_dir == work_dir and Path(built.tar_path).exists():
        os.unlink(built.tar_path)
    record = SegmentRecord(name=built.name, rows=built.rows, tar_bytes=built.tar_bytes, crc=built.crc, uri=uri,
                           partition_id=partition, sequence_id=sequence, build_ms=build_ms, upload_ms=upload_ms,
                           uploaded=uploaded)
    report.segments.append(record)
    log.info("pinot_sink: segment %s: partition %d, %d rows, %.2f MB, build %.0f ms, %s %.0f ms", built.name,
             partition, built.rows, built.tar_bytes / 1024**2, build_ms, "upload" if uploaded else "write",
             upload_ms)
    failure = options.test_fail_partition
    if failure and failure[0] == partition and report.attempt == 0 and len(report.segments) == failure[1]:
        raise PinotWriteError(f"{where}: injected failure (test option) on attempt 0")


def _deliver(job: WriteJob, built, local_root: Path | None) -> tuple[str, bool]:
    """Put the built tarball where this job's mode wants it; returns (uri, uploaded to the table)."""
    from pinot_sink.controller import ControllerClient, copy_to_deep_store, push_segment, segment_destination

    options = job.options
    root = job.delivery_root
    uri = None
    if root is not None:
        uri = segment_destination(root, options.table_name, built.name)
        if local_root is None:
            copy_to_deep_store(built.tar_path, uri, segment=built.name)
    if job.client_config is None or job.overwrite:
        return uri, False
    client = ControllerClient.from_config(job.client_config)
    try:
        push_segment(client, options.table_name, built.tar_path, push_mode=options.push_mode,
                     deep_store_uri=job.output_uri if options.push_mode != "tar" else None)
    finally:
        client.close()
    if options.push_mode != "tar":
        uri = segment_destination(job.output_uri, options.table_name, built.name)
    return uri or job.client_config.url, True


# -----------------------------------------------------------------------------------------------------
# Commit and abort, on the driver


def commit_job(job: WriteJob, messages: Sequence[TaskReport | None], *, batch_tag: str | None = None) -> None:
    _ensure_log_handler()
    segments = reported_segments(messages)
    check_unique_names(segments)
    wanted = job.options.parallelism
    if wanted and len(messages) != wanted:
        log.warning("pinot_sink: sink.parallelism=%d, but the DataFrame had %d partitions: a data source cannot "
                    "repartition its input; use pinot_sink.write(df, ...) or df.repartition(%d)", wanted,
                    len(messages), wanted)
    committed = [s.name for s in segments]
    store = job.store()
    if job.overwrite and job.client_config is not None:
        _consistent_push(job, segments)
    elif job.overwrite:
        # Embedded overwrite: the new run-tagged files are in place; drop every file that was there before.
        stale = sorted(set(job.snapshot.before) - set(committed))
        store.delete(stale)
        log.info("pinot_sink: overwrite removed %d earlier segment file(s) from %s", len(stale), store.describe())
    else:
        snapshot = job.snapshot if batch_tag is None else Snapshot(frozenset(), job.name_pattern(batch_tag))
        remove_orphans(store, snapshot, committed)
    # Streaming writers are made once per query, so time the batch from its first task, not the job start.
    starts = [m.started_at for m in messages if m is not None and m.started_at]
    began = min(starts) if batch_tag is not None and starts else job.started_at
    log.info("%s", summary_table(segments, table=job.table, elapsed_s=time.time() - began,
                                 destination=_mode_text(job)))


def _consistent_push(job: WriteJob, segments: Sequence[SegmentRecord]) -> None:
    """Overwrite with a controller: replace the table's live segments by the staged ones, atomically."""
    from pinot_sink.controller import ConsistentPush, ControllerClient

    client = ControllerClient.from_config(job.client_config)
    download_dir = None
    try:
        paths = []
        for segment in segments:
            local = local_path(segment.uri)
            if local is None:  # remote staging: bring the tarball to the driver for the upload
                import fsspec

                download_dir = download_dir or Path(tempfile.mkdtemp(prefix="pinot-sink-push-"))
                local = download_dir / f"{segment.name}.tar.gz"
                fs, remote = fsspec.core.url_to_fs(segment.uri)
                fs.get_file(remote, str(local))
            paths.append(local)
        push = ConsistentPush(client, job.table, segments_to=[s.name for s in segments])
        with push:
            push.upload(paths, push_mode=job.options.push_mode, parallel=job.options.push_parallelism,
                        deep_store_uri=job.output_uri if job.options.push_mode != "tar" else None)
        log.info("pinot_sink: overwrite replaced %d segment(s) by %d (lineage %s)", len(push.segments_from or []),
                 len(segments), push.lineage_id)
        if not job.stage_is_temporary:  # staged leftovers of failed attempts of this run
            stage = SegmentStore(job.table, directory_uri=table_dir_uri(job.stage_uri, job.table))
            remove_orphans(stage, Snapshot(frozenset(), job.name_pattern()), [s.name for s in segments])
    finally:
        client.close()
        if download_dir is not None:
            shutil.rmtree(download_dir, ignore_errors=True)
        if job.stage_is_temporary:
            root = local_path(job.stage_uri)
            if root is not None:
                shutil.rmtree(root, ignore_errors=True)


def abort_job(job: WriteJob, messages: Sequence[TaskReport | None], *, batch_tag: str | None = None) -> None:
    """Leave the table as it was: delete what this write added (overwrite: nothing was published)."""
    _ensure_log_handler()
    if job.overwrite and job.client_config is not None:
        stage = SegmentStore(job.table, directory_uri=table_dir_uri(job.stage_uri, job.table))
        undo_append(stage, Snapshot(frozenset(), job.name_pattern()))
        if job.stage_is_temporary and local_path(job.stage_uri) is not None:
            shutil.rmtree(local_path(job.stage_uri), ignore_errors=True)
        return
    snapshot = job.snapshot if batch_tag is None else Snapshot(frozenset(), job.name_pattern(batch_tag))
    undo_append(job.store(), snapshot)


# -----------------------------------------------------------------------------------------------------
# Spark's classes


def _task_context():
    from pyspark import TaskContext

    return TaskContext.get()


class PinotBatchWriter(DataSourceArrowWriter):
    def __init__(self, job: WriteJob) -> None:
        self.job = job

    def write(self, iterator: Iterator) -> WriterCommitMessage:
        context = _task_context()
        return write_partition(self.job, iterator, partition_id=context.partitionId(),
                               attempt=context.attemptNumber())

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        commit_job(self.job, messages)

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        abort_job(self.job, messages)


def stream_batch_tag(query_id: str | None, batch_id: int) -> str:
    """``q<8 hex of the query id>_b<batch id>``: stable across restarts from the same checkpoint, distinct
    between queries writing the same table."""
    query = (query_id or "").replace("-", "")[:8] or "0"
    return f"q{query}_b{batch_id}"


@dataclass
class StreamTaskReport(TaskReport):
    query_id: str | None = None


class PinotStreamWriter(DataSourceStreamArrowWriter):
    def __init__(self, job: WriteJob) -> None:
        self.job = job

    def write(self, iterator: Iterator) -> WriterCommitMessage:
        context = _task_context()
        raw_batch_id = context.getLocalProperty(BATCH_ID_PROPERTY)
        if raw_batch_id is None:
            raise PinotWriteError("the pinot sink needs micro-batch execution (Spark gave this task no batch id); "
                                  "the continuous trigger is not supported")
        batch_id = int(raw_batch_id)
        query_id = context.getLocalProperty(QUERY_ID_PROPERTY)
        report = write_partition(self.job, iterator, partition_id=context.partitionId(),
                                 attempt=context.attemptNumber(), batch_tag=stream_batch_tag(query_id, batch_id),
                                 batch_id=batch_id)
        return StreamTaskReport(**report.__dict__, query_id=query_id)

    def _batch_tag(self, messages, batch_id: int) -> str | None:
        query_ids = {m.query_id for m in messages if m is not None}
        return stream_batch_tag(query_ids.pop(), batch_id) if len(query_ids) == 1 else None

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        tag = self._batch_tag(messages, batchId)
        if tag is None:
            return  # no task reported: nothing was written
        commit_job(self.job, messages, batch_tag=tag)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        tag = self._batch_tag(messages, batchId)
        if tag is not None:
            abort_job(self.job, messages, batch_tag=tag)


class PinotDataSource(DataSource):
    """``df.write.format("pinot")``. Options: docs/options.md."""

    @classmethod
    def name(cls) -> str:
        return "pinot"

    def writer(self, schema, overwrite: bool) -> PinotBatchWriter:
        if _ARROW_WRITERS_MISSING:
            raise RuntimeError(_ARROW_WRITERS_MISSING)
        return PinotBatchWriter(prepare_job(self.options, schema, overwrite=overwrite, streaming=False))

    def streamWriter(self, schema, overwrite: bool) -> PinotStreamWriter:
        if _ARROW_WRITERS_MISSING:
            raise RuntimeError(_ARROW_WRITERS_MISSING)
        return PinotStreamWriter(prepare_job(self.options, schema, overwrite=overwrite, streaming=True))


class PinotSinkDataSource(PinotDataSource):
    """The same source under ``pinot_sink``, a name no JVM connector claims."""

    @classmethod
    def name(cls) -> str:
        return "pinot_sink"


# -----------------------------------------------------------------------------------------------------
# Convenience entry point that can honour sink.parallelism


def write(df, table_name: str, *, mode: str = "append", **options: Any) -> None:
    """``df.write.format("pinot_sink")`` with ``sink.parallelism`` applied (a data source cannot repartition
    its input, so this helper does it first). Dotted names go in as a dict:
    ``write(df, "events", **{"sink.parallelism": 8, "url": "http://controller:9000"})``."""
    parallelism = options.get("sink.parallelism")
    if parallelism is not None:
        df = df.repartition(int(parallelism))
    writer = df.write.format("pinot_sink").option("table-name", table_name).mode(mode)
    for key, value in options.items():
        writer = writer.option(key, str(value))
    writer.save()
