"""``compact(table, ...)``: merge a table's small segments into right-sized ones, one bucket group at a time,
each group committed by the write's own committer (``pinot_sink.commit``) as one atomic replacement.

Per group: download (controller) or open (folder) the segments it merges -> read their stored rows ->
concat / rollup / dedup -> split by time bucket and partition id -> cut and build right-sized segments with
the table's current config (every index it names, star-trees, the sorted column), each recording the write
tags of the rows it holds (``provenance``) -> stage them in a run folder -> ``commit_job`` with a compaction
run (``WriteRun.replaces == COMPACT``): with a controller one lineage entry whose ``segmentsFrom`` are exactly
the merged segments (no forceCleanup, so a write in progress on them wins and the compaction fails cleanly);
embedded, the manifest says ``publishing`` before the new tarballs move in, and the merged ones are deleted
last. A crash anywhere leaves what ``pinot-sink recover`` settles (the entry reverted, the publish finished or
rolled back, the staging folder deleted); running the compaction again then merges what is still small.
"""
from __future__ import annotations

import logging
import shutil
import socket
import tempfile
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping

import pyarrow as pa

from type_mapping import PinotSchema
from type_mapping.stored import ARROW_STORED_TYPE
from type_mapping.table_config import TableConfig

from pinot_sink.controller import ConsistentPush, redact_text
from pinot_sink.storage.layout import local_path, normalise_uri, segment_uri, table_uri, uri_to_fs
from pinot_sink.storage.manifests import TableManifests, read_table_manifests, write_publishing
from pinot_sink.storage.staging import AttemptStage, private_stage_root
from pinot_sink.controller.store import open_store
from pinot_sink.storage.stores import DirectoryStore
from pinot_sink.segment import build_segment
from pinot_sink.segment.spill import Spill
from pinot_sink.segment.builder import RELEASE_FREE_MIN_ROWS
from pinot_sink.segment.index_policy import has_dict_ids

from .eligible import not_compacted
from .. import allocator
from ..commit import abort_job, commit_job
from ..job import WriteJob, ensure_log_handler
from ..naming import column_min_max, inferred_kind, make_namer, run_tag
from ..recovery import find_leftovers
from ..options import OptionError, WriteOptions, parse_size, redact_options
from ..prepare import parse_table, prepare_table
from ..reports import SegmentRecord, TaskReport, WriteResult
from ..time_window import BUCKET_MS, TimeWindow, TimeWindowError, parse_time_range
from ..write_run import COMPACT, WriteRun
from type_mapping.datetime_formats import stored_to_millis
from . import merge
from .plan import CompactionPlan, Group, list_facts, make_plan
from .merge import CompactionError
from .provenance import SOURCE_WRITES_KEY, format_writes, is_compacted, source_writes, write_tag_of

log = logging.getLogger("pinot_sink")

MODES = ("concat", "rollup", "dedup")
DEFAULT_TARGET = "256mb"


@dataclass(frozen=True)
class CompactionScope:
    """What one group's commit needs to know (``WriteJob.compaction``; ``commit._CompactionReplacement``)."""

    sources: tuple[str, ...]  # the segments merged: exactly the lineage entry's segmentsFrom
    listed: frozenset[str]  # every live segment when the compaction listed the table
    source_writes: frozenset[str]  # write tags whose rows the sources hold
    sources_stay_listed: bool  # embedded: the sources are deleted only at the commit's last step


@dataclass
class GroupReport:
    where: str
    segments_before: int
    bytes_before: int
    rows_before: int
    segments_after: int = 0
    bytes_after: int = 0
    rows_after: int = 0
    builds: int = 0
    lineage_id: str | None = None
    error: str | None = None
    new: list[str] = field(default_factory=list)


