"""The single committer: the driver decides what becomes visible (``commit_job``) or that nothing does
(``abort_job``).

Tasks only stage (``pinot_sink.task``). The commit publishes exactly the segments of the committed task
attempts and, in the same step, takes out what this write replaces:

* ``overwrite``: every segment the table shows at commit time;
* a rerun of a write (same ``write.id``; a restarted micro-batch): every segment of the earlier runs of that
  write, found by the write tag in their names (``naming.is_segment_of_write``), whatever partitioning they
  had. Other writers' segments never carry this write's tag, so they are never touched.

With a controller, one segment-lineage entry does both atomically (``segmentsFrom`` = replaced, ``segmentsTo``
= new): queries see all of the old state or all of the new, and any failure reverts the entry, so the table is
as it was. Without a controller (embedded), the new tarballs are moved into the table folder first and the
replaced ones deleted last: a crash in between leaves rows duplicated, never missing, and ``abort_job``
removes the new ones again, unless all of them were in place (the commit may have deleted replaced files:
removing the new ones could lose rows, so abort keeps and names them). The run's staging folder is deleted
either way; an attempt still writing there afterwards publishes nothing.

One function does it for both stores (``_publish``), with three collaborators, none chosen here by a class
or a config: the replacement strategy the run's ``WriteRun`` chooses (``_Replacement``: a rerun's own earlier
segments, ``_TableReplacement``, ``_WindowReplacement``, ``_CompactionReplacement``) says what goes and who a
rival is; the way of replacing the job chose once (``job.replacing``, ``pinot_sink.replacing``: by lineage, or a
fixed name's refresh in place) says whether a lineage entry is made and which names may be taken back; the
publication the table's store gives (``store.publication``: ``_DirectoryPublication``,
``_ControllerPublication``) publishes, withdraws, finishes, and takes back on abort. The rival rule between
them (``_must_withdraw``) is written once.

What the commit reports is what the record says: the lineage entry read back after a lost or unclear answer
(``ConsistentPush``), and when it cannot be read, ``CommitOutcomeUnknown`` (the write MAY HAVE BEEN
COMMITTED) with the manifest marked ``unknown``. Embedded, the manifest says ``publishing`` before any file
moves, so a killed run is finished or rolled back by ``pinot_sink.recovery``.
"""
from __future__ import annotations

import logging
import shutil
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Sequence

from pinot_sink.controller import ConsistentPush, ControllerClient, offline_raw_name, push_segments, redact_text
from pinot_sink.controller.zk_records import project_commit
from pinot_sink.controller.errors import CommitOutcomeUnknownError, ConsistentPushError, ControllerError
from pinot_sink.segment.format import tarball_name
from pinot_sink.storage.files import publish_into_directory, remove_tree
from pinot_sink.storage.layout import local_path, segment_uri, uri_to_fs
from pinot_sink.storage.manifests import (WriteRecord, mark_superseded, took_unknown_outcome, was_withdrawn,
                                          write_aborted, write_committed, write_publishing, write_unknown,
                                          write_withdrawn)
from pinot_sink.storage.stores import DirectoryStore

from .compaction.provenance import compactions_holding, refuse_rerun_of_compacted, write_tag_of
from .job import WriteJob, describe_mode, ensure_log_handler, release_private_stage_root
from .naming import segment_replaces
from .primary_keys import check_dimension_size, replaced_upsert_warning
from .reports import PublishedSegment, SegmentRecord, TaskReport, WriteResult, committed_segments, first_task_error
from .recovery import settle_own_leftovers
from .sizing import small_segments_warning
from .time_window import (StraddlingSegmentsError, describe_windows, format_ms, merge_windows, select_replaced,
                          windows_of_buckets)
from .write_run import APPEND, COMPACT, TABLE, WINDOW, WriteRun
from type_mapping.errors import PinotSinkError

log = logging.getLogger("pinot_sink")


class CommitError(PinotSinkError, RuntimeError):
    """The commit failed; the message says what state the table was left in."""


class CommitOutcomeUnknown(CommitError):
    """The commit's outcome could not be learned: the write MAY HAVE BEEN COMMITTED (the message says how
    to learn it and which rerun makes it exactly once); its manifest records ``unknown``."""

    def __init__(self, message: str, lineage_id: str | None) -> None:
        super().__init__(message)
        self.lineage_id = lineage_id


