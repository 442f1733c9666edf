"""New segments a server failed to load, before a replacement ends (``server_load.await_loaded``).

On a real cluster, a controller killed during a write's uploads and started again: the segments uploaded just
before the kill could not be downloaded by the server (ERROR in the external view), every upload succeeded once
the controller was back, and the end then waited on Pinot's side for segments that would never load (Pinot waits
10 minutes an attempt) until the client's 240 s deadline: the write was reverted. Here the test controller holds
such segments in ERROR until reset (after a reset: ERROR a read longer, then OFFLINE, as the server's Helix
messages go), and fails an end that names one, as Pinot does after its wait."""
from __future__ import annotations

import pytest

from pinot_sink.commit import CommitError, commit_job
from pinot_sink.controller import ControllerClient
from pinot_sink.controller.server_load import RESETS_PER_SEGMENT, await_loaded
from tests.datasource.test_commit import CONFIG, SCHEMA, ids_in_controller, job, run_tasks


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch):
    from pinot_sink.controller import server_load

    monkeypatch.setattr(server_load, "FIRST_POLL_S", 0.01)
    monkeypatch.setattr(server_load, "MAX_POLL_S", 0.01)


@pytest.fixture
def table(fake_controller):
    fake_controller.add_table(SCHEMA, CONFIG)
    return fake_controller


def test_segments_a_server_failed_to_load_are_reset_and_the_write_commits(tmp_path, table):
    events = table.tables["events"]
    events.failing_loads = 2  # the first two uploads: a download that met a controller restart
    the_job = job(url=table.url, out=tmp_path / "stage", **{"push-parallelism": 1})
    result = commit_job(the_job, run_tasks(the_job, [(0, 1000)]))
    assert result.rows == 1000 and ids_in_controller(table, tmp_path) == list(range(1000))
    assert sorted(events.resets) == sorted(events.errored) and len(events.resets) == 2
    assert not any(events.errored.values())
    paths = [r.path for r in table.received]
    resets = [i for i, p in enumerate(paths) if p.endswith("/reset")]
    end = paths.index("/segments/events/endReplaceSegments")
    assert resets and max(resets) < end  # reset before the end, which would otherwise wait for them
    assert all(paths[i].startswith("/segments/events_OFFLINE/") for i in resets)  # Pinot wants the type


def test_a_segment_no_reset_loads_fails_the_write_at_once_naming_it(tmp_path, table):
    first = job(url=table.url, out=tmp_path / "stage")
    commit_job(first, run_tasks(first, [(0, 300)]))
    events = table.tables["events"]
    events.failing_loads, events.resets_to_load = 1, 99  # a segment the server cannot load at all
    the_job = job(url=table.url, out=tmp_path / "stage", **{"write.id": first.run.write_id})
    with pytest.raises(CommitError) as info:
        commit_job(the_job, run_tasks(the_job, [(0, 500)]))
    broken = next(iter(events.errored))
    message = str(info.value)
    assert "the table is as it was" in message and broken in message and table.instance in message
    assert f"still after {RESETS_PER_SEGMENT} resets" in message
    assert events.resets == [broken] * RESETS_PER_SEGMENT
    ends = [r for r in table.received if r.path == "/segments/events/endReplaceSegments"]
    assert len(ends) == 1  # the first write's: the failed one's end was never sent, so never waited on
    assert ids_in_controller(table, tmp_path) == list(range(300))  # the rerun's replacement reverted


def test_a_declared_segment_never_uploaded_is_not_waited_for(table):
    # recover ending an entry whose crash left a declared segment unuploaded: the end refuses it at once;
    # the watch must not wait for a segment no server will ever be asked to load
    events = table.tables["events"]
    with ControllerClient(table.url) as client:
        await_loaded(client, "events", ["events_never_uploaded"], deadline_s=3600)
    assert [r.path for r in table.received] == ["/tables/events/idealstate"]
    assert events.resets == []


def test_an_unreadable_external_view_hands_over_to_the_end(tmp_path, table):
    the_job = job(url=table.url, out=tmp_path / "stage", **{"retry.max-attempts": 1})
    table.fail_next(1, status=403, message="not allowed", method="GET", path="/tables/events/externalview")
    result = commit_job(the_job, run_tasks(the_job, [(0, 500)]))
    assert result.rows == 500 and ids_in_controller(table, tmp_path) == list(range(500))


def test_the_test_controller_resets_only_a_table_named_with_its_type_as_pinot(tmp_path, table):
    import requests

    the_job = job(url=table.url, out=tmp_path / "stage")
    commit_job(the_job, run_tasks(the_job, [(0, 100)]))
    name = next(iter(table.tables["events"].segments))
    untyped = requests.post(f"{table.url}/segments/events/{name}/reset", timeout=10)
    assert untyped.status_code == 404 and "Must provide table name with type" in untyped.text
    with ControllerClient(table.url) as client:
        client.reset_segment("events", name)
    assert table.tables["events"].resets == [name]



