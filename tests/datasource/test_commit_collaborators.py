"""The commit's collaborators (pinot_sink.commit's module doc): the publication is the store's own, whatever the
store's class; the way of replacing (``pinot_sink.replacing``) is chosen once, when the job is made, and decides
what an abort may take back."""
from __future__ import annotations

import dataclasses
import json
import pickle

import pytest

from pinot_sink.commit import abort_job, commit_job
from pinot_sink.controller.store import ControllerStore
from pinot_sink.replacing import REFRESH_IN_PLACE, REPLACE_BY_LINEAGE, RefreshInPlace, ReplaceByLineage
from pinot_sink.storage.files import publish_into_directory
from pinot_sink.storage.stores import DirectoryStore
from tests.datasource.test_commit import ids_in_controller, ids_in_directory, job, run_tasks, table  # noqa: F401

FIXED = {"segment-name.type": "fixed", "segment.name": "events_manual", "sink.buffer-flush.max-rows": 10_000}


def test_the_way_of_replacing_is_chosen_once_from_the_naming(tmp_path):
    fresh, fixed = job(out=tmp_path), job(out=tmp_path, **FIXED)
    assert fresh.replacing is REPLACE_BY_LINEAGE and fixed.replacing is REFRESH_IN_PLACE
    # It travels with the job to the executors and through a copy of the job.
    assert isinstance(pickle.loads(pickle.dumps(fixed)).replacing, RefreshInPlace)
    assert isinstance(pickle.loads(pickle.dumps(fresh)).replacing, ReplaceByLineage)
    assert dataclasses.replace(fixed, options=fixed.options).replacing is REFRESH_IN_PLACE
    assert REPLACE_BY_LINEAGE.removable(["a", "b"]) == {"a", "b"} and REFRESH_IN_PLACE.removable(["a"]) == set()


class _Folder(DirectoryStore):
    """A store of another class than the two the commit knows: it inherits its publication."""


class _Controller(ControllerStore):
    pass


def test_a_store_of_another_class_publishes_and_aborts_through_its_own_publication(tmp_path, table):
    embedded = job(out=tmp_path)
    embedded = dataclasses.replace(embedded, segment_store=_Folder("events", embedded.output_uri))
    commit_job(embedded, run_tasks(embedded, [(0, 300)]))
    assert ids_in_directory(tmp_path) == list(range(300))
    again = dataclasses.replace(job(out=tmp_path), segment_store=_Folder("events", embedded.output_uri))
    reports = run_tasks(again, [(300, 600)])
    one = reports[0].segments[0]
    publish_into_directory(again.output_uri, "events", {one.name: one.staged_uri})  # a commit died here
    assert abort_job(again, reports) == []
    assert ids_in_directory(tmp_path) == list(range(300))

    controller = job(url=table.url, out=tmp_path / "stage")
    controller = dataclasses.replace(controller, segment_store=_Controller("events", controller.client_config))
    result = commit_job(controller, run_tasks(controller, [(0, 200)]))
    assert result.lineage_id and ids_in_controller(table, tmp_path) == list(range(200))


@pytest.mark.parametrize("fixed", [False, True])
def test_an_abort_takes_back_fresh_names_and_never_a_refreshed_fixed_one(tmp_path, fixed):
    """A failed embedded commit had moved the run's file in. With a fresh name, that file is the run's own: the
    abort removes it and records it as not committed. A fixed name's file may be the earlier write's one it
    refreshed in place (here it is): the abort leaves it and records nothing as not committed."""
    naming = FIXED if fixed else {"sink.buffer-flush.max-rows": 10_000}
    first = job(out=tmp_path, **naming)
    commit_job(first, run_tasks(first, [(0, 300)]))
    the_job = job(out=tmp_path, **naming)
    reports = run_tasks(the_job, [(300, 600)])
    one = reports[0].segments[0]
    publish_into_directory(the_job.output_uri, "events", {one.name: one.staged_uri})
    assert abort_job(the_job, reports) == []
    manifest = json.loads((tmp_path / "events" / "_manifests" / f"{the_job.run.folder}.json").read_text())
    assert manifest["status"] == "aborted"
    if fixed:
        assert ids_in_directory(tmp_path) == list(range(300, 600)) and manifest["pending"] == []
    else:
        assert ids_in_directory(tmp_path) == list(range(300)) and manifest["pending"] == [one.name]


@pytest.mark.parametrize("fixed", [False, True])
def test_an_embedded_overwrite_withdraws_for_a_rival_only_when_its_names_are_its_own(tmp_path, fixed, monkeypatch):
    """Withdrawing takes the run's files out again. A fixed name's file may be the one an earlier write had, which
    this run refreshed in place: taking it out would lose those rows, so a refresh in place never looks for
    rivals (the last fixed-name write of a name wins, as with Pinot's refresh)."""
    import pinot_sink.commit as commit

    naming = FIXED if fixed else {"sink.buffer-flush.max-rows": 10_000}
    first = job(out=tmp_path, overwrite=True, **naming)
    commit_job(first, run_tasks(first, [(0, 300)]))
    looked = []
    monkeypatch.setattr(commit, "_yield_to_a_concurrent_run", lambda *args: looked.append(args))
    second = job(out=tmp_path, overwrite=True, **naming)
    commit_job(second, run_tasks(second, [(300, 600)]))
    assert ids_in_directory(tmp_path) == list(range(300, 600))
    assert bool(looked) is not fixed


def test_a_window_overwrite_is_refused_for_a_refresh_in_place(tmp_path):
    from pinot_sink.options import OptionError

    with pytest.raises(OptionError, match="cannot be used with segment-name.type=fixed"):
        job(out=tmp_path, overwrite=True, **FIXED, **{"overwrite.time-range": "2024-01-01/2024-01-02"})
