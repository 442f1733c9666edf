"""Primary-key tables (upsert, dedup, dimension): what Pinot requires of their segments, checked on the driver
before any task runs, and the plan the write follows for them.

Pinot resolves a primary key inside one partition: a server keeps one upsert (or dedup) map per partition id,
read off each segment's name (``LLCSegmentName`` / ``UploadedRealtimeSegmentName``) or its ZK partition
metadata. So every segment of such a table must hold exactly one partition id, of the column and function
the table config names (``tableIndexConfig.segmentPartitionConfig``); the controller refuses an OFFLINE upsert
segment with two (``SegmentValidationUtils.validateUpsertSegmentPartitionMetadata``, HTTP 400), and a server
cannot place a REALTIME one whose name does not carry its partition. The writer already cuts one segment per
partition id (``pinot_sink.partitioning``); this module refuses what Pinot refuses at table creation
(``TableConfigUtils.validateUpsertAndDedupConfig``, in Pinot's words), and says which column names the
partition a segment belongs to.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Sequence

from type_mapping.errors import PinotSinkError
from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import (DEFAULT_DIM_TABLE_MAX_SIZE, PrimaryKeySettings, TableConfig, data_size_bytes,
                                      data_size_text)

log = logging.getLogger("pinot_sink")

# Offline upsert: what Pinot's TableConfigUtils says when the table config lacks it.
NO_PARTITION_CONFIG = ("Offline upsert table must have segment partition config to ensure correct partition-based "
                       "segment assignment. Configure segmentPartitionConfig in the indexingConfig.")
NO_COMPARISON = "Offline upsert table must have a comparison column or a time column configured"
PARTIAL_OFFLINE = "Partial upsert is not supported for OFFLINE table"


class PrimaryKeyTableError(PinotSinkError, ValueError):
    """A primary-key table this write cannot fill as Pinot requires; the message is Pinot's where Pinot has one."""


@dataclass(frozen=True)
class PrimaryKeyPlan:
    """How a write fills a primary-key table: the column whose partition id each segment holds (and a
    REALTIME segment's name carries), the comparison column(s) upsert resolves by, and the key columns."""

    table_type: str
    settings: PrimaryKeySettings
    key_columns: tuple[str, ...]
    partition_column: str | None
    comparison_columns: tuple[str, ...]

    @property
    def realtime(self) -> bool:
        return self.table_type == "REALTIME"


def plan_primary_keys(config: TableConfig, schema: PinotSchema, table: str) -> PrimaryKeyPlan | None:
    """None for a table without upsert, dedup or ``isDimTable``; else the plan, or ``PrimaryKeyTableError``
    for a config Pinot itself refuses (or whose segments no server could place)."""
    keys = config.primary_keys
    if not (keys.keyed or keys.dim_table):
        return None

    def refuse(message: str) -> PrimaryKeyTableError:
        return PrimaryKeyTableError(f"table {table}: {message}")

    kind = keys.table_type
    key_columns = tuple(schema.primary_key_columns)
    if keys.dim_table:
        if kind != "OFFLINE":
            raise refuse("Dimension table must be of OFFLINE table type.")
        if not key_columns:
            raise refuse("Dimension table must have primary key[s]")
    if not keys.keyed:
        return PrimaryKeyPlan(kind, keys, key_columns, None, ())
    if keys.upsert and keys.dedup:
        raise refuse("A table can have either Upsert or Dedup enabled, but not both")
    if not key_columns:
        raise refuse("Upsert/Dedup table must have primary key columns in the schema")
    for column in key_columns:
        if column in schema.fields and not schema[column].single_value:
            raise refuse(f"Upsert/Dedup primary key column: {column} cannot be of multi-value type")
    for column in keys.comparison_columns:
        if column not in schema.fields:
            raise refuse(f"The comparison column does not exist on schema (upsertConfig.comparisonColumns: {column})")
    partitions = config.indexes.partitions
    if kind == "OFFLINE":
        if keys.dedup:
            raise refuse("Dedup is not supported for OFFLINE table. Only upsert is supported for OFFLINE table")
        if keys.upsert_mode == "PARTIAL":
            raise refuse(PARTIAL_OFFLINE)
        if not partitions:
            raise refuse(NO_PARTITION_CONFIG)
        if not keys.comparison_columns and not config.time_column:
            raise refuse(NO_COMPARISON)
    elif keys.upsert_mode == "PARTIAL":
        raise refuse("partial upsert merges a stream's rows into the stored ones as they are consumed; an "
                     "uploaded segment's rows replace whole rows, so pinot_sink does not write partial-upsert "
                     "tables (make the rows whole and use mode FULL, or write through the stream)")
    elif not partitions:
        raise refuse("a REALTIME upsert/dedup segment's name carries the stream partition of its keys "
                     "(UploadedRealtimeSegmentName), and tableIndexConfig.segmentPartitionConfig does not say "
                     "how keys map to partitions: add the column and function the stream is partitioned by "
                     "(Kafka's default partitioner: functionName Murmur on the key column, numPartitions = the "
                     "topic's partition count)")
    column = keys.partition_column if kind == "OFFLINE" else None
    if column is None:
        if len(partitions) != 1:
            raise refuse(f"segmentPartitionConfig partitions by {sorted(partitions)}: a server reads an upsert/"
                         f"dedup segment's partition from its one partitioned column (SegmentUtils."
                         f"getSegmentPartitionId), so partition by exactly one column")
        column = next(iter(partitions))
    if column not in partitions:
        raise refuse(f"the upsert partition column {column} (instanceAssignmentConfigMap / replicaGroupStrategyConfig)"
                     f" is not in segmentPartitionConfig: segments cannot record its partition id")
    if column not in key_columns:
        log.warning("pinot_sink: table %s: partition column %s is not a primary key column %s: rows of one key "
                    "resolve as one only if they always carry the same %s", table, column, list(key_columns), column)
    comparison = keys.comparison_columns or ((config.time_column,) if config.time_column else ())
    return PrimaryKeyPlan(kind, keys, key_columns, column, comparison)


