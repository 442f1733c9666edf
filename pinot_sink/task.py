"""One task's work, on an executor: ``write_partition(job, batches, ...) -> TaskReport``.

Arrow batches -> ``PartitionWriter`` (ingest, convert, buffer, build: ``pinot_sink.partition_writer``, the
loop ``pinot-sink build`` drives too) -> each tarball is *staged* in this task attempt's own folder
(``pinot_sink.storage.staging``) -> a ``TaskReport`` naming every staged segment. A task never makes anything
visible in the table: the driver, the single committer, publishes exactly the segments of the attempts Spark committed (``pinot_sink.commit``). So a failed attempt, a
speculative copy that lost, or a straggler still writing after the job ended can never add to or replace
committed data; at worst it leaves files in a staging folder that nobody publishes.

Spark-free: the data source's writer and the ``mapInArrow`` entry point call it with the Spark task's ids.
"""
from __future__ import annotations

import logging
import shutil
import socket
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
import pyarrow as pa

from type_mapping.convert import to_pinot_columns
from type_mapping.datetime_formats import stored_to_millis
from type_mapping.stored import PinotColumns

from pinot_sink.controller.auth import redact_text
from pinot_sink.segment.builder import time_values_ms
from pinot_sink.storage.files import remove_tree
from pinot_sink.storage.staging import AttemptStage

from .buffer import BucketBuffer, Buffer, PartitionBuffer
from .job import WriteJob, ensure_log_handler
from .partition_writer import (PROGRESS_EVERY_S, PartitionWriter, PinotWriteError, Progress, SegmentSpec,
                               StagedSegment)
from .reports import SegmentRecord, TaskReport, record_task_error
from .partitioning import SegmentKeys, SinglePartition, partition_id_arrays, partitioned_columns
from .time_window import bucket_keys, rows_outside

log = logging.getLogger("pinot_sink")

def write_partition(job: WriteJob, batches: Iterable[pa.RecordBatch], *, partition_id: int, attempt: int = 0,
                    task_attempt_id: int | None = None, query_id: str | None = None, batch_id: int | None = None,
                    threads: int | None = None,
                    on_staged: Callable[[SegmentRecord], None] | None = None,
                    progress: Callable[[Progress], None] | None = None,
                    progress_every_s: float = PROGRESS_EVERY_S) -> TaskReport:
    """Convert, buffer, build and stage one partition's rows; returns its commit message.

    ``task_attempt_id`` (Spark's ``TaskContext.taskAttemptId()``, unique in the application) names the
    attempt's staging folder; without it the attempt number does. Streaming tasks pass ``query_id`` and
    ``batch_id``. ``threads``: the builder's threads (None: the builder's default). ``on_staged`` is
    called after each segment is staged (tests use it to interleave attempts); ``progress`` and
    ``progress_every_s`` as ``PartitionWriter`` takes them."""
    ensure_log_handler()
    if job.stage_is_driver_local and socket.gethostname() != job.driver_host:
        raise PinotWriteError(
            f"table {job.table}, partition {partition_id}: this task runs on {socket.gethostname()}, but the "
            f"segments are staged in a temporary folder of the driver's machine ({job.driver_host}); set "
            f"'output-uri' to storage that every executor and the driver can reach (s3://, hdfs://, gs://, a "
            f"shared mount)"
        )
    options = job.options
    run = job.run_of(query_id, batch_id)
    schema = job.segment_schema()
    report = TaskReport(partition_id=partition_id, attempt=attempt, batch_id=batch_id, query_id=query_id,
                        started_at=time.time(), run_tag=run.run_tag, stage_root=run.stage_root)
    attempt_id = attempt if task_attempt_id is None else task_attempt_id
    stage_uri = run.attempt_staging(partition_id, attempt_id)
    work_dir = Path(tempfile.mkdtemp(prefix=f"pinot-sink-{job.table[:64]}-p{partition_id}-"))
    spec = SegmentSpec(schema, job.table_config, options.build, job.creation_time_ms,
                       job.namer(run, partition_id=partition_id),
                       name_hint=" (time values go into simple names; pick segment-name.type=normalizedDate or fixed)",
                       partition_of=_partition_of(job, schema))

    def record(segment: StagedSegment) -> None:
        built = segment.built
        staged = SegmentRecord(
            name=built.name, rows=built.rows, tar_bytes=built.tar_bytes, dir_bytes=built.dir_bytes, crc=built.crc,
            staged_uri=segment.staged_uri,
            partition_id=partition_id, sequence_id=segment.sequence, build_ms=segment.build_ms,
            stage_ms=segment.stage_ms, start_time_ms=_millis(built, built.start_time),
            end_time_ms=_millis(built, built.end_time), **segment.facts,
        )
        report.segments.append(staged)
        log.info("pinot_sink: segment %s: partition %d, %d rows, %.2f MB, build %.0f ms, staged in %.0f ms",
                 built.name, partition_id, built.rows, built.tar_bytes / 1024**2, segment.build_ms, segment.stage_ms)
        if on_staged is not None:
            on_staged(staged)

    plan = (job.pipeline, job.plan)
    where = f"table {job.table}, partition {partition_id}"
    writer = PartitionWriter(
        spec, rules=lambda _schema: plan, conversion=options.conversion, buffer=_buffer(job, schema),
        stage=_TaskStage(job, stage_uri, work_dir, where), where=where,
        max_bytes=options.buffer.max_bytes, threads=threads, segment_facts=lambda rows: _window_facts(job, schema, rows),
        on_segment=record, progress=progress, progress_every_s=progress_every_s,
        select_columns=list(dict.fromkeys(job.plan.source_columns)) if job.plan.ignored_columns else None,
        instant_ms=run.instant_ms,
    )
    log.info("pinot_sink: partition %d (attempt %d): buffering, segments cut at %d rows / %.1f MB, staged in %s",
             partition_id, attempt, options.buffer.max_rows, options.buffer.max_bytes / 1024**2,
             redact_text(stage_uri))
    try:
        writer.write(batches)
    except Exception as exc:
        record_task_error(run.staging, partition_id, attempt_id, exc, job.storage_options)
        # This attempt's tarballs: no report names them, so no commit takes them, and an abort may not learn
        # where they are (a streaming micro-batch whose every task failed: WriteJob.run_of).
        remove_tree(stage_uri, job.storage_options)
        raise
    finally:
        report.input_rows, report.filtered_rows, report.error_rows = (writer.rows_in, writer.filtered_rows,
                                                                      writer.error_rows)
        shutil.rmtree(work_dir, ignore_errors=True)
    if report.filtered_rows or report.error_rows:
        log.info("pinot_sink: partition %d: the table config's filter dropped %d of %d rows; %d rows had values "
                 "that became defaults (continueOnError)", partition_id, report.filtered_rows,
                 report.input_rows, report.error_rows)
    return report


