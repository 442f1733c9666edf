"""One writer of segments from a stream of Arrow batches: ingest -> convert -> buffer -> build -> stage.

``PartitionWriter.write(batches)`` runs the table config's ingestion steps (``pinot_sink.ingestion``),
converts to Pinot's stored form (``type_mapping.convert``), buffers (a ``Buffer``: one for the partition,
or one per time bucket), names each cut segment (``pinot_sink.naming``: Pinot's generators, Java's value
formatting, Pinot's name rules), builds it (``pinot_sink.segment.build_segment``) and stages it (a
``SegmentStage``: a task's staging folder, or the CLI's output folder). The Spark task
(``pinot_sink.task.write_partition``) and ``pinot-sink build`` both drive it, so a segment built from the
same rows with the same options is the same segment whichever way it was made.

With more than one builder thread (the CLI; a task with several cores), builds run on one background
thread, one segment in flight, while the caller keeps pulling and converting the next batches; at most the
rows being built plus the buffer being filled are held. A background failure surfaces from the next cut or
from the end of ``write``. With one (a Spark task on one core, ``spark.task.cpus=1``) each segment is built
on the caller's thread as it is cut: the overlap would only have the conversion and the build share the one
core, and one thread allocates from one glibc heap, where two threads' heaps each stay resident at their own
high-water mark (docs/performance.md, "Task memory": 32mb 106-113 -> 92-94 MB). Segment names and sequence
ids are given in cut order on the caller's thread either way.

Progress: a log line every ``progress_every_s`` seconds, and an optional ``progress`` callback (a CLI's
progress bar) called with a ``Progress`` after each converted group of batches and after each staged segment.
"""
from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol

import pyarrow as pa

from type_mapping.convert import ConversionOptions, to_pinot_columns
from type_mapping.pinot_schema import PinotSchema
from type_mapping.reconcile import WritePlan
from type_mapping.stored import PinotColumns
from type_mapping.table_config import TableConfig

from pinot_sink.segment import BuildOptions, build_segment
from pinot_sink.segment.builder import BuiltSegment
from pinot_sink.segment.spill import Spill

from . import allocator
from .buffer import Buffer, PartitionBuffer
from .naming import SegmentNameError, SegmentNamer, column_min_max
from type_mapping.errors import PinotSinkError

log = logging.getLogger("pinot_sink")

CONVERT_GROUP_ROWS = 65_536  # Arrow rows converted per call
PROGRESS_EVERY_S = 30.0  # a writer filling a large buffer says how far it got this often


class PinotWriteError(PinotSinkError, RuntimeError):
    """A failure while writing one partition; the message names the partition and the segment."""


@dataclass(frozen=True)
class Progress:
    """How far a writer got: rows read, segments built and staged, their tarball bytes, rows buffered."""

    rows_in: int
    segments_built: int
    bytes_built: int
    rows_buffered: int = 0


@dataclass(frozen=True)
class StagedSegment:
    """One segment built and staged: what the driver of the writer records."""

    built: BuiltSegment
    staged_uri: str
    sequence: int
    build_ms: float
    stage_ms: float
    facts: dict = field(default_factory=dict)  # the caller's per-segment facts (segment_facts(rows))


class SegmentStage(Protocol):
    """Where built tarballs go: ``build_dir`` is where the builder writes; ``stage`` moves a built segment
    to its staged place and returns where it is now."""

    build_dir: Path

    def stage(self, built: BuiltSegment) -> str: ...


RowRules = Callable[[pa.Schema], "tuple[Any, WritePlan]"]
"""An input schema -> (its ingestion pipeline or None, its write plan)."""


@dataclass(frozen=True)
class SegmentSpec:
    """What every segment of the writer shares: schema, table config, build options, names."""

    schema: PinotSchema
    table_config: TableConfig
    build: BuildOptions
    creation_time_ms: int | None
    namer: SegmentNamer
    # The name of the only segment when the input makes one; with more, the namer names them all (the
    # CLI's --name). The first cut then waits until the next cut or the end says which.
    single_name: str | None = None
    name_hint: str = ""  # appended to a naming error: what the user can change
    # the one partition id a segment's rows hold, for names that carry it (UploadedRealtimeSegmentName)
    partition_of: Callable[[PinotColumns], int] | None = None


