"""The test controller's rules for primary-key tables (upsert, dedup, dimension), as Pinot's controller and
servers apply them: ``SegmentValidationUtils.validateUpsertSegmentPartitionMetadata`` and ``checkStorageQuota``
at upload (a refusal is returned as ``(status, message)`` for ``fake_controller`` to raise), and the partition
id a server must read off a segment of an upsert/dedup table (``BaseTableDataManager.handleUpsert``), recorded
as the table's ``load_errors``."""
from __future__ import annotations

import io
import re
import tarfile

from pinot_sink.segment.properties import as_list, as_text
from type_mapping.table_config import DEFAULT_DIM_TABLE_MAX_SIZE, data_size_bytes, data_size_text, primary_key_settings


def primary_key_upload_refusal(table, name: str, metadata: dict, tar_bytes: bytes | None,
                               size: int) -> tuple[int, str] | None:
    return _validate_upsert_partition(table, name, metadata) or _check_storage_quota(table, name, tar_bytes, size)


def _validate_upsert_partition(table, name: str, metadata: dict) -> tuple[int, str] | None:
    """``validateUpsertSegmentPartitionMetadata``: a segment of an OFFLINE upsert table holds exactly one
    partition id of the table's partition column (none configured: no check); REALTIME tables are not checked."""
    keys = primary_key_settings(table.config)
    if table.kind != "OFFLINE" or not keys.upsert or not keys.partition_column:
        return None
    column = keys.partition_column
    partitions = _partitions(metadata, column)
    if partitions is None or len(partitions) != 1:
        # a fastutil IntSet prints as {0, 1} (the real cluster's answer); ascending here
        shown = "null" if partitions is None else "{" + ", ".join(str(p) for p in sorted(partitions)) + "}"
        return (400, f"Uploaded segment: {name} for offline upsert table: {table.raw}_OFFLINE must contain "
                     f"exactly one partition id for column: {column}, got: {shown}")
    return None


def _partitions(metadata: dict, column: str) -> set[int] | None:
    """``ColumnMetadata.getPartitions``: the partition values of a column with a partition function."""
    if as_text(metadata.get(f"column.{column}.partitionFunction")) is None:
        return None
    return {int(v) for v in as_list(metadata.get(f"column.{column}.partitionValues")) if v != ""}


def _segment_partition_id(name: str, metadata: dict) -> int | None:
    """``SegmentUtils.getSegmentPartitionId``: from an LLC or uploaded-realtime name, else the ZK partition
    metadata's one column with one partition."""
    parts = name.split("__")
    if len(parts) == 4 and re.fullmatch(r"-?\d+", parts[1]) and re.fullmatch(r"-?\d+", parts[2]) \
            and re.fullmatch(r"\d{8}T\d{4}Z", parts[3]):
        return int(parts[1])  # LLCSegmentName
    if len(parts) == 5 and re.fullmatch(r"-?\d+", parts[2]):
        return int(parts[2])  # UploadedRealtimeSegmentName
    columns = {k[len("column."): -len(".partitionFunction")] for k in metadata
               if k.startswith("column.") and k.endswith(".partitionFunction")}
    if len(columns) == 1:
        found = _partitions(metadata, columns.pop())
        if found is not None and len(found) == 1:
            return found.pop()
    return None


def record_load_error(table, name: str, metadata: dict) -> None:
    """What a server says on adding a segment of an upsert or dedup table whose partition id it cannot tell
    (``BaseTableDataManager.handleUpsert``): the controller accepted the upload, the segment goes to ERROR."""
    table.load_errors.pop(name, None)
    if not primary_key_settings(table.config).keyed or _segment_partition_id(name, metadata) is not None:
        return
    table.load_errors[name] = (
        f"Failed to get partition id for segment: {name} (upsert-enabled table: {table.raw}_{table.kind}). Segment "
        "must follow a naming convention that encodes partition id (e.g. LLCSegmentName, UploadedRealtimeSegmentName),"
        " or have partition metadata configured via SegmentPartitionConfig.")


def _untarred_size(tar_bytes: bytes | None, fallback: int) -> int:
    if tar_bytes is None:
        return fallback  # METADATA push: Pinot approximates with the tarred size
    with tarfile.open(fileobj=io.BytesIO(tar_bytes), mode="r:*") as archive:
        return sum(m.size for m in archive.getmembers() if m.isfile())


def _check_storage_quota(table, name: str, tar_bytes: bytes | None, size: int) -> tuple[int, str] | None:
    """``StorageQuotaChecker.isSegmentStorageWithinQuota`` with the table's stored segments as the servers'
    size report; a dimension table without ``quota.storage`` gets the controller's dimTable.maxSize (200M), as
    ``TableConfigUtils.ensureStorageQuotaConstraints`` sets it when the table is added."""
    keys = primary_key_settings(table.config)
    quota = keys.storage_quota or (DEFAULT_DIM_TABLE_MAX_SIZE if keys.dim_table else None)
    if quota is None:
        return None
    replicas = int((table.config.get("segmentsConfig") or {}).get("replication") or 1)
    allowed = replicas * data_size_bytes(quota, "quota.storage")
    sizes = {n: _untarred_size(s.tar_bytes, int(s.zk.get("segment.size.in.bytes") or 0))
             for n, s in table.segments.items()}
    current = sum(sizes.values()) * replicas
    existing = table.segments.get(name)
    if existing is not None and size <= int(existing.zk.get("segment.size.in.bytes") or 0):
        return None
    incoming = _untarred_size(tar_bytes, size)
    same = sizes.get(name, 0) * replicas
    final = current - same + incoming * replicas
    if final <= allowed:
        return None
    typed = f"{table.raw}_{table.kind}"
    if current > allowed:
        reason = (f"Table {typed} already over quota. Existing estimated uncompressed table size of all replicas: "
                  f"{data_size_text(current)} > total allowed storage size: {data_size_text(allowed)} ( = configured "
                  f"quota: {quota} * num replicas: {replicas}). Check if indexes were enabled recently and adjust "
                  "table quota accordingly.")
    else:
        reason = (f"Storage quota exceeded for Table {typed}. New estimated size: {data_size_text(final)} > total "
                  f"allowed storage size: {data_size_text(allowed)}, where new estimated size = existing estimated "
                  f"uncompressed size of all replicas: {data_size_text(current)} - existing segment sizes of all "
                  f"replicas: {data_size_text(same)} + (incoming uncompressed segment size: {data_size_text(incoming)} "
                  f"* number replicas: {replicas}), total allowed storage size = configured quota: {quota} * number "
                  f"replicas: {replicas}")
    return (403, f"Storage quota check failed for segment: {name} of table: {typed}, reason: {reason}")