@dataclass
class CompactionReport:
    table: str
    mode: str
    plan: CompactionPlan
    dry_run: bool
    groups: list[GroupReport] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def failed(self) -> list[GroupReport]:
        return [g for g in self.groups if g.error]

    def summary(self) -> str:
        if self.dry_run:
            return self.plan.describe() + "\n(dry run: nothing was changed)"
        header = f"{'group':<44} {'before':>7} {'MB':>9} {'rows':>11} {'after':>6} {'MB':>9} {'rows':>11}"
        lines = [f"compaction of {self.table} ({self.mode}):", header, "-" * len(header)]
        for g in self.groups:
            lines.append(f"{g.where:<44} {g.segments_before:>7} {g.bytes_before / 1024**2:>9.2f} {g.rows_before:>11} "
                         f"{g.segments_after:>6} {g.bytes_after / 1024**2:>9.2f} {g.rows_after:>11}"
                         + (f"  FAILED: {g.error}" if g.error else ""))
        done = [g for g in self.groups if not g.error]
        lines.append("-" * len(header))
        lines.append(f"total: {sum(g.segments_before for g in done)} segment(s) -> "
                     f"{sum(g.segments_after for g in done)}, {sum(g.rows_before for g in done)} rows -> "
                     f"{sum(g.rows_after for g in done)}, {sum(g.bytes_before for g in done) / 1024**2:.2f} MB -> "
                     f"{sum(g.bytes_after for g in done) / 1024**2:.2f} MB in {self.elapsed_s:.1f}s"
                     + (f"; {len(self.failed)} group(s) FAILED (the table keeps their segments)" if self.failed else ""))
        lines += [f"left out: {note}" for note in self.plan.notes]
        return "\n".join(lines)


def compact(table: str, *, url: str | None = None, output_uri: str | None = None, target_size: str | int = DEFAULT_TARGET,
            time_range: str | TimeWindow | None = None, min_segment_size: str | int | None = None,
            mode: str = "concat", dry_run: bool = False, bucket: str | None = None,
            aggregations: Mapping[str, str] | None = None, options: Mapping[str, str] | None = None,
            client_config=None, progress: Callable[[str], None] | None = None,
            write_options: WriteOptions | None = None, exclude_writes: frozenset[str] = frozenset()) -> CompactionReport:
    """Compact ``table``'s small segments (module doc). ``options`` are write options that apply (auth, TLS,
    storage options, ``schema`` / ``table-config`` in embedded mode); ``client_config`` a ready controller
    configuration (the CLI's); ``write_options`` a streaming query's own (``pinot_sink.compaction.stream``),
    ``exclude_writes`` write tags whose segments are left out. Returns the report; a group that failed is in
    it (``report.failed``) and left as it was."""
    ensure_log_handler()
    allocator.settle()  # Arrow and numpy on one heap, as a write's task (pinot_sink.allocator)
    started = time.monotonic()
    if mode not in MODES:
        raise OptionError(f"--mode {mode!r}: one of {', '.join(MODES)}")
    if (url or client_config) and output_uri:
        raise OptionError("give --url (a controller's table, the lineage as the record) or --output-uri (a folder "
                          "of tarballs, the manifests as the record), not both")
    raw = {"table-name": table, **{str(k): str(v) for k, v in (options or {}).items()}}
    if url:
        raw["url"] = url
    if output_uri:
        raw["output-uri"] = output_uri
    write_options = write_options or WriteOptions.parse(raw)
    if client_config is not None:
        write_options = replace(write_options, client=client_config)
    if write_options.client is None and not write_options.delivery.output_uri:
        raise OptionError("give --url (a controller) or --output-uri (a folder of tarballs)")
    target = _size(target_size, "--target-size")
    minimum = _size(min_segment_size, "--min-segment-size") if min_segment_size is not None else None
    try:
        window = parse_time_range(time_range.replace("..", "/"), dynamic=False) if isinstance(time_range, str) \
            else time_range
    except TimeWindowError as exc:  # quoted as typed, with '..'
        reason = str(exc).replace(repr(time_range.replace("..", "/")), repr(time_range))
        raise OptionError(f"--time-range {time_range!r}: give FROM..TO (end exclusive), e.g. "
                          f"2024-03-01..2024-03-08 ({reason.split(' (example', 1)[0]})") from None
    root = normalise_uri(write_options.delivery.output_uri) if write_options.delivery.output_uri else None
    store = open_store(table, client_config=write_options.client, root_uri=root,
                       storage_options=write_options.delivery.storage_options)
    try:
        schema_given = write_options.schema.schema_json is not None
        schema_json, config_json = _schema_and_config(store, write_options)
        refused = not_compacted(config_json, table)
        if refused:
            raise OptionError(refused)
        schema, table_config = parse_table(schema_json, config_json, table)
        merge.check_mode(schema, mode)
        if aggregations and str(mode).lower() != "rollup":  # concat and dedup aggregate nothing: it was ignored silently
            raise OptionError(f"--aggregate only applies with --mode rollup (this compaction's mode is {mode})")
        aggregations = merge.check_aggregations(schema, dict(aggregations or {}))
        bucket_ms = bucket_ms_of(bucket, table_config)
        if window is not None and bucket_ms is None:
            raise OptionError(f"--time-range: table {table} has no time column (segmentsConfig.timeColumnName)")
        side = _side_of(store)
        manifests = side.manifests()  # a folder's, read once for both
        side.refuse_unfinished(manifests)
        facts = [f for f in list_facts(store, manifests) if write_tag_of(f.name) not in exclude_writes]
        plan = make_plan(table, facts, mode=mode, target_bytes=target, min_segment_bytes=minimum,
                         bucket_ms=bucket_ms, window=window)
        report = CompactionReport(table, mode, plan, dry_run)
        # A caller with its own progress lines (the CLI) prints the report itself: logged once, at DEBUG, then.
        level = logging.DEBUG if progress else logging.INFO
        log.log(level, "pinot_sink: %s", plan.describe())
        if dry_run:
            return report
        # Every index the config names: built, left to the servers, or refused, once for every group.
        write_options = prepare_table(write_options, schema, table_config).options
        context = _Context(write_options, schema, table_config, store, root, plan, aggregations,
                           progress or (lambda line: log.info("pinot_sink: %s", line)), schema_given=schema_given)
        for index, group in enumerate(plan.groups):
            report.groups.append(context.compact_group(index, group))
            context.say(f"group {index + 1}/{len(plan.groups)} ({group.describe(bucket_ms)}): "
                        f"{'FAILED' if report.groups[-1].error else 'done'}")
        report.elapsed_s = time.monotonic() - started
        log.log(level, "pinot_sink: %s", report.summary())
        return report
    finally:
        store.close()