def test_a_server_failing_again_before_the_view_shows_it_out_of_error_still_fails_at_once(tmp_path, table,
                                                                                         monkeypatch):
    # A download that fails at once (a missing file, a deep store the server cannot reach) takes the segment
    # ERROR -> OFFLINE -> ERROR between two reads of the view: it is never seen out of ERROR. Counting only an
    # ERROR seen after one out of it, the watch reset it once and then waited out the whole deadline (the end's:
    # 300 s by default, and the end its own after it) instead of failing the write at once.
    from pinot_sink.controller import server_load
    from pinot_sink.controller.errors import ConsistentPushError

    monkeypatch.setattr(server_load, "STALE_ERROR_S", 0.0)  # past the reset's stale ERROR reads
    the_job = job(url=table.url, out=tmp_path / "stage")
    commit_job(the_job, run_tasks(the_job, [(0, 100)]))
    events = table.tables["events"]
    name = next(iter(events.segments))
    events.errored[name], events.reset_shows = 99, ("ERROR",)
    with ControllerClient(table.url) as client, pytest.raises(ConsistentPushError) as info:
        await_loaded(client, "events", [name], deadline_s=5)
    assert name in str(info.value) and events.resets == [name] * RESETS_PER_SEGMENT


def test_a_replica_in_error_is_reset_while_another_replica_s_server_is_down(tmp_path, table):
    # Replication 2: one server holds the new segment in ERROR, the other is down. Pinot's reset without
    # targetInstance resets every replica the external view does not show OFFLINE, the absent one too, and
    # fails (500: "Can't find instance") on the server that is not live: the watch gave up and the end waited
    # for a segment no server would load. Reset on the server that holds it in ERROR, the load succeeds.
    the_job = job(url=table.url, out=tmp_path / "stage")
    commit_job(the_job, run_tasks(the_job, [(0, 100)]))
    events = table.tables["events"]
    name = next(iter(events.segments))
    events.errored[name], events.down_replicas = 1, ("Server_down_8098",)
    from pinot_sink.controller.retry import RetryPolicy

    with ControllerClient(table.url, retry=RetryPolicy.none()) as client:
        await_loaded(client, "events", [name], deadline_s=5)
    assert events.resets == [name] and not events.errored[name]
    assert [r.query.get("targetInstance") for r in table.received if r.path.endswith("/reset")] == [[table.instance]]


def test_the_wait_and_the_end_share_one_deadline(tmp_path, table, monkeypatch):
    # A server down (replication 1): no new segment is ever served. Before the watch, the end waited (on Pinot's
    # side) and the client gave up at its deadline, retry.max-elapsed; the watch waits that long first, and the
    # end then had the whole deadline again: twice the time the user set before the write fails. The end gets
    # what the watch left (a counted clock: no real time passes).
    from types import SimpleNamespace

    from pinot_sink.controller import server_load

    now = [0.0]
    monkeypatch.setattr(server_load, "MAX_POLL_S", 5.0)
    monkeypatch.setattr(server_load, "time", SimpleNamespace(
        monotonic=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s)))
    deadlines = []
    real_end = ControllerClient.end_replace

    def end_replace(self, *args, **kwargs):
        deadlines.append(self.config.retry.max_elapsed_s)
        return real_end(self, *args, **kwargs)

    monkeypatch.setattr(ControllerClient, "end_replace", end_replace)
    table.tables["events"].load_reads = 10 ** 9  # the server never loads them
    the_job = job(url=table.url, out=tmp_path / "stage", **{"retry.max-elapsed": "200"})
    commit_job(the_job, run_tasks(the_job, [(0, 300)]))  # the test controller's end does not wait for loads
    assert now[0] > 150  # the watch waited (counted) most of the deadline
    assert deadlines and deadlines[0] <= 200 - now[0] + server_load.END_AFTER_WAIT_S



def test_a_realtime_segment_is_reset_with_the_realtime_type(fake_controller):
    # An upsert table is REALTIME: its uploaded segments are reset at /segments/orders_REALTIME/..., as Pinot
    # asks; the test controller answered 404 there (it knew only the _OFFLINE suffix) and took _OFFLINE for a
    # REALTIME table, which Pinot refuses (no ideal state for orders_OFFLINE).
    import requests

    from tests.primary_keys.tables import SCHEMA as KEYED, table_config
    from tests.primary_keys.test_keyed_writes import write

    fake_controller.add_table(KEYED, table_config("REALTIME"))
    write(fake_controller, kind="REALTIME", seed=1)
    orders = fake_controller.tables["orders"]
    name = next(iter(orders.segments))
    orders.errored[name] = 1
    with ControllerClient(fake_controller.url, table_type="REALTIME") as client:
        await_loaded(client, "orders", [name], deadline_s=5)
    assert orders.resets == [name] and not orders.errored[name]
    wrong = requests.post(f"{fake_controller.url}/segments/orders_OFFLINE/{name}/reset", timeout=10)
    assert wrong.status_code == 404 and "Could not find ideal state for table: orders_OFFLINE" in wrong.text


def test_the_test_controller_refuses_a_reset_named_with_the_other_type_as_pinot(tmp_path, table):
    # Pinot looks up the ideal state of the table named with its type: events_REALTIME of an OFFLINE table has
    # none, an IllegalStateException, 404 (a client naming the wrong type must fail here as on a real cluster)
    import requests

    the_job = job(url=table.url, out=tmp_path / "stage")
    commit_job(the_job, run_tasks(the_job, [(0, 100)]))
    name = next(iter(table.tables["events"].segments))
    wrong = requests.post(f"{table.url}/segments/events_REALTIME/{name}/reset", timeout=10)
    assert wrong.status_code == 404
    assert table.tables["events"].resets == []
