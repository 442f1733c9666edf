"""Per-call deadlines that hold against a controller trickling its answer, and url validation.

The bounds below (deadline + 2 s) are correctness checks: without the watchdog each call would run for the
whole trickle (minutes), as requests' read timeout restarts with every byte."""
from __future__ import annotations

import threading
import time

import pytest

from pinot_sink.controller import (
    Auth,
    ClientConfig,
    ControllerClient,
    ControllerConfigError,
    ControllerError,
    RetryPolicy,
    push_segment,
    validate_controller_url,
)
from segment_factory import make_segment

DEADLINE_S = 5.0


def trickle_client(controller, *, read_timeout: float = 2.0, deadline_s: float = DEADLINE_S) -> ControllerClient:
    policy = RetryPolicy(max_attempts=5, max_elapsed_s=deadline_s, initial_backoff_s=0.2, max_backoff_s=0.5)
    return ControllerClient(controller.url, read_timeout=read_timeout, retry=policy)


@pytest.mark.parametrize("phase", ["headers", "body"])
def test_a_trickling_answer_ends_the_call_within_its_deadline(fake_controller, phase):
    fake_controller.trickle_next(100, interval=0.5, phase=phase)
    client = trickle_client(fake_controller)
    started = time.monotonic()
    with pytest.raises(ControllerError, match="timeout|deadline") as info:
        client.get_schema("events")
    elapsed = time.monotonic() - started
    assert elapsed < DEADLINE_S + 2, f"the call ran {elapsed:.1f}s past a {DEADLINE_S}s deadline"
    assert info.value.retryable or getattr(info.value, "attempts", 0) >= 2
    assert len(fake_controller.received) >= 2  # each attempt was cut at the 2 s read timeout, then retried


def test_a_trickled_upload_answer_is_cut_too(fake_controller, tmp_path):
    fake_controller.trickle_next(100, interval=0.5, phase="headers", path="/v2/segments")
    started = time.monotonic()
    with pytest.raises(ControllerError, match="timeout|deadline"):
        push_segment(trickle_client(fake_controller), "events", make_segment(tmp_path, "events_0"))
    assert time.monotonic() - started < DEADLINE_S + 2


def test_the_call_deadline_bounds_an_attempt_even_with_a_long_read_timeout(fake_controller):
    fake_controller.trickle_next(100, interval=0.5, phase="body")
    started = time.monotonic()
    with pytest.raises(ControllerError, match="deadline"):
        trickle_client(fake_controller, read_timeout=300, deadline_s=3).list_segments("events")
    assert time.monotonic() - started < 3 + 2
    assert len(fake_controller.received) == 1  # the one attempt used the whole budget


def test_one_trickled_answer_is_retried_and_the_call_succeeds(fake_controller):
    fake_controller.trickle_next(1, interval=0.5, phase="headers")
    client = trickle_client(fake_controller, read_timeout=1.0, deadline_s=30)
    assert client.get_schema("events")["schemaName"] == "events"
    assert len(fake_controller.received) == 2


def test_a_slow_but_complete_answer_within_the_read_timeout_passes(fake_controller):
    fake_controller.delay_next(1, seconds=0.5)
    assert trickle_client(fake_controller, read_timeout=2).list_segments("events") == []
    assert len(fake_controller.received) == 1


def test_deadlines_do_not_outlive_their_calls(fake_controller):
    from pinot_sink.controller.transport import _WATCHDOG

    client = trickle_client(fake_controller)
    threads = threading.active_count()
    for _ in range(20):
        client.list_segments("events")
    assert _WATCHDOG.pending() == 0  # every attempt's deadline was cancelled when it ended
    assert threading.active_count() <= threads + 1  # one watchdog thread at most, not one per call


def test_the_watchdog_fires_in_order_and_skips_cancelled_entries():
    from pinot_sink.controller.transport import _Watchdog

    watchdog, fired, done = _Watchdog(), [], threading.Event()
    now = time.monotonic()
    watchdog.arm(now + 0.2, lambda: (fired.append("late"), done.set()))
    cancelled = watchdog.arm(now + 0.05, lambda: fired.append("cancelled"))
    watchdog.arm(now + 0.1, lambda: fired.append("early"))
    watchdog.cancel(cancelled)
    assert done.wait(5)
    assert fired == ["early", "late"] and watchdog.pending() == 0


@pytest.mark.parametrize("url, why", [
    ("ftp://controller:9000", "not an http:// or https:// URL"),
    ("controller:9000", "has no scheme; did you mean 'http://controller:9000'"),
    ("localhost", "has no scheme"),
    ("http://", "has no host"),
    ("http://:9000", "has no host"),
    ("http://controller:notaport", "not a valid URL"),
    ("http://controller:9000/?x=1", "must not have a query"),
    ("   ", "empty"),
])
def test_bad_urls_are_refused_at_once_naming_the_option(url, why):
    started = time.monotonic()
    with pytest.raises(ControllerConfigError, match=why) as info:
        ControllerClient(url, retry=RetryPolicy(max_attempts=5, max_elapsed_s=60))
    assert time.monotonic() - started < 1  # nothing was tried, let alone retried
    assert str(info.value).startswith("option 'url': ") and info.value.option == "url"
    assert isinstance(info.value, ValueError) and not info.value.retryable


def test_url_validation_keeps_a_path_and_drops_the_trailing_slash():
    assert validate_controller_url(" https://pinot.example.com/controller/ ") == "https://pinot.example.com/controller"
    assert validate_controller_url("http://u:p@h:9000/") == "http://u:p@h:9000"  # credentials are the client's
    config = ClientConfig("http://u:p%40ss@h:9000/")
    assert config.url == "http://h:9000" and config.auth == Auth.basic("u", "p@ss")
    assert ClientConfig("http://u:p@h:9000", auth=Auth.bearer("t")).auth == Auth.bearer("t")  # explicit auth wins


def test_bad_url_errors_never_show_the_password():
    for url in ("ftp://admin:hunter2@h:21", "admin:hunter2@h:9000", "http://admin:hunter2@h:port"):
        with pytest.raises(ControllerConfigError) as info:
            validate_controller_url(url)
        assert "hunter2" not in str(info.value) and "hunter2" not in repr(info.value), str(info.value)


def test_timeouts_and_certificate_files_are_checked_naming_their_options(tmp_path):
    with pytest.raises(ControllerConfigError, match="^option 'timeout.read': must be positive"):
        ClientConfig("http://h:9000", read_timeout=0)
    with pytest.raises(ControllerConfigError, match="^option 'tls.client-key': no file at"):
        ClientConfig("http://h:9000", cert=(str(make_segment(tmp_path, "x_0")), str(tmp_path / "missing.pem")))
