"""A write, prepared on the driver before any task runs: ``prepare_job`` -> ``WriteJob``.

options -> Pinot schema and table config (controller, or the ``schema`` / ``table-config`` options) ->
reconcile with the DataFrame schema (fails fast, naming the column) -> the write's identity and where tasks
stage (its ``WriteRun``) and the table's store, chosen once. Spark-free: the Spark 4 data source and the
Spark 3 ``mapInArrow`` entry point both call it, then ship the picklable ``WriteJob`` to the tasks
(``pinot_sink.task``) and hand it with the task reports to the single committer (``pinot_sink.commit``).
"""
from __future__ import annotations

import logging
import socket
import sys
import time
import uuid
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from type_mapping import PinotSchema
from type_mapping.errors import PinotSinkError
from type_mapping.reconcile import WritePlan
from type_mapping.table_config import TableConfig

from pinot_sink.controller import ControllerClient, redact_text
from pinot_sink.controller.errors import ControllerNotFoundError
from pinot_sink.storage.files import remove_tree
from pinot_sink.storage.layout import local_path, manifest_uri, normalise_uri, table_uri
from pinot_sink.storage.manifests import WriteRecord, common_fields
from pinot_sink.storage.staging import private_stage_root, remove_empty_root
from pinot_sink.controller.store import open_store
from pinot_sink.storage.stores import SegmentStore
from pinot_sink.segment.format import FILE_NAME_MAX_BYTES, SEGMENT_NAME_MAX_BYTES
from pinot_sink.segment.index_policy import IndexPlan

from .compaction.eligible import not_compacted
from .compaction.provenance import CompactedWriteError, refuse_rerun_of_compacted
from .ingestion import IngestionPipeline
from .naming import SegmentNameError, SegmentNamer, run_tag, uploaded_realtime_namer
from .options import OptionError, WriteOptions, redact_options
from .prepare import parse_table, prepare_table, segment_namer
from .primary_keys import PrimaryKeyPlan, PrimaryKeyTableError, check_table_type, plan_primary_keys
from .replacing import Replacing, replacing_for
from .reports import TaskReport
from .table_create import create_if_missing, derived_schema, derived_table_config
from .time_window import StraddlingSegmentsError, TimeWindowError, WindowPlan, plan_window, select_replaced
from .write_run import APPEND, COMPACT, TABLE, WINDOW, WriteRun

log = logging.getLogger("pinot_sink")

DEFAULT_OUTPUT_URI = "pinot-segments"  # embedded mode without output-uri: ./pinot-segments/<table>/


def ensure_log_handler() -> None:
    """Python workers have no logging config: send our INFO lines to stderr (the executor log)."""
    if not log.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False


