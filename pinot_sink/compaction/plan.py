"""What a compaction will do, decided before any row is read: the table's live segments, grouped by time
bucket, the small ones chosen, and the plan printed for people (``--dry-run``). Sizes are untarred sizes
(``--target-size``, ``--min-segment-size``), estimated for listed segments from their tarballs
(``with_untarred_sizes``: one segment is streamed to measure the ratio).

A segment belongs to the buckets its time range covers (UTC days by default, hours for an HOURLY table). A
segment whose range straddles buckets joins them: the buckets it links are merged in one *group*, so that
one lineage entry (one commit) replaces all of its inputs, and its rows still go to the output segment of
their own bucket. Segments at least ``min_segment_size`` big are left alone (concat; rollup and dedup take
every segment of a bucket unless a minimum is given, since their result needs all of its rows).
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable

from pinot_sink.storage.files import list_segment_uris
from pinot_sink.storage.layout import local_path, segment_uri, table_uri, uri_to_fs
from pinot_sink.storage.manifests import TableManifests, not_live, read_table_manifests, recorded_segments
from pinot_sink.controller.store import ControllerStore, zk_time_range
from pinot_sink.storage.stores import DirectoryStore, SegmentStore
from pinot_sink.storage.tarballs import metadata_files
from pinot_sink.segment.read.segment_metadata import parse_segment_metadata
from pinot_sink.segment.read.tar_source import open_tar_stream

from ..time_window import TimeWindow, format_ms
from .provenance import is_compacted

NO_TIME = None  # the bucket key of segments without a time range


@dataclass(frozen=True)
class SegmentFacts:
    """One live segment as the plan sees it: stored bytes (the tarball), rows, time range in millis, and its
    untarred size (``size``: what ``--target-size`` measures), estimated from the tarball's (``list_facts``)."""

    name: str
    nbytes: int
    rows: int
    start_ms: int = -1
    end_ms: int = -1
    size: int = -1  # -1: not estimated (the tarball's bytes stand for it)

    @property
    def untarred(self) -> int:
        return self.nbytes if self.size < 0 else self.size

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

    @property
    def size(self) -> int:
        return sum(s.untarred for s in self.sources)

    @property
    def buckets(self) -> int:
        """The time buckets the group covers (1 without a time range)."""
        return 1 if self.first_bucket is None else self.last_bucket - self.first_bucket + 1

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
            # every bucket of the group gets its own segments (a straddling segment's rows go to their own
            # bucket's), so at least one per bucket, and per partition id of a partitioned table
            estimate = max(1, -(-group.size // self.target_bytes), group.buckets)
            lines.append(f"  {group.describe(self.bucket_ms)}: {len(group.sources)} segment(s), {group.rows} rows, "
                         f"{_mb(group.nbytes)} MB tarred (about {_mb(group.size)} MB untarred) -> about "
                         f"{estimate} segment(s)")
        lines += [f"  left out: {note}" for note in self.notes]
        return "\n".join(lines)


def _mb(nbytes: float) -> str:
    return f"{nbytes / 1024**2:.2f}"


# A segment a compaction wrote is merged again only when its estimated size is under this share of the
# minimum: it is then the small last segment of its bucket, not a right-sized one whose estimate (one ratio for
# every segment) came out a little low.
COMPACTED_MARGIN = 0.75
SAMPLE_MAX_BYTES = 16 * 1024**2  # the segment whose untarred / tarred ratio is measured: at most this big


def list_facts(store: SegmentStore, manifests: TableManifests | None = None) -> list[SegmentFacts]:
    """The live segments of the table with their size, rows, time range and estimated untarred size
    (``manifests``: a folder's, read already)."""
    return with_untarred_sizes(store, _facts_of(store).facts(manifests))


def with_untarred_sizes(store: SegmentStore, facts: list[SegmentFacts]) -> list[SegmentFacts]:
    """``facts`` with ``size`` estimated as tarball bytes x the table's untarred / tarred ratio, measured on one
    segment (the largest tarball up to ``SAMPLE_MAX_BYTES``, else the smallest): neither the controller's
    ZK metadata (``segment.size.in.bytes`` is the uploaded tarball's) nor a folder says a segment's untarred
    size without reading the segment. A tiny sample's ratio is a little high (its metadata files compress
    well), which errs towards leaving a segment alone."""
    sized = [f for f in facts if f.nbytes > 0]
    if not sized:
        return facts
    small = [f for f in sized if f.nbytes <= SAMPLE_MAX_BYTES]
    sample = max(small, key=lambda f: f.nbytes) if small else min(sized, key=lambda f: f.nbytes)
    ratio = _untarred_bytes(store, sample.name) / sample.nbytes
    return [replace(f, size=int(f.nbytes * ratio)) for f in facts]


def _untarred_bytes(store: SegmentStore, name: str) -> int:
    """The files' bytes of a segment's tarball, streamed (nothing written)."""
    return _facts_of(store).untarred_bytes(name)


class _ControllerFacts:
    """A controller's table: its segments' ZK metadata; a sample tarball downloaded."""

    def __init__(self, store: ControllerStore) -> None:
        self.store = store

    def facts(self, manifests: TableManifests | None = None) -> list[SegmentFacts]:
        store = self.store
        live = store.list()
        zk = store.client.segment_zk_metadata(store.table)
        facts = []
        for name in sorted(live):
            meta = zk.get(name) or {}
            start, end = zk_time_range(meta)
            facts.append(SegmentFacts(name, int(meta.get("segment.size.in.bytes") or 0),
                                      int(meta.get("segment.total.docs") or 0), start, end))
        return facts

    def untarred_bytes(self, name: str) -> int:
        with tempfile.TemporaryDirectory(prefix="pinot-sink-compact-sample-") as folder:
            path = self.store.client.download_segment(self.store.table, name, Path(folder) / f"{name}.tar.gz")
            return _files_bytes(path)


class _FolderFacts:
    """A folder's table: its tarballs and manifests (``_folder_facts``); a sample tarball streamed."""

    def __init__(self, store: DirectoryStore) -> None:
        self.store = store

    def facts(self, manifests: TableManifests | None = None) -> list[SegmentFacts]:
        return _folder_facts(self.store, manifests)

    def untarred_bytes(self, name: str) -> int:
        store = self.store
        uri = segment_uri(store.root_uri, store.table, name)  # a listed segment's: not the whole listing again
        fs, target = uri_to_fs(uri, store.storage_options)
        with fs.open(target, "rb") as handle:
            return _files_bytes(handle)


class _Facts:
    """The ways of reading a table's facts, one per kind of store: the store picks its own
    (``SegmentStore.publication``), so the planner never asks which store it holds."""

    into_folder = _FolderFacts
    through_controller = _ControllerFacts


def _facts_of(store: SegmentStore):
    return store.publication(_Facts)(store)


def _files_bytes(source) -> int:
    with open_tar_stream(source) as archive:
        return sum(member.size for member in archive if member.isfile())


def _folder_facts(store: DirectoryStore, manifests: TableManifests | None = None) -> list[SegmentFacts]:
    """A folder's tarballs minus what its manifests say is not live (pending, replaced), as push sees it."""
    manifests = manifests or read_table_manifests(table_uri(store.root_uri, store.table), store.storage_options)
    documents, unreadable = manifests.documents, manifests.unreadable
    if unreadable:
        raise RuntimeError(f"table {store.table}: unreadable write record(s) {', '.join(unreadable[:3])}: what is "
                           f"live is unknown; `pinot-sink recover` lists them")
    hidden = not_live(documents.values())
    # A committed write's manifest has each segment's rows and time range: the tarball is read only for a
    # segment no manifest describes (a tarball copied in by hand, a publish finished by recovery, a fixed name
    # written again).
    recorded = recorded_segments(documents.values())
    facts = []
    for name, uri in sorted(list_segment_uris(store.root_uri, store.table, store.storage_options).items()):
        if name in hidden:
            continue
        known = recorded.get(name)
        local = local_path(uri)
        # a local file's size without fsspec (~0.1 ms of its a segment, thousands of segments)
        fs, target = (None, local) if local is not None else uri_to_fs(uri, store.storage_options)
        nbytes = os.path.getsize(local) if fs is None else int(fs.size(target))
        if known is not None:
            start, end = known.get("start_time_ms"), known.get("end_time_ms")
            facts.append(SegmentFacts(name, nbytes, int(known["rows"]),
                                      -1 if start is None else int(start), -1 if end is None else int(end)))
            continue
        with open(target, "rb") if fs is None else fs.open(target, "rb") as handle:
            properties = metadata_files(handle).get("metadata.properties")
        meta = parse_segment_metadata(properties)
        facts.append(SegmentFacts(name, nbytes, int(meta.total_docs),
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
    chosen = [f for f in facts if limit is None or f.untarred < (
        COMPACTED_MARGIN * limit if is_compacted(f.name) else limit)]
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
