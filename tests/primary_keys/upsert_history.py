"""Write histories for Pinot's upsert metadata manager (``tools/pinot_upsert_check``): reruns of one write id
and appends between them into an OFFLINE upsert table, rows regenerated from a seed.

Each step is (write id or None for a plain append, first key, last key, stamp group). Steps of one stamp
group carry the same comparison values (``ts``); all other values are distinct across the history. So
``same_rows`` reruns write "a" with its rows' comparison values unchanged (a retried job, the common case: a
tie, which the later segment wins), and ``new_values`` reruns it with new ones, some lower than the run it
replaces."""
from __future__ import annotations

import random

import pyarrow as pa

from tests.primary_keys.tables import ARROW

SEED = 34
BASE_MS = 1_700_000_000_000
HISTORIES = {
    "same_rows": (("a", 0, 150, 0), (None, 100, 250, 1), ("a", 0, 150, 0), (None, 50, 200, 2), ("a", 0, 150, 0)),
    "new_values": (("a", 0, 150, 0), (None, 100, 250, 1), ("a", 0, 150, 3), (None, 50, 200, 2), ("a", 0, 150, 4)),
}


def _stamps(history) -> dict[int, list[int]]:
    groups = {}
    for _, first, last, group in history:
        groups.setdefault(group, last - first)
    rnd = random.Random(SEED)
    pool = rnd.sample(range(10 * sum(groups.values())), sum(groups.values()))
    out, start = {}, 0
    for group, size in sorted(groups.items()):
        out[group] = pool[start:start + size]
        start += size
    return out


def rows(history, step: int) -> list[tuple[str, str, int, int]]:
    """(id, city, amount, ts) of ``step``: amount = step * 1000 + key number (which run a row came from)."""
    _, first, last, group = history[step]
    stamps = _stamps(history)[group]
    return [(f"k{k}", "Oslo", step * 1000 + k, BASE_MS + stamps[k - first]) for k in range(first, last)]


def batches(history, step: int, size: int = 64):
    items = rows(history, step)
    for start in range(0, len(items), size):
        part = items[start:start + size]
        yield pa.record_batch([pa.array([r[i] for r in part], ARROW.field(i).type) for i in range(4)], schema=ARROW)


def live_steps(history) -> list[int]:
    """The steps whose segments are live at the end: the last run of each write id and every append."""
    last_run = {wid: i for i, (wid, *_) in enumerate(history) if wid is not None}
    return [i for i, (wid, *_) in enumerate(history) if wid is None or last_run[wid] == i]


def latest_rows(history) -> dict[str, tuple]:
    """What upsert must show for each key over the live steps: the largest ts, a tie to the later step (the
    later-created segment)."""
    best: dict[str, tuple] = {}
    for step in live_steps(history):
        for row in rows(history, step):
            if row[0] not in best or row[3] >= best[row[0]][3]:
                best[row[0]] = row
    return best


def served_incrementally(history) -> dict[str, tuple]:
    """A model of a server that saw the history as it happened: each step's segments added (a row replaces
    the key's current one when its ts is larger or equal: the later segment wins a tie), then the segments of
    the run it replaced removed, taking the keys that pointed there with them (Pinot does not look for the
    key's other rows again)."""
    where: dict[str, tuple[int, tuple]] = {}
    runs: dict[str, int] = {}
    for step, (wid, *_) in enumerate(history):
        for row in rows(history, step):
            if row[0] not in where or row[3] >= where[row[0]][1][3]:
                where[row[0]] = (step, row)
        replaced = runs.get(wid) if wid is not None else None
        if replaced is not None:
            where = {k: v for k, v in where.items() if v[0] != replaced}
        if wid is not None:
            runs[wid] = step
    return {k: row for k, (_, row) in where.items()}


def served_with_replaced_loaded(history) -> dict[str, tuple]:
    """What a real cluster's broker shows right after the history: a lineage replace stops routing the
    replaced segments but the server keeps them loaded (the controller deletes them later), so their rows
    still take part in the upsert; a key whose winning row sits in a replaced segment shows nothing."""
    where: dict[str, tuple[int, tuple]] = {}
    for step in range(len(history)):
        for row in rows(history, step):
            if row[0] not in where or row[3] >= where[row[0]][1][3]:
                where[row[0]] = (step, row)
    live = set(live_steps(history))
    return {k: row for k, (step, row) in where.items() if step in live}