@dataclass(frozen=True)
class WriteJob:
    """Everything the tasks and the committer need; made once on the driver, pickled to executors."""

    options: WriteOptions
    schema: PinotSchema  # parsed once, here on the driver (pinot_sink.prepare)
    table_config: TableConfig  # parsed once, here on the driver
    plan: WritePlan
    overwrite: bool
    streaming: bool
    run: WriteRun  # which write this is (streaming: the query's template; see run_of)
    creation_time_ms: int
    output_uri: str | None  # normalised root; tarballs at <output_uri>/<table>/<name>.tar.gz
    stage_root: str  # normalised root under which tasks stage (<stage_root>/<table>/_staging/...)
    stage_is_driver_local: bool  # a temp folder of the driver's machine: tasks elsewhere cannot reach it
    driver_host: str
    started_at: float
    logged_options: dict  # the user's options as given, secrets redacted (manifest, logs)
    pipeline: IngestionPipeline | None = None  # the table config's transforms, filter, complex types; None: none
    compaction: Any = None  # a compaction's plan (pinot_sink.compaction.run.CompactionScope), None for a write
    window: WindowPlan | None = None  # overwrite.time-range / sink.time-bucket (pinot_sink.time_window)
    index_plan: IndexPlan | None = None  # what is built, what the servers build (also in options.build)
    segment_store: SegmentStore | None = None  # the table's store, chosen once (``store()``)
    primary_keys: PrimaryKeyPlan | None = None  # upsert / dedup / dimension tables (pinot_sink.primary_keys)
    # How its segments replace others (pinot_sink.replacing): chosen once, here, from the naming; the commit asks it
    replacing: Replacing | None = None

    def __post_init__(self) -> None:
        if self.replacing is None:
            object.__setattr__(self, "replacing", replacing_for(self.options.naming.kind))

    @property
    def table(self) -> str:
        return self.options.table_name

    @property
    def typed_table(self) -> str:
        """The name the ``pinot-sink`` commands take for this write's table: ``events``, or ``events_REALTIME``
        for a REALTIME table's backfill (the raw name means the OFFLINE table)."""
        return self.table if self.options.table_type == "OFFLINE" else f"{self.table}_{self.options.table_type}"

    @property
    def client_config(self):
        return self.options.client

    @property
    def run_tag(self) -> str:
        """The run tag of this write (of every micro-batch of a streaming query)."""
        return self.run.run_tag

    def run_of(self, query_id: str | None = None, batch_id: int | None = None,
               reports: Sequence[TaskReport | None] = ()) -> WriteRun:
        """The run a task or the commit belongs to: the write's, or in streaming its micro-batch's. PySpark
        commits a micro-batch with a writer it makes apart from the one its tasks ran (its streaming sink
        runner calls ``streamWriter`` again), so that writer's own run tag and private staging root are not the
        tasks': the commit takes both from the tasks' ``reports``."""
        if not self.streaming:
            return self.run
        run = self.run.for_batch(query_id, batch_id)
        staged = {(r.run_tag, r.stage_root) for r in reports if r is not None and r.run_tag is not None}
        if len(staged) > 1:
            raise PinotSinkError(f"table {self.table}: the tasks of micro-batch {batch_id} report different runs "
                                 f"{redact_text(str(sorted(staged)))}: they were not made by one writer")
        if staged:
            run_tag, stage_root = staged.pop()
            run = replace(run, run_tag=run_tag, stage_root=stage_root)
        return run

    def store(self) -> SegmentStore:
        """Where the table's live segments are: the controller, or the output directory (chosen once, in
        ``prepare_job``)."""
        return self.segment_store

    def record(self, run: WriteRun) -> WriteRecord:
        """Where ``run``'s manifests go (``pinot_sink.storage.manifests``) and what they all say."""
        run_folder = run.folder
        uris = (manifest_uri(self.output_uri, self.table, run_folder),) if self.output_uri else ()
        if self.options.manifest_path:
            uris += (self.options.manifest_path,)
        client = self.client_config
        common = common_fields(table=self.table, overwrite=self.overwrite, run_tag=run.run_tag,
                               push_mode=self.options.delivery.push_mode if client else None,
                               controller=client.url if client else None, output_uri=self.output_uri,
                               options=self.logged_options, started_at=self.started_at)
        return WriteRecord(self.table, run_folder, uris,
                           table_uri(self.output_uri, self.table) if self.output_uri else None, common,
                           self.storage_options)

    @property
    def storage_options(self) -> dict:
        return self.options.delivery.storage_options

    def segment_schema(self) -> PinotSchema:
        return self.schema

    def namer(self, run: WriteRun, *, partition_id: int) -> SegmentNamer:
        naming = self.options.naming
        postfix = run.postfix(naming.postfix, partition_id)
        if self.primary_keys is not None and self.primary_keys.realtime:
            return uploaded_realtime_namer(self.table, postfix=postfix, prefix=naming.prefix,
                                           creation_ms=self.creation_time_ms)
        return segment_namer(self.options, self.schema, self.table_config, postfix=postfix)


def _default_table_config(table: str) -> dict:
    return {"tableName": f"{table}_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {},
            "tableIndexConfig": {}, "metadata": {}}


