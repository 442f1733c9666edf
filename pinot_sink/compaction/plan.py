"""What a compaction will do, decided before anything is read: the table's live segments, grouped by time
bucket, the small ones chosen, and the plan printed for people (``--dry-run``).

A segment belongs to the buckets its time range covers (UTC days by default, hours for an HOURLY table). A
segment whose range straddles buckets joins them: the buckets it links are merged in one *group*, so that
one lineage entry (one commit) replaces all of its inputs, and its rows still go to the output segment of
their own bucket. Segments at least ``min_segment_size`` big are left alone (concat; rollup and dedup take
every segment of a bucket unless a minimum is given, since their result needs all of its rows).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from pinot_sink.storage.files import list_segment_uris
from pinot_sink.storage.layout import table_uri, uri_to_fs
from pinot_sink.storage.manifests import WAS_COMMITTED, manifests_of_table, not_live
from pinot_sink.controller.store import ControllerStore, zk_time_range
from pinot_sink.storage.stores import DirectoryStore, SegmentStore
from pinot_sink.storage.tarballs import metadata_files
from pinot_sink.segment.read.segment_metadata import parse_segment_metadata

from ..time_window import TimeWindow, format_ms
from .provenance import is_compacted

NO_TIME = None  # the bucket key of segments without a time range


@dataclass(frozen=True)
class SegmentFacts:
    """One live segment as the plan sees it: stored bytes (the tarball), rows, time range in millis."""

    name: str
    nbytes: int
    rows: int
    start_ms: int = -1
    end_ms: int = -1

    def buckets(self, bucket_ms: int | None) -> tuple[int, int] | None:
        """First and last bucket its range covers; None without a range (or without bucketing)."""
        if bucket_ms is None or self.start_ms < 0 or self.end_ms < 0:
            return None
        return self.start_ms // bucket_ms, self.end_ms // bucket_ms


@dataclass(frozen=True)
class Group:
    """Buckets compacted together (one commit): their chosen segments."""

    first_bucket: int | None
    last_bucket: int | None
    sources: tuple[SegmentFacts, ...]

    @property
    def rows(self) -> int:
        return sum(s.rows for s in self.sources)

    @property
    def nbytes(self) -> int:
        return sum(s.nbytes for s in self.sources)

    def describe(self, bucket_ms: int | None) -> str:
        if self.first_bucket is None or bucket_ms is None:
            return "no time range"
        start = format_ms(self.first_bucket * bucket_ms)
        if self.last_bucket == self.first_bucket:
            return f"bucket {start}"
        return f"buckets {start} .. {format_ms(self.last_bucket * bucket_ms)}"


@dataclass
class CompactionPlan:
    table: str
    mode: str
    target_bytes: int
    min_segment_bytes: int | None
    bucket_ms: int | None
    listed: frozenset[str]  # every live segment when the plan was made
    groups: list[Group] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was left out, and why

    def describe(self) -> str:
        """The plan, for ``--dry-run`` and the log."""
        sources = sum(len(g.sources) for g in self.groups)
        lines = [f"compaction of {self.table} ({self.mode}, target {_mb(self.target_bytes)} MB): "
                 f"{len(self.listed)} live segment(s); {sources} in {len(self.groups)} group(s) to merge"]
        for group in self.groups:
            estimate = max(1, -(-group.nbytes // self.target_bytes))
            lines.append(f"  {group.describe(self.bucket_ms)}: {len(group.sources)} segment(s), {group.rows} rows, "
                         f"{_mb(group.nbytes)} MB -> about {estimate} segment(s)")
        lines += [f"  left out: {note}" for note in self.notes]
        return "\n".join(lines)


def _mb(nbytes: float) -> str:
    return f"{nbytes / 1024**2:.2f}"


def list_facts(store: SegmentStore) -> list[SegmentFacts]:
    """The live segments of the table with their size, rows and time range."""
    if isinstance(store, ControllerStore):
        live = store.list()
        zk = store.client.segment_zk_metadata(store.table)
        facts = []
        for name in sorted(live):
            meta = zk.get(name) or {}
            start, end = zk_time_range(meta)
            facts.append(SegmentFacts(name, int(meta.get("segment.size.in.bytes") or 0),
                                      int(meta.get("segment.total.docs") or 0), start, end))
        return facts
    return _folder_facts(store)


def _folder_facts(store: DirectoryStore) -> list[SegmentFacts]:
    """A folder's tarballs minus what its manifests say is not live (pending, replaced), as push sees it."""
    folder = table_uri(store.root_uri, store.table)
    unreadable: list[str] = []
    documents = manifests_of_table(folder, store.storage_options, unreadable=unreadable)
    if unreadable:
        raise RuntimeError(f"table {store.table}: unreadable write record(s) {', '.join(unreadable[:3])}: what is "
                           f"live is unknown; `pinot-sink recover` lists them")
    hidden = not_live(documents.values())
    # A committed write's manifest has each segment's rows and time range: the tarball is read only for a
    # segment no manifest describes (a tarball copied in by hand, a publish finished by recovery).
    recorded = {s["name"]: s for d in documents.values() if d.get("status") in WAS_COMMITTED
                for s in d.get("segments") or [] if isinstance(s, dict) and s.get("rows") is not None}
    facts = []
    for name, uri in sorted(list_segment_uris(store.root_uri, store.table, store.storage_options).items()):
        if name in hidden:
            continue
        fs, target = uri_to_fs(uri, store.storage_options)
        known = recorded.get(name)
        if known is not None:
            start, end = known.get("start_time_ms"), known.get("end_time_ms")
            facts.append(SegmentFacts(name, int(fs.size(target)), int(known["rows"]),
                                      -1 if start is None else int(start), -1 if end is None else int(end)))
            continue
        with fs.open(target, "rb") as handle:
            properties = metadata_files(handle).get("metadata.properties")
        meta = parse_segment_metadata(properties)
        facts.append(SegmentFacts(name, int(fs.size(target)), int(meta.total_docs),
                                  -1 if meta.start_time_ms is None else int(meta.start_time_ms),
                                  -1 if meta.end_time_ms is None else int(meta.end_time_ms)))
    return facts


