"""A revert on an upsert or dedup table reloads the table's segments. A server resolves a key as segments come
and go: a write's new segments, once loaded (its lineage entry still IN_PROGRESS), mark the key's rows in the
older segments invalid, and when a revert removes them Pinot drops the key without looking at those rows again.
On a real cluster (Pinot 210c2951e720) a failed write of 100 keys left the broker answering 200 of 300 rows,
and an undo of a rerun 100 of 300, until ``POST /segments/{t}/reload``; after it, 300 (tests/pinot/test_upsert.py
checks the broker). Here: the reload is asked after the failed write's revert and after an undo, and never for a
table without keys."""
from __future__ import annotations

import pytest

from pinot_sink.commit import CommitError
from pinot_sink.controller import ControllerClient
from pinot_sink.history import undo_write
from tests.primary_keys.tables import SCHEMA, table_config
from tests.primary_keys.test_keyed_writes import write


@pytest.mark.parametrize("keyed", [True, False])
def test_a_failed_write_and_an_undo_reload_a_keyed_table(fake_controller, keyed):
    config = table_config("OFFLINE") if keyed else table_config("OFFLINE", upsertConfig=None, routing=None)
    fake_controller.add_table(SCHEMA, config)
    table = fake_controller.tables["orders"]
    table.linger_reads = 2
    write(fake_controller, kind="OFFLINE", seed=1, **{"write.id": "first"})
    assert table.reloads == 0  # a commit that completes reloads nothing
    fake_controller.fail_next(20, 500, method="POST", path="/segments/orders/endReplaceSegments")
    with pytest.raises(CommitError):
        write(fake_controller, kind="OFFLINE", seed=2, **{"write.id": "second", "retry.max-attempts": 2,
                                                         "retry.initial-backoff": "10ms"})
    assert "REVERTED" in {e.state for e in table.lineage.values()}
    assert table.reloads == (1 if keyed else 0)
    if keyed:  # asked once no server held the reverted segments (they lingered for 2 reads of the external view)
        asked = [i for i, r in enumerate(fake_controller.received) if r.path == "/segments/orders/reload"]
        reverted = [i for i, r in enumerate(fake_controller.received) if r.path.endswith("/revertReplaceSegments")]
        views = [i for i, r in enumerate(fake_controller.received)
                 if r.path == "/tables/orders/externalview" and i > reverted[-1]]
        assert len(views) == 3 and views[-1] < asked[0] and table.reloads_while_held == 0
    with ControllerClient(fake_controller.url) as client:
        undo_write(client, "orders", "first")
    assert table.reloads == (2 if keyed else 0)



def test_a_reload_asked_while_servers_still_hold_the_reverted_segments_says_so(fake_controller, caplog):
    # Servers that still hold the segments of the entry once the wait ends (here: no wait, a committed entry's
    # segments): the reload is asked anyway (the revert is done), and the log says the keys may stay hidden and
    # what to run once the segments are gone; with nothing held, nothing is said.
    import logging

    from pinot_sink.controller.server_load import reload_after_revert

    fake_controller.add_table(SCHEMA, table_config("OFFLINE"))
    write(fake_controller, kind="OFFLINE", seed=1, **{"write.id": "first"})
    table = fake_controller.tables["orders"]
    [entry] = list(table.lineage)
    with ControllerClient(fake_controller.url) as client, caplog.at_level(logging.WARNING, "pinot_sink"):
        assert reload_after_revert(client, "orders", None, wait_s=0.0) is True
        assert "still held" not in caplog.text
        assert reload_after_revert(client, "orders", entry, wait_s=0.0) is True
    assert table.reloads == 2
    warning = [r.getMessage() for r in caplog.records if "still held" in r.getMessage()]
    assert len(warning) == 1 and "may stay hidden" in warning[0]
    assert "/segments/orders/reload?type=OFFLINE" in warning[0]


