"""The test controller: its select endpoint, the lineage rules of CONTROLLER_API.md section 3, and its
held-upload knob. (Segment time ranges in millis: tests/test_stored_millis.py.)"""
from __future__ import annotations

import threading

import pytest

from pinot_sink.controller import (
    ControllerClient,
    ControllerError,
    RetryPolicy,
    push_segment,
)
from segment_factory import make_segment

DAY = 86_400_000
D0 = 1_709_251_200_000  # 2024-03-01T00:00Z


@pytest.fixture
def days(fake_controller, tmp_path):
    """Segments d0..d4 covering one whole day each (start 00:00, end 23:59:59.999), d1x straddling the
    d1/d2 boundary, and one without a time range in a table without a time column."""
    client = ControllerClient(fake_controller.url, retry=RetryPolicy.none())
    for day in range(5):
        push_segment(client, "events", make_segment(tmp_path, f"d{day}", start_time=D0 + day * DAY,
                                                    end_time=D0 + (day + 1) * DAY - 1))
    push_segment(client, "events", make_segment(tmp_path, "d1x", start_time=D0 + DAY + DAY // 2,
                                                end_time=D0 + 2 * DAY + DAY // 2))
    return client


def test_the_test_controller_answers_a_bad_select_window_as_pinot_does(fake_controller):
    import requests

    base = f"{fake_controller.url}/segments/events/select"
    answer = requests.get(base, params={"startTimestamp": 5, "endTimestamp": 5}, timeout=5)
    assert answer.status_code == 500 and "should be smaller" in answer.json()["error"]
    assert requests.get(base, params={"startTimestamp": "x"}, timeout=5).status_code == 400


def make_segment_in(client, name, **kwargs):
    import tempfile

    return make_segment(tempfile.mkdtemp(prefix="select-"), name, **kwargs)


# --- lineage rules (CONTROLLER_API.md section 3) ---------------------------------------------------------


def test_start_replace_checks(days):
    with pytest.raises(ControllerError, match="from 'segmentsFrom' does not exist"):
        days.start_replace("events", ["nope"], ["n_0"])
    with pytest.raises(ControllerError, match="from 'segmentsTo' exists in table"):
        days.start_replace("events", ["d0"], ["d1"])
    days.start_replace("events", ["d0"], ["n_0"])
    with pytest.raises(ControllerError, match="Failed to update the segment lineage during startReplaceSegments"):  # replacing a replaced segment
        days.start_replace("events", ["d0"], ["n_1"])
    with pytest.raises(ControllerError, match="Failed to update the segment lineage during startReplaceSegments"):  # name conflict
        days.start_replace("events", ["d1"], ["n_0"])
    days.start_replace("events", ["d0"], ["n_1"], force_cleanup=True)  # reverts the overlapping IN_PROGRESS one


def test_listing_hides_segments_to_while_in_progress_and_segments_from_once_completed(days, fake_controller):
    entry = days.start_replace("events", ["d0", "d1"], ["n_0"])
    push_segment(days, "events", make_segment_in(days, "n_0"))
    assert "n_0" not in days.list_segments("events") and "n_0" in days.list_segments("events", exclude_replaced=False)
    with pytest.raises(ControllerError, match="Failed to update the segment lineage during endReplaceSegments"):  # not in the original segmentsTo
        days.end_replace("events", entry, segments_to=["other"])
    days.end_replace("events", entry, segments_to=[])  # an empty subset means all of them
    live = days.list_segments("events")
    assert "n_0" in live and not {"d0", "d1"} & set(live)
    assert days.get_lineage("events")[entry]["segmentsTo"] == ["n_0"]


def test_end_replace_refuses_when_a_replaced_segment_was_deleted(days, fake_controller):
    fake_controller.lineage_exclusive_delete = False
    entry = days.start_replace("events", ["d0"], ["n_0"])
    push_segment(days, "events", make_segment_in(days, "n_0"))
    days.delete_segments("events", ["d0"])
    with pytest.raises(ControllerError, match="Failed to update the segment lineage during endReplaceSegments"):  # segmentsFrom deleted
        days.end_replace("events", entry)
    days.revert_replace("events", entry)
    assert "n_0" not in fake_controller.segments()


def test_revert_refuses_a_merged_segment(days):
    first = days.start_replace("events", ["d0"], ["n_0"])
    push_segment(days, "events", make_segment_in(days, "n_0"))
    days.end_replace("events", first)
    days.start_replace("events", ["n_0"], ["n_1"])
    with pytest.raises(ControllerError, match="Failed to update the segment lineage during revertReplaceSegments"):  # a merged segment
        days.revert_replace("events", first)


# --- a held (straggling) upload -----------------------------------------------------------------------


@pytest.mark.parametrize("by", ["segment", "nth"])
def test_one_upload_can_be_held_to_land_late(fake_controller, tmp_path, by):
    client = ControllerClient(fake_controller.url)
    hold = fake_controller.delay_upload(30, segment="late_0") if by == "segment" else \
        fake_controller.delay_upload(30, nth=2)
    paths = [make_segment(tmp_path, name) for name in ("early_0", "late_0", "early_1")]
    worker = threading.Thread(target=push_segment, args=(client, "events", paths[1]))
    push_segment(client, "events", paths[0])
    worker.start()
    assert hold.arrived.wait(10)
    push_segment(client, "events", paths[2])  # other uploads pass while one is held
    assert sorted(fake_controller.segments()) == ["early_0", "early_1"]
    hold.release()
    assert hold.landed.wait(10)
    worker.join(10)
    assert sorted(fake_controller.segments()) == ["early_0", "early_1", "late_0"]
    push_segment(client, "events", make_segment(tmp_path / "again", "late_0"))  # one upload only was held


def test_a_held_upload_lands_after_its_client_gave_up(fake_controller, tmp_path):
    hold = fake_controller.delay_upload(2.0, segment="late_0")
    impatient = ControllerClient(fake_controller.url, read_timeout=0.3,
                                 retry=RetryPolicy(max_attempts=1, max_elapsed_s=0.5))
    with pytest.raises(ControllerError):
        push_segment(impatient, "events", make_segment(tmp_path, "late_0"))
    assert "late_0" not in fake_controller.segments()
    assert hold.landed.wait(10)  # the straggler lands anyway, after the seconds given
    assert "late_0" in fake_controller.segments()