class PartitionWriter:
    """Writes one partition (one CLI run) of rows as segments. ``where`` prefixes every error ("table T,
    partition P"); ``rows_of`` names what the row numbers count ("the partition", "the input")."""

    def __init__(self, spec: SegmentSpec, *, rules: RowRules, conversion: ConversionOptions, buffer: Buffer,
                 stage: SegmentStage, where: str, rows_of: str = "the partition", max_bytes: int,
                 threads: int | None = None, segment_facts: Callable[[PinotColumns], dict] | None = None,
                 on_segment: Callable[[StagedSegment], None] | None = None,
                 progress: Callable[[Progress], None] | None = None,
                 progress_every_s: float = PROGRESS_EVERY_S, select_columns: list[str] | None = None,
                 instant_ms: int | None = None) -> None:
        self.spec, self._rules, self._conversion, self.buffer = spec, rules, conversion, buffer
        self._instant_ms = instant_ms  # the write's own instant: what now() / ago() give in every row
        self._stage, self.where, self._rows_of = stage, where, rows_of
        # The writer is done with a cut's rows once they are built: the builder lets go of each column's rows
        # as it builds it (release_input) and writes each column's indexes to the spill file (one for all the
        # writer's segments, made by the first build): a segment in flight holds the rows still to build and
        # one column's working arrays, not the indexes built so far (docs/performance.md, "Task memory").
        self._build_options = replace(spec.build, release_input=True,
                                      **({"threads": threads} if threads is not None else {}))
        self._spill: Spill | None = None
        self._segment_facts, self._on_segment = segment_facts, on_segment
        self._progress, self.progress_every_s = progress, progress_every_s
        self._select = select_columns  # columns the plan maps, when the input has others to leave out
        # Spark sends 10,000-row batches; converting a few at once saves per-call overhead (~1 ms a call). A
        # group is held to a sixteenth of max-size in input bytes (and to the buffer's max-rows): its batches,
        # table and converted part are held at once beside the buffer and a build, and at small max-sizes a
        # quarter was ~10 MB of the task's peak (16mb: 67 -> 55-60 MB; docs/performance.md, "Task memory").
        # From ~64mb up the row limit binds instead; below, the extra calls cost ~0.03 CPU-s per million rows.
        self._group_rows = max(1, min(CONVERT_GROUP_ROWS, getattr(buffer, "max_rows", CONVERT_GROUP_ROWS)))
        self._group_bytes = max(1, max_bytes // 16)
        # A segment builds on the build thread while the next buffer fills, but only up to half of max-size:
        # then the writer waits for it, so the buffer and a build's rows, indexes and working arrays never
        # all peak at once (docs/data-source.md, "Memory"). The overlap only ever pays where a core is idle.
        self._overlap_bytes = max(1, max_bytes // 2)
        # The converted parts leave their null rows' defaults to the builder (written as dictIds there,
        # type_mapping.stored): a part's bytes still count them. Not for a BucketBuffer, whose keys read
        # the rows and whose selections of rows would only have an estimate of those bytes.
        self._defer_defaults = isinstance(buffer, PartitionBuffer)
        self.rows_in = self.filtered_rows = self.error_rows = 0
        self.segments: list[StagedSegment] = []
        self.bytes_built = 0
        self._plans: dict[pa.Schema, tuple[Any, WritePlan]] = {}
        self._held: PinotColumns | None = None  # single_name: the first cut, until we know if it is alone
        self._cuts = 0
        self._lock = threading.Lock()
        allocator.settle()  # Arrow and numpy on one heap (pinot_sink.allocator)
        # One builder thread: build on the caller's thread, one heap (module docstring); else in the background.
        self._executor = None if self._build_options.threads == 1 else \
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="pinot-sink-build")
        self._in_flight = None
        self._last_log = time.monotonic()
        self._buffered_rows = 0  # the buffer's rows, read on the writer's thread only (the build thread reports)

    # -- the loop ------------------------------------------------------------------------------------

    def write(self, batches: Iterable[pa.RecordBatch]) -> list[StagedSegment]:
        """Every batch through to staged segments; returns them in cut order."""
        try:
            pending: list[pa.RecordBatch] = []
            rows = nbytes = 0
            for batch in batches:
                if batch.num_rows == 0:
                    continue
                if pending and batch.schema != pending[0].schema:  # files of one CLI run may differ
                    self._convert(pending, rows)
                    pending, rows, nbytes = [], 0, 0
                pending.append(batch)
                rows += batch.num_rows
                nbytes += batch.nbytes
                del batch  # pending holds it, until _convert lets go of the group
                if rows >= self._group_rows or nbytes >= self._group_bytes:
                    self._convert(pending, rows)
                    pending, rows, nbytes = [], 0, 0
            if pending:
                self._convert(pending, rows)
                del pending
            for cut in self.buffer.drain_all():
                self._cut(cut)
                del cut  # the build thread frees the rows before staging
            with self._lock:
                self._buffered_rows = 0
            if self._held is not None:  # the input made one segment: it gets the single name
                held, self._held = self._held, None
                self._submit(held, self.spec.single_name)
            self._wait()
        finally:
            if self._executor is not None:
                self._executor.shutdown(wait=True)  # no build may still be writing when the caller cleans up
            if self._spill is not None:
                self._spill.close()
                self._spill = None
        return self.segments

    def progress(self) -> Progress:
        with self._lock:
            return Progress(self.rows_in, len(self.segments), self.bytes_built, self._buffered_rows)

    def _convert(self, batches: list[pa.RecordBatch], rows: int) -> None:
        table = pa.Table.from_batches(batches) if len(batches) > 1 else batches[0]
        batches.clear()  # the caller's list: the input goes with the table, before a cut is built on this thread
        first = self.rows_in
        span = f"{first}..{first + rows - 1}"
        pipeline, plan = self._plan(table.schema)
        if pipeline is not None:
            try:
                ingested = pipeline.apply(table, first, instant_ms=self._instant_ms)
            except Exception as exc:
                raise PinotWriteError(f"{self.where}: ingestion of rows {span} of {self._rows_of}: {exc}") from exc
            self.filtered_rows += ingested.filtered_rows
            self.error_rows += ingested.error_rows
            table = ingested.table
            del ingested
        if self._select is not None:
            table = table.select(self._select)
        try:
            part = to_pinot_columns(table, self.spec.schema, plan, options=self._conversion, row_offset=first,
                                    defer_defaults=self._defer_defaults)
        except Exception as exc:
            raise PinotWriteError(f"{self.where}: rows {span} of {self._rows_of}: {exc}") from exc
        with self._lock:
            self.rows_in += rows
        del table
        if self._in_flight is not None and self.buffer.nbytes + part.nbytes > self._overlap_bytes:
            self._wait()  # the next buffer fills past half of max-size only once the segment in flight is built
        for cut in self.buffer.add(part):
            self._cut(cut)
        with self._lock:
            self._buffered_rows = self.buffer.rows
        self._report_progress()

    def _plan(self, schema: pa.Schema) -> tuple[Any, WritePlan]:
        found = self._plans.get(schema)
        if found is None:
            found = self._plans[schema] = self._rules(schema)
        return found

    def _report_progress(self) -> None:
        if self._progress is not None:
            self._progress(self.progress())
        if time.monotonic() - self._last_log >= self.progress_every_s:
            self._last_log = time.monotonic()
            log.info("pinot_sink: %s: %d rows read, %d segment(s) cut, %d rows (%.1f MB) buffered", self.where,
                     self.rows_in, self._cuts, self._buffered_rows, self.buffer.nbytes / 1024**2)

    # -- segments ------------------------------------------------------------------------------------

    def _cut(self, rows: PinotColumns) -> None:
        if self.spec.single_name is not None and self._cuts == 0 and self._held is None:
            self._held = rows  # alone or first of several: the next cut (or the end) tells
            return
        if self._held is not None:
            held, self._held = self._held, None
            self._submit(held, None)
        self._submit(rows, None)

    def _submit(self, rows: PinotColumns, name: str | None) -> None:
        self._wait()
        sequence = self._cuts
        self._cuts += 1
        name = name or self._name(rows, sequence)
        where = f"{self.where}, segment {name}"
        facts = self._segment_facts(rows) if self._segment_facts is not None else {}
        held = [rows]  # handed over so the build can free the rows before staging the tarball
        del rows
        if self._executor is None:
            self._emit(held, name, sequence, where, facts)
        else:
            self._in_flight = self._executor.submit(self._emit, held, name, sequence, where, facts)

    def _wait(self) -> None:
        """Wait for the segment in flight; raises its error."""
        future, self._in_flight = self._in_flight, None
        if future is not None:
            future.result()

    def _name(self, rows: PinotColumns, sequence: int) -> str:
        namer = self.spec.namer
        time_column = namer.time_column if namer.uses_time else None
        low, high = column_min_max(rows.table, time_column) if time_column else (None, None)
        try:
            partition = self.spec.partition_of(rows) if self.spec.partition_of is not None else None
            name = namer.name(sequence, low, high, partition=partition)
        except SegmentNameError as exc:
            raise PinotWriteError(f"{self.where}, segment {sequence} of {self._rows_of}: {exc}"
                                  f"{self.spec.name_hint}") from exc
        if namer.kind == "fixed" and sequence > 0:
            raise PinotWriteError(
                f"{self.where}, segment {name}: segment-name.type=fixed allows one segment, but "
                f"{self._rows_of} needs more (raise sink.buffer-flush.max-rows / max-size, or use "
                f"segment-name.type=simple)")
        return name

    def _emit(self, held: list, name: str, sequence: int, where: str, facts: dict) -> None:
        """Build one segment from the rows in ``held`` (taken out of it), stage it, record it."""
        spec = self.spec
        rows = held.pop()
        started = time.monotonic()
        try:
            if self._spill is None:
                self._spill = Spill(self._stage.build_dir)
            built = build_segment(rows, spec.schema, spec.table_config, self._stage.build_dir, name,
                                  creation_time_ms=spec.creation_time_ms, options=self._build_options,
                                  spill=self._spill)
        except Exception as exc:
            raise PinotWriteError(f"{where}: build failed: {exc}") from exc
        build_ms = (time.monotonic() - started) * 1000
        del rows  # the buffered rows are no longer needed; free them before staging
        started = time.monotonic()
        try:
            staged = self._stage.stage(built)
        except PinotWriteError:
            raise
        except Exception as exc:
            raise PinotWriteError(f"{where}: staging failed: {exc}") from exc
        segment = StagedSegment(built, staged, sequence, build_ms, (time.monotonic() - started) * 1000, facts)
        with self._lock:
            self.segments.append(segment)
            self.bytes_built += built.tar_bytes
        if self._on_segment is not None:
            self._on_segment(segment)
        if self._progress is not None:
            self._progress(self.progress())
