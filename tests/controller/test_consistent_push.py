"""Consistent push: old segments swapped for new ones atomically, or not at all."""
from __future__ import annotations

import pickle

import pytest

from pinot_sink.controller import push_segment
from pinot_sink.controller import ConsistentPush, ConsistentPushError, ControllerClient, RetryPolicy
from segment_factory import make_segment

FAST = RetryPolicy(max_attempts=2, max_elapsed_s=10, initial_backoff_s=0.01, max_backoff_s=0.02)
OLD = ["events_old_0", "events_old_1", "events_old_2"]
NEW = ["events_new_0", "events_new_1", "events_new_2", "events_new_3"]


@pytest.fixture
def client(fake_controller, tmp_path):
    client = ControllerClient(fake_controller.url, retry=FAST)
    for name in OLD:
        push_segment(client, "events", make_segment(tmp_path / "old", name))
    yield client
    client.close()


@pytest.fixture
def new_paths(tmp_path):
    return [make_segment(tmp_path / "new", name) for name in NEW]


def test_replacing_3_by_4_is_atomic_for_the_listing(client, fake_controller, new_paths):
    push = ConsistentPush(client, "events_OFFLINE", segments_to=NEW)
    push.start()
    assert push.segments_from == OLD
    for path in new_paths:
        push.upload([path])
        assert client.list_segments("events") == OLD  # queries still see only the old snapshot
    push.finish()
    assert client.list_segments("events") == NEW
    assert sorted(fake_controller.segments()) == sorted(OLD + NEW)  # old ones wait for retention


def test_failure_after_2_of_4_uploads_reverts_to_the_old_3(client, fake_controller, new_paths):
    fake_controller.fail_next(100, 400, message="rejected", path="/v2/segments", after=2)
    with pytest.raises(ConsistentPushError, match="rejected") as info:
        ConsistentPush(client, "events", segments_to=NEW).run(new_paths, parallel=1)
    assert info.value.reverted and info.value.segment == "events_new_2"
    assert client.list_segments("events") == OLD
    assert sorted(fake_controller.segments()) == OLD  # the 2 uploaded new segments were deleted
    (entry,) = client.get_lineage("events").values()
    assert entry["state"] == "REVERTED"


def test_context_manager_reverts_on_any_exception(client, fake_controller, new_paths):
    with pytest.raises(ConsistentPushError, match="boom"):
        with ConsistentPush(client, "events", segments_to=NEW) as push:
            push.upload(new_paths[:1])
            raise RuntimeError("boom")
    assert client.list_segments("events") == OLD and sorted(fake_controller.segments()) == OLD


def test_end_failure_reverts(client, fake_controller, new_paths):
    push = ConsistentPush(client, "events", segments_to=NEW)
    with pytest.raises(ConsistentPushError, match="Failed to update the segment lineage during endReplaceSegments") as info:
        push.run(new_paths[:3])  # the 4th declared segment never arrives: end is refused
    assert info.value.reverted and push.state == "REVERTED"
    assert client.list_segments("events") == OLD


def test_split_across_processes_by_pickling(client, fake_controller, new_paths):
    """Driver starts, tasks upload with a pickled copy, driver finishes from the lineage id alone."""
    driver = ConsistentPush(client.config, "events", segments_to=NEW)
    lineage_id = driver.start()
    for path in new_paths:
        task_copy = pickle.loads(pickle.dumps(driver))
        assert task_copy.lineage_id == lineage_id and task_copy._client is None
        task_copy.upload([path])
    ConsistentPush.resume(client.config, "events", lineage_id).finish()
    assert client.list_segments("events") == NEW


def test_finish_with_the_segments_actually_written(client, new_paths):
    push = ConsistentPush(client, "events", segments_to=NEW)
    push.start()
    push.upload(new_paths[:2])
    push.finish(segments_to=NEW[:2])
    assert client.list_segments("events") == NEW[:2]


def test_revert_is_idempotent_and_resumable(client, fake_controller, new_paths):
    push = ConsistentPush(client, "events", segments_to=NEW)
    lineage_id = push.start()
    push.upload(new_paths)
    ConsistentPush.resume(client, "events", lineage_id).revert()
    push.state = "STARTED"  # a second revert, as from another driver retrying abort
    push.revert()
    push.revert()
    assert client.list_segments("events") == OLD and sorted(fake_controller.segments()) == OLD


def test_second_push_replaces_the_first_one(client, tmp_path, new_paths):
    ConsistentPush(client, "events", segments_to=NEW).run(new_paths)
    newest = [make_segment(tmp_path / "newest", f"events_newest_{i}") for i in range(2)]
    ConsistentPush(client, "events", segments_to=[p.name[:-7] for p in newest]).run(newest)
    assert client.list_segments("events") == ["events_newest_0", "events_newest_1"]


def test_new_names_must_be_fresh(client):
    with pytest.raises(ConsistentPushError, match="must be fresh"):
        ConsistentPush(client, "events", segments_to=["events_old_0"]).start()
    with pytest.raises(ValueError, match="duplicate"):
        ConsistentPush(client, "events", segments_to=["a", "a"])


def test_empty_replacement_hides_everything(client):
    ConsistentPush(client, "events", segments_to=[]).run([])
    assert client.list_segments("events") == []


def test_interrupt_reverts_and_propagates_unchanged(client, fake_controller, new_paths):
    with pytest.raises(KeyboardInterrupt):
        with ConsistentPush(client, "events", segments_to=NEW) as push:
            push.upload(new_paths[:2])
            raise KeyboardInterrupt
    assert client.list_segments("events") == OLD and sorted(fake_controller.segments()) == OLD


def test_explicit_finish_inside_the_block_is_respected(client, new_paths):
    with ConsistentPush(client, "events", segments_to=NEW) as push:
        push.upload(new_paths)
        push.finish()
    assert client.list_segments("events") == NEW


def test_a_crashed_run_does_not_block_the_next_one(client, fake_controller, tmp_path, new_paths):
    crashed = ConsistentPush(client, "events", segments_to=["events_crashed_0", "events_crashed_1"])
    crashed.start()
    push_segment(client, "events", make_segment(tmp_path / "crashed", "events_crashed_0"))
    # the driver died here: no end, no revert; a rerun must still go through (forceCleanup, as Pinot's jobs do)
    with pytest.raises(ConsistentPushError, match=f"is being replaced by lineage entry {crashed.lineage_id} "
                                                  r"\(IN_PROGRESS since .*nothing was started"):  # no retries
        ConsistentPush(client, "events", segments_to=NEW, force_cleanup=False).start()
    ConsistentPush(client, "events", segments_to=NEW).run(new_paths)
    assert client.list_segments("events") == NEW
    assert "events_crashed_0" not in fake_controller.segments()  # cleaned up with the stale entry
    assert client.get_lineage("events")[crashed.lineage_id]["state"] == "REVERTED"