def commit_job(job: WriteJob, reports: Sequence[TaskReport | None], *, query_id: str | None = None,
               batch_id: int | None = None) -> WriteResult:
    """Publish the committed attempts' segments and take out what this write replaces; see the module doc."""
    ensure_log_handler()
    started = time.monotonic()
    segments = committed_segments(reports)
    sizing = small_segments_warning(job.options, segments)
    if sizing:  # before anything becomes visible, so the user can still stop and resize
        log.warning("%s", sizing)
    run = job.run_of(query_id, batch_id, reports)
    wanted = job.options.parallelism
    if wanted and len(reports) != wanted:
        log.warning("pinot_sink: sink.parallelism=%d, but the DataFrame had %d partitions: a data source cannot "
                    "repartition its input; use pinot_sink.write(df, ...) or df.repartition(%d)", wanted,
                    len(reports), wanted)
    record = job.record(run)
    replacement = _REPLACEMENTS[run.replaces](job, run, segments)
    try:
        check_dimension_size(job.primary_keys, segments, job.table,
                             tarred=job.options.delivery.push_mode == "metadata")
        settle_own_leftovers(job, run)
        replaced, upload_ms, lineage_id = _publish(job, segments, replacement, record)
    except CommitOutcomeUnknownError as error:
        message = _may_have_been_committed(job, run, error)
        write_unknown(record, run.write_id, error.lineage_id, [s.name for s in segments],
                      message, replacing=getattr(error, "replacing", []))
        raise CommitOutcomeUnknown(message, error.lineage_id) from error
    finally:
        job.store().close()
        remove_tree(run.staging, job.storage_options)
        release_private_stage_root(job, run)
    published = tuple(_published(job, s, upload_ms.get(s.name, 0.0)) for s in segments)
    # Streaming writers are made once per query, so time a micro-batch from its first task.
    starts = [r.started_at for r in reports if r is not None and r.started_at]
    began = min(starts) if job.streaming and starts else job.started_at
    result = WriteResult(
        table=job.table, mode="overwrite" if job.overwrite else "append",
        write_id=run.write_id, run_tag=run.run_tag, segments=published,
        replaced=tuple(sorted(replaced)), lineage_id=lineage_id, destination=describe_mode(job),
        elapsed_s=time.time() - began, commit_s=time.monotonic() - started,
        input_rows=sum(r.input_rows for r in reports if r is not None),
        filtered_rows=sum(r.filtered_rows for r in reports if r is not None),
        deferred_indexes=job.index_plan.deferred_lines() if job.index_plan is not None else (),
        note=job.options.commit.note,
    )
    log.info("%s", summary_table(result))
    hidden = replaced_upsert_warning(job.primary_keys, job.table, len(replaced)) if not job.options.embedded else None
    if hidden:
        log.warning("%s", hidden)
    if job.plan is not None and job.plan.coerced:  # converted as Pinot converts them, which is allowed, but worth a word
        log.info("pinot_sink: %s: values converted to the column's type: %s", job.table, ", ".join(job.plan.coerced))
    write_committed(record, asdict(result))
    return result


def abort_job(job: WriteJob, reports: Sequence[TaskReport | None], *, query_id: str | None = None,
              batch_id: int | None = None, cause: str | None = None) -> list[str]:
    """Leave the table as it was. Nothing a task did is visible, so this deletes the run's staging folder,
    and (embedded mode) any of this run's tarballs a failed commit had already moved into the table folder.
    Returns what could not be removed (segment names and folders), which is also logged, with ``cause`` (else
    the first error a task recorded) in one line."""
    ensure_log_handler()
    run = job.run_of(query_id, batch_id, reports)
    cause = cause or first_task_error(run.staging, job.storage_options)
    because = f": {cause}" if cause else ""
    left: list[str] = []
    record = job.record(run)
    if took_unknown_outcome(record):
        # The commit could not learn whether it committed: nothing may be undone, and the record says so.
        if not remove_tree(run.staging, job.storage_options):
            left.append(run.staging)
        log.error("pinot_sink: abort of %s after a commit whose outcome is unknown: the table is left as it is "
                  "and the manifest keeps `unknown`", job.table)
        return left
    left += job.store().publication(_Publications).take_back(job, run, record, _names(reports))
    if not remove_tree(run.staging, job.storage_options):
        left.append(run.staging)
    release_private_stage_root(job, run)
    if left:
        log.error("pinot_sink: abort of %s could not remove: %s%s", job.table, redact_text(", ".join(left)), because)
    else:
        log.warning("pinot_sink: write to %s aborted; the table is as it was%s", job.table, because)
    # Only names the way of replacing lets an abort take back are marked not committed (never a fixed one).
    pending = sorted(job.replacing.removable(_names(reports)))
    write_aborted(record, run.write_id, left, pending)
    return left


def _names(reports: Sequence[TaskReport | None]) -> set[str]:
    return {s.name for r in reports if r is not None for s in r.segments}


