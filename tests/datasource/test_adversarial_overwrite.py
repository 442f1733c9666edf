"""Adversarial tests of concurrent overwrites (commit bf1c20c): a whole-table overwrite's run tag is
``o<millis>``, and after its commit a run that finds a live rival it did not replace withdraws.

The guarantee under attack (docs/guarantees.md): any two concurrent writes end in a state some serial order
of them could give, or fail saying so; a write that reports success holds its rows once; a failed one leaves
the table as it was. Each race is driven step by step (no sleeps that decide the order): a job's first upload
is held (its lineage entry is IN_PROGRESS, hidden), and its post-commit look for rivals is gated, so "ends"
and "looks" happen in exactly the order a test names.
"""
from __future__ import annotations

import json
import threading
import time

import pytest

import pinot_sink.commit as commit_module
from pinot_sink.commit import CommitError, abort_job, commit_job
from pinot_sink.naming import segment_replaces

from .test_commit import ids_in_controller, ids_in_directory, job, run_tasks, table  # noqa: F401 (fixture)


class Race:
    """Commits of several jobs in threads, moved forward by hand against the loopback controller.

    ``start(name)``: the job lists the table, opens its lineage entry and stops at its first upload;
    ``end(name)``: the upload proceeds and the entry is completed; the job stops before it looks for rivals;
    ``look(name)``: it looks (and maybe withdraws), and its commit returns. ``commit(name)`` does all three.
    """

    def __init__(self, controller, monkeypatch):
        self.controller = controller
        self.jobs, self.threads, self.holds, self.outcome = {}, {}, {}, {}
        self.ended, self.go = {}, {}
        real = commit_module._yield_to_a_concurrent_run

        def gated(client, the_job, *args, **kwargs):
            name = threading.current_thread().name
            if name in self.go:
                self.ended[name].set()
                assert self.go[name].wait(30)
            return real(client, the_job, *args, **kwargs)

        monkeypatch.setattr(commit_module, "_yield_to_a_concurrent_run", gated)

    def add(self, name, the_job, reports):
        self.jobs[name] = (the_job, reports)
        self.ended[name], self.go[name] = threading.Event(), threading.Event()
        first = min((s for r in reports if r is not None for s in r.segments), key=lambda s: s.name, default=None)
        if first is not None:
            self.holds[name] = self.controller.delay_upload(30, segment=first.name)

    def _run(self, name):
        the_job, reports = self.jobs[name]
        try:
            self.outcome[name] = commit_job(the_job, reports)
        except Exception as exc:  # noqa: BLE001 - losing is allowed, winning twice is not
            self.outcome[name] = exc
        finally:
            self.ended[name].set()  # a commit that failed before its look ends here

    def start(self, name):
        thread = self.threads[name] = threading.Thread(target=self._run, args=(name,), name=name, daemon=True)
        thread.start()
        assert self.holds[name].arrived.wait(10)

    def end(self, name):
        self.holds[name].release()
        assert self.ended[name].wait(30)

    def look(self, name):
        self.go[name].set()
        self.threads[name].join(30)
        assert not self.threads[name].is_alive()

    def commit(self, name):
        self.start(name)
        self.end(name)
        self.look(name)

    def play(self, steps: str):
        """Steps like ``"start a, commit b, end a, look a"``; a job that already failed skips its later steps.
        On an error every held job is let go, so no thread outlives the test."""
        try:
            for step in steps.split(", "):
                action, name = step.split()
                if name not in self.outcome:  # e.g. its entry was reverted by a rival's forceCleanup
                    getattr(self, action)(name)
        except BaseException:
            self.release_all()
            raise

    def winners(self):
        return sorted(k for k, v in self.outcome.items() if not isinstance(v, Exception))

    def release_all(self):
        for name in self.jobs:
            self.holds.get(name) and self.holds[name].release()
            self.go[name].set()


