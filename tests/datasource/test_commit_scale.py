"""Commits at scale (issue 31): ZooKeeper record budgets checked before the first byte, metadata pushed in
batches through ``/segments/batchUpload``, pushes that back off on ideal-state update conflicts, and a commit
of thousands of segments in a bounded number of controller requests."""
from __future__ import annotations

import io
import logging
import math
import tarfile
from pathlib import Path

import pytest

from pinot_sink.commit import CommitError, commit_job
from pinot_sink.controller import ControllerClient, RetryPolicy
from pinot_sink.controller.consistent_push import end_deadline_s
from pinot_sink.controller.errors import ControllerError
from pinot_sink.controller.push import PushConcurrency
from tests.controller.zk_cases import segment_names
from tests.datasource.scale_helpers import cloned_report
from tests.fake_controller import _single_part
from tests.datasource.test_commit import CONFIG, SCHEMA, ids_in_controller, job, run_tasks


@pytest.fixture
def table(fake_controller):
    fake_controller.add_table(SCHEMA, CONFIG)
    return fake_controller


def metadata_job(controller, out: Path, **options):
    return job(url=controller.url, out=out, **{"push-mode": "metadata", **options})


def commit_requests(controller, since: int) -> list:
    return [(r.method, r.path) for r in controller.received[since:]]


def uploads_of(requests) -> list:
    return [r for r in requests if r[0] == "POST" and r[1] in ("/v2/segments", "/segments/batchUpload")]


# --- budgets ----------------------------------------------------------------------------------------------


def test_a_commit_over_the_record_limit_is_refused_before_the_first_byte(table, tmp_path):
    the_job = metadata_job(table, tmp_path / "out", **{"commit.zk-record-limit": "1024"})
    report = cloned_report(run_tasks(the_job, [(0, 10)])[0], 600)
    before = len(table.received)
    with pytest.raises(CommitError) as refused:
        commit_job(the_job, [report])
    message = str(refused.value)
    assert "nothing was uploaded" in message and "600 new segment(s)" in message and "1,024" in message
    assert "bigger segments" in message and "commit.zk-record-limit" in message
    requests = commit_requests(table, before)
    assert not uploads_of(requests) and ("POST", "/segments/events/startReplaceSegments") not in requests
    assert not list((tmp_path / "out" / "events").glob("*.tar.gz"))  # nothing copied to the deep store either
    assert table.live_segments() == []


def test_the_same_commit_within_the_limit_goes_through(table, tmp_path):
    the_job = metadata_job(table, tmp_path / "out")
    report = cloned_report(run_tasks(the_job, [(0, 10)])[0], 600)
    result = commit_job(the_job, [report])
    assert len(table.live_segments()) == 600 == len(result.segments)


def test_the_test_controller_refuses_records_over_the_limit_as_helix_does(table):
    table.zk_record_limit = 5000
    client = ControllerClient(table.url, retry=RetryPolicy(max_attempts=1))
    names = segment_names(400, "r1", "uuid")
    with pytest.raises(ControllerError) as lineage:
        client.start_replace("events", [], names)
    assert "Failed to update the segment lineage during startReplaceSegments. (tableName = events_OFFLINE" \
        in str(lineage.value)
    assert table.tables["events"].lineage == {}  # nothing written
    assert client.start_replace("events", [], names[:20])  # a small entry still fits


def test_an_upload_that_would_outgrow_the_ideal_state_is_refused(table, tmp_path):
    the_job = job(url=table.url, out=tmp_path / "out", **{"push-mode": "metadata", "push.batch-size": "1",
                                                          "commit.zk-record-limit": "10000000"})
    report = cloned_report(run_tasks(the_job, [(0, 10)])[0], 40)
    table.zk_record_limit = 1  # every size gzipped: the limit is 30 segments' gzipped ideal state
    table.zk_record_limit = table.ideal_state_size("events", adding=30)
    with pytest.raises(CommitError) as failed:
        commit_job(the_job, [report])
    assert "Caught exception while updating ideal state for resource: events_OFFLINE" in str(failed.value)
    assert "the table is as it was" in str(failed.value)
    assert table.live_segments() == []


# --- batches, conflicts, deadlines -------------------------------------------------------------------------


