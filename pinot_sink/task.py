"""One task's work, on an executor: ``write_partition(job, batches, ...) -> TaskReport``.

Arrow batches -> ``type_mapping.convert`` -> ``PartitionBuffer`` -> ``build_segment`` per cut -> the tarball
is *staged* in this task attempt's own folder (``pinot_sink.store``) -> a ``TaskReport`` naming every staged
segment. A task never makes anything visible in the table: the driver, the single committer, publishes
exactly the segments of the attempts Spark committed (``pinot_sink.commit``). So a failed attempt, a
speculative copy that lost, or a straggler still writing after the job ended can never add to or replace
committed data; at worst it leaves files in a staging folder that nobody publishes.

Spark-free: the data source's writer and the ``mapInArrow`` entry point call it with the Spark task's ids.
"""
from __future__ import annotations

import logging
import os
import shutil
import socket
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
import pyarrow as pa

from type_mapping.convert import to_pinot_columns

from pinot_sink.controller import copy_to_deep_store, redact_text
from pinot_sink.segment import build_segment
from pinot_sink.segment.builder import time_values_ms

from .buffer import BucketBuffer, PartitionBuffer
from .job import WriteJob, batch_write_id, ensure_log_handler
from .naming import SegmentNameError, SegmentNamer, column_min_max
from .reports import SegmentRecord, TaskReport
from pinot_sink.controller.deep_store import tarball_uri

from .store import attempt_folder, local_path
from .time_window import bucket_keys, rows_outside

log = logging.getLogger("pinot_sink")

CONVERT_GROUP_ROWS = 65_536  # Arrow rows converted per call
PROGRESS_EVERY_S = 30.0  # a task filling a large buffer says how far it got this often


class PinotWriteError(RuntimeError):
    """A failure while writing one partition; the message names the partition and the segment."""


