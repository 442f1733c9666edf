"""One partition per segment: the table config's ``segmentPartitionConfig`` applied where segments are cut.

Pinot's brokers prune segments by ``column.<c>.partitionValues`` (the builder writes it with
``pinot_sink.segment.partition``, the one home of Pinot's partition functions). A segment holding rows of
several partition ids is scanned for a query on any of them, and a partition-aware replica-group assignment
cannot place it on its partition's servers. So whenever the table config partitions its segments, a writer
keeps one buffer per (time bucket, partition id of each partitioned column) and cuts each on its own
(``buffer.BucketBuffer``): every segment holds one id per column. ``pinot_sink.write`` also brings the rows of
one id into one Spark partition first (``spark_write``), so those segments are full-sized instead of one
small segment per id per task.

Multi-value columns are left out: Pinot records no ``partitionValues`` for them (nothing to prune by).
Spark-free; the ids are those of the stored values, after ingestion and conversion, as the builder's.
"""
from __future__ import annotations

from typing import Callable, Iterable, Sequence

import numpy as np

from type_mapping.convert import convert_column
from type_mapping.errors import PinotSinkError
from type_mapping.pinot_schema import PinotSchema
from type_mapping.stored import PinotColumns
from type_mapping.table_config import TableConfig

from pinot_sink.segment.partition import partition_ids, partition_values

PARTITION_KEY = "tableIndexConfig.segmentPartitionConfig.columnPartitionMap"


class PartitionByError(PinotSinkError, ValueError):
    """``partition_by`` does not name the columns the table config partitions by."""


def partitioned_columns(table_config: TableConfig, schema: PinotSchema) -> list[str]:
    """The single-value columns ``segmentPartitionConfig`` partitions, in the config's order."""
    return [name for name in table_config.indexes.partitions
            if name in schema.fields and schema[name].single_value]


def check_partition_by(asked: str | Iterable[str] | None, table_config: TableConfig, schema: PinotSchema,
                       table: str) -> list[str]:
    """``partition_by`` against the table config: the same columns (in any order, case as the schema has
    them), else one line naming both. None: the config's columns, whatever they are."""
    configured = list(table_config.indexes.partitions)
    if asked is None:
        return partitioned_columns(table_config, schema)
    names = [asked] if isinstance(asked, str) else list(asked)
    if not configured:
        raise PartitionByError(
            f"partition_by {names}: table {table} has no {PARTITION_KEY}; Pinot partitions segments only by "
            f"its table config: add the columns there, or leave partition_by out")
    by_lower = {c.lower(): c for c in configured}
    if sorted({by_lower.get(str(n).lower(), str(n)) for n in names}) != sorted(configured) or \
            len(names) != len(configured):
        raise PartitionByError(
            f"partition_by {names} does not match table {table}'s {PARTITION_KEY} columns {configured}: "
            f"segments are partitioned by the table config's columns and functions; pass those, or leave "
            f"partition_by out")
    return partitioned_columns(table_config, schema)


def partition_id_arrays(rows: PinotColumns, table_config: TableConfig, schema: PinotSchema,
                        columns: Sequence[str]) -> list[np.ndarray]:
    """Each row's Pinot partition id for each of ``columns`` (stored values, as the builder computes them)."""
    partitions = table_config.indexes.partitions
    out = []
    for name in columns:
        p = partitions[name]
        out.append(partition_ids(rows.table.column(name), schema[name], p.function_name, p.num_partitions,
                                 p.function_config).astype(np.int64))
    return out


class SegmentKeys:
    """Rows -> int64 keys, equal exactly for the rows that may share a segment: the same time bucket (when
    ``bucket`` is given) and the same partition id of every partitioned column. Codes are handed out in the
    order the combinations first appear and kept for the writer's life, so a key means the same across
    batches (``BucketBuffer`` keeps one buffer per key)."""

    def __init__(self, table_config: TableConfig, schema: PinotSchema, columns: Sequence[str],
                 bucket: Callable[[PinotColumns], np.ndarray] | None = None) -> None:
        self._config, self._schema, self._columns, self._bucket = table_config, schema, list(columns), bucket
        self._codes: dict[tuple, int] = {}

    def __call__(self, rows: PinotColumns) -> np.ndarray:
        parts = partition_id_arrays(rows, self._config, self._schema, self._columns)
        if self._bucket is not None:
            parts.insert(0, np.asarray(self._bucket(rows), dtype=np.int64))
        stacked = np.stack(parts, axis=1)
        distinct, inverse = np.unique(stacked, axis=0, return_inverse=True)
        codes = np.array([self._codes.setdefault(tuple(int(v) for v in row), len(self._codes))
                          for row in distinct], dtype=np.int64)
        return codes[np.asarray(inverse).reshape(-1)]


def source_partition_ids(values, column: str, table_config: TableConfig, schema: PinotSchema, *,
                         source: str, conversion=None) -> np.ndarray | None:
    """The partition id of each value of a DataFrame column feeding the partitioned ``column`` directly,
    converted as the task converts it: what a Spark job clusters rows by before the write. None when a value
    does not convert: the task then reports that row in its own words."""
    spec = schema[column]
    p = table_config.indexes.partitions[column]
    try:
        stored, _ = convert_column(values, spec, options=conversion, source_name=source)
        return partition_ids(stored, spec, p.function_name, p.num_partitions, p.function_config).astype(np.int64)
    except Exception:  # noqa: BLE001 (only clustering is lost; the task fails on the row, naming it)
        return None


class SinglePartition:
    """The one partition id of ``column`` a segment's rows hold (names that carry it: UploadedRealtimeSegmentName).
    The buffers cut one segment per id, so more than one is a defect, said as such."""

    def __init__(self, table_config: TableConfig, schema: PinotSchema, column: str) -> None:
        self._config, self._schema, self._column = table_config, schema, column

    def __call__(self, rows: PinotColumns) -> int:
        p = self._config.indexes.partitions[self._column]
        found = partition_values(rows.table.column(self._column), self._schema[self._column], p.function_name,
                                 p.num_partitions, p.function_config)
        if len(found) != 1:
            raise PinotSinkError(f"a segment's rows hold partition ids {found} of column {self._column!r}; the "
                                 f"writer cuts one segment per partition id (a defect of pinot_sink)")
        return found[0]