def prepare_job(raw_options: Mapping[str, str], source_schema: Any, *, overwrite: bool, streaming: bool = False,
                now_ms: int | None = None) -> WriteJob:
    """Everything the tasks need, decided once on the driver; fails fast with a clear message.

    ``source_schema`` is the DataFrame's schema (Spark ``StructType`` or Arrow schema)."""
    ensure_log_handler()
    options = WriteOptions.parse(raw_options)
    if streaming and overwrite:
        raise OptionError("the pinot sink does not support the 'complete' output mode (it would need to replace "
                          "the whole table every micro-batch); use the 'append' output mode")
    if options.dedup_batch:
        raise OptionError("option 'upsert.dedup-batch' is applied by pinot_sink.write(df, ...), which shuffles the "
                          "DataFrame by primary key; a data source (format('pinot'), writeStream) gets its rows as "
                          "they are: use pinot_sink.write, or drop the duplicates before the write")
    if streaming and options.write_id:
        raise OptionError("option 'write.id' is for batch writes; a streaming query's micro-batches are "
                          "identified by the query id and batch id")
    if not streaming and options.compaction.enabled:
        raise OptionError("options 'compaction.*' are for streaming queries (a compaction after micro-batches); "
                          "compact a table written in batches with `pinot-sink compact` or pinot_sink.compact(...)")
    create = options.table_create
    if options.client is not None:
        with ControllerClient.from_config(options.client) as client:
            if create.mode == "if-missing":
                create_if_missing(client, options.table_name, source_schema, create)
            try:
                schema_json = options.schema.schema_json or client.get_schema(options.table_name)
                table_config = options.schema.table_config_json or client.get_table_config(options.table_name)
            except ControllerNotFoundError as exc:
                if create.mode == "if-missing":
                    raise
                raise OptionError(f"table {options.table_name}: the controller at {options.client.url} has no such "
                                  f"table ({exc}); set option 'table.create'=if-missing to create it from the "
                                  f"DataFrame's columns") from None
    elif create.mode == "if-missing" and options.schema.schema_json is None:
        # embedded: no controller to create anything on; the derived schema and config build the segments
        schema_json = derived_schema(options.table_name, source_schema, create)
        table_config = options.schema.table_config_json or derived_table_config(options.table_name, schema_json,
                                                                                 create)
    else:
        if options.schema.schema_json is None:
            raise OptionError(
                "without 'url' (no controller) the Pinot schema must come from the 'schema' option "
                "(inline JSON or a path), and optionally the table config from 'table-config', or from the "
                "DataFrame with 'table.create'=if-missing"
            )
        schema_json = options.schema.schema_json
        table_config = options.schema.table_config_json or _default_table_config(options.table_name)

    pinot_schema, table_config = parse_table(schema_json, table_config, options.table_name)
    prepared = prepare_table(options, pinot_schema, table_config)
    options, index_plan = prepared.options, prepared.index_plan
    for decision in index_plan.deferred:
        log.warning("pinot_sink: table %s: %s", options.table_name, decision.describe())
    try:
        primary_keys = plan_primary_keys(table_config, pinot_schema, options.table_name)
        check_table_type(options.table_type, table_config, primary_keys, options.table_name)
    except (PrimaryKeyTableError, ValueError) as exc:
        raise OptionError(str(exc)) from None
    if streaming and options.compaction.enabled:
        refused = not_compacted(table_config.raw, options.table_name)
        if refused:  # else every compaction of the query fails, logged and never seen
            raise OptionError(f"options 'compaction.*': {refused}; leave them out for this table")
    pipeline, plan = prepared.rules(source_schema)

    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    if streaming and pipeline is not None and pipeline.reads_the_clock:
        # a micro-batch's run is rebuilt in each task (run_of), so no driver-side instant reaches it per batch
        raise OptionError(f"table {options.table_name}: now() / ago() in the table config's transforms are the "
                          f"write's own instant, which a streaming query's micro-batches do not have; stamp "
                          f"rows with Spark's current_timestamp() (one value per micro-batch) instead")
    if not overwrite and not streaming and table_config.refreshes_whole_table:
        # Pinot's own batch jobs replace a REFRESH table's segments with every consistent push: follow the table.
        log.warning("pinot_sink: table %s is a REFRESH table with consistentDataPush: this append replaces all "
                    "of its segments atomically, as Pinot's batch jobs do (the table's setting)", options.table_name)
        overwrite = True
    # Without write.id every job is its own write: a fresh id, so appends never touch each other's segments.
    write_id = None if streaming else (options.write_id or f"auto:{uuid.uuid4().hex}")
    delivery = options.delivery
    output_uri = delivery.output_uri or (DEFAULT_OUTPUT_URI if options.client is None else None)
    output_uri = normalise_uri(output_uri) if output_uri else None
    # The controller is sent push.segment-uri-prefix + the tarball's path when a prefix is set (e.g. an HTTP
    # server over a local output-uri): judge the URI it is sent, not where the tarball is written.
    announced = delivery.segment_uri_prefix or output_uri
    if options.client is not None and delivery.push_mode == "uri" and announced and \
            announced.lower().startswith("file:"):
        raise OptionError(
            f"option 'push-mode'=uri needs an 'output-uri' the controller can download from (s3://, hdfs://, "
            f"gs://, ...); the controller rejects file: URIs ({redact_text(announced)}). Use push-mode=metadata or "
            f"tar with a local directory, or push.segment-uri-prefix naming a server of it"
        )
    try:
        window = plan_window(options.window.time_range, options.window.time_bucket,
                             options.window.include_straddling, table_config=table_config, schema=pinot_schema,
                             overwrite=overwrite, streaming=streaming, naming_kind=options.naming.kind)
    except TimeWindowError as exc:
        raise OptionError(f"table {options.table_name}: {exc}") from None
    replaces = WINDOW if window is not None and window.replaces_by_time else TABLE if overwrite else APPEND
    if replaces != APPEND and primary_keys is not None and primary_keys.realtime:
        raise OptionError(f"table {options.table_name}: a REALTIME table's live segments include the stream's own "
                          f"(consuming and completed); pinot_sink does not replace them: append, and rerun a "
                          f"'write.id' to replace that write's segments (docs/primary-key-tables.md)")
    stage_is_driver_local = output_uri is None
    stage_root = output_uri or normalise_uri(private_stage_root(options.table_name))

    job = WriteJob(
        options=options, schema=pinot_schema, table_config=table_config, plan=plan, overwrite=overwrite,
        streaming=streaming,
        run=WriteRun(options.table_name, write_id, run_tag(now_ms, replaces=replaces), replaces,
                     rerun=streaming or bool(options.write_id), stage_root=stage_root, instant_ms=now_ms),
        creation_time_ms=options.creation_time_ms if options.creation_time_ms is not None else now_ms,
        output_uri=output_uri, stage_root=stage_root, stage_is_driver_local=stage_is_driver_local,
        driver_host=socket.gethostname(), started_at=time.time(), window=window,
        logged_options={str(k): str(v) for k, v in redact_options(raw_options).items()},
        pipeline=pipeline, index_plan=index_plan, primary_keys=primary_keys,
        segment_store=open_store(options.table_name, client_config=options.client, root_uri=output_uri,
                                 storage_options=delivery.storage_options),
    )
    try:  # names are validated before any task runs
        namer = job.namer(job.run_of(None, 0), partition_id=0)
        _check_name_length(namer, options)
    except SegmentNameError as exc:
        release_private_stage_root(job)
        raise OptionError(f"table {options.table_name}: {exc}") from None
    except OptionError:
        release_private_stage_root(job)
        raise
    if window is not None and window.window is not None:
        try:
            _check_straddling(job)
        except OptionError:
            release_private_stage_root(job)
            raise
    if job.run.rerun and job.run.replaces is APPEND:
        try:  # a compacted write's rerun is refused before any task runs; the commit checks again
            _check_not_compacted(job)
        except CompactedWriteError:
            release_private_stage_root(job)
            raise
    log.info("pinot_sink: writing %s (%s, write id %s, run %s)", job.table, describe_mode(job),
             write_id if write_id is not None else "per micro-batch", job.run_tag)
    log.debug("pinot_sink: %s: %s", job.table, redact_text(str(options)))  # every option, parsed: for debugging
    if options.parallelism and not streaming:
        log.warning("pinot_sink: sink.parallelism=%d is not applied by format('pinot') (a data source cannot "
                    "repartition its input); use pinot_sink.write(df, ...) or df.repartition(%d)",
                    options.parallelism, options.parallelism)
    return job