class _Replacement:
    """What a run's commit takes out of the table besides publishing its segments, and which runs committing
    at the same time are its rivals (``_must_withdraw``); chosen once per commit from ``WriteRun.replaces``.
    This one is an append's: the segments of its write's earlier runs (a rerun's; a plain append's fresh write
    tag finds none)."""

    rival_kind = "another run of this write"
    force_cleanup = True  # its lineage entry may revert an overlapping IN_PROGRESS one (a crashed earlier run's)

    def __init__(self, job: WriteJob, run: WriteRun, segments: Sequence[SegmentRecord]) -> None:
        self.job, self.run, self.segments = job, run, segments

    def replaced(self, live: set[str], new: set[str]) -> set[str]:
        if self.run.rerun:  # a compaction may hold this write's rows among others': refused before any upload
            refuse_rerun_of_compacted(self.job.table, self.run.write_id, self.run.write_tag, live, self.job.store())
        return {name for name in live if self.run.owns(name)} - new

    def rivals(self, candidates: set[str]) -> set[str]:
        """Of the live segments besides this run's and those it replaced, the ones it would have replaced had
        it seen them: each such pair committed at the same time, each replacing only what was live before the
        other (a compaction holding this write's rows, too)."""
        return {name for name in candidates if self.run.owns(name)} | set(
            compactions_holding(self.run.write_tag, candidates, self.job.store()))


class _TableReplacement(_Replacement):
    """An overwrite: every live segment; its rivals are also any other overwrite's (of the table or a window)."""

    rival_kind = "another overwrite or another run of this write"

    def replaced(self, live: set[str], new: set[str]) -> set[str]:
        return live - new

    def rivals(self, candidates: set[str]) -> set[str]:
        return super().rivals(candidates) | {n for n in candidates if segment_replaces(n) is not None}


class _WindowReplacement(_Replacement):
    """A window overwrite (``overwrite.time-range``): the live segments in its window, its own write's earlier
    ones too (by time only); its rivals are a whole-table overwrite's, or another window overwrite's (or
    another run's of its write) inside its window."""

    rival_kind = "another overwrite or another run of this write"

    def replaced(self, live: set[str], new: set[str]) -> set[str]:
        return _replaced_by_time(self.job, live, self.segments) - new

    def rivals(self, candidates: set[str]) -> set[str]:
        rivals = {n for n in candidates if segment_replaces(n) == "table"}
        windowed = [n for n in candidates - rivals if segment_replaces(n) in ("window", "compact") or self.run.owns(n)]
        if windowed:
            windows = _windows(self.job, self.segments)
            for name, (start, end) in self.job.store().time_ranges(windowed).items():
                if start < 0 or end < 0 or any(start < w.end_ms and end >= w.start_ms for w in windows):
                    rivals.add(name)  # a range it cannot read counts as inside: withdrawing is the safe side
        return rivals


class _CompactionReplacement(_Replacement):
    """A compaction (``pinot_sink.compaction``): exactly the segments it merged (``job.compaction``), all of
    which must still be live. Its rivals are what appeared since it listed the table and would have changed
    the rows it merged: an overwrite's segments, or a run of a write whose rows it merged. Its lineage entry
    never reverts another's (no forceCleanup): a write in progress on those segments makes it fail instead."""

    rival_kind = "a write replacing rows this compaction merged"
    force_cleanup = False

    def replaced(self, live: set[str], new: set[str]) -> set[str]:
        plan = self.job.compaction
        gone = sorted(set(plan.sources) - live)
        if gone:
            raise CommitError(f"table {self.job.table}: compaction: {len(gone)} of the segments it merged are no "
                              f"longer live ({', '.join(gone[:3])}): a write replaced them meanwhile; nothing was "
                              f"published, the table is as it was; run the compaction again")
        return set(plan.sources)

    def rivals(self, candidates: set[str]) -> set[str]:
        plan = self.job.compaction
        fresh = {n for n in candidates if n not in plan.listed}
        rivals = {n for n in fresh if segment_replaces(n) in ("table", "window")
                  or write_tag_of(n) in plan.source_writes}
        if plan.sources_stay_listed:  # embedded: the sources stay in the folder until its last step
            live = self.job.store().list()
            rivals |= {f"{n} (deleted)" for n in set(plan.sources) - live}
        return rivals


_REPLACEMENTS = {APPEND: _Replacement, TABLE: _TableReplacement, WINDOW: _WindowReplacement,
                 COMPACT: _CompactionReplacement}


