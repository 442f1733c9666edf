"""Credentials go only to the origin they were given for: a redirect to another scheme, host or port is
refused before anything reaches it (docs/controller.md, "Redirects"); one within the origin is followed."""
from __future__ import annotations

import pytest

from fake_controller import FakeController
from pinot_sink.controller import Auth, ControllerClient, ControllerRedirectError, RetryPolicy, push_segment
from segment_factory import make_segment

SECRET = "S3cr3t-k3y"
POLICY = RetryPolicy(max_attempts=3, max_elapsed_s=5, initial_backoff_s=0.01, max_backoff_s=0.01)


@pytest.fixture
def elsewhere():
    """Another server on another loopback port, recording whatever it receives."""
    other = FakeController().start()
    other.add_simple_table("events")
    try:
        yield other
    finally:
        other.stop()


def _client(url: str) -> ControllerClient:
    return ControllerClient(url, auth=Auth.bearer(SECRET), headers={"X-Api-Key": SECRET},
                            retry=POLICY)


@pytest.mark.parametrize("status", [307, 302])
def test_a_redirect_to_another_port_is_refused_and_nothing_reaches_it(fake_controller, elsewhere, status):
    fake_controller.redirect_next(elsewhere.url, status=status)
    with _client(fake_controller.url) as client, pytest.raises(ControllerRedirectError) as info:
        client.get_schema("events")
    assert elsewhere.received == []  # no X-Api-Key, no Authorization, no request at all
    message = str(info.value)
    assert f"redirecting to {elsewhere.url}" in message and "set 'url' to it" in message
    assert SECRET not in message and len(fake_controller.received) == 1  # not retried


def test_an_upload_redirected_elsewhere_sends_no_segment_and_no_secret(fake_controller, elsewhere, tmp_path):
    fake_controller.redirect_next(elsewhere.url, method="POST")
    with _client(fake_controller.url) as client, pytest.raises(ControllerRedirectError):
        push_segment(client, "events", make_segment(tmp_path, "events_0"))
    assert elsewhere.received == [] and not elsewhere.segments("events")


def test_a_redirect_to_another_host_name_of_the_same_server_is_refused(fake_controller):
    port = fake_controller.url.rsplit(":", 1)[1]
    fake_controller.redirect_next(f"http://localhost:{port}")
    with _client(fake_controller.url) as client, pytest.raises(ControllerRedirectError):
        client.get_schema("events")
    assert len(fake_controller.received) == 1  # the second hop would have arrived here, carrying the secrets


def test_a_redirect_within_the_origin_is_followed_with_the_credentials(fake_controller):
    fake_controller.redirect_next(fake_controller.url)
    with _client(fake_controller.url) as client:
        assert client.get_schema("events")["schemaName"] == "events"
    first, second = fake_controller.received
    assert first.path == second.path
    assert second.header("X-Api-Key") == SECRET and second.header("Authorization") == f"Bearer {SECRET}"