def commit_during_publish(monkeypatch, inner):
    """Run ``inner()`` (another job's whole commit) when the next embedded commit is about to move its files in:
    after it listed the table, before its files appear."""
    real_publish = commit_module.publish_into_directory

    def publish(*args, **kwargs):
        monkeypatch.setattr(commit_module, "publish_into_directory", real_publish)
        inner()
        return real_publish(*args, **kwargs)

    monkeypatch.setattr(commit_module, "publish_into_directory", publish)


def serial_states(before: list[int], writes: dict[str, list[int]], winners: list[str]) -> list[list[int]]:
    """The tables some serial order of the successful overwrites could leave: the last one's rows."""
    return [sorted(writes[w]) for w in winners] if winners else [before]


# --- three overwrites, at every order of ends and looks ----------------------------------------------------------


ROWS = {"a": (0, 300), "b": (1000, 1200), "c": (2000, 2100)}


@pytest.mark.parametrize("steps", [
    "start a, start b, start c, end a, end b, end c, look a, look b, look c",  # all end, then all look
    "start a, start b, start c, end a, look a, end b, end c, look c, look b",
    "start c, start b, start a, end b, end c, look b, end a, look c, look a",
    "start a, start b, start c, end c, look c, end b, look b, end a, look a",  # each looks before the next ends
])
@pytest.mark.parametrize("existing", [False, True])
def test_three_overwrites_committing_at_once_leave_at_most_one(tmp_path, table, monkeypatch, steps, existing):
    """Three overwrites (different write ids) race into one table. Into a non-empty table their lineage
    entries share segmentsFrom (forceCleanup reverts, or endReplace fails); into an empty one only the
    post-commit look can settle it. Either way: at most one succeeds, and the table is its rows, or the old
    table when all three failed."""
    before = list(range(9000, 9100)) if existing else []
    if existing:
        first = job(url=table.url, out=tmp_path / "s0")
        commit_job(first, run_tasks(first, [(9000, 9100)]))
    race = Race(table, monkeypatch)
    for name, rows in ROWS.items():
        the_job = job(url=table.url, out=tmp_path / f"s_{name}", overwrite=True)
        race.add(name, the_job, run_tasks(the_job, [rows]))
    race.play(steps)
    winners = race.winners()
    ids = ids_in_controller(table, tmp_path)
    assert len(winners) <= 1, f"{winners} all succeeded: {len(ids)} rows"
    assert ids in serial_states(before, {n: list(range(*r)) for n, r in ROWS.items()}, winners)
    for name in set(ROWS) - set(winners):
        assert "the table is as it was" in str(race.outcome[name]) or "was reverted" in str(race.outcome[name])
    assert not [e for e in table.tables["events"].lineage.values() if e.state == "IN_PROGRESS"]


def test_when_both_overwrites_list_after_both_ended_neither_stays_and_each_says_so(tmp_path, table, monkeypatch):
    """The documented worst case: into an empty table, both end and both list before either withdraws."""
    race = Race(table, monkeypatch)
    both_listed = threading.Barrier(2, timeout=30)
    real_rivals = commit_module._concurrent_rivals
    monkeypatch.setattr(commit_module, "_concurrent_rivals", lambda *a: (both_listed.wait(), real_rivals(*a))[1])
    for name in ("a", "b"):
        the_job = job(url=table.url, out=tmp_path / f"s_{name}", overwrite=True)
        race.add(name, the_job, run_tasks(the_job, [ROWS[name]]))
    race.play("start a, start b, end a, end b")
    race.go["a"].set()  # a lists, then waits at the barrier for b's listing
    race.play("look b, look a")
    assert race.winners() == [] and ids_in_controller(table, tmp_path) == []
    for name in ("a", "b"):
        assert "another overwrite or another run of this write committed at the same time" in str(race.outcome[name])


# --- overwrites against other kinds of write -----------------------------------------------------------------------


