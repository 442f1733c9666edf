"""Retries and failures: transient faults heal, permanent ones fail at once with a clear error, and
nothing is left half-registered."""
from __future__ import annotations

import logging
import pickle
import socket

import pytest

from pinot_sink.controller import push_segment
from pinot_sink.controller import (
    ControllerAuthError,
    ControllerClient,
    ControllerError,
    ControllerRequestError,
    ControllerUnavailableError,
    RetriesExhaustedError,
    RetryPolicy,
    push_segments,
)
from segment_factory import make_segment

FAST = RetryPolicy(max_attempts=4, max_elapsed_s=20, initial_backoff_s=0.01, max_backoff_s=0.05)


def client_for(controller, **kwargs) -> ControllerClient:
    kwargs.setdefault("retry", FAST)
    return ControllerClient(controller.url, **kwargs)


def test_503_twice_then_success_stores_one_segment(fake_controller, tmp_path):
    fake_controller.fail_next(2, 503, path="/v2/segments")
    push_segment(client_for(fake_controller), "events", make_segment(tmp_path, "events_0"))
    assert [r.status for r in fake_controller.uploads()] == [503, 503, 200]
    assert list(fake_controller.segments()) == ["events_0"]


def test_connection_reset_mid_upload_is_retried(fake_controller, tmp_path):
    path = make_segment(tmp_path, "events_0", payload_bytes=400_000)
    fake_controller.reset_next(1, after_bytes=1000, path="/v2/segments")
    push_segment(client_for(fake_controller), "events", path)
    statuses = [r.status for r in fake_controller.uploads()]
    assert statuses == [-1, 200]  # -1: the connection was reset mid-body
    assert list(fake_controller.segments()) == ["events_0"]
    assert fake_controller.segments()["events_0"].tar_bytes == path.read_bytes()


def test_lost_answer_retry_is_a_same_crc_noop(fake_controller, tmp_path):
    fake_controller.lose_response_next(1, path="/v2/segments")
    push_segment(client_for(fake_controller), "events", make_segment(tmp_path, "events_0"))
    stored = fake_controller.segments()["events_0"]
    assert (stored.refreshes, stored.noop_uploads) == (0, 1)


def test_read_timeout_is_retried(fake_controller, tmp_path):
    # The delayed attempt times out (2 s > 0.6 s); the retry must answer within 0.6 s, room for a loaded machine.
    fake_controller.delay_next(1, 2.0, path="/v2/segments")
    client = client_for(fake_controller, read_timeout=0.6)
    push_segment(client, "events", make_segment(tmp_path, "events_0"))
    assert len(fake_controller.uploads()) == 2
    assert "events_0" in fake_controller.segments()


def test_persistent_timeouts_stop_within_the_time_budget(fake_controller, tmp_path):
    fake_controller.delay_next(50, 3.0, path="/v2/segments")
    policy = RetryPolicy(max_attempts=50, max_elapsed_s=1.0, initial_backoff_s=0.05, max_backoff_s=0.1)
    client = client_for(fake_controller, read_timeout=0.3, retry=policy)
    with pytest.raises(RetriesExhaustedError) as info:
        push_segment(client, "events", make_segment(tmp_path, "events_0"))
    error = info.value
    assert isinstance(error.last_error, ControllerUnavailableError)
    assert 2 <= error.attempts < 50
    # each attempt's read timeout is clipped to what is left of the budget
    assert error.elapsed_s < policy.max_elapsed_s + 0.5
    assert "events_0" in str(error) and "events" in str(error)


@pytest.mark.parametrize("status, error_type", [(400, ControllerRequestError), (403, ControllerAuthError),
                                                (404, ControllerRequestError), (412, ControllerRequestError)])
def test_permanent_4xx_is_not_retried(fake_controller, tmp_path, status, error_type):
    fake_controller.fail_next(1, status, message=f"controller says {status}", path="/v2/segments")
    with pytest.raises(error_type) as info:
        push_segment(client_for(fake_controller), "events", make_segment(tmp_path, "events_0"))
    assert len(fake_controller.uploads()) == 1
    error = info.value
    assert (error.status, error.table, error.segment) == (status, "events", "events_0")
    assert f"controller says {status}" in str(error) and "'events_0'" in str(error)
    assert fake_controller.segments() == {}


def test_401_without_credentials_is_not_retried(fake_controller, tmp_path):
    fake_controller.require_auth("Bearer right")
    with pytest.raises(ControllerAuthError, match="401") as info:
        push_segment(client_for(fake_controller), "events", make_segment(tmp_path, "events_0"))
    assert info.value.status == 401 and len(fake_controller.uploads()) == 1


def test_real_403_for_a_time_range_outside_1971_2071(fake_controller, tmp_path):
    path = make_segment(tmp_path, "events_0", start_time=0, end_time=10)
    with pytest.raises(ControllerAuthError, match="Invalid segment start/end time"):
        push_segment(client_for(fake_controller), "events", path)
    assert len(fake_controller.uploads()) == 1


def test_upload_that_keeps_failing_names_the_segment_and_registers_nothing(fake_controller, tmp_path):
    fake_controller.fail_next(100, 500, message="deep store unavailable", path="/v2/segments")
    with pytest.raises(RetriesExhaustedError) as info:
        push_segment(client_for(fake_controller), "events", make_segment(tmp_path, "events_7"))
    error = info.value
    assert error.attempts == FAST.max_attempts == len(fake_controller.uploads())
    assert error.segment == "events_7" and "events_7" in str(error) and "deep store unavailable" in str(error)
    assert fake_controller.segments() == {} and fake_controller.live_segments() == []