def check_table_type(asked: str, config: TableConfig, plan: PrimaryKeyPlan | None, table: str) -> None:
    """``table-type`` against the table config; REALTIME is written for upsert and dedup tables only (their
    uploaded segments carry the stream partition in their names)."""
    actual = (config.table_type or "OFFLINE").upper()
    if actual != asked:
        raise PrimaryKeyTableError(f"option 'table-type' is {asked} but table {table}'s config has tableType {actual}: "
                          f"set 'table-type'={actual}")
    if asked == "REALTIME" and (plan is None or not plan.settings.keyed):
        raise PrimaryKeyTableError(f"option 'table-type'=REALTIME: table {table} has neither upsertConfig nor dedupConfig; "
                          f"pinot_sink uploads to REALTIME tables for upsert and dedup backfills only")


def check_dimension_size(plan: PrimaryKeyPlan | None, segments: Sequence, table: str, *, tarred: bool = False) -> None:
    """A dimension table lives whole in every server's memory, so Pinot caps it: ``quota.storage``, which the
    controller sets to its ``controller.dimTable.maxSize`` (200M by default) when the table has none, checked
    on every upload against the table's size plus the incoming segment's *untarred* size
    (``PinotSegmentUploadDownloadRestletResource``: ``FileUtils.sizeOfDirectory`` of the untarred segment; a
    METADATA push, ``tarred``, only has the tarball's). Checked here before anything is uploaded with the
    write's own segments (``dir_bytes``, their files' bytes as the builder wrote them; the tarball's where a
    report does not say): a lower bound of what the controller counts (it also counts the table's segments,
    and those a replace is about to take out until the lineage entry ends), so a write over it would be
    refused at its upload."""
    if plan is None or not plan.settings.dim_table:
        return
    quota = plan.settings.storage_quota or DEFAULT_DIM_TABLE_MAX_SIZE
    sizes = [s.tar_bytes if tarred or not getattr(s, "dir_bytes", 0) else s.dir_bytes for s in segments]
    limit, total = data_size_bytes(quota, "quota.storage"), sum(sizes)
    if total > limit:
        raise PrimaryKeyTableError(
            f"table {table}: the write's {len(sizes)} segment(s) take {data_size_text(total)} "
            f"{'tarred' if tarred else 'untarred'}, over the dimension table's storage quota {quota} (quota.storage, "
            f"or the controller's controller.dimTable.maxSize, {DEFAULT_DIM_TABLE_MAX_SIZE} by default): nothing "
            f"was uploaded")


def replaced_upsert_warning(plan: PrimaryKeyPlan | None, table: str, replaced: int) -> str | None:
    """The word a commit owes its user after replacing segments of an upsert table: the replaced segments
    stop being routed, but the servers keep them loaded until the controller's RetentionManager deletes them,
    and their rows still win the upsert. Seen on a real cluster: an overwrite whose rows had older comparison
    values than the ones it replaced answered 0 of 100 rows, for hours. None when nothing can hide."""
    if plan is None or not plan.settings.upsert or not replaced:
        return None
    return (f"pinot_sink: {table}: upsert table: this write replaced {replaced} segment(s); Pinot's servers keep "
            f"them loaded until the controller's RetentionManager deletes them (after the table's "
            f"segmentsConfig.replacedSegmentsRetentionPeriod, 4 h by default, on its next run, every 6 h), and "
            f"until then a key whose new row has a SMALLER comparison value than its replaced row shows no row "
            f"at all. Writes with the same or newer comparison values are not affected; to roll keys back now, "
            f"see docs/primary-key-tables.md#rolling-keys-back")
