"""What tasks report to the driver, the driver's summary, and the undo of a failed write.

Spark runs ``commit``/``abort`` on the driver against the pickled writer, so everything a task did must
travel in its commit message: ``TaskReport`` lists the task's segments (``SegmentRecord``: name, rows, bytes,
CRC, where it went, timings). The driver turns the reports into a summary table and decides what to undo.

Undo is name-based: before any task runs the driver records which segments already existed
(``Snapshot``); abort deletes the segments this job could have produced (``job_name_pattern``) that did
not exist before. Tasks that failed report nothing, so the listing, not the messages, is what abort trusts.
"""
from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from pyspark.sql.datasource import WriterCommitMessage

log = logging.getLogger("pinot_sink")

TAR_SUFFIX = ".tar.gz"


@dataclass(frozen=True)
class SegmentRecord:
    """One segment a task built and delivered."""

    name: str
    rows: int
    tar_bytes: int
    crc: int
    uri: str  # where the tarball went (output-uri or staging), or the controller for a tar push
    partition_id: int
    sequence_id: int
    build_ms: float
    upload_ms: float
    uploaded: bool  # already in the table (append with a controller)


@dataclass
class TaskReport(WriterCommitMessage):
    """The commit message of one task attempt."""

    partition_id: int
    attempt: int
    segments: list[SegmentRecord] = field(default_factory=list)
    input_rows: int = 0
    batch_id: int | None = None
    started_at: float = 0.0  # wall clock (epoch s) when the task began writing


    @property
    def rows(self) -> int:
        return sum(s.rows for s in self.segments)


def reported_segments(messages: Sequence[TaskReport | None]) -> list[SegmentRecord]:
    return [segment for message in messages if message is not None for segment in message.segments]


def check_unique_names(segments: Sequence[SegmentRecord]) -> None:
    """Two tasks producing one name would silently overwrite each other (fixed names across partitions)."""
    seen: dict[str, int] = {}
    for segment in segments:
        if segment.name in seen:
            raise RuntimeError(
                f"segment name {segment.name!r} was produced by partitions {seen[segment.name]} and "
                f"{segment.partition_id}: with segment-name.type=fixed the job must write exactly one segment "
                f"(write a single partition, e.g. df.coalesce(1), and keep max-rows/max-size above its size)"
            )
        seen[segment.name] = segment.partition_id


def _mb(nbytes: float) -> str:
    return f"{nbytes / 1024**2:.2f}"


def summary_table(segments: Sequence[SegmentRecord], *, table: str, elapsed_s: float, destination: str,
                  max_lines: int = 50) -> str:
    """A fixed-width table of the segments and a total line, for the driver log."""
    header = f"{'segment':<60} {'part':>5} {'rows':>10} {'MB':>9} {'build ms':>9} {'upload ms':>9}"
    lines = [f"pinot_sink: wrote {len(segments)} segment(s) into {table} ({destination})", header,
             "-" * len(header)]
    ordered = sorted(segments, key=lambda s: (s.partition_id, s.sequence_id))
    for segment in ordered[:max_lines]:
        lines.append(
            f"{segment.name:<60} {segment.partition_id:>5} {segment.rows:>10} {_mb(segment.tar_bytes):>9} "
            f"{segment.build_ms:>9.0f} {segment.upload_ms:>9.0f}"
        )
    if len(ordered) > max_lines:
        lines.append(f"... and {len(ordered) - max_lines} more")
    rows = sum(s.rows for s in segments)
    nbytes = sum(s.tar_bytes for s in segments)
    rate = rows / elapsed_s if elapsed_s > 0 else 0.0
    lines.append("-" * len(header))
    lines.append(
        f"total: {len(segments)} segments, {rows} rows, {_mb(nbytes)} MB, {elapsed_s:.1f}s ({rate:,.0f} rows/s)"
    )
    return "\n".join(lines)


# -----------------------------------------------------------------------------------------------------
# Where segments live, for listing and deleting on the driver


@dataclass(frozen=True)
class SegmentStore:
    """A place holding segments by name: a controller table, or a directory of ``<name>.tar.gz``."""

    table: str
    client_config: object | None = None  # pinot_sink.controller.ClientConfig
    directory_uri: str | None = None  # <output-uri>/<table>

    def _client(self):
        from pinot_sink.controller import ControllerClient

        return ControllerClient.from_config(self.client_config)

    def _fs(self):
        import fsspec

        return fsspec.core.url_to_fs(self.directory_uri)

    def describe(self) -> str:
        if self.client_config is not None:
            return f"controller {self.client_config.url}"
        return self.directory_uri or "?"

    def list(self) -> set[str]:
        if self.client_config is not None:
            return set(self._client().list_segments(self.table, exclude_replaced=True))
        fs, path = self._fs()
        if not fs.exists(path):
            return set()
        names = set()
        for entry in fs.ls(path, detail=False):
            base = os.path.basename(str(entry).rstrip("/"))
            if base.endswith(TAR_SUFFIX) and not base.startswith("."):
                names.add(base[: -len(TAR_SUFFIX)])
        return names

    def delete(self, names: Iterable[str]) -> None:
        names = sorted(set(names))
        if not names:
            return
        if self.client_config is not None:
            self._client().delete_segments(self.table, names)
            return
        fs, path = self._fs()
        for name in names:
            target = f"{path.rstrip('/')}/{name}{TAR_SUFFIX}"
            if fs.exists(target):
                fs.rm(target)


@dataclass(frozen=True)
class Snapshot:
    """The segments of a store before the job, and the names the job may produce."""

    before: frozenset[str]
    pattern: str  # regex source (compiled lazily so the snapshot pickles plainly)

    def ours(self, name: str) -> bool:
        return re.match(self.pattern, name) is not None

    def added_by_job(self, now: Iterable[str]) -> set[str]:
        """Segments present now that did not exist before and that this job could have written."""
        return {name for name in now if name not in self.before and self.ours(name)}


def undo_append(store: SegmentStore, snapshot: Snapshot) -> list[str]:
    """Abort of an append: delete every segment this job added. Segments it refreshed stay refreshed
    (Pinot keeps no previous version to restore); the docs say so."""
    added = sorted(snapshot.added_by_job(store.list()))
    if added:
        log.warning("pinot_sink: abort: deleting %d segment(s) this write added to %s: %s", len(added),
                    store.describe(), ", ".join(added[:10]) + (" ..." if len(added) > 10 else ""))
        store.delete(added)
    return added


def remove_orphans(store: SegmentStore, snapshot: Snapshot, committed: Iterable[str]) -> list[str]:
    """After a commit: segments this job added that no committed task reported (a failed or speculative
    attempt that cut differently) are orphans; delete them so the table holds exactly the committed rows."""
    keep = set(committed)
    orphans = sorted(name for name in snapshot.added_by_job(store.list()) if name not in keep)
    if orphans:
        log.warning("pinot_sink: deleting %d orphan segment(s) from failed attempts: %s", len(orphans),
                    ", ".join(orphans[:10]))
        store.delete(orphans)
    return orphans