def _size(value: str | int, option: str) -> int:
    return value if isinstance(value, int) else parse_size(value, option)


def bucket_ms_of(bucket: str | None, table_config: TableConfig) -> int | None:
    """The time bucket's length: ``bucket`` (day, hour), else by the table's push frequency; None without a
    time column."""
    if table_config.time_column is None:
        return None
    if bucket is None:
        bucket = "hour" if (table_config.push_frequency or "").upper() == "HOURLY" else "day"
    if bucket not in BUCKET_MS:
        raise OptionError(f"--bucket {bucket!r}: one of {', '.join(BUCKET_MS)}")
    return BUCKET_MS[bucket]


def _schema_and_config(store, options: WriteOptions) -> tuple[dict, dict]:
    if options.client is not None:
        client = store.client
        return (options.schema.schema_json or client.get_schema(options.table_name),
                options.schema.table_config_json or client.get_table_config(options.table_name))
    if options.schema.schema_json is None:
        raise OptionError("--output-uri needs --schema FILE (the table's Pinot schema) and --table-config FILE (its "
                          "time column, indexes and partitions; in Python options={'schema': ..., 'table-config': "
                          "...}): a folder of tarballs does not hold them")
    return options.schema.schema_json, options.schema.table_config_json or {
        "tableName": f"{options.table_name}_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {},
        "tableIndexConfig": {}, "metadata": {}}