def test_an_overwrite_and_an_empty_overwrite_racing_leave_one_of_them(tmp_path, table, monkeypatch):
    """An overwrite with an empty DataFrame uploads nothing and never looks for rivals; its lineage entry
    (segmentsFrom = the old table, segmentsTo = none) still conflicts with the other overwrite's."""
    first = job(url=table.url, out=tmp_path / "s0")
    commit_job(first, run_tasks(first, [(9000, 9100)]))
    race = Race(table, monkeypatch)
    full = job(url=table.url, out=tmp_path / "s1", overwrite=True)
    race.add("full", full, run_tasks(full, [(0, 300)]))
    empty = job(url=table.url, out=tmp_path / "s2", overwrite=True)
    race.play("start full")
    result = commit_job(empty, run_tasks(empty, [(0, 0)]))  # whole, while full's entry is open
    race.play("end full, look full")
    assert result.rows == 0 and race.winners() == []
    assert ids_in_controller(table, tmp_path) == []  # empty after full: a serial order
    assert "the table is as it was" in str(race.outcome["full"])


@pytest.mark.parametrize("first", ["overwrite", "rerun"])
def test_an_overwrite_racing_a_rerun_of_another_write_id(tmp_path, table, monkeypatch, first):
    """A rerun of write.id "day" replaces its first run; an overwrite replaces everything, that first run too:
    their entries share segmentsFrom, so one of them fails and says so."""
    day = job(url=table.url, out=tmp_path / "s0", **{"write.id": "day"})
    commit_job(day, run_tasks(day, [(9000, 9100)]))
    other = job(url=table.url, out=tmp_path / "s1")
    commit_job(other, run_tasks(other, [(5000, 5050)]))
    race = Race(table, monkeypatch)
    over = job(url=table.url, out=tmp_path / "s2", overwrite=True)
    rerun = job(url=table.url, out=tmp_path / "s3", **{"write.id": "day"})
    race.add("overwrite", over, run_tasks(over, [(0, 300)]))
    race.add("rerun", rerun, run_tasks(rerun, [(9000, 9200)]))
    second = "rerun" if first == "overwrite" else "overwrite"
    race.play(f"start {first}, commit {second}, end {first}, look {first}")
    winners = race.winners()
    ids = ids_in_controller(table, tmp_path)
    serial = {("overwrite",): list(range(300)), ("rerun",): list(range(5000, 5050)) + list(range(9000, 9200)),
              ("overwrite", "rerun"): list(range(300)) + list(range(9000, 9200))}  # overwrite, then rerun
    assert ids == serial[tuple(winners)]


@pytest.mark.parametrize("switch", ["overwrite then append", "append then overwrite"])
def test_two_runs_of_one_write_id_in_different_modes_racing_leave_one(tmp_path, table, monkeypatch, switch):
    """write.id "d" is rerun in overwrite mode and in append mode at once (an orchestrator's retry with a
    changed mode). The append run's tag is r, the overwrite's o; both carry d's write tag, so each is the
    other's rival."""
    other = job(url=table.url, out=tmp_path / "s0")
    commit_job(other, run_tasks(other, [(5000, 5050)]))
    race = Race(table, monkeypatch)
    modes = switch.split(" then ")
    for i, mode in enumerate(modes):
        the_job = job(url=table.url, out=tmp_path / f"s{i + 1}", overwrite=mode == "overwrite", **{"write.id": "d"})
        time.sleep(0.002)  # another run tag
        race.add(mode, the_job, run_tasks(the_job, [(1000 * i, 1000 * i + 300)]))
    race.play(f"start {modes[0]}, start {modes[1]}, end {modes[0]}, end {modes[1]}, look {modes[0]}, look {modes[1]}")
    winners = race.winners()
    rows = {mode: list(range(1000 * i, 1000 * i + 300)) for i, mode in enumerate(modes)}
    ids = ids_in_controller(table, tmp_path)
    assert len(winners) <= 1
    # overwrite (of everything, the other write too) or append (a first run of d: beside the other write)
    expect = {"overwrite": rows["overwrite"], "append": sorted(rows["append"] + list(range(5000, 5050)))}
    assert ids == (expect[winners[0]] if winners else list(range(5000, 5050)))


