"""What travels from the tasks to the driver, and what the driver hands back to the caller.

Spark runs the commit on the driver against the pickled writer, so everything a task did must travel in
its report: ``TaskReport`` lists the segments one task attempt staged (``SegmentRecord``). Plain dataclasses,
no Spark types: the Spark 4 data source wraps a report in its commit message class, the ``mapInArrow``
entry point pickles it into a result row. A committed write's manifest holds its ``WriteResult``
(``read_result``): that is how ``pinot_sink.write`` hands a result back from Spark's commit process.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Sequence

from pinot_sink.storage.layout import TASK_ERROR_SUFFIX
from pinot_sink.storage.manifests import WAS_COMMITTED


@dataclass(frozen=True)
class SegmentRecord:
    """One segment a task attempt built and staged."""

    name: str
    rows: int
    tar_bytes: int
    crc: int
    staged_uri: str  # the attempt's own staging folder; the driver publishes from here
    partition_id: int
    sequence_id: int
    build_ms: float
    stage_ms: float
    start_time_ms: int | None = None  # the time column's range in epoch millis (None: no time column)
    end_time_ms: int | None = None
    rows_outside_window: int = 0  # overwrite.time-range: rows outside the window (the commit refuses them)
    first_outside_ms: int | None = None  # the first of them, in the partition's row order
    time_buckets: tuple[int, ...] = ()  # dynamic overwrite: the days/hours (bucket numbers) of its rows
    dir_bytes: int = 0  # the untarred segment's bytes (what Pinot's quota check counts); 0: not known


@dataclass
class TaskReport:
    """The report of one task attempt."""

    partition_id: int
    attempt: int
    segments: list[SegmentRecord] = field(default_factory=list)
    input_rows: int = 0
    filtered_rows: int = 0  # dropped by the table config's filterFunction
    error_rows: int = 0  # rows with values that became defaults under continueOnError
    batch_id: int | None = None  # streaming: the micro-batch
    query_id: str | None = None  # streaming: the query (stable across restarts from one checkpoint)
    # The run the task staged for (streaming: PySpark makes a micro-batch's committing writer apart from its
    # tasks' writer, so the commit learns the run, and where it staged, from here: WriteJob.run_of)
    run_tag: str | None = None
    stage_root: str | None = None
    started_at: float = 0.0  # wall clock (epoch s) when the task began writing

    @property
    def rows(self) -> int:
        return sum(s.rows for s in self.segments)


@dataclass(frozen=True)
class PublishedSegment:
    name: str
    rows: int
    tar_bytes: int
    crc: int
    uri: str | None  # where the tarball lives now (output-uri), None when only the controller holds it
    partition_id: int
    sequence_id: int
    build_ms: float
    upload_ms: float
    start_time_ms: int | None
    end_time_ms: int | None


@dataclass(frozen=True)
class WriteResult:
    """What one committed write did; returned by ``pinot_sink.write`` and logged by the driver."""

    table: str
    mode: str  # append | overwrite
    write_id: str | None
    run_tag: str
    segments: tuple[PublishedSegment, ...]
    replaced: tuple[str, ...]  # segments this write took out of the table (overwrite, or a rerun's old ones)
    lineage_id: str | None
    destination: str
    elapsed_s: float
    commit_s: float
    input_rows: int = 0  # rows the DataFrame gave the committed attempts
    filtered_rows: int = 0  # of which the table config's filter dropped
    deferred_indexes: tuple[str, ...] = ()  # indexes left to the servers, per column, with their cost
    note: str = ""  # commit.note: the user's words about this write (pinot-sink history shows them)

    @property
    def rows(self) -> int:
        return sum(s.rows for s in self.segments)


def committed_segments(reports: Sequence[TaskReport | None]) -> list[SegmentRecord]:
    """The segments of the committed attempts (one report per partition; None for an empty task)."""
    segments = [segment for report in reports if report is not None for segment in report.segments]
    seen: dict[str, int] = {}
    for segment in segments:
        # Two partitions producing one name would replace each other (fixed names across partitions).
        if segment.name in seen:
            raise RuntimeError(
                f"segment name {segment.name!r} was produced by partitions {seen[segment.name]} and "
                f"{segment.partition_id}: with segment-name.type=fixed the job must write exactly one segment "
                f"(write a single partition, e.g. df.coalesce(1), and keep max-rows/max-size above its size)"
            )
        seen[segment.name] = segment.partition_id
    return segments


def read_result(text: str) -> WriteResult:
    """A committed write's ``WriteResult`` from its manifest; raises ValueError for an aborted one."""
    document = json.loads(text)
    if document.get("status") not in WAS_COMMITTED:
        raise ValueError(f"the write to {document.get('table')} was {document.get('status')}")
    fields = {name: document[name] for name in WriteResult.__dataclass_fields__ if name in document}
    fields["segments"] = tuple(PublishedSegment(**segment) for segment in document["segments"])
    fields["replaced"] = tuple(document["replaced"])
    fields["deferred_indexes"] = tuple(document.get("deferred_indexes", ()))
    return WriteResult(**fields)


# A failed task leaves its error, one line, beside the attempt folders of its run's staging folder: the
# abort (in Spark's committer process, which gets no exception, only the reports) says the cause with the
# outcome. The abort removes the staging folder, these files with it. (TASK_ERROR_SUFFIX: storage.layout's, whose
# staging sweep leaves no root for such a note alone.)


def one_line(exc: BaseException) -> str:
    """The error as a user reads it: its message's first line, prefixed with its class when that says more."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def record_task_error(staging_uri: str, partition_id: int, attempt: int, exc: BaseException,
                      storage_options=None) -> None:
    """Best effort: the task's own error is what Spark reports; this only lets the abort name it."""
    from pinot_sink.storage.files import write_text
    from pinot_sink.storage.layout import child_uri

    try:
        write_text(child_uri(staging_uri, f"p{partition_id}_a{attempt}{TASK_ERROR_SUFFIX}"), one_line(exc),
                   storage_options)
    except Exception:  # noqa: BLE001 - never mask the task's error
        pass


def first_task_error(staging_uri: str, storage_options=None) -> str | None:
    """The first recorded task error of a run (by partition and attempt), or None."""
    from pinot_sink.storage.files import list_files, read_text

    try:
        for uri in list_files(staging_uri, TASK_ERROR_SUFFIX, storage_options):
            text = (read_text(uri, storage_options) or "").strip()
            if text:
                return text
    except Exception:  # noqa: BLE001 - the abort's outcome must not depend on reading a note
        return None
    return None