@dataclass
class _Context:
    options: WriteOptions
    schema: PinotSchema
    table_config: TableConfig
    store: Any
    root: str | None
    plan: CompactionPlan
    aggregations: dict
    say: Callable[[str], None]
    write_id: str = field(default_factory=lambda: f"compact:{uuid.uuid4().hex}")
    bytes_per_row: float | None = None
    schema_given: bool = False  # the caller's schema (a folder's --schema), not the controller's: merge.check_columns

    @property
    def side(self):
        """The steps that differ by store (``_Sides``), picked by the store itself."""
        return _side_of(self.store)

    def compact_group(self, index: int, group: Group) -> GroupReport:
        plan = self.plan
        where = group.describe(plan.bucket_ms)
        report = GroupReport(where, len(group.sources), group.nbytes, group.rows)
        job = self._job(index, group)
        work = Path(tempfile.mkdtemp(prefix=f"pinot-sink-compact-{self.options.table_name[:48]}-"))
        staged: list[SegmentRecord] = []
        try:
            try:
                self.side.before_build(job)
                staged = self._build(job, group, work, report)
                self.side.before_commit(job.compaction.sources)
                result = commit_job(job, [TaskReport(0, 0, staged, input_rows=group.rows)])
            except BaseException as exc:
                _abort(job, staged)
                if not isinstance(exc, Exception):
                    raise
                report.error = redact_text(str(exc))
                log.error("pinot_sink: compaction of %s, %s failed: %s", plan.table, where, report.error)
                return report
            report.segments_after = len(result.segments)
            report.bytes_after = sum(s.tar_bytes for s in result.segments)
            report.rows_after = result.rows
            report.lineage_id, report.new = result.lineage_id, [s.name for s in result.segments]
            return report
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _job(self, index: int, group: Group) -> WriteJob:
        options = self.options
        now_ms = int(time.time() * 1000)
        stage_root = self.root or normalise_uri(private_stage_root(options.table_name))
        run = WriteRun(options.table_name, self.write_id, run_tag(now_ms + index, replaces=COMPACT), COMPACT,
                       rerun=False, stage_root=stage_root, instant_ms=now_ms)
        names = [s.name for s in group.sources]
        scope = CompactionScope(tuple(names), self.plan.listed, frozenset(source_writes(names, self.store)),
                                sources_stay_listed=self.side.sources_stay_listed)
        # Segments no pinot-sink write made (Pinot's own, say) hold no write to record: no provenance line, so
        # their compaction writes what Pinot's SegmentProcessorFramework writes (docs/compaction.md).
        provenance = {SOURCE_WRITES_KEY: format_writes(scope.source_writes)} if scope.source_writes else {}
        # One builder thread (as a Spark task's): the compaction reads and builds one segment at a time, and a
        # second thread added ~0.3 CPU-s of hand-offs to 4M rows (bench/compact.py) and a second heap.
        threads = options.build.threads if options.build.threads is not None else 1
        options = replace(options, build=replace(options.build, threads=threads,
                                                 custom_properties={**options.build.custom_properties, **provenance},
                                                 # no heap trims between columns (release_free): at 256mb
                                                 # they doubled the builds' page faults, ~1 CPU-s of 2000
                                                 # inputs' ~19, for <= 0.1x the target of peak (cpu20k3,
                                                 # docs/performance-log.md); smaller builds never trimmed
                                                 release_input=True,  # the cutter hands each build its rows
                                                 largest_first=True, narrow_order=True))
        return WriteJob(options=options, schema=self.schema, table_config=self.table_config, plan=None,
                        overwrite=False, streaming=False, run=run, creation_time_ms=now_ms, output_uri=self.root,
                        stage_root=stage_root, stage_is_driver_local=self.root is None,
                        driver_host=socket.gethostname(), started_at=time.time(),
                        logged_options={str(k): str(v) for k, v in redact_options(
                            {"table-name": options.table_name, "compaction.mode": self.plan.mode}).items()},
                        index_plan=options.build.index_plan, segment_store=self.store, compaction=scope)

    def _build(self, job: WriteJob, group: Group, work: Path, report: GroupReport) -> list[SegmentRecord]:
        run, schema, config = job.run, self.schema, self.table_config
        stage = AttemptStage(run.attempt_staging(0, 0), work, table=job.table, storage_options=job.storage_options)
        # Named as Pinot's SegmentProcessorFramework names merged segments (docs/compaction.md), with the run's tags.
        namer = make_namer(inferred_kind(schema, config), job.table, schema, config, postfix=run.postfix(None, 0))
        time_column = config.time_column if config.time_column in schema else None
        staged: list[SegmentRecord] = []

        def build(rows, key) -> merge.Built:
            low, high = column_min_max(pa.table({time_column: merge.used_values(rows.table.column(time_column))}),
                                       time_column) if time_column else (None, None)
            name = namer.name(len(staged), low, high)
            started = time.monotonic()
            built = build_segment(rows, schema, config, stage.build_dir, name, creation_time_ms=job.creation_time_ms,
                                  options=job.options.build, spill=spill)
            build_ms = (time.monotonic() - started) * 1000

            def keep() -> None:
                uri = stage.stage(built)
                staged.append(SegmentRecord(
                    name=built.name, rows=built.rows, tar_bytes=built.tar_bytes, crc=built.crc, staged_uri=uri,
                    partition_id=0, sequence_id=len(staged), build_ms=build_ms, stage_ms=0.0,
                    start_time_ms=_millis(built, built.start_time), end_time_ms=_millis(built, built.end_time)))
                self.say(f"{group.describe(self.plan.bucket_ms)}: segment {built.name}: {built.rows} rows, "
                         f"{built.dir_bytes / 1024**2:.2f} MB ({built.tar_bytes / 1024**2:.2f} MB tarred)")

            return merge.Built(built.name, built.rows, built.dir_bytes, str(built.tar_path), keep,
                               lambda: merge.remove_file(str(built.tar_path)))

        reduce = None
        if self.plan.mode == "rollup":
            reduce = lambda rows: merge.rollup(rows, schema, self.aggregations)  # noqa: E731
        elif self.plan.mode == "dedup":
            reduce = lambda rows: merge.dedup(rows, schema)  # noqa: E731
        narrow = merge.narrowable_columns(schema, config, time_column, self.plan.mode)

        def rows_of(number: int) -> dict[tuple, merge.PinotColumns]:
            """The rows of the group's source ``number``, by key."""
            source = group.sources[number]
            path = self._fetch(job, source.name, work)
            try:
                rows = merge.read_rows(path, schema, f"table {job.table}, segment {source.name}", time_column,
                                       refuse_dropped=self.schema_given, narrow=narrow)
            finally:
                if Path(path).parent == work:
                    merge.remove_file(path)
            return merge.split_by_key(rows, merge.row_keys(rows, schema, config, time_column, self.plan.bucket_ms))

        def reread(origin) -> merge.PinotColumns:  # a segment's rows again, after a build that missed the band
            number, key = origin
            return rows_of(number)[key]

        cutter = merge.Cutter(self.plan.target_bytes, build,
                              self.bytes_per_row or max(1.0, group.size / max(group.rows, 1)), reduce,
                              estimate=None if self.bytes_per_row else self._estimate,
                              reread=reread if reduce is None else None, reread_below=RELEASE_FREE_MIN_ROWS)
        # Each build's index payloads wait on disk, not in memory, for the tarball (segment.spill)
        spill = Spill(stage.build_dir)
        try:
            for number in range(1, len(group.sources) + 1):
                parts = rows_of(number - 1)
                for key in list(parts):  # popped: a part built and let go by the cutter is held nowhere else
                    cutter.add(key, parts.pop(key), (number - 1, key))
                if number % 50 == 0:
                    self.say(f"{group.describe(self.plan.bucket_ms)}: read {number}/{len(group.sources)} segment(s)")
            cutter.finish()
        finally:
            spill.close()
        self.bytes_per_row = cutter.bytes_per_row
        report.builds = cutter.builds
        return staged

    def _estimate(self, rows, bytes_per_row: float) -> float:
        """The first segment's bytes per row (``merge.merged_bytes_per_row``), by the indexes the table gives
        each column."""
        settings = self.table_config.indexes
        sorted_column = settings.sorted_columns[0] if settings.sorted_columns else None
        per_value = {name: merge.SORTED_PER_VALUE if name == sorted_column else
                     merge.INVERTED_PER_VALUE if c.inverted else 0 for name, c in settings.columns.items()}
        widths = {spec.name: ARROW_STORED_TYPE[spec.stored_type].bit_width // 8 for spec in self.schema
                  if spec.single_value and spec.stored_type in ("INT", "LONG", "FLOAT", "DOUBLE")
                  and spec.name in settings.columns
                  and has_dict_ids(settings.columns[spec.name])}  # a number column merge may hold as values
        return merge.merged_bytes_per_row(rows, bytes_per_row, per_value, sorted_column, widths)

    def _fetch(self, job: WriteJob, name: str, work: Path) -> str:
        """A local path of the segment's tarball: the folder's own file, or a download."""
        return self.side.fetch(job, name, work)