def test_two_refresh_table_appends_racing_into_an_empty_table_leave_one(tmp_path, fake_controller, monkeypatch):
    """A REFRESH table with consistentDataPush turns every append into a whole-table overwrite (o-tagged)."""
    from .test_commit import CONFIG, SCHEMA

    config = dict(CONFIG, ingestionConfig={"batchIngestionConfig": {"segmentIngestionType": "REFRESH",
                                                                     "consistentDataPush": "true"}})
    fake_controller.add_table(SCHEMA, config)
    race = Race(fake_controller, monkeypatch)
    for name in ("a", "b"):
        the_job = job(url=fake_controller.url, out=tmp_path / f"s_{name}")
        assert the_job.overwrite and segment_replaces(f"x_{the_job.run.write_tag}_{the_job.run_tag}_0_0") == "table"
        race.add(name, the_job, run_tasks(the_job, [ROWS[name]]))
    race.play("start a, commit b, end a, look a")
    assert race.winners() == ["b"] and ids_in_controller(fake_controller, tmp_path) == list(range(*ROWS["b"]))


# --- look-alike names -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("foreign", ["events_w0123456789_oabc_3_0", "events_x_w0123456789_o1_0_0",
                                     "events_w0123456789_o_3_0", "events_wABCDEF0123_oabc_3_0"])
def test_a_segment_that_looks_like_an_overwrites_never_makes_a_later_one_withdraw(tmp_path, table, foreign):
    """A segment written before the overwrite, whatever it looks like, is one it replaces, never a rival;
    an append after it is kept beside it."""
    manual = job(url=table.url, out=tmp_path / "m", **{"segment-name.type": "fixed", "segment.name": foreign})
    commit_job(manual, run_tasks(manual, [(9000, 9100)]))
    over = job(url=table.url, out=tmp_path / "s1", overwrite=True)
    result = commit_job(over, run_tasks(over, [(0, 300)]))
    assert foreign in result.replaced and ids_in_controller(table, tmp_path) == list(range(300))
    later = job(url=table.url, out=tmp_path / "s2")
    commit_job(later, run_tasks(later, [(500, 600)]))
    assert ids_in_controller(table, tmp_path) == list(range(300)) + list(range(500, 600))


def test_an_append_with_a_user_postfix_that_mimics_an_overwrite_tag_never_makes_an_overwrite_withdraw(
        tmp_path, table, monkeypatch):
    """The writer's own tags follow the user postfix, so a postfix ``w<hex>_o<run>`` cannot pass for an
    overwrite's name: an append with it committing during an overwrite is an append after it."""
    race = Race(table, monkeypatch)
    over = job(url=table.url, out=tmp_path / "s1", overwrite=True)
    race.add("over", over, run_tasks(over, [(0, 300)]))
    mimic = job(url=table.url, out=tmp_path / "s2", **{"segment.name.postfix": "w0123456789_oabc"})
    race.play("start over")
    commit_job(mimic, run_tasks(mimic, [(1000, 1100)]))
    race.play("end over, look over")
    assert race.winners() == ["over"]
    assert ids_in_controller(table, tmp_path) == list(range(300)) + list(range(1000, 1100))


# --- the controller fails around the post-commit look ---------------------------------------------------------------


def test_a_lost_answer_to_the_post_commit_listing_is_retried(tmp_path, table, monkeypatch):
    """The listing after endReplaceSegments loses its answer once: the retry lists again and finds the rival."""
    race = Race(table, monkeypatch)
    for name in ("a", "b"):
        the_job = job(url=table.url, out=tmp_path / f"s_{name}", overwrite=True)
        race.add(name, the_job, run_tasks(the_job, [ROWS[name]]))
    race.play("start a, commit b, end a")  # b looked while a's entry was open: it saw nothing
    table.lose_response_next(1, method="GET", path="/segments/events")
    race.play("look a")
    assert race.winners() == ["b"] and ids_in_controller(table, tmp_path) == list(range(*ROWS["b"]))