def test_metadata_goes_in_batches_and_falls_back_without_the_endpoint(table, tmp_path):
    the_job = metadata_job(table, tmp_path / "out", **{"push.batch-size": "100"})
    report = cloned_report(run_tasks(the_job, [(0, 10)])[0], 250)
    before = len(table.received)
    commit_job(the_job, [report])
    batches = [r for r in commit_requests(table, before) if r[1] == "/segments/batchUpload"]
    assert len(batches) == 3 and len(table.live_segments()) == 250
    zk = table.segments()["events_" + report.segments[7].name.split("events_", 1)[1]].zk
    assert zk["segment.download.url"].endswith(f"/events/{report.segments[7].name}.tar.gz")

    first = next(r for r in table.received[before:] if r.path == "/segments/batchUpload")
    assert first.header("UPLOAD_TYPE") == "METADATA" and first.query["tableName"] == ["events"]
    assert first.query["tableType"] == ["OFFLINE"]
    with tarfile.open(fileobj=io.BytesIO(_single_part(first.header("Content-Type"), first.body))) as uber:
        files = {m.name.rsplit("/", 1)[-1]: uber.extractfile(m).read() for m in uber.getmembers() if m.isfile()}
    listed = files.pop("all_segments_metadata").decode().splitlines()  # name, download URI, name, ...
    names = listed[0::2]
    assert len(names) == 100 and all(uri.startswith("file:") for uri in listed[1::2])
    assert set(files) == {f"{n}.{base}" for n in names for base in ("metadata.properties", "creation.meta")}

    table.batch_uploads = False  # a controller before Pinot 1.2
    again = metadata_job(table, tmp_path / "out2", **{"push.batch-size": "100"})
    report = cloned_report(run_tasks(again, [(0, 10)])[0], 30)
    before = len(table.received)
    commit_job(again, [report])
    requests = commit_requests(table, before)
    assert requests.count(("POST", "/segments/batchUpload")) == 1  # tried once: 404
    assert requests.count(("POST", "/v2/segments")) == 30 and len(table.live_segments()) == 280


def test_a_failed_batch_leaves_the_table_and_the_folder_as_they_were(table, tmp_path):
    out = tmp_path / "out"
    the_job = metadata_job(table, out, **{"push.batch-size": "100", "retry.max-attempts": "2"})
    report = cloned_report(run_tasks(the_job, [(0, 10)])[0], 250)
    table.fail_next(10, status=500, method="POST", path="/segments/batchUpload", after=1)  # the second batch
    with pytest.raises(CommitError, match="the table is as it was"):
        commit_job(the_job, [report])
    assert table.live_segments() == [] and table.segments() == {}  # the first batch's are reverted too
    assert not list((out / "events").glob("*.tar.gz"))  # and their deep-store copies removed


def test_ideal_state_conflicts_are_retried_and_lower_the_push_concurrency(table, tmp_path, caplog):
    the_job = job(url=table.url, out=tmp_path / "out", **{"push-parallelism": "4"})
    reports = run_tasks(the_job, [(0, 500), (500, 1000)])
    table.ideal_state_conflicts(3)
    with caplog.at_level(logging.WARNING):
        result = commit_job(the_job, reports)
    assert "push concurrency lowered to 2" in caplog.text
    assert ids_in_controller(table, tmp_path) == list(range(1000)) and len(result.segments) == 4
    assert sum(1 for r in table.received if r.path == "/v2/segments" and r.status == 500) == 3


def test_push_concurrency_halves_on_a_retry_and_grows_back_after_clean_uploads():
    gate = PushConcurrency(8)
    for _ in range(2):
        gate.acquire()
    gate.retried()
    assert gate.limit == 4
    gate.retried()
    gate.retried()
    gate.retried()
    assert gate.limit == 1 and gate.lowered == 3  # never below one
    gate.release(clean=False)
    gate.release(clean=True)
    for _ in range(8):
        gate.acquire()
        gate.release(clean=True)
    assert gate.limit == 2  # eight clean uploads in a row: one more
    assert gate.in_flight == 0


def test_the_end_deadline_grows_with_the_new_segments():
    from pinot_sink.controller import ClientConfig

    config = ClientConfig(url="http://c:9000", read_timeout=300, retry=RetryPolicy(max_elapsed_s=300))
    assert end_deadline_s(1000, config) == (300, 300)
    read_s, elapsed_s = end_deadline_s(50_000, config)
    assert read_s == elapsed_s == 750 > 600  # outlasts the controller's own 10-minute wait for ONLINE


# --- thousands of segments ----------------------------------------------------------------------------------


def commit_many(table, tmp_path, count: int, batch: int = 1000):
    the_job = metadata_job(table, tmp_path / "out", **{"push.batch-size": str(batch), "push-parallelism": "4"})
    report = cloned_report(run_tasks(the_job, [(0, 10)])[0], count)
    before = len(table.received)
    result = commit_job(the_job, [report])
    requests = commit_requests(table, before)
    assert len(table.live_segments()) == count == len(result.segments)
    # every batch one request, plus a constant: lineage and ideal state for the budget, the listing, start,
    # end and its read-back
    assert len(requests) <= math.ceil(count / batch) + 10, requests
    assert len(uploads_of(requests)) == math.ceil(count / batch)
    return requests


def test_a_5k_segment_metadata_commit_takes_a_bounded_number_of_requests(table, tmp_path):
    commit_many(table, tmp_path, 5000)


@pytest.mark.slow
def test_a_50k_segment_metadata_commit_takes_a_bounded_number_of_requests(table, tmp_path):
    commit_many(table, tmp_path, 50_000)