class _FolderSide:
    """Compacting a folder's table: the manifests are the record, a merged segment's file is read in place."""

    sources_stay_listed = True  # the merged files stay in the folder until the publish deletes them

    def __init__(self, store: DirectoryStore) -> None:
        self.store = store

    def manifests(self) -> TableManifests:
        return read_table_manifests(table_uri(self.store.root_uri, self.store.table), self.store.storage_options)

    def refuse_unfinished(self, manifests: TableManifests) -> None:
        _refuse_unfinished(self.store, manifests)

    def before_build(self, job: WriteJob) -> None:
        # The run's record before anything is staged in the folder: killed while building, it says an embedded
        # run began (nothing to publish, nothing replaced), so recovery settles it.
        write_publishing(job.record(job.run), job.run.write_id, [], [])

    def before_commit(self, sources: tuple[str, ...]) -> None:
        pass

    def fetch(self, job: WriteJob, name: str, work: Path) -> str:
        uri = segment_uri(self.store.root_uri, job.table, name)
        local = local_path(uri)
        if local is not None:
            return local
        fs, remote = uri_to_fs(uri, job.storage_options)
        fs.get_file(remote, str(work / f"{name}.tar.gz"))
        return str(work / f"{name}.tar.gz")


class _ControllerSide:
    """Compacting a controller's table: the lineage is the record, a merged segment is downloaded."""

    sources_stay_listed = False

    def __init__(self, store) -> None:
        self.store = store

    def manifests(self) -> None:
        return None  # the lineage is the record

    def refuse_unfinished(self, manifests: None) -> None:
        pass  # an unfinished lineage entry is the controller's to show; a dead compaction's is reverted below

    def before_build(self, job: WriteJob) -> None:
        pass

    def before_commit(self, sources: tuple[str, ...]) -> None:
        _revert_dead_compactions(self.store, sources)

    def fetch(self, job: WriteJob, name: str, work: Path) -> str:
        return str(self.store.client.download_segment(job.table, name, work / f"{name}.tar.gz"))