def _replaced_by_time(job: WriteJob, live: set[str], segments: Sequence[SegmentRecord]) -> set[str]:
    """A window overwrite (``pinot_sink.time_window``): refuse rows outside the window, then the live
    segments inside it (or inside the days/hours of the data, in dynamic mode). Runs before anything is
    published, so its errors leave the table as it was."""
    plan = job.window
    outside = [s for s in segments if s.rows_outside_window]
    if outside:
        first = min(outside, key=lambda s: (s.partition_id, s.sequence_id))
        raise CommitError(
            f"table {job.table}: {sum(s.rows_outside_window for s in outside)} row(s) of the DataFrame are "
            f"outside overwrite.time-range {plan.window} (end exclusive); the first: "
            f"{plan.time_column}={format_ms(first.first_outside_ms)} ({first.first_outside_ms}) in partition "
            f"{first.partition_id}. Nothing was published: the table is as it was. Filter the DataFrame to "
            f"the window, or widen the window")
    windows = _windows(job, segments)
    try:
        replaced = select_replaced(job.store().time_ranges(live), windows,
                                   include_straddling=plan.include_straddling)
    except StraddlingSegmentsError as exc:
        raise CommitError(f"table {job.table}: nothing was published, the table is as it was: {exc}") from None
    log.info("pinot_sink: %s: %d segment(s) in %s are replaced", job.table, len(replaced),
             describe_windows(merge_windows(windows)) if windows else "no window (no rows)")
    return replaced


def _windows(job: WriteJob, segments: Sequence[SegmentRecord]) -> list:
    """The time windows a window overwrite replaces: the given one, or (dynamic) the data's days/hours."""
    plan = job.window
    if plan.window is not None:
        return [plan.window]
    return windows_of_buckets({k for s in segments for k in s.time_buckets}, plan.dynamic_bucket_ms)


def _publish(job: WriteJob, segments: Sequence[SegmentRecord], replacement: _Replacement,
             record: WriteRecord) -> tuple[set[str], dict[str, float], str | None]:
    """The commit, whichever store holds the table: what the run replaces (``replacement``), the store's
    publish, then the rival rule (``_must_withdraw``: withdraw, or stay), then the publication's last step.
    Returns what was replaced, each segment's upload time, and the lineage entry."""
    publication = job.store().publication(_Publications)(job, segments, replacement, record)
    try:
        new = {s.name for s in segments}
        replaced = replacement.replaced(job.store().list(), new)
        if not publication.publish(replaced):
            return set(), {}, None
        if publication.looks_for_rivals:
            _yield_to_a_concurrent_run(publication, job, replacement, new, replaced)
        publication.finish(replaced)
        return replaced, publication.upload_ms, publication.lineage_id
    finally:
        publication.close()


class _DirectoryPublication:
    """Embedded: the staged tarballs move into the table's folder, then the replaced ones are deleted. A crash
    in between leaves rows doubled, never missing; the manifest says ``publishing`` before anything moves."""

    def __init__(self, job: WriteJob, segments: Sequence[SegmentRecord], replacement: _Replacement,
                 record: WriteRecord) -> None:
        self.job, self.segments, self.record, self.write_id = job, segments, record, replacement.run.write_id
        # Withdrawing deletes this run's files: safe only when every name is this run's own. A fixed name's file
        # may be the earlier write's one it just refreshed in place; taking it out would lose those rows and
        # report "nothing was deleted". As with Pinot's refresh, the last fixed-name write of a name wins.
        self.looks_for_rivals = job.replacing.names_are_own
        self.new = sorted({s.name for s in segments})
        self.upload_ms: dict[str, float] = {}
        self.lineage_id = None

    def publish(self, replaced: set[str]) -> bool:
        job = self.job
        # The intent first: a crash while files move leaves a record that recovery finishes or rolls back.
        write_publishing(self.record, self.write_id, self.new, sorted(replaced))
        publish_into_directory(job.output_uri, job.table, {s.name: s.staged_uri for s in self.segments},
                               job.storage_options)
        return True

    def withdraw(self, reason: str, if_kept: str) -> None:
        """Before anything is deleted: taking this run's files out again leaves the table as it was."""
        write_withdrawn(self.record, self.new)  # an abort after a failed delete must remove them too
        left = self.job.store().delete(self.new)
        state = ("this run's files were taken out again and nothing was deleted" if not left else
                 f"TAKING THIS RUN'S FILES OUT FAILED, remove them by hand: {', '.join(left)}")
        raise CommitError(f"table {self.job.table}: {reason}; {state}; rerun the write to be sure of its result")

    def finish(self, replaced: set[str]) -> None:
        store = self.job.store()
        left = store.delete(replaced)
        if left:
            raise CommitError(f"table {self.job.table}: the new segments are in place, but {len(left)} replaced "
                              f"segment file(s) could not be deleted from {store.describe()}: {', '.join(left)}")

    def close(self) -> None:
        pass

    @staticmethod
    def take_back(job: WriteJob, run: WriteRun, record: WriteRecord, names: set[str]) -> list[str]:
        """Abort: the files of this run a failed commit had moved into the folder go again; returns what could
        not be removed, or was kept. Fresh run-tagged names only (``job.replacing``): any of them in the folder
        is this run's; a fixed name may be an earlier write's file that this one refreshed in place, which
        cannot be undone, as with Pinot's refresh."""
        names = job.replacing.removable(names)
        if not names:
            return []
        store = job.store()
        ours = sorted(n for n in store.list() if n in names)
        withdrawn = was_withdrawn(record)  # it found a rival and deleted nothing
        if ours and len(ours) == len(names) and run.may_replace and not withdrawn:
            # Every new file is in place: the commit reached its last step, deleting the files this write
            # replaces, and may have deleted some before it failed. The new files may now be the only copy
            # of those rows: keep them (rows may stay doubled, never missing) and say so.
            log.error("pinot_sink: the commit of %s had published every new segment before it failed; abort "
                      "keeps them, as the segments they replace may already be deleted", job.table)
            return ours
        return store.delete(ours)