def test_an_overwrite_that_cannot_look_for_rivals_after_its_commit_does_not_report_success(
        tmp_path, table, monkeypatch):
    """b committed and looked while a's entry was still open (it saw nothing); then a ends, and its listing
    fails on every retry. a must not report success: it did, and both overwrites stayed (500 rows; any serial
    order leaves 300 or 200). Now it withdraws and fails, saying why."""
    race = Race(table, monkeypatch)
    for name in ("a", "b"):
        the_job = job(url=table.url, out=tmp_path / f"s_{name}", overwrite=True, **{"retry.max-attempts": 2})
        race.add(name, the_job, run_tasks(the_job, [ROWS[name]]))
    race.play("start a, commit b, end a")
    table.fail_next(10, status=503, method="GET", path="/segments/events")
    race.play("look a")
    ids = ids_in_controller(table, tmp_path)
    assert race.winners() == ["b"], f"a reported success with {len(ids)} rows in the table"
    assert ids == list(range(*ROWS["b"])) and "was reverted" in str(race.outcome["a"])
    assert "could not look for another overwrite" in str(race.outcome["a"])


def test_a_plain_append_that_cannot_list_the_table_after_its_commit_still_succeeds(tmp_path, table):
    """An append without write.id has a fresh write tag: no run can be its rival, so a failed listing after
    its commit is only logged."""
    the_job = job(url=table.url, out=tmp_path / "s", **{"retry.max-attempts": 2})
    reports = run_tasks(the_job, [(0, 300)])
    table.fail_next(10, status=503, method="GET", path="/segments/events", after=1)  # the first listing passes
    assert commit_job(the_job, reports).rows == 300 and ids_in_controller(table, tmp_path) == list(range(300))


# --- window overwrites (run tag t) against whole-table overwrites --------------------------------------------------


def _window_jobs(tmp_path, url, **extra):
    """Jobs of test_backfill_commit's table (a time column), each staging in its own folder."""
    from . import test_backfill_commit as backfill

    return lambda name, **options: backfill.job(url=url, out=tmp_path / f"s{name}",
                                                **{"sink.buffer-flush.max-rows": 1000, **extra, **options})


@pytest.mark.parametrize("first", ["overwrite", "window"])
def test_an_overwrite_and_a_window_overwrite_of_an_empty_window_racing(tmp_path, fake_controller, monkeypatch,
                                                                       first):
    """Their lineage entries share no segment, so forceCleanup settles nothing; both stayed (the window's days
    held 48 rows) until a window overwrite's run tag became t and both kinds look for each other after their
    commit."""
    from .test_backfill_commit import CONFIG, SCHEMA, controller_paths, rows_per_day

    fake_controller.add_table(SCHEMA, CONFIG)
    make = _window_jobs(tmp_path, fake_controller.url)
    old = make("0")
    commit_job(old, [write_partition_days(old, [0], 24, 0)])  # day 0: outside the window
    race = Race(fake_controller, monkeypatch)
    over = make("1", overwrite=True)
    window = make("2", overwrite=True, **{"overwrite.time-range": "2024-02-18/2024-02-21"})
    assert segment_replaces(f"x_{over.run.write_tag}_{over.run_tag}_0_0") == "table" and window.run_tag.startswith("t")
    race.add("overwrite", over, [write_partition_days(over, [3, 4], 24, 1000)])
    race.add("window", window, [write_partition_days(window, [3, 4], 24, 2000)])
    second = "window" if first == "overwrite" else "overwrite"
    race.play(f"start {first}, commit {second}, end {first}, look {first}")
    days = rows_per_day(controller_paths(fake_controller, tmp_path / "read"))
    winners = race.winners()
    serial = {("overwrite",): {3: (24, 1000), 4: (24, 1024)},  # window, then overwrite (or overwrite alone)
              ("window",): {0: (24, 0), 3: (24, 2000), 4: (24, 2024)},  # window alone
              ("overwrite", "window"): {3: (24, 2000), 4: (24, 2024)}}  # overwrite, then window
    assert days == serial.get(tuple(winners), {0: (24, 0)}), f"{winners} succeeded: {days}"


