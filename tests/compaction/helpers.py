"""Small segments for the compaction tests, written through the write's own path (``prepare_job``,
``write_partition``, ``commit_job``) without Spark: each call is one committed write (an hourly append, a
streaming micro-batch), so names, write tags, manifests and lineage are a real write's."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa

from pinot_sink.commit import commit_job
from pinot_sink.segment import read_segment
from pinot_sink.task import write_partition
from tests.datasource.helpers import prepared_job

SCHEMA = {
    "schemaName": "events",
    "dimensionFieldSpecs": [{"name": "id", "dataType": "LONG"}, {"name": "country", "dataType": "STRING"}],
    "metricFieldSpecs": [{"name": "amount", "dataType": "DOUBLE"}, {"name": "clicks", "dataType": "LONG"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
}
CONFIG = {"tableName": "events_OFFLINE", "tableType": "OFFLINE", "tenants": {},
          "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
          "tableIndexConfig": {"loadMode": "MMAP", "invertedIndexColumns": ["country"], "sortedColumn": ["country"]},
          "metadata": {}}
ARROW = pa.schema([("id", pa.int64()), ("country", pa.string()), ("amount", pa.float64()), ("clicks", pa.int64()),
                   ("ts", pa.timestamp("ms", tz="UTC"))])
DAY_MS = 86_400_000
BASE_MS = 1_700_006_400_000  # 2023-11-15T00:00:00Z, a day boundary
COUNTRIES = np.array(["US", "DE", "FR", "JP", "BR"])


def rows(first: int, count: int, *, start_ms: int = BASE_MS, step_ms: int = 1000) -> pa.RecordBatch:
    ids = np.arange(first, first + count, dtype=np.int64)
    return pa.record_batch({
        "id": ids, "country": COUNTRIES[ids % 5], "amount": ids * 0.25, "clicks": ids % 7,
        "ts": pa.array(start_ms + (ids - first) * step_ms, type=pa.timestamp("ms", tz="UTC")),
    }, schema=ARROW)


def options(*, url: str | None = None, out: Path | None = None) -> dict:
    if url:
        return {"url": url}
    return {"output-uri": str(out), "schema": json.dumps(SCHEMA), "table-config": json.dumps(CONFIG)}


def write(batch: pa.RecordBatch, *, url: str | None = None, out: Path | None = None, write_id: str | None = None,
          **extra):
    """One committed write of ``batch`` (one task, one segment); returns its ``WriteResult``."""
    kwargs = {"write.id": write_id} if write_id else {}
    job = prepared_job(SCHEMA, CONFIG, ARROW, out=out, url=url, **kwargs, **extra)
    report = write_partition(job, [batch], partition_id=0, task_attempt_id=1)
    return commit_job(job, [report])


def ids_of(paths) -> list[int]:
    found = []
    for path in paths:
        found += read_segment(str(path)).table.column("id").to_pylist()
    return sorted(found)


def controller_ids(controller, tmp_path: Path) -> list[int]:
    live = controller.live_segments("events")
    folder = tmp_path / "live"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in live:
        path = folder / f"{name}.tar.gz"
        path.write_bytes(controller.segments("events")[name].tar_bytes)
        paths.append(path)
    return ids_of(paths)


def folder_ids(out: Path) -> list[int]:
    from pinot_sink.compaction.plan import list_facts
    from pinot_sink.storage.stores import DirectoryStore

    names = [f.name for f in list_facts(DirectoryStore("events", out.resolve().as_uri()))]
    return ids_of(out / "events" / f"{n}.tar.gz" for n in names)


def tiny_segments(count: int, rows_each: int, *, kind: str, out: Path | None = None, url: str | None = None,
                  client=None, spacing_ms: int = 3_600_000) -> list[str]:
    """``count`` one-segment writes as a streaming query's micro-batches (``kind="stream"``: write ids
    ``stream:<query>:<batch>``) or hourly appends (``kind="hourly"``: write ids ``hourly-<i>``), built by the
    task's own path; with a controller each is uploaded as its append's commit leaves it, embedded each
    tarball is published into the table folder as its commit would. Returns the names."""
    from dataclasses import replace as dc_replace

    from pinot_sink.job import prepare_job
    from pinot_sink.storage.files import publish_into_directory

    raw = {"table-name": "events", **options(url=url, out=out)}
    job = prepare_job(raw, ARROW, overwrite=False, streaming=kind == "stream")
    names = []
    for i in range(count):
        batch = rows(i * rows_each, rows_each, start_ms=BASE_MS + i * spacing_ms,
                     step_ms=max(1, spacing_ms // max(1, rows_each) // 2))
        if kind == "stream":
            report = write_partition(job, [batch], partition_id=0, task_attempt_id=1, query_id="q1", batch_id=i)
        else:
            hourly = dc_replace(job, run=dc_replace(job.run, write_id=f"hourly-{i}", rerun=True))
            report = write_partition(hourly, [batch], partition_id=0, task_attempt_id=1)
        for segment in report.segments:
            names.append(segment.name)
            if client is not None:
                client.post_segment_file("events", segment.name, segment.staged_uri[len("file://"):])
            else:
                publish_into_directory(str(out.resolve().as_uri()), "events", {segment.name: segment.staged_uri})
    return names


def untarred_size(tarball) -> int:
    """A segment's size as ``--target-size`` measures it: its files' bytes, untarred."""
    import tarfile

    with tarfile.open(tarball) as archive:
        return sum(member.size for member in archive if member.isfile())


def check_sizes(sizes_by_bucket: dict, target: int) -> None:
    """Every segment of a bucket within [0.8, 1.0] of the target but the last (the smallest), which fits."""
    for bucket, sizes in sizes_by_bucket.items():
        ordered = sorted(sizes, reverse=True)
        assert all(0.8 * target <= s <= target for s in ordered[:-1]), (bucket, ordered, target)
        assert ordered[-1] <= target, (bucket, ordered, target)