class _ControllerPublication:
    """With a controller: one lineage entry takes the new segments in and the replaced ones out at once (a
    fixed name: Pinot's refresh of that one segment, then the delete of what it replaces); with push-mode tar
    and an output-uri, the tarballs are kept there too once the table has changed."""

    def __init__(self, job: WriteJob, segments: Sequence[SegmentRecord], replacement: _Replacement,
                 record: WriteRecord) -> None:
        self.job, self.segments, self.record, self.write_id = job, segments, record, replacement.run.write_id
        self.new = [s.name for s in segments]
        self.client = job.store().client  # closed with the store, at the end of the commit
        self.looks_for_rivals = job.replacing.lineage  # a refresh in place has no entry to revert
        self.force_cleanup = replacement.force_cleanup
        self.upload_ms: dict[str, float] = {}
        self.lineage_id: str | None = None
        self.push: ConsistentPush | None = None
        self.replacing: list[str] = []
        self._download_dir: Path | None = None

    def _local_paths(self) -> list[str]:
        paths = []
        for segment in self.segments:
            local = local_path(segment.staged_uri)
            if local is None:  # remote staging: the driver's push reads the tarball
                self._download_dir = self._download_dir or Path(tempfile.mkdtemp(prefix="pinot-sink-push-"))
                local = str(self._download_dir / tarball_name(segment.name))
                fs, remote = uri_to_fs(segment.staged_uri, self.job.storage_options)
                fs.get_file(remote, local)
            paths.append(local)
        return paths

    def publish(self, replaced: set[str]) -> bool:
        job, client, new = self.job, self.client, self.new
        delivery = job.options.delivery
        if not new and not replaced:
            return False
        self.replacing = sorted(replaced)
        if job.replacing.lineage:
            _check_record_budget(job, client, new, self.replacing)  # before anything is copied or uploaded
        paths = self._local_paths()
        push_options = dict(push_mode=delivery.push_mode, parallel=delivery.push_parallelism,
                            deep_store_uri=job.output_uri if delivery.push_mode != "tar" else None,
                            deep_store_options=job.storage_options or None,
                            batch_size=job.options.commit.batch_size)
        if delivery.push_mode != "tar":
            push_options.update(segment_uri_prefix=delivery.segment_uri_prefix or None,
                                segment_uri_suffix=delivery.segment_uri_suffix or None)
        # The intent first, before the table changes, so push and recover know: in uri / metadata mode the
        # tarballs go to output-uri before the commit; in tar mode, a run killed after its entry completed
        # leaves its staged tarballs the only copies for output-uri, and only the controller can say so.
        write_publishing(self.record, self.write_id, new, sorted(replaced))
        if not job.replacing.lineage:
            # The user's one name: Pinot's refresh replaces that segment in place (atomic on its own).
            results = push_segments(client, job.table, paths, **push_options)
            _delete_replaced(client, job, replaced, new)
        else:
            push = self.push = ConsistentPush(client, job.table, segments_to=new, segments_from=sorted(replaced),
                                              custom_map=write_custom_map(self.write_id, self.record, self.segments,
                                                                          job.options.commit.note))
            try:
                push.force_cleanup = self.force_cleanup  # a compaction's entry never reverts another's
                with push:
                    results = push.upload(paths, **push_options) if paths else []
            except CommitOutcomeUnknownError as error:
                error.replacing = self.replacing  # live again, or replaced: the record must say which may be
                raise
            except ConsistentPushError as error:
                if error.reverted:
                    state = "the table is as it was"
                elif push.lineage_id is None:
                    state = "nothing was committed"
                else:
                    state = (f"REVERT FAILED: lineage entry {push.lineage_id} is left IN_PROGRESS (its new segments "
                             f"stay hidden: nothing is committed); `pinot-sink recover --table {job.typed_table} --url "
                             f"{job.client_config.url} --apply` reverts it")
                if error.reverted or push.lineage_id is None:
                    state += _remove_deep_store_copies(job, new)
                raise CommitError(f"table {job.table}: commit failed, {state}: {error}") from error
        self.upload_ms = {r.segment: r.seconds * 1000 for r in results}
        return True

    def withdraw(self, reason: str, if_kept: str) -> None:
        """After the end: revert this run's completed lineage entry and fail, saying why and what the table
        holds."""
        push, job = self.push, self.job
        try:
            push.revert()
        except CommitOutcomeUnknownError as error:  # its revert's outcome is unknown: as for the commit itself
            error.replacing = self.replacing
            raise
        except ControllerError as error:
            raise CommitError(
                f"table {job.table}: {reason}; REVERT FAILED: {if_kept}; revert lineage entry {push.lineage_id} "
                f"(revertReplaceSegments) or rerun the write: {error}") from error
        raise CommitError(
            f"table {job.table}: {reason}; this run's lineage entry {push.lineage_id} was reverted (the table holds "
            f"at most the other run's rows); rerun the write to be sure of its result")

    def finish(self, replaced: set[str]) -> None:
        job = self.job
        self.lineage_id = self.push.lineage_id if self.push is not None else None
        if job.output_uri and replaced:
            self._supersede_compacted_sources(replaced)
        if job.output_uri and job.options.delivery.push_mode == "tar":
            # Keep the tarballs in output-uri too, as embedded mode does (the staging folder goes next). A
            # copy only: the table has changed, and raising now would make Spark report (and abort) a write
            # that no abort can undo. The intent first: killed mid-copy, the folder would hold these and the
            # tarballs they replaced with no record of which is live (push would publish both); recover
            # settles it from the lineage entry.
            write_publishing(self.record, self.write_id, self.new, sorted(replaced), lineage_id=self.lineage_id)
            try:
                publish_into_directory(job.output_uri, job.table, {s.name: s.staged_uri for s in self.segments},
                                       job.storage_options)
            except Exception as exc:  # noqa: BLE001
                log.error("pinot_sink: %s is committed, but its tarballs could not be kept in %s: %s", job.table,
                          redact_text(job.output_uri), exc)

    def _supersede_compacted_sources(self, replaced: set[str]) -> None:
        """A replaced segment that a controller's compaction made (or any replace) is in no manifest of the
        output-uri folder; the segments it replaced are, and their manifests still said live: on a real
        cluster, after a compaction and a window overwrite, the folder read 310 rows where the table held 10.
        So follow the COMPLETED lineage entries back from what this write replaced, and mark the folder's
        manifests of those earlier segments superseded too. Bookkeeping: never fails the committed write."""
        job = self.job
        try:
            entries = [e for e in self.client.get_lineage(job.table).values() if e.get("state") == "COMPLETED"]
        except ControllerError as exc:
            log.error("pinot_sink: %s: could not read the lineage to mark the manifests of compacted segments "
                      "superseded: %s", job.table, exc)
            return
        seen, frontier = set(replaced), set(replaced)
        while frontier:
            earlier = {name for e in entries if frontier & set(e.get("segmentsTo") or [])
                       for name in e.get("segmentsFrom") or []} - seen
            seen |= earlier
            frontier = earlier
        if seen - replaced:
            mark_superseded(self.record, {"replaced": sorted(seen - replaced), "run_tag": self.record.common.get(
                "run_tag"), "write_id": self.write_id, "mode": self.record.common.get("mode")})

    def close(self) -> None:
        if self._download_dir is not None:
            shutil.rmtree(self._download_dir, ignore_errors=True)

    @staticmethod
    def take_back(job: WriteJob, run: WriteRun, record: WriteRecord, names: set[str]) -> list[str]:
        """Abort: nothing to take back. Nothing of a run whose commit failed is visible: its lineage entry was
        reverted, or is left IN_PROGRESS with its segments hidden (``pinot-sink recover`` reverts it); a failed
        push's deep-store copies were removed by the commit (``_remove_deep_store_copies``)."""
        return []