class _Sides:
    """A compaction's steps that differ by store, one class per kind: the store picks its own
    (``SegmentStore.publication``), so the compaction never asks which store it holds."""

    into_folder = _FolderSide
    through_controller = _ControllerSide


def _side_of(store):
    return store.publication(_Sides)(store)


def _refuse_unfinished(store: DirectoryStore, manifests: TableManifests) -> None:
    """A folder where a publish did not finish (a write or compaction killed while moving files, or one
    moving them now) shows some of its files and hides others: merging what it shows could hold rows twice
    once the publish is settled. Refused, saying how to settle it."""
    unfinished = [l for l in find_leftovers(store.table, output_uri=store.root_uri,
                                            storage_options=store.storage_options, manifests=manifests)
                  if l.kind in ("unfinished publish", "unreadable write record")]
    if unfinished:
        raise CompactionError(
            f"table {store.table}: not compacted: {unfinished[0].describe()}"
            f"{f' (and {len(unfinished) - 1} more)' if len(unfinished) > 1 else ''}; once no write of the table "
            f"runs, `pinot-sink recover --table {store.table} --output-uri {store.root_uri} --min-age 0 --apply` "
            f"settles it, then compact again")


def _revert_dead_compactions(store, sources: tuple[str, ...]) -> None:
    """An earlier compaction's entry left IN_PROGRESS on these segments (it was killed) would make this one's
    start fail: revert it (its new segments were never visible). A compaction still running on them fails
    cleanly when its end finds its entry reverted. Writers' entries are never touched."""
    wanted = set(sources)
    for entry_id, entry in store.client.get_lineage(store.table).items():
        new = entry.get("segmentsTo") or []
        if (entry.get("state") == "IN_PROGRESS" and new and all(is_compacted(n) for n in new)
                and wanted & set(entry.get("segmentsFrom") or [])):
            log.warning("pinot_sink: %s: reverting lineage entry %s of a compaction that did not finish",
                        store.table, entry_id)
            ConsistentPush.resume(store.client, store.table, entry_id).revert()


def _millis(built, value) -> int | None:
    if value is None or built.time_unit is None:
        return None
    return stored_to_millis(value, built.time_unit)


def _abort(job: WriteJob, staged: list[SegmentRecord]) -> None:
    try:
        abort_job(job, [TaskReport(0, 0, staged)])
    except Exception as exc:  # noqa: BLE001 - the failure itself is what the report says
        log.error("pinot_sink: compaction of %s: abort failed: %s", job.table, exc)
