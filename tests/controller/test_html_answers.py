"""An HTML page where the controller answers JSON (a proxy's login page with 200) is a clear error naming the
URL and the status, from every endpoint that reads a body; never a bare JSONDecodeError."""
from __future__ import annotations

import json

import pytest

from pinot_sink.controller import ControllerClient, ControllerResponseError, RetryPolicy

POLICY = RetryPolicy(max_attempts=2, max_elapsed_s=5, initial_backoff_s=0.01, max_backoff_s=0.01)


@pytest.mark.parametrize("call, path", [
    (lambda c: c.get_schema("events"), "/tables/events/schema"),
    (lambda c: c.get_lineage("events"), "/segments/events/lineage"),
    (lambda c: c.list_segments("events"), "/segments/events"),
    (lambda c: c.start_replace("events", [], ["events_new_0"]), "/segments/events/startReplaceSegments"),
])
def test_an_html_page_is_named_with_url_and_status(fake_controller, call, path):
    fake_controller.html_next(path=path)
    with ControllerClient(fake_controller.url, retry=POLICY) as client, pytest.raises(ControllerResponseError) as info:
        call(client)
    message = str(info.value)
    assert f"{fake_controller.url}{path} answered HTTP 200 with text/html" in message, message
    assert "<!DOCTYPE html>" in message and "not JSON" in message
    assert not isinstance(info.value.__context__, json.JSONDecodeError) or info.value.__suppress_context__