class _Publications:
    """The ways of publishing the commit offers a store: the store picks its own (``SegmentStore.publication``),
    so nothing here asks which store it holds."""

    into_folder = _DirectoryPublication
    through_controller = _ControllerPublication


def write_custom_map(write_id: str | None, record: WriteRecord, segments: Sequence[SegmentRecord],
                     note: str) -> dict[str, str]:
    """What the write's lineage request carries as its ``customMap`` (Pinot's ``StartReplaceSegmentsRequest``):
    write id, run, rows, bytes and the user's note. Pinot's default lineage manager does not keep it (a custom
    ``LineageManager`` may); the write's manifest keeps the same facts, and its segment names carry the write
    and run tags, which is what ``pinot-sink history`` reads."""
    custom = {"pinot_sink.write_id": write_id or "", "pinot_sink.run": record.run_folder,
              "pinot_sink.rows": str(sum(s.rows for s in segments)),
              "pinot_sink.bytes": str(sum(s.tar_bytes for s in segments))}
    if note:
        custom["pinot_sink.note"] = note
    return custom


def _check_record_budget(job: WriteJob, client: ControllerClient, new: Sequence[str], replaced: Sequence[str]) -> None:
    """Refuse, before the first byte moves, a commit whose lineage record or ideal state would be over the
    cluster's ZooKeeper record limit (``commit.zk-record-limit``; ``pinot_sink.controller.zk_records``): the
    uploads add each segment to the ideal state, and Helix would refuse the one that outgrows it, after the
    others were uploaded. The lineage is read only when this commit's entry alone is a tenth of the limit or
    more: a smaller one cannot outgrow it unless other entries nearly fill it, and then Pinot refuses its
    startReplaceSegments, which also comes before any upload."""
    limit = job.options.commit.zk_record_limit
    table_with_type = f"{offline_raw_name(job.table, client.table_type)}_{client.table_type}"
    try:
        ideal_state = client.get_ideal_state(job.table)
        alone = project_commit(table_with_type, {}, {}, new, replaced, limit=limit)
        lineage = client.get_lineage(job.table) if alone.lineage.written_bytes * 10 >= limit else {}
    except ControllerError as error:
        raise CommitError(f"table {job.table}: nothing was uploaded: could not read the ideal state and lineage "
                          f"to check the commit against ZooKeeper's record limit: {error}") from error
    budget = project_commit(table_with_type, lineage, ideal_state, new, replaced, limit=limit)
    if not budget.fits:
        raise CommitError(budget.refusal(job.table))
    log.info("pinot_sink: %s: commit within ZooKeeper's record limit: %s", job.table, budget.describe())