@pytest.mark.parametrize("undo", [False, True])
def test_a_revert_waits_for_segments_still_loading_before_it_reloads(fake_controller, undo):
    # A server loads an uploaded segment a moment after the upload, and the external view lists it only once it
    # is loaded. One the revert removes while it is still loading is loaded all the same, takes over its keys,
    # then is dropped: a reload asked when the view first lacks it (it never showed it) comes too early, and
    # the keys it took over stay hidden (a real cluster under load: 50 of 300 keys, the reload finding the
    # reverted segments on the server). The revert waits until the servers have loaded the entry's segments,
    # then the reload waits until they are gone. Both ways in: a failed write's revert, and an undo.
    fake_controller.add_table(SCHEMA, table_config("REALTIME"))
    table = fake_controller.tables["orders"]
    write(fake_controller, kind="REALTIME", seed=1, **{"write.id": "first"})
    table.load_reads, table.linger_reads = 3, 2
    if undo:
        write(fake_controller, kind="REALTIME", seed=2, **{"write.id": "first"})
        with ControllerClient(fake_controller.url, table_type="REALTIME") as client:
            undo_write(client, "orders", "first")
    else:
        fake_controller.fail_next(20, 500, method="POST", path="/segments/orders/endReplaceSegments")
        with pytest.raises(CommitError):
            write(fake_controller, kind="REALTIME", seed=2, **{"write.id": "second", "retry.max-attempts": 2,
                                                               "retry.initial-backoff": "10ms"})
    [reverted] = [e for e in table.lineage.values() if e.state == "REVERTED"]
    assert table.reloads == 1 and table.reloads_while_held == 0
    assert set(reverted.segments_to) <= table.loaded  # each was seen loaded before it was reverted
    assert not any(left > 0 for left in table.lingering.values())  # and seen gone before the reload


def test_segments_never_seen_loaded_before_the_revert_get_a_warning_not_a_promise(fake_controller, caplog):
    # Servers that have not loaded the entry's segments when the wait ends (here: no wait): the revert goes
    # ahead, the reload is asked, and the log says keys may stay hidden and what to run, instead of the usual
    # "the keys show their other rows again".
    import logging

    from pinot_sink.controller.server_load import await_loaded_before_revert, reload_after_revert

    fake_controller.add_table(SCHEMA, table_config("OFFLINE"))
    table = fake_controller.tables["orders"]
    write(fake_controller, kind="OFFLINE", seed=1, **{"write.id": "first"})
    table.load_reads = 100  # after the write: its end waits for its segments served (server_load.await_loaded)
    [entry] = list(table.lineage)
    with ControllerClient(fake_controller.url) as client, caplog.at_level(logging.WARNING, "pinot_sink"):
        not_loaded = await_loaded_before_revert(client, "orders", entry, wait_s=0.0)
        assert not_loaded == set(table.lineage[entry].segments_to)
        client.revert_replace("orders", entry, force=True)
        assert reload_after_revert(client, "orders", entry, wait_s=0.0, not_loaded=not_loaded) is True
    assert table.reloads == 1
    said = caplog.text
    assert f"had not loaded {len(not_loaded)} segment(s)" in said and "never seen loaded" in said
    assert "/segments/orders/reload?type=OFFLINE once more" in said and "show their other rows again" not in said


def test_a_segment_counts_as_loaded_once_every_assigned_server_reports_it_online_or_in_error():
    from pinot_sink.controller.server_load import _loading

    class Views:  # what the controller answers: the ideal state and the external view of two replicas
        def get_ideal_state(self, raw):
            return {s: {"s1": "ONLINE", "s2": "ONLINE"} for s in ("a", "b", "c", "d", "e")}

        def external_view(self, raw):
            return {"a": {"s1": "ONLINE", "s2": "ONLINE"}, "b": {"s1": "ONLINE"},
                    "c": {"s1": "ONLINE", "s2": "OFFLINE"}, "d": {"s1": "ERROR", "s2": "ONLINE"}}

    assert _loading(Views(), "orders", {"a", "b", "c", "d", "e", "gone"}) == {"b", "c", "e"}
