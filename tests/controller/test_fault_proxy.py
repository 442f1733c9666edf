"""The fault proxy of the real-Pinot tier (tests/pinot/fault_proxy.py), checked here against the test controller
so that ``make test`` catches a proxy that forwards wrongly or fakes its faults."""
from __future__ import annotations

import pytest
import requests

from pinot.fault_proxy import FaultProxy
from segment_factory import make_segment


@pytest.fixture
def proxy(fake_controller):
    proxy = FaultProxy(fake_controller.url).start()
    yield proxy
    proxy.stop()


def upload(url: str, path) -> requests.Response:
    with open(path, "rb") as handle:
        return requests.post(f"{url}/v2/segments", params={"tableName": "events"}, timeout=10,
                             files={path.name: (path.name, handle, "application/octet-stream")})


def test_forwards_requests_and_answers(proxy, fake_controller, tmp_path):
    assert upload(proxy.url, make_segment(tmp_path, "events_0")).status_code == 200
    assert fake_controller.live_segments() == ["events_0"]
    listed = requests.get(f"{proxy.url}/segments/events", params={"type": "OFFLINE"}, timeout=10)
    assert listed.json() == [{"OFFLINE": ["events_0"]}]
    missing = requests.get(f"{proxy.url}/tables/nope", timeout=10)
    assert missing.status_code == 404 and missing.json()["code"] == 404


def test_a_lost_answer_is_done_and_unanswered_then_an_outage(proxy, fake_controller, tmp_path):
    proxy.lose_next(1, method="POST", path="/v2/segments", then_outage_s=30)
    with pytest.raises(requests.ConnectionError):
        upload(proxy.url, make_segment(tmp_path, "events_0"))
    assert fake_controller.live_segments() == ["events_0"]  # the controller did the work
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{proxy.url}/segments/events", timeout=10)
    assert proxy.outcomes("/segments/events") == ["reset (outage)"]
    proxy.outage(0)
    assert requests.get(f"{proxy.url}/segments/events", timeout=10).status_code == 200


def test_an_error_body_is_a_200_and_nothing_is_forwarded(proxy, fake_controller, tmp_path):
    proxy.error_body_next(1, method="POST", path="/v2/segments")
    answer = upload(proxy.url, make_segment(tmp_path, "events_0"))
    assert answer.status_code == 200 and answer.json()["code"] == 500
    assert fake_controller.live_segments() == [] and fake_controller.uploads() == []