def _delete_replaced(client: ControllerClient, job: WriteJob, replaced: set[str], new: Sequence[str]) -> None:
    """A fixed-name overwrite's last step: the segments it replaces go. Done when the listing no longer shows
    them, not on a 200 (one with an error body deletes nothing: success would be reported over the old rows)."""
    left = sorted(replaced)
    for _ in (1, 2):
        if not left:
            return
        client.delete_segments(job.table, left)
        left = sorted(replaced & set(client.list_segments(job.table, exclude_replaced=True)))
    if not left:
        return
    raise CommitError(f"table {job.table}: the new segment(s) {', '.join(new)} are live (refreshed in place), but "
                      f"{len(left)} segment(s) this overwrite replaces are still in the table: delete them "
                      f"(DELETE /segments/{job.table}): {', '.join(left[:10])}")


def _remove_deep_store_copies(job: WriteJob, names: Sequence[str]) -> str:
    """A failed uri / metadata push copied its tarballs into ``<output-uri>/<table>/`` before the commit;
    nothing of it is committed, so they go (a later ``pinot-sink push`` of the folder must not publish them).
    Fresh run-tagged names only (``job.replacing``): a fixed name may be an earlier write's file."""
    names = sorted(job.replacing.removable(names))
    if job.options.delivery.push_mode == "tar" or not job.output_uri or not names:
        return ""
    left = DirectoryStore(job.table, job.output_uri, job.storage_options).delete(names)
    return (f"; COULD NOT REMOVE {len(left)} tarball(s) it copied into {redact_text(job.output_uri)}: "
            f"{', '.join(left[:5])}" if left else "")


def _concurrent_rivals(replacement: _Replacement, live: set[str], new: set[str], replaced: set[str]) -> list[str]:
    """Live segments, besides this run's and those it replaced, that it would have replaced had it seen them."""
    return sorted(replacement.rivals(live - new - replaced))