def _check_straddling(job: WriteJob) -> None:
    """A window overwrite whose live segments straddle the window's edge is refused here, on the driver,
    before any task builds anything; the commit checks again against what is live then (a segment may
    arrive meanwhile)."""
    store = job.store()
    try:
        select_replaced(store.time_ranges(store.list()), [job.window.window],
                        include_straddling=job.window.include_straddling)
    except StraddlingSegmentsError as exc:
        raise OptionError(f"table {job.table}: nothing was written: {exc}") from None
    finally:
        store.close()


def _check_not_compacted(job: WriteJob) -> None:
    store = job.store()
    try:
        refuse_rerun_of_compacted(job.table, job.run.write_id, job.run.write_tag, store.list(), store)
    finally:
        store.close()


def _check_name_length(namer: SegmentNamer, options: WriteOptions) -> None:
    """Segment names become file names (tarballs, staging): one too long for a file name fails here, on the
    driver, naming the options that make it long, instead of in every task."""
    longest = namer.longest_bytes()
    if longest <= SEGMENT_NAME_MAX_BYTES:
        return
    naming = options.naming
    given = [name for name, value in (("segment.name", naming.fixed_name if naming.kind == "fixed" else None),
                                      ("segment.name.prefix", naming.prefix if naming.kind == "normalizedDate" else None),
                                      ("segment.name.postfix", naming.postfix)) if value]
    if naming.kind != "fixed" and not (naming.kind == "normalizedDate" and naming.prefix):
        given.insert(0, "table-name")
    raise OptionError(
        f"option {given[0]!r}: segment names of table {options.table_name[:60]}{'...' if len(options.table_name) > 60 else ''} "
        f"would be up to {longest} bytes (with the write tags, time values, partition and sequence), but a "
        f"file name holds {FILE_NAME_MAX_BYTES} and a segment name at most {SEGMENT_NAME_MAX_BYTES}: shorten "
        f"{' or '.join(repr(g) for g in given)}")