def write_partition_days(the_job, days, per_day, first_id, partition_id=0):
    from pinot_sink.task import write_partition

    from .test_backfill_commit import day_batches

    return write_partition(the_job, day_batches(days, per_day, first_id), partition_id=partition_id)


def test_two_window_overwrites_of_an_empty_window_racing_leave_one(tmp_path, fake_controller, monkeypatch):
    """Each lineage entry has an empty segmentsFrom; the one that looks last finds the other's t segments
    inside its window and withdraws."""
    from .test_backfill_commit import CONFIG, SCHEMA, controller_paths, rows_per_day

    fake_controller.add_table(SCHEMA, CONFIG)
    make = _window_jobs(tmp_path, fake_controller.url, **{"overwrite.time-range": "2024-02-18/2024-02-21"})
    race = Race(fake_controller, monkeypatch)
    for name, first_id in (("a", 1000), ("b", 2000)):
        the_job = make(name, overwrite=True)
        race.add(name, the_job, [write_partition_days(the_job, [3], 24, first_id)])
    race.play("start a, commit b, end a, look a")
    days = rows_per_day(controller_paths(fake_controller, tmp_path / "read"))
    assert len(race.winners()) <= 1 and days[3][0] == 24, f"{race.winners()} succeeded: {days}"


def test_two_window_overwrites_of_other_days_racing_both_stay(tmp_path, fake_controller, monkeypatch):
    """Parallel backfills of different days must not take each other for rivals: a t segment outside the
    window is no conflict (any order leaves both)."""
    from .test_backfill_commit import CONFIG, SCHEMA, controller_paths, rows_per_day

    fake_controller.add_table(SCHEMA, CONFIG)
    make = _window_jobs(tmp_path, fake_controller.url)
    race = Race(fake_controller, monkeypatch)
    for name, day, window in (("a", 3, "2024-02-18/2024-02-19"), ("b", 4, "2024-02-19/2024-02-20")):
        the_job = make(name, overwrite=True, **{"overwrite.time-range": window})
        race.add(name, the_job, [write_partition_days(the_job, [day], 24, 1000 * day)])
    race.play("start a, commit b, end a, look a")
    assert sorted(race.winners()) == ["a", "b"]
    assert rows_per_day(controller_paths(fake_controller, tmp_path / "read")) == {3: (24, 3000), 4: (24, 4000)}


def test_a_window_overwrite_that_cannot_read_its_rivals_time_ranges_withdraws(tmp_path, fake_controller,
                                                                               monkeypatch):
    """After its entry completed, window overwrite a reads the time ranges of b's t segments to tell a rival
    from another day's backfill. That read failing escaped as a bare error: the commit failed, Spark aborted,
    yet a's rows stayed (an abort does not revert a completed entry). Now it is "could not look": a reverts
    and says so, and the table holds b's rows alone."""
    from pinot_sink.controller.errors import ControllerError
    from pinot_sink.controller.store import ControllerStore

    from .test_backfill_commit import CONFIG, SCHEMA, controller_paths, rows_per_day

    fake_controller.add_table(SCHEMA, CONFIG)
    make = _window_jobs(tmp_path, fake_controller.url)
    race = Race(fake_controller, monkeypatch)
    jobs = {}
    for name, day, window in (("a", 3, "2024-02-18/2024-02-19"), ("b", 4, "2024-02-19/2024-02-20")):
        jobs[name] = make(name, overwrite=True, **{"overwrite.time-range": window})
        race.add(name, jobs[name], [write_partition_days(jobs[name], [day], 24, 1000 * day)])
    real = ControllerStore.time_ranges

    def failing_for_b(self, names):
        names = set(names)
        if any(jobs["b"].run.write_tag in n for n in names):
            raise ControllerError("GET /segments/events/zkmetadata: 503 Service Unavailable")
        return real(self, names)

    monkeypatch.setattr(ControllerStore, "time_ranges", failing_for_b)
    race.play("start a, commit b, end a, look a")
    assert race.winners() == ["b"]
    assert "could not look for another overwrite" in str(race.outcome["a"])
    assert "was reverted" in str(race.outcome["a"])
    assert rows_per_day(controller_paths(fake_controller, tmp_path / "read")) == {4: (24, 4000)}


