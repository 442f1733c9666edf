"""Which write this is: ``WriteRun``, the one model of a write's identity and of one run of it.

A *write* is named by its write id: ``write.id`` when given, a fresh ``auto:<uuid>`` otherwise, and
``stream:<query id>:<batch id>`` for each micro-batch of a streaming query. Its *write tag* (a hash of the
id, ``naming.write_tag``) is in every segment name it makes, so a rerun of the write finds the segments of
its earlier runs. A *run* is one attempt at the write: its *run tag* is fresh (so a rerun's names never
collide with the ones it replaces) and says what the run replaces besides its own write's earlier runs:
nothing, the whole table, or a time window. The run stages under ``<stage root>/<table>/_staging/<write
tag>_<run tag>/`` (its *folder*, also the name of its manifest).

``prepare_job`` makes the run of a batch write once, on the driver. A streaming query's writer is a template,
and Spark tells a task which micro-batch it belongs to only in the task: each micro-batch's run is then
``WriteJob.run_of(query_id, batch_id)`` in its tasks. PySpark commits a micro-batch with another writer (made
again for the commit, with its own run tag and staging root), so the commit takes the run its tasks report.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from pinot_sink.storage.layout import attempt_uri, staging_uri

from .naming import is_segment_of_write, write_tag, writer_postfix

APPEND, TABLE, WINDOW = None, "table", "window"  # what a run replaces besides its own write's earlier runs
COMPACT = "compact"  # a compaction's run: the segments it merged (pinot_sink.compaction)


def batch_write_id(query_id: str | None, batch_id: int) -> str:
    """The write id of one streaming micro-batch: equal when a restarted query (same checkpoint, so same
    query id) reruns the batch, so the rerun replaces what the first attempt may have committed."""
    return f"stream:{query_id or '-'}:{batch_id}"


@dataclass(frozen=True)
class WriteRun:
    """One run of one write (a batch write, or one micro-batch)."""

    table: str
    write_id: str | None  # None only in a streaming query's template (``for_batch`` gives each batch's run)
    run_tag: str  # fresh per run; its first letter is ``replaces`` (naming.run_tag)
    replaces: str | None  # APPEND (None), TABLE or WINDOW
    rerun: bool  # the id was given (write.id, a micro-batch): earlier runs of this write may be in the table
    stage_root: str  # normalised root of the staging folders
    # The write's own instant (epoch millis), chosen once on the driver: what now() / ago() give in every row of
    # every task, so a retried task or a rebuilt segment stores the same value (docs/ingestion.md)
    instant_ms: int | None = None
    write_tag: str | None = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "write_tag", write_tag(self.write_id) if self.write_id is not None else None)

    def for_batch(self, query_id: str | None, batch_id: int) -> WriteRun:
        """The run of one micro-batch of the streaming query whose template this is."""
        return replace(self, write_id=batch_write_id(query_id, batch_id), rerun=True)

    @property
    def folder(self) -> str:
        """``<write tag>_<run tag>``: the run's staging folder and the name of its manifest."""
        return f"{self.write_tag}_{self.run_tag}"

    @property
    def staging(self) -> str:
        return staging_uri(self.stage_root, self.table, self.folder)

    def attempt_staging(self, partition_id: int, task_attempt: int) -> str:
        """One task attempt's folder in the run's staging folder."""
        return attempt_uri(self.staging, partition_id, task_attempt)

    def postfix(self, user_postfix: str | None, partition_id: int | None) -> str:
        """What a writer of this run passes to the name generator (``naming.writer_postfix``)."""
        return writer_postfix(user_postfix, write=self.write_tag, run=self.run_tag, partition_id=partition_id)

    def owns(self, name: str) -> bool:
        """Whether a segment was written by any run of this write."""
        return is_segment_of_write(name, self.write_tag)

    @property
    def may_replace(self) -> bool:
        """Whether committing this run can take segments out of the table: an overwrite (of the table or of a
        window), or a rerun. A plain append has a fresh write tag that no existing segment carries."""
        return self.replaces is not None or self.rerun
