"""A streaming query's ``compaction.*`` options: the driver compacts after its micro-batches (every N, or the
closed buckets), never the micro-batch just committed, whose replay then still works."""
from __future__ import annotations

import pytest

from pinot_sink.commit import commit_job
from pinot_sink.compaction.stream import after_batch
from pinot_sink.job import prepare_job
from pinot_sink.options import OptionError
from pinot_sink.task import write_partition
from tests.compaction.helpers import ARROW, BASE_MS, CONFIG, DAY_MS, SCHEMA, controller_ids, rows


def stream_job(url: str, **options):
    return prepare_job({"table-name": "events", "url": url, **options}, ARROW, overwrite=False, streaming=True)


def batch(job, number: int, *, start_ms: int, now_ms: int | None = None):
    report = write_partition(job, [rows(number * 50, 50, start_ms=start_ms)], partition_id=0,
                             task_attempt_id=number, query_id="q", batch_id=number)
    commit_job(job, [report], query_id="q", batch_id=number)
    return after_batch(job, "q", number, now_ms=now_ms)


def test_every_n_batches_compacts_all_but_the_batch_just_committed(fake_controller, tmp_path):
    fake_controller.add_table(SCHEMA, CONFIG)
    job = stream_job(fake_controller.url, **{"compaction.every-batches": "4", "compaction.target-size": "1mb"})
    reports = [batch(job, n, start_ms=BASE_MS + n * 60_000) for n in range(8)]
    assert [r is not None for r in reports] == [False, False, False, True] * 2
    assert reports[3].groups[0].segments_before == 3  # batches 0-2; batch 3 is left out
    live = fake_controller.live_segments("events")
    assert len(live) == 2  # one compacted segment (batches 0-6) and batch 7's own
    restarted = stream_job(fake_controller.url, **{"compaction.every-batches": "4", "compaction.target-size": "1mb"})
    batch(restarted, 7, start_ms=BASE_MS + 7 * 60_000)  # the query restarted: its replay replaces batch 7
    assert controller_ids(fake_controller, tmp_path) == list(range(400))


def test_closed_buckets_only(fake_controller, tmp_path):
    fake_controller.add_table(SCHEMA, CONFIG)
    job = stream_job(fake_controller.url, **{"compaction.closed-buckets": "true", "compaction.target-size": "1mb",
                                             "compaction.delay": "1h"})
    for n in range(3):  # day 1, while it is open
        assert batch(job, n, start_ms=BASE_MS + n * 60_000, now_ms=BASE_MS + 3_600_000).groups == []
    for n in range(3, 6):  # day 2
        batch(job, n, start_ms=BASE_MS + DAY_MS + n * 60_000, now_ms=BASE_MS + DAY_MS + 1_800_000)
    report = after_batch(job, "q", 6, now_ms=BASE_MS + DAY_MS + 2 * 3_600_000)  # day 1 closed, day 2 open
    assert [g.where for g in report.groups] == ["bucket 2023-11-15T00:00:00Z"]
    assert len(fake_controller.live_segments("events")) == 4
    assert controller_ids(fake_controller, tmp_path) == list(range(300))


@pytest.mark.parametrize("kind", ["OFFLINE", "REALTIME"])
def test_compaction_options_on_an_upsert_table_are_refused_before_the_query_starts(fake_controller, kind):
    """A streaming query into an upsert table (REALTIME on a real cluster) with compaction.every-batches ran,
    and every compaction after it failed, logged only ("only OFFLINE tables without upsert or dedup are
    compacted"): refused when the query starts, in the same words."""
    from tests.primary_keys.tables import ARROW as KEYED_ARROW, SCHEMA as KEYED_SCHEMA, table_config

    fake_controller.add_table(KEYED_SCHEMA, table_config(kind))
    options = {"table-name": "orders", "url": fake_controller.url, "table-type": kind, "compaction.every-batches": "2"}
    with pytest.raises(OptionError, match=r"options 'compaction\.\*': table orders: only OFFLINE tables without "
                                          r"upsert or dedup are compacted"):
        prepare_job(options, KEYED_ARROW, overwrite=False, streaming=True)
    options.pop("compaction.every-batches")
    assert prepare_job(options, KEYED_ARROW, overwrite=False, streaming=True).primary_keys is not None


def test_bad_compaction_options_name_the_option():
    with pytest.raises(OptionError, match="compaction.every-batches"):
        prepare_job({"table-name": "events", "compaction.every-batches": "0"}, ARROW, overwrite=False, streaming=True)
    with pytest.raises(OptionError, match="'compaction.\\*' are for streaming queries"):
        prepare_job({"table-name": "events", "compaction.every-batches": "3"}, ARROW, overwrite=False)
    with pytest.raises(OptionError, match="compaction.mode"):
        prepare_job({"table-name": "events", "compaction.mode": "merge"}, ARROW, overwrite=False, streaming=True)
