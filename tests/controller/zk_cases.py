"""The records measured with Helix's own serializer (``tools/zk_record_sizes``) and rebuilt by the size model's
test: realistic segment names (a run-tagged name as pinot_sink makes them), lineage records and ideal states
of 1k to 60k segments."""
from __future__ import annotations

import hashlib

from pinot_sink.controller.zk_records import ZnRecord, ideal_state_record, lineage_record

TABLE = "events_OFFLINE"
DAY_MS = 86_400_000
BASE_MS = 1_700_000_000_000


def segment_names(count: int, run: str, style: str = "tagged") -> list[str]:
    """``tagged``: ``events_<start>_<end>_w<write tag>_<run tag>_<partition>_<sequence>``, what a daily backfill
    names; ``uuid``: ``events_<a UUID-like hash>``, names that compress poorly (the worst case)."""
    if style == "uuid":
        return [f"events_{hashlib.sha1(f'{run}{i}'.encode()).hexdigest()[:32]}" for i in range(count)]
    names = []
    for i in range(count):
        start = BASE_MS + (i // 64) * DAY_MS
        names.append(f"events_{start}_{start + DAY_MS - 1}_w5f0c2a9b_{run}_{i % 64}_{i // 64}")
    return names


def instances(replicas: int) -> list[str]:
    return [f"Server_pinot-server-{i}.pinot-server-headless.pinot.svc.cluster.local_8098" for i in range(replicas)]


def case_record(case: dict) -> ZnRecord:
    """``{"kind": "lineage", "entries": [[from, to, state], ...]}`` or ``{"kind": "idealstate", "segments": n,
    "replicas": r}``; entry i is keyed by a fixed UUID-shaped id and stamped with a fixed 13-digit time."""
    style = case.get("names", "tagged")
    if case["kind"] == "lineage":
        entries = {}
        for i, (n_from, n_to, state) in enumerate(case["entries"]):
            entries[f"{i:08x}-1c2d-4e5f-8a9b-0c1d2e3f4a5b"] = {
                "segmentsFrom": segment_names(n_from, f"o{i:07x}", style),
                "segmentsTo": segment_names(n_to, f"o{i + 1:07x}", style),
                "state": state, "timestamp": BASE_MS + i}
        return lineage_record(TABLE, entries)
    names = segment_names(case["segments"], "r00c0ffee", style)
    state = {instance: "ONLINE" for instance in instances(case["replicas"])}
    return ideal_state_record(TABLE, {name: state for name in names}, replicas=case["replicas"])


CASES = [
    {"kind": "lineage", "entries": [[0, 1000, "IN_PROGRESS"]]},
    {"kind": "lineage", "entries": [[1000, 1000, "COMPLETED"]]},
    {"kind": "lineage", "entries": [[5000, 5000, "IN_PROGRESS"]]},
    {"kind": "lineage", "entries": [[0, 10000, "COMPLETED"]]},
    {"kind": "lineage", "entries": [[10000, 10000, "COMPLETED"], [0, 2000, "IN_PROGRESS"]]},
    {"kind": "lineage", "entries": [[30000, 30000, "IN_PROGRESS"]]},
    {"kind": "lineage", "entries": [[0, 60000, "IN_PROGRESS"]]},
    {"kind": "idealstate", "segments": 1000, "replicas": 1},
    {"kind": "idealstate", "segments": 1001, "replicas": 1},
    {"kind": "idealstate", "segments": 10000, "replicas": 1},
    {"kind": "idealstate", "segments": 10000, "replicas": 3},
    {"kind": "idealstate", "segments": 45000, "replicas": 1},
    {"kind": "idealstate", "segments": 60000, "replicas": 2},
    {"kind": "lineage", "entries": [[1000, 1000, "COMPLETED"]], "names": "uuid"},
    {"kind": "lineage", "entries": [[15000, 15000, "IN_PROGRESS"]], "names": "uuid"},
    {"kind": "lineage", "entries": [[0, 40000, "IN_PROGRESS"]], "names": "uuid"},
    {"kind": "idealstate", "segments": 20000, "replicas": 1, "names": "uuid"},
    {"kind": "idealstate", "segments": 50000, "replicas": 1, "names": "uuid"},
]