def make_plan(table: str, facts: Iterable[SegmentFacts], *, mode: str, target_bytes: int,
              min_segment_bytes: int | None, bucket_ms: int | None, window: TimeWindow | None) -> CompactionPlan:
    facts = list(facts)
    plan = CompactionPlan(table, mode, target_bytes, min_segment_bytes, bucket_ms,
                          frozenset(f.name for f in facts))
    limit = min_segment_bytes if min_segment_bytes is not None else (
        int(0.8 * target_bytes) if mode == "concat" else None)
    chosen = [f for f in facts if limit is None or f.nbytes < limit]
    timed = [(f.buckets(bucket_ms), f) for f in chosen]
    untimed = [f for span, f in timed if span is None]
    groups: list[tuple[int, int, list[SegmentFacts]]] = []
    for span, f in sorted(((s, f) for s, f in timed if s is not None), key=lambda x: (x[0], x[1].name)):
        if groups and span[0] <= groups[-1][1]:
            groups[-1] = (groups[-1][0], max(groups[-1][1], span[1]), groups[-1][2] + [f])
        else:
            groups.append((span[0], span[1], [f]))
    candidates = [Group(first, last, tuple(members)) for first, last, members in groups]
    if untimed:
        candidates.append(Group(None, None, tuple(untimed)))
    for group in candidates:
        where = group.describe(bucket_ms)
        if window is not None and (group.first_bucket is None or group.first_bucket * bucket_ms < window.start_ms
                                   or (group.last_bucket + 1) * bucket_ms > window.end_ms):
            if group.first_bucket is not None and group.first_bucket * bucket_ms < window.end_ms and \
                    (group.last_bucket + 1) * bucket_ms > window.start_ms:
                plan.notes.append(f"{where}: its segments reach outside --time-range {window}")
            continue
        if len(group.sources) < 2 and (mode == "concat" or is_compacted(group.sources[0].name)):
            continue  # nothing to merge
        plan.groups.append(group)
    return plan