# --- embedded -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("inner", ["window", "overwrite"])
def test_embedded_overwrite_and_window_overwrite_racing(tmp_path, monkeypatch, inner):
    """The outer job lists the table, then the inner one commits whole, then the outer one moves its files in."""
    from . import test_backfill_commit as backfill

    out = tmp_path / "t"

    def embedded(**options):
        return backfill.job(out=out, **{"sink.buffer-flush.max-rows": 1000, **options})

    old = embedded()
    commit_job(old, [write_partition_days(old, [0], 24, 0)])
    jobs = {"overwrite": embedded(overwrite=True),
            "window": embedded(overwrite=True, **{"overwrite.time-range": "2024-02-18/2024-02-21"})}
    reports = {"overwrite": [write_partition_days(jobs["overwrite"], [3, 4], 24, 1000)],
               "window": [write_partition_days(jobs["window"], [3, 4], 24, 2000)]}
    outer = "overwrite" if inner == "window" else "window"
    outcome = {}

    def commit(name):
        try:
            outcome[name] = commit_job(jobs[name], reports[name])
        except CommitError as error:
            outcome[name] = error

    commit_during_publish(monkeypatch, lambda: commit(inner))
    commit(outer)
    days = backfill.rows_per_day((out / "events").glob("*.tar.gz"))
    winners = tuple(sorted(k for k, v in outcome.items() if not isinstance(v, Exception)))
    serial = {("overwrite",): {3: (24, 1000), 4: (24, 1024)},  # window, then overwrite (or overwrite alone)
              ("window",): {0: (24, 0), 3: (24, 2000), 4: (24, 2024)},  # window alone
              ("overwrite", "window"): {3: (24, 2000), 4: (24, 2024)}}  # overwrite, then window
    assert days == serial.get(winners, {0: (24, 0)}), f"{winners} succeeded: {days}"


def two_embedded_overwrites(tmp_path, rows_one: int):
    """A table of 100 old rows and two overwrites staged for it: one (``rows_one`` rows), two (300 rows)."""
    old = job(out=tmp_path)
    commit_job(old, run_tasks(old, [(9000, 9100)]))
    one = job(out=tmp_path, overwrite=True)
    time.sleep(0.002)  # another run tag
    two = job(out=tmp_path, overwrite=True)
    return one, run_tasks(one, [(0, rows_one)]), two, run_tasks(two, [(1000, 1300)])


def test_an_embedded_overwrite_that_cannot_look_for_rivals_withdraws_and_abort_restores_the_table(
        tmp_path, monkeypatch):
    """Its files moved in, the listing that looks for a rival fails. That escaped as a bare error, and the
    abort kept the files (every new file in place reads as "the commit reached its deletes"): the failed
    overwrite's rows stayed beside the old ones. Now it withdraws before deleting anything."""
    from pinot_sink.storage.stores import DirectoryStore

    one, reports_one, _, _ = two_embedded_overwrites(tmp_path, 500)
    real_list = DirectoryStore.list
    calls = []

    def list_then_fail(self):
        calls.append(1)
        if len(calls) == 2:  # the look after the files moved in
            raise OSError("the table folder cannot be read (stale NFS handle)")
        return real_list(self)

    monkeypatch.setattr(DirectoryStore, "list", list_then_fail)
    with pytest.raises(CommitError, match="could not look for .*taken out again and nothing was deleted"):
        commit_job(one, reports_one)
    assert abort_job(one, reports_one) == []
    assert ids_in_directory(tmp_path) == list(range(9000, 9100))