def test_429_waits_at_least_retry_after(fake_controller, tmp_path, caplog):
    fake_controller.fail_next(1, 429, retry_after=0.3, path="/v2/segments")
    with caplog.at_level(logging.WARNING, logger="pinot_sink.controller.retry"):
        push_segment(client_for(fake_controller), "events", make_segment(tmp_path, "events_0"))
    sleeps = [float(r.getMessage().rsplit("retrying in ", 1)[1].rstrip("s")) for r in caplog.records]
    assert sleeps and sleeps[0] >= 0.3
    assert "events_0" in fake_controller.segments()


def test_retry_after_beyond_the_budget_fails_without_waiting(fake_controller, tmp_path):
    fake_controller.fail_next(1, 429, retry_after=3600, path="/v2/segments")
    with pytest.raises(RetriesExhaustedError) as info:
        push_segment(client_for(fake_controller), "events", make_segment(tmp_path, "events_0"))
    assert info.value.attempts == 1 and info.value.status == 429


def test_parallel_push_lock_409_is_retried(fake_controller, tmp_path):
    client = client_for(fake_controller)
    path = make_segment(tmp_path, "events_0")
    push_segment(client, "events", path)
    fake_controller.hold_upload_lock("events", "events_0")
    with pytest.raises(RetriesExhaustedError, match="Another segment upload is in progress") as info:
        push_segment(client, "events", path, parallel_push_protection=True)
    assert info.value.status == 409 and info.value.attempts == FAST.max_attempts
    fake_controller.release_upload_lock("events", "events_0")
    fake_controller.fail_next(1, 409, path="/v2/segments")
    push_segment(client, "events", path, parallel_push_protection=True)
    assert fake_controller.uploads()[-1].query["enableParallelPushProtection"] == ["true"]


def test_409_outside_uploads_is_not_retried(fake_controller):
    fake_controller.fail_next(1, 409, path="/segments/events")
    with pytest.raises(ControllerRequestError):
        client_for(fake_controller).list_segments("events")
    assert len(fake_controller.received) == 1


def test_unreachable_controller(tmp_path):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = ControllerClient(f"http://127.0.0.1:{port}", retry=RetryPolicy(max_attempts=2, initial_backoff_s=0.01))
    with pytest.raises(RetriesExhaustedError, match="cannot reach the controller") as info:
        client.list_segments("events")
    assert isinstance(info.value.last_error, ControllerUnavailableError) and info.value.status is None


def test_parallel_push_failure_names_the_segment_and_stops(fake_controller, tmp_path):
    paths = [make_segment(tmp_path, f"events_{i}") for i in range(6)]
    fake_controller.fail_next(100, 400, message="bad segment", path="/v2/segments", after=2)
    with pytest.raises(ControllerRequestError, match="bad segment") as info:
        push_segments(client_for(fake_controller), "events", paths, parallel=1)
    assert info.value.segment == "events_2"
    assert sorted(fake_controller.segments()) == ["events_0", "events_1"]
    assert len(fake_controller.uploads()) == 3  # nothing after the failure was tried


def test_start_replace_retry_after_a_lost_answer_returns_the_same_entry(fake_controller, tmp_path):
    client = client_for(fake_controller)
    push_segment(client, "events", make_segment(tmp_path, "old_0"))
    fake_controller.lose_response_next(1, path="/segments/events/startReplaceSegments")
    entry = client.start_replace("events", ["old_0"], ["new_0"])
    lineage = client.get_lineage("events")
    assert list(lineage) == [entry] and lineage[entry]["state"] == "IN_PROGRESS"


def test_start_replace_of_segments_gone_is_refused_after_one_retry_not_retried_to_exhaustion(fake_controller, tmp_path):
    # Pinot answers every failed start with a 500, a missing 'segmentsFrom' segment (a rerun or compaction that
    # replaced it first) included: the retry reads the table back and stops, nothing was started.
    client = client_for(fake_controller)
    push_segment(client, "events", make_segment(tmp_path, "old_0"))
    with pytest.raises(ControllerRequestError, match="old_1.*no longer in table events"):
        client.start_replace("events", ["old_0", "old_1"], ["new_0"])
    starts = [r for r in fake_controller.received if r.path.endswith("/startReplaceSegments")]
    assert len(starts) == 1 and client.get_lineage("events") == {}


def test_revert_retry_after_a_lost_answer_succeeds(fake_controller, tmp_path):
    client = client_for(fake_controller)
    entry = client.start_replace("events", [], ["new_0"])
    fake_controller.lose_response_next(1, path="/segments/events/revertReplaceSegments")
    client.revert_replace("events", entry)
    assert client.get_lineage("events")[entry]["state"] == "REVERTED"


def test_errors_survive_pickling_with_their_fields():
    error = RetriesExhaustedError(
        ControllerUnavailableError("boom", status=503, table="events", segment="s_0", operation="upload segment"),
        attempts=3, elapsed_s=1.5,
    )
    clone = pickle.loads(pickle.dumps(error))
    assert type(clone) is RetriesExhaustedError and str(clone) == str(error)
    assert (clone.status, clone.table, clone.segment, clone.attempts) == (503, "events", "s_0", 3)
    assert isinstance(clone, ControllerError)


def test_retry_policy_rejects_nonsense():
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError):
        RetryPolicy(jitter=2)
    policy = RetryPolicy(initial_backoff_s=1, max_backoff_s=4, jitter=0)
    assert [policy.backoff_s(n) for n in (1, 2, 3, 4)] == [1, 2, 4, 4]