def release_private_stage_root(job: WriteJob, run: WriteRun | None = None) -> None:
    """Remove a write's private staging root (``private_stage_root``) once ``run`` is committed or aborted.
    A streaming writer that staged its micro-batch itself keeps its root for the next ones (each one's run
    folder goes after its commit), and the empty root stays until a later write of the table sweeps it
    (``staging.sweep_empty_roots``). Where the committing writer is not the tasks' (PySpark: see ``run_of``),
    its own root was never used, and the tasks' root, made for this micro-batch, goes once it holds no file
    (micro-batches run one after another, so no later one stages in it yet)."""
    if not job.stage_is_driver_local:
        return
    if not job.streaming:
        remove_tree(job.stage_root)
    elif run is not None and run.stage_root != job.stage_root:
        remove_tree(job.stage_root)
        remove_empty_root(local_path(run.stage_root), job.table)


def check_staging_reachable(master: str, options: dict) -> None:
    """With a controller and no output-uri, tasks stage in a temporary folder of the driver's machine:
    only executors on that machine (local mode) can reach it. Said before any task runs."""
    given = {str(k).lower() for k, v in options.items() if v not in (None, "")}
    if "url" in given and not given & {"output-uri", "outputdiruri", "path"} and not master.startswith("local"):
        raise OptionError(f"on a cluster (master {master}) set 'output-uri' to storage that every executor and "
                          f"the driver can reach (s3://, hdfs://, gs://, a shared mount): tasks stage segments "
                          f"there for the driver's commit")


def describe_mode(job: WriteJob) -> str:
    """For people (logs, the result, the manifest): credentials in output-uri (``sftp://user:pw@host``) redacted."""
    mode = "compaction" if job.run.replaces == COMPACT else "overwrite" if job.overwrite else "append"
    if job.window is not None and job.window.window is not None:
        mode = f"overwrite of {job.window.window}"
    elif job.window is not None and job.window.dynamic_bucket_ms is not None:
        mode = "overwrite of the days/hours in the data"
    if job.client_config is None:
        return redact_text(f"{mode}, embedded: segments to {job.output_uri}/{job.table}/, no upload")
    return f"{mode}, controller {job.client_config.url}, push-mode {job.options.delivery.push_mode}"