def test_embedded_withdrawal_leaves_an_aborted_manifest_and_the_rivals_rows(tmp_path, monkeypatch):
    """One overwrite withdraws (its rival's files moved in first); Spark then aborts it. The manifest of the
    withdrawn run says aborted with nothing left behind; the winner's says committed; the table is the
    winner's rows."""
    one, reports_one, two, reports_two = two_embedded_overwrites(tmp_path, 500)
    commit_during_publish(monkeypatch, lambda: commit_job(two, reports_two))
    with pytest.raises(CommitError, match="taken out again and nothing was deleted"):
        commit_job(one, reports_one)
    assert abort_job(one, reports_one) == []
    assert ids_in_directory(tmp_path) == list(range(1000, 1300))
    manifests = tmp_path / "events" / "_manifests"
    lost = json.loads((manifests / f"{one.run.folder}.json").read_text())
    won = json.loads((manifests / f"{two.run.folder}.json").read_text())
    assert lost["status"] == "aborted" and lost["segments"] == [] and lost["left_behind"] == []
    assert won["status"] == "committed" and len(won["replaced"]) == 1
    assert sum(segment["rows"] for segment in won["segments"]) == 300


@pytest.mark.parametrize("failing", ["one of two", "every"])
def test_embedded_withdrawal_whose_delete_fails_then_abort_removes_the_files(tmp_path, monkeypatch, failing):
    """The withdrawing run cannot delete its own new files (a transient error); Spark aborts it. Nothing was
    deleted by it, so abort must take its files out: the table must end as the winner left it. (With every
    file still in place, abort used to take that for a commit that had reached its deletes and kept them;
    the withdrawal now says so in the run's manifest first.)"""
    from pinot_sink.storage.stores import DirectoryStore

    one, reports_one, two, reports_two = two_embedded_overwrites(tmp_path, 300)
    real_delete = DirectoryStore.delete
    new_one = sorted(s.name for r in reports_one for s in r.segments)
    assert len(new_one) == 2

    def delete(self, names):
        names = sorted(set(names))
        if names == new_one:  # the withdrawal: its deletes fail, once
            monkeypatch.setattr(DirectoryStore, "delete", real_delete)
            failed = names if failing == "every" else names[:1]
            real_delete(self, [n for n in names if n not in failed])
            return failed
        return real_delete(self, names)

    commit_during_publish(monkeypatch, lambda: commit_job(two, reports_two))
    monkeypatch.setattr(DirectoryStore, "delete", delete)
    with pytest.raises(CommitError, match="TAKING THIS RUN'S FILES OUT FAILED"):
        commit_job(one, reports_one)
    assert abort_job(one, reports_one) == []
    assert ids_in_directory(tmp_path) == list(range(1000, 1300))


def test_a_look_alike_segment_committed_during_an_overwrite_makes_it_withdraw_and_say_so(tmp_path, table,
                                                                                          monkeypatch):
    """A segment another tool names like an overwrite's (``..._w<10 hex>_o<run>_<n>_<n>``) and uploads while an
    overwrite's entry is open looks like a rival: the overwrite withdraws. Not a broken guarantee (a
    concurrent write may fail, saying so; the table is a serial order's: the look-alike alone), but a
    spurious failure; this records it, so that a change to it is seen."""
    race = Race(table, monkeypatch)
    over = job(url=table.url, out=tmp_path / "s1", overwrite=True)
    race.add("over", over, run_tasks(over, [(0, 300)]))
    race.play("start over")
    manual = job(url=table.url, out=tmp_path / "m",
                 **{"segment-name.type": "fixed", "segment.name": "events_w0123456789_oabc_3_0"})
    commit_job(manual, run_tasks(manual, [(9000, 9100)]))
    race.play("end over, look over")
    assert race.winners() == [] and "events_w0123456789_oabc_3_0" in str(race.outcome["over"])
    assert ids_in_controller(table, tmp_path) == list(range(9000, 9100))