class _TaskStage(AttemptStage):
    """The task attempt's staging folder; a failed copy names the partition and the segment."""

    def __init__(self, job: WriteJob, stage_uri: str, work_dir: Path, where: str) -> None:
        super().__init__(stage_uri, work_dir, table=job.table, storage_options=job.storage_options)
        self._where = where

    def stage(self, built) -> str:
        try:
            return super().stage(built)
        except Exception as exc:
            raise PinotWriteError(f"{self._where}, segment {built.name}: staging to "
                                  f"{redact_text(self.stage_uri)} failed: {exc}") from exc


def _millis(built, value) -> int | None:
    """A segment's start/end time in epoch millis (what Pinot's ZK metadata holds), None without time."""
    if value is None or built.time_unit is None:
        return None
    return stored_to_millis(value, built.time_unit)


def _bucket(job: WriteJob, schema) -> Callable[[PinotColumns], np.ndarray] | None:
    """Each stored row's ``sink.time-bucket`` key (None without the option)."""
    plan = job.window
    if plan is None or plan.cut_bucket_ms is None:
        return None
    spec = schema[plan.time_column]
    return lambda part: bucket_keys(time_values_ms(part.table.column(spec.name), spec), plan.cut_bucket_ms)


def segment_keys_of_input(job: WriteJob) -> tuple[int, Callable[[pa.RecordBatch], list[np.ndarray]]] | None:
    """For clustering before the write, when the table config's ingestion steps make the values the keys are
    of: (how many keys, input batch -> each row's time bucket (with ``sink.time-bucket``) and partition id of every
    ``segmentPartitionConfig`` column, from the stored values as a task computes them). The filter is left out
    and failing rows give nulls (``continueOnError``), so there is one key per input row; the task then drops,
    or names, those rows in its own words. None when there is nothing to cluster by, or when the complex-type
    step unnests (one input row may become rows of several segments)."""
    schema = job.segment_schema()
    bucket, partitioned = _bucket(job, schema), partitioned_columns(job.table_config, schema)
    pipeline = job.pipeline
    if (bucket is None and not partitioned) or (pipeline is not None and pipeline.complex_types is not None):
        return None
    if pipeline is not None:
        pipeline = replace(pipeline, filter=None, continue_on_error=True)
    select = list(dict.fromkeys(job.plan.source_columns)) if job.plan.ignored_columns else None

    def keys(batch: pa.RecordBatch) -> list[np.ndarray]:
        table = (pipeline.apply(batch, instant_ms=job.run.instant_ms).table if pipeline is not None
                 else pa.Table.from_batches([batch]))
        rows = to_pinot_columns(table.select(select) if select else table, schema, job.plan,
                                options=job.options.conversion)
        parts = [np.asarray(bucket(rows), dtype=np.int64)] if bucket is not None else []
        return parts + partition_id_arrays(rows, job.table_config, schema, partitioned)

    return (bucket is not None) + len(partitioned), keys


def _buffer(job: WriteJob, schema) -> Buffer:
    """The task's buffer: one per time bucket with sink.time-bucket and per partition id when the table
    config partitions segments (pinot_sink.partitioning), else one for the partition."""
    limits = job.options.buffer
    partitioned = partitioned_columns(job.table_config, schema)
    bucket = _bucket(job, schema)
    if partitioned:
        return BucketBuffer(limits.max_rows, limits.max_bytes,
                            SegmentKeys(job.table_config, schema, partitioned, bucket))
    if bucket is not None:
        return BucketBuffer(limits.max_rows, limits.max_bytes, bucket)
    return PartitionBuffer(limits.max_rows, limits.max_bytes)


def _partition_of(job: WriteJob, schema) -> SinglePartition | None:
    """Uploaded real-time names carry the segment's partition id (``pinot_sink.primary_keys``)."""
    keys = job.primary_keys
    return SinglePartition(job.table_config, schema, keys.partition_column) if keys and keys.realtime else None


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