def _must_withdraw(replacement: _Replacement, list_live, new: set[str],
                   replaced: set[str]) -> tuple[str, str] | None:
    """The one rule of both modes, once this run's segments are in place (embedded: moved in; controller: its
    entry COMPLETED): two runs of one write, or two overwrites, committing at once must not both stay. Their
    commits share nothing that settles it (lineage entries with no common segment: both first runs, or an
    empty table; ``forceCleanup`` reverts neither), so each run looks after its own: its segments and a
    rival's both live -> it withdraws. Whichever looks last sees the other, so at most one stays (both may
    go; a rerun settles it). A run a later one already replaced sees none of its own live: not a conflict.
    Returns (why, what the table holds if the withdrawal fails), or None to stay. ``list_live()`` gives the
    live segment names."""
    if not new or not replacement.run.may_replace:  # a plain append's fresh write tag: no run can be its rival
        return None
    try:
        live = set(list_live())
        # (a window overwrite reads its candidates' time ranges: a failure there is as much "could not look")
        rivals = _concurrent_rivals(replacement, live, new, replaced)
    except Exception as exc:  # noqa: BLE001 - a rival that looked before this run saw nothing of it: unlooked,
        # both would stay
        return (f"could not look for {replacement.rival_kind} committing at the same time ({exc})",
                "another run's rows may be in the table too")
    if rivals and new & live:
        return (f"{replacement.rival_kind} committed at the same time ({', '.join(rivals[:3])})",
                "both runs' rows are in the table")
    return None


def _yield_to_a_concurrent_run(publication, job: WriteJob, replacement: _Replacement, new: set[str],
                               replaced: set[str]) -> None:
    """``_must_withdraw``, once this run's segments are in place (embedded: moved in; controller: its entry
    COMPLETED): withdrawing takes them out again (the files; the entry reverted) and fails."""
    withdraw = _must_withdraw(replacement, job.store().list, new, replaced)
    if withdraw is not None:
        publication.withdraw(*withdraw)


def _may_have_been_committed(job: WriteJob, run: WriteRun, error: CommitOutcomeUnknownError) -> str:
    write_id = run.write_id
    where = f" --url {job.client_config.url}" if job.client_config is not None else ""
    rerun = (f"The replay of micro-batch {write_id} (restart the query from its checkpoint)" if job.streaming
             else f"A rerun with write.id={write_id}")
    return (f"table {job.table}: the write MAY HAVE BEEN COMMITTED: {error.message}. Its rows are in the table if "
            f"lineage entry {error.lineage_id} is COMPLETED (GET /segments/{job.table}/lineage), hidden if it is "
            f"IN_PROGRESS or REVERTED. {rerun} makes the write exactly once whatever happened (it replaces this "
            f"run's segments if they are live); `pinot-sink recover --table "
            f"{job.typed_table}{where}` shows what is left")


def _published(job: WriteJob, segment: SegmentRecord, upload_ms: float) -> PublishedSegment:
    uri = segment_uri(job.output_uri, job.table, segment.name) if job.output_uri else None
    return PublishedSegment(
        name=segment.name, rows=segment.rows, tar_bytes=segment.tar_bytes, crc=segment.crc, uri=uri,
        partition_id=segment.partition_id, sequence_id=segment.sequence_id, build_ms=segment.build_ms,
        upload_ms=upload_ms, start_time_ms=segment.start_time_ms, end_time_ms=segment.end_time_ms,
    )


def _mb(nbytes: float) -> str:
    return f"{nbytes / 1024**2:.2f}"


def summary_table(result: WriteResult, max_lines: int = 50) -> str:
    """A fixed-width table of the segments and a total line, for the driver log."""
    header = f"{'segment':<60} {'part':>5} {'rows':>10} {'MB':>9} {'build ms':>9} {'upload ms':>9}"
    lines = [f"pinot_sink: wrote {len(result.segments)} segment(s) into {result.table} ({result.destination})",
             header, "-" * len(header)]
    ordered = sorted(result.segments, key=lambda s: (s.partition_id, s.sequence_id))
    for segment in ordered[:max_lines]:
        lines.append(
            f"{segment.name:<60} {segment.partition_id:>5} {segment.rows:>10} {_mb(segment.tar_bytes):>9} "
            f"{segment.build_ms:>9.0f} {segment.upload_ms:>9.0f}"
        )
    if len(ordered) > max_lines:
        lines.append(f"... and {len(ordered) - max_lines} more")
    nbytes = sum(s.tar_bytes for s in result.segments)
    rate = result.rows / result.elapsed_s if result.elapsed_s > 0 else 0.0
    lines.append("-" * len(header))
    lines.append(
        f"total: {len(result.segments)} segments, {result.rows} rows, {_mb(nbytes)} MB, {result.elapsed_s:.1f}s "
        f"({rate:,.0f} rows/s); commit {result.commit_s:.2f}s"
        + (f"; replaced {len(result.replaced)} segment(s)" if result.replaced else "")
        + (f"; lineage {result.lineage_id}" if result.lineage_id else "")
        + (f"; the table config's filter dropped {result.filtered_rows} of {result.input_rows} rows"
           if result.filtered_rows else "")
    )
    return "\n".join(lines)
