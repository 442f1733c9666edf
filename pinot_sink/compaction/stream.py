"""A streaming query's compaction (``compaction.*`` options): after a committed micro-batch, on the driver,
compact the table's small segments, every N micro-batches (``compaction.every-batches``) and/or only the
time buckets that closed (``compaction.closed-buckets``: ended ``compaction.delay`` ago).

The micro-batch just committed is left out: Spark replays it when the driver dies before its checkpoint
records the commit, and the replay of a compacted batch would be refused (``provenance``). A compaction that
fails is logged and never fails the query (its micro-batch is committed); the next one tries again."""
from __future__ import annotations

import logging
import time

from ..job import WriteJob
from ..naming import write_tag
from ..time_window import TimeWindow
from ..write_run import batch_write_id
from .run import CompactionReport, bucket_ms_of, compact

log = logging.getLogger("pinot_sink")


def after_batch(job: WriteJob, query_id: str | None, batch_id: int, *,
                now_ms: int | None = None) -> CompactionReport | None:
    """Compact as the query's ``compaction.*`` options say, after micro-batch ``batch_id`` committed; None when
    they ask for nothing now."""
    options = job.options.compaction
    if not options.enabled:
        return None
    if options.every_batches is not None and (batch_id + 1) % options.every_batches:
        return None
    window = None
    if options.closed_buckets:
        bucket_ms = bucket_ms_of(None, job.table_config)
        if bucket_ms is None:
            log.warning("pinot_sink: compaction.closed-buckets: table %s has no time column; not compacted", job.table)
            return None
        now_ms = int(time.time() * 1000) if now_ms is None else now_ms
        closed_before = (now_ms - int(options.delay_s * 1000)) // bucket_ms * bucket_ms
        if closed_before <= 0:
            return None
        window = TimeWindow(0, closed_before)
    try:
        report = compact(job.table, write_options=job.options, target_size=options.target_bytes, mode=options.mode,
                         time_range=window, exclude_writes=frozenset({write_tag(batch_write_id(query_id, batch_id))}))
    except Exception as exc:  # noqa: BLE001 - the micro-batch is committed; a compaction must not fail the query
        log.error("pinot_sink: compaction of %s after micro-batch %d failed (the table is as it was): %s",
                  job.table, batch_id, exc)
        return None
    if report.failed:
        log.error("pinot_sink: compaction of %s after micro-batch %d: %d group(s) failed, left as they were",
                  job.table, batch_id, len(report.failed))
    return report