def write_partition(job: WriteJob, batches: Iterable[pa.RecordBatch], *, partition_id: int, attempt: int = 0,
                    task_attempt_id: int | None = None, query_id: str | None = None, batch_id: int | None = None,
                    threads: int | None = None,
                    on_staged: Callable[[SegmentRecord], None] | None = None) -> TaskReport:
    """Convert, buffer, build and stage one partition's rows; returns its commit message.

    ``task_attempt_id`` (Spark's ``TaskContext.taskAttemptId()``, unique in the application) names the
    attempt's staging folder; without it the attempt number does. Streaming tasks pass ``query_id`` and
    ``batch_id``. ``threads``: the builder's threads (None: the builder's default). ``on_staged`` is
    called after each segment is staged (tests use it to interleave attempts)."""
    ensure_log_handler()
    if job.stage_is_driver_local and socket.gethostname() != job.driver_host:
        raise PinotWriteError(
            f"table {job.table}, partition {partition_id}: this task runs on {socket.gethostname()}, but the "
            f"segments are staged in a temporary folder of the driver's machine ({job.driver_host}); set "
            f"'output-uri' to storage that every executor and the driver can reach (s3://, hdfs://, gs://, a "
            f"shared mount)"
        )
    options = job.options
    batch_write = batch_write_id(query_id, batch_id) if job.streaming else None
    schema = job.segment_schema()
    namer = job.namer(partition_id=partition_id, batch_write_id=batch_write)
    buffer = _buffer(job, schema)
    report = TaskReport(partition_id=partition_id, attempt=attempt, batch_id=batch_id, query_id=query_id,
                        started_at=time.time())
    attempt_id = attempt if task_attempt_id is None else task_attempt_id
    stage_uri = f"{job.staging(batch_write)}/{attempt_folder(partition_id, attempt_id)}"
    work_dir = Path(tempfile.mkdtemp(prefix=f"pinot-sink-{job.table}-p{partition_id}-"))
    source_columns = list(dict.fromkeys(job.plan.source_columns))
    # Spark sends 10,000-row batches; converting a few of them at once saves per-call overhead. A group is
    # held to a quarter of max-size (and to max-rows), so memory stays bounded by the flush thresholds.
    group_rows = max(1, min(CONVERT_GROUP_ROWS, options.buffer.max_rows))
    group_bytes = max(1, options.buffer.max_bytes // 4)
    pending: list = []
    pending_rows = pending_bytes = 0
    segments = _SegmentPipeline(job, schema, namer, report, work_dir, stage_uri, threads, on_staged)
    log.info("pinot_sink: partition %d (attempt %d): buffering, segments cut at %d rows / %.1f MB, staged in %s",
             partition_id, attempt, options.buffer.max_rows, options.buffer.max_bytes / 1024**2,
             redact_text(stage_uri))
    last_progress = time.monotonic()

    def convert_pending() -> None:
        nonlocal pending, pending_rows, pending_bytes, last_progress
        table = pa.Table.from_batches(pending) if len(pending) > 1 else pending[0]
        first = report.input_rows
        if job.pipeline is not None:
            try:
                ingested = job.pipeline.apply(table, first)
            except Exception as exc:
                raise PinotWriteError(f"table {job.table}, partition {partition_id}: ingestion of rows "
                                      f"{first}..{first + pending_rows - 1} of the partition: {exc}") from exc
            report.filtered_rows += ingested.filtered_rows
            report.error_rows += ingested.error_rows
            table = ingested.table
            if job.plan.ignored_columns:
                table = table.select(source_columns)
        try:
            part = to_pinot_columns(table, schema, job.plan, options=options.conversion,
                                    row_offset=first)
        except Exception as exc:
            raise PinotWriteError(
                f"table {job.table}, partition {partition_id}: rows {first}..{first + pending_rows - 1} "
                f"of the partition: {exc}"
            ) from exc
        report.input_rows += pending_rows
        pending, pending_rows, pending_bytes = [], 0, 0
        for rows in buffer.add(part):
            segments.submit(rows)
        if time.monotonic() - last_progress >= PROGRESS_EVERY_S:
            last_progress = time.monotonic()
            log.info("pinot_sink: partition %d: %d rows read, %d segment(s) cut, %d rows (%.1f MB) buffered",
                     partition_id, report.input_rows, len(report.segments), buffer.rows, buffer.nbytes / 1024**2)

    try:
        for batch in batches:
            if batch.num_rows == 0:
                continue
            if job.plan.ignored_columns and job.pipeline is None:
                batch = batch.select(source_columns)
            pending.append(batch)
            pending_rows += batch.num_rows
            pending_bytes += batch.nbytes
            if pending_rows >= group_rows or pending_bytes >= group_bytes:
                convert_pending()
        if pending:
            convert_pending()
        for rows in buffer.drain_all():
            segments.submit(rows)
            del rows  # the build thread frees them before staging
        segments.finish()
        if report.filtered_rows or report.error_rows:
            log.info("pinot_sink: partition %d: the table config's filter dropped %d of %d rows; %d rows had values "
                     "that became defaults (continueOnError)", partition_id, report.filtered_rows,
                     report.input_rows, report.error_rows)
    finally:
        segments.close()  # no build may still be writing into work_dir
        shutil.rmtree(work_dir, ignore_errors=True)
    return report


class _SegmentPipeline:
    """Builds and stages a task's cut segments on one background thread, in order, while the task keeps
    pulling and converting the next Arrow batches (the JVM feeding those is idle time for this core).

    At most one segment is in flight: ``submit`` first waits for the previous one, so a task holds at most
    the rows being built plus the buffer being filled, segment names and sequence ids are given in cut
    order on the task thread, and ``report.segments`` stays in that order. A background failure surfaces
    from the next ``submit`` or from ``finish``."""

    def __init__(self, job: WriteJob, schema, namer: SegmentNamer, report: TaskReport, work_dir: Path,
                 stage_uri: str, threads: int | None, on_staged) -> None:
        self._job, self._schema, self._namer, self._report = job, schema, namer, report
        self._work_dir, self._stage_uri, self._threads, self._on_staged = work_dir, stage_uri, threads, on_staged
        self._executor = ThreadPoolExecutor(max_workers=1,
                                            thread_name_prefix=f"pinot-sink-build-p{report.partition_id}")
        self._in_flight = None

    def submit(self, rows) -> None:
        self.finish()
        report = self._report
        target = _name_segment(self._job, self._namer, rows, report.partition_id, len(report.segments))
        target = replace(target, window=_window_facts(self._job, self._schema, rows))
        held = [rows]  # handed over so the build thread can free the rows before staging the tarball
        del rows
        self._in_flight = self._executor.submit(self._emit, held, target)

    def finish(self) -> None:
        """Wait for the segment in flight; raises its error."""
        future, self._in_flight = self._in_flight, None
        if future is not None:
            future.result()

    def close(self) -> None:
        """Wait for the build thread to end (its error, if any, is already being raised or superseded)."""
        self._executor.shutdown(wait=True)

    def _emit(self, held: list, target: "_SegmentTarget") -> None:
        """Build one segment from the rows in ``held`` (taken out of it), stage it, record it."""
        job, report = self._job, self._report
        local_stage = local_path(self._stage_uri)
        out_dir = Path(local_stage) if local_stage is not None else self._work_dir
        build_options = replace(job.options.build, threads=self._threads)
        rows = held.pop()
        started = time.monotonic()
        try:
            built = build_segment(rows, self._schema, job.table_config, out_dir, target.name,
                                  creation_time_ms=job.creation_time_ms, options=build_options)
        except Exception as exc:
            raise PinotWriteError(f"{target.where}: build failed: {exc}") from exc
        build_ms = (time.monotonic() - started) * 1000
        del rows  # the buffered rows are no longer needed; free them before staging

        started = time.monotonic()
        if local_stage is not None:
            staged = Path(built.tar_path).resolve().as_uri()
        else:
            staged = tarball_uri(self._stage_uri, built.name)
            try:
                copy_to_deep_store(built.tar_path, staged, options=job.storage_options, segment=built.name,
                                   table=job.table)
            except Exception as exc:
                raise PinotWriteError(
                    f"{target.where}: staging to {redact_text(self._stage_uri)} failed: {exc}") from exc
            finally:
                os.unlink(built.tar_path)
        stage_ms = (time.monotonic() - started) * 1000
        record = SegmentRecord(
            name=built.name, rows=built.rows, tar_bytes=built.tar_bytes, crc=built.crc, staged_uri=staged,
            partition_id=report.partition_id, sequence_id=target.sequence, build_ms=build_ms, stage_ms=stage_ms,
            start_time_ms=_millis(built, built.start_time), end_time_ms=_millis(built, built.end_time),
            **target.window,
        )
        report.segments.append(record)
        log.info("pinot_sink: segment %s: partition %d, %d rows, %.2f MB, build %.0f ms, staged in %.0f ms",
                 built.name, report.partition_id, built.rows, built.tar_bytes / 1024**2, build_ms, stage_ms)
        if self._on_staged is not None:
            self._on_staged(record)


def _millis(built, value) -> int | None:
    """A segment's start/end time in epoch millis (what Pinot's ZK metadata holds), None without time."""
    if value is None or built.time_unit is None:
        return None
    from type_mapping.datetime_formats import UNIT_MILLIS

    return int(value) * UNIT_MILLIS[built.time_unit]


@dataclass(frozen=True)
class _SegmentTarget:
    name: str
    sequence: int
    where: str  # "table T, partition P, segment NAME": the prefix of this segment's errors
    window: dict = field(default_factory=dict)  # SegmentRecord's window fields (_window_facts)


def _buffer(job: WriteJob, schema) -> PartitionBuffer | BucketBuffer:
    """The task's buffer: one per time bucket with sink.time-bucket, else one for the partition."""
    limits, plan = job.options.buffer, job.window
    if plan is None or plan.cut_bucket_ms is None:
        return PartitionBuffer(limits.max_rows, limits.max_bytes)
    spec = schema[plan.time_column]
    return BucketBuffer(limits.max_rows, limits.max_bytes,
                        lambda part: bucket_keys(time_values_ms(part.table.column(spec.name), spec),
                                                 plan.cut_bucket_ms))


def _window_facts(job: WriteJob, schema, rows) -> dict:
    """What the commit needs to check a window overwrite: rows outside the window, or the buckets present."""
    plan = job.window
    if plan is None or not plan.replaces_by_time or rows.num_rows == 0:
        return {}
    spec = schema[plan.time_column]
    millis = time_values_ms(rows.table.column(spec.name), spec)
    if plan.window is not None:
        outside, first = rows_outside(millis, plan.window)
        return {"rows_outside_window": outside, "first_outside_ms": first}
    return {"time_buckets": tuple(int(k) for k in np.unique(bucket_keys(millis, plan.dynamic_bucket_ms)))}


def _name_segment(job: WriteJob, namer: SegmentNamer, rows, partition: int, sequence: int) -> _SegmentTarget:
    """The name of the partition's ``sequence``-th segment (on the task thread, in cut order)."""
    time_column = namer.time_column if namer.uses_time else None
    low, high = column_min_max(rows.table, time_column) if time_column else (None, None)
    try:
        name = namer.name(sequence, low, high)
    except SegmentNameError as exc:
        raise PinotWriteError(
            f"table {job.table}, partition {partition}, segment {sequence} of the partition: {exc} "
            f"(time values go into simple names; pick segment-name.type=normalizedDate or fixed)"
        ) from exc
    where = f"table {job.table}, partition {partition}, segment {name}"
    if namer.kind == "fixed" and sequence > 0:
        raise PinotWriteError(
            f"{where}: segment-name.type=fixed allows one segment, but partition {partition} needs more "
            f"(raise sink.buffer-flush.max-rows / max-size, or use segment-name.type=simple)"
        )
    return _SegmentTarget(name, sequence, where)
