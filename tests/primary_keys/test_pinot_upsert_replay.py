"""What Pinot's own upsert metadata manager (``ConcurrentMapPartitionUpsertMetadataManager``, run through
``tools/pinot_upsert_check`` on ~/pinot-verify's classes) kept valid after pinot_sink wrote a history of
reruns of one write id and appends into an OFFLINE upsert table (``upsert_history.py``); the fixture is its
answer, the expectations are recomputed here from the seeded rows.

* ``fresh``: the live segments loaded at once (a server restart): one valid doc per key, the latest row.
* ``incremental``: the history as a server lives it (a commit's segments added, the rerun's replaced ones
  then removed). With reruns of the same rows, one valid doc per key, the latest row (a comparison tie goes to
  the later-created segment). With reruns that lower some keys' comparison values, those keys are left with
  no valid doc until a reload: Pinot invalidated the lower row when it arrived and does not look again when
  the higher one's segment leaves (docs/primary-key-tables.md)."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.primary_keys import upsert_history as h

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "upsert_check" / "pinot_valid_docs.json").read_text())


def _valid(label: str, replay: str) -> dict[str, tuple]:
    docs = FIXTURE[label][replay]
    counts = Counter(d[0] for d in docs)
    assert max(counts.values()) == 1, [k for k, n in counts.items() if n > 1]  # never two valid docs of a key
    return {d[0]: tuple(d[:4]) for d in docs}


@pytest.mark.parametrize("label", sorted(h.HISTORIES))
def test_the_fixture_is_of_these_histories(label):
    assert FIXTURE["seed"] == h.SEED
    assert [tuple(s) for s in FIXTURE[label]["history"]] == list(h.HISTORIES[label])
    steps = h.HISTORIES[label]
    assert len(steps) - len(h.live_steps(steps)) == 2  # two reruns replaced earlier runs


@pytest.mark.parametrize("label", sorted(h.HISTORIES))
def test_a_fresh_load_keeps_the_latest_row_of_every_key(label):
    assert _valid(label, "fresh") == h.latest_rows(h.HISTORIES[label])


def test_reruns_of_the_same_rows_keep_the_latest_row_of_every_key_as_they_happen():
    steps = h.HISTORIES["same_rows"]
    valid = _valid("same_rows", "incremental")
    assert valid == h.latest_rows(steps) and len(valid) == 250
    last_run = max(i for i, s in enumerate(steps) if s[0] == "a")
    assert all(valid[f"k{k}"][2] == last_run * 1000 + k for k in range(0, 50))  # ties: the last run's rows


def test_reruns_that_lower_comparison_values_leave_keys_without_a_row_until_a_reload():
    steps = h.HISTORIES["new_values"]
    valid = _valid("new_values", "incremental")
    assert valid == h.served_incrementally(steps)
    lost = set(h.latest_rows(steps)) - set(valid)
    assert len(lost) == 40 and all(valid.get(k) is None for k in lost)


CLUSTER = json.loads((Path(__file__).parents[1] / "fixtures" / "upsert_check" / "cluster_broker_rows.json").read_text())


def test_a_real_cluster_showed_one_row_per_key_and_lost_the_lowered_keys():
    """The broker of a real cluster (shared/pinot-cluster) right after the same histories, kept as a fixture:
    one row per key, the latest, for reruns of the same rows; for lowering reruns the keys whose winning row
    is in a replaced (still loaded, no longer routed) segment show nothing (74 of 250)."""
    same = {r[0]: tuple(r) for r in CLUSTER["same_rows"]}
    assert len(same) == len(CLUSTER["same_rows"]) == 250 and same == h.latest_rows(h.HISTORIES["same_rows"])
    lowered = {r[0]: tuple(r) for r in CLUSTER["new_values"]}
    assert len(lowered) == len(CLUSTER["new_values"]) == 176
    assert lowered == h.served_with_replaced_loaded(h.HISTORIES["new_values"])
