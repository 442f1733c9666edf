"""The size of the two ZooKeeper records a commit grows, as Helix writes them: the table's segment lineage and
its ideal state. Pinot keeps each in one znode; Helix refuses a write over its size limit, so a commit that
would outgrow either is refused here, before its first upload, instead of failing at the end.

Facts (apache/helix ``ZNRecordSerializer``, ``ZNRecordUtil``, ``GZipCompressionUtil``; apache/pinot
``SegmentLineage.toZNRecord``, ``IdealStateGroupCommit``):

* a record is written as Jackson's indented JSON of ``{"id", "simpleFields", "mapFields", "listFields"}`` (the
  three maps sorted by key: they are ``TreeMap``\\ s), UTF-8, ``\\n`` line ends, two spaces per level, ``" : "``
  between key and value, arrays on one line (``[ "a", "b" ]``), empty ones ``{ }`` / ``[ ]``;
* it is gzipped (``java.util.zip.GZIPOutputStream``: deflate level 6, a 10-byte header) when its
  ``enableCompression`` simple field is true, or when the JSON is longer than the compression threshold (by
  default the write limit itself);
* the result must not exceed the write limit, ``ZNRecord.SIZE_LIMIT`` = 1,024,000 bytes unless the cluster
  sets ``zk.serializer.znrecord.write.size.limit.bytes`` (``commit.zk-record-limit`` here);
* a lineage record's id is the table name with type; each entry is a list field keyed by its id:
  ``[<segmentsFrom joined by ",">, <segmentsTo joined by ",">, <state>, <timestamp ms>]``;
* an ideal state maps each segment to ``{instance: "ONLINE"}``; Pinot sets ``enableCompression`` on it once it
  holds more than 1,000 segments, so a big one is always gzipped.

``tests/fixtures/zk_record_sizes.json`` holds the sizes Helix's own serializer gave for such records
(``tests/java/README`` says how they were measured); the model here agrees with them.
"""
from __future__ import annotations

import json
import math
import struct
import zlib
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from type_mapping.errors import PinotSinkError

SIZE_LIMIT = 1000 * 1024  # ZNRecord.SIZE_LIMIT
IDEAL_STATE_COMPRESS_OVER = 1000  # IdealStateGroupCommit.NUM_PARTITIONS_THRESHOLD_TO_ENABLE_COMPRESSION
STATE_MODEL = "SegmentOnlineOfflineStateModel"
TIMESTAMP_WIDTH = 13  # epoch millis until 2286


@dataclass(frozen=True)
class ZnRecord:
    """A Helix ZNRecord's content: ``simple`` (str -> str), ``maps`` (str -> {str: str}), ``lists``."""

    id: str
    simple: Mapping[str, str]
    maps: Mapping[str, Mapping[str, str]]
    lists: Mapping[str, Sequence[str]]


def _text(value: str) -> str:
    # Jackson escapes as JSON requires and writes anything else as UTF-8 (json.dumps with ensure_ascii=False
    # agrees for every character Pinot allows in names; "/" is not escaped by either).
    return json.dumps(value, ensure_ascii=False)


def _object(items: list[str], depth: int) -> str:
    if not items:
        return "{ }"
    pad = "  " * (depth + 1)
    return "{\n" + ",\n".join(pad + item for item in items) + "\n" + "  " * depth + "}"


def _sorted(mapping: Mapping) -> list:
    # TreeMap<String, ...>: Java's String order is UTF-16 code unit order (Python's, for ASCII keys)
    if all(key.isascii() for key in mapping):
        return sorted(mapping.items())
    return sorted(mapping.items(), key=lambda kv: kv[0].encode("utf-16-be"))


def _inner_object(inner: Mapping[str, str], cache: dict) -> str:
    # an ideal state repeats one instance map for every segment: write it once
    key = tuple(inner.items())
    if key not in cache:
        cache[key] = _object([f"{_text(ik)} : {_text(iv)}" for ik, iv in _sorted(inner)], 2)
    return cache[key]


def record_json(record: ZnRecord) -> bytes:
    """The JSON Helix's serializer writes for ``record`` (before any compression)."""
    simple = [f"{_text(k)} : {_text(v)}" for k, v in _sorted(record.simple)]
    cache: dict = {}
    maps = [f"{_text(k)} : " + _inner_object(inner, cache) for k, inner in _sorted(record.maps)]
    lists = [f"{_text(k)} : " + ("[ " + ", ".join(_text(v) for v in values) + " ]" if values else "[ ]")
             for k, values in _sorted(record.lists)]
    top = [f'"id" : {_text(record.id)}', '"simpleFields" : ' + _object(simple, 1),
           '"mapFields" : ' + _object(maps, 1), '"listFields" : ' + _object(lists, 1)]
    return _object(top, 0).encode("utf-8")


def java_gzip(data: bytes) -> bytes:
    """``GZIPOutputStream`` of ``data``: Java's header (no name, no time, OS 0), raw deflate at level 6 (Java's
    ``Deflater.DEFAULT_COMPRESSION``), CRC-32 and length."""
    deflate = zlib.compressobj(6, zlib.DEFLATED, -15, 8)
    body = deflate.compress(data) + deflate.flush()
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x00" + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


@dataclass(frozen=True)
class RecordSize:
    json_bytes: int
    written_bytes: int
    compressed: bool


def written_size(record: ZnRecord, limit: int = SIZE_LIMIT) -> RecordSize:
    """What Helix would write for ``record``: its JSON, gzipped when it asks for it or is over ``limit``
    (the compression threshold is the write limit unless a cluster sets a lower one)."""
    data = record_json(record)
    compress = record.simple.get("enableCompression", "").lower() == "true" or len(data) > limit
    return RecordSize(len(data), len(java_gzip(data)) if compress else len(data), compress)


def lineage_record(table_with_type: str, entries: Mapping[str, Mapping]) -> ZnRecord:
    """``SegmentLineage.toZNRecord`` of entries as the controller's ``GET /segments/{t}/lineage`` lists them."""
    lists = {}
    for entry_id, entry in entries.items():
        lists[entry_id] = [",".join(entry.get("segmentsFrom") or []), ",".join(entry.get("segmentsTo") or []),
                           str(entry.get("state") or "IN_PROGRESS"), str(entry.get("timestamp") or 10**12)]
    return ZnRecord(table_with_type, {}, {}, lists)


def ideal_state_record(table_with_type: str, assignment: Mapping[str, Mapping[str, str]],
                       replicas: int = 1) -> ZnRecord:
    """A Pinot OFFLINE table's ideal state holding ``assignment`` (segment -> {instance: state})."""
    simple = {"IDEAL_STATE_MODE": "CUSTOMIZED", "INSTANCE_GROUP_TAG": table_with_type,
              "MAX_PARTITIONS_PER_INSTANCE": "1", "NUM_PARTITIONS": str(len(assignment)),
              "REBALANCE_MODE": "CUSTOMIZED", "REPLICAS": str(replicas), "STATE_MODEL_DEF_REF": STATE_MODEL,
              "STATE_MODEL_FACTORY_NAME": "DEFAULT"}
    if len(assignment) > IDEAL_STATE_COMPRESS_OVER:
        simple["enableCompression"] = "true"
    return ZnRecord(table_with_type, simple, assignment, {})


# --- the budget of one commit --------------------------------------------------------------------------------


class RecordBudgetError(PinotSinkError, ValueError):
    """A commit would make a ZooKeeper record bigger than Helix writes; the message has the numbers and fixes."""


@dataclass(frozen=True)
class CommitBudget:
    """The projected sizes of both records once a commit's lineage entry is started and its segments uploaded."""

    lineage: RecordSize
    ideal_state: RecordSize
    limit: int
    new_segments: int
    replaced_segments: int
    ideal_state_segments: int

    @property
    def fits(self) -> bool:
        return self.lineage.written_bytes <= self.limit and self.ideal_state.written_bytes <= self.limit

    def describe(self) -> str:
        return (f"lineage record {self.lineage.written_bytes:,} bytes, ideal state {self.ideal_state.written_bytes:,}"
                f" bytes ({self.ideal_state_segments:,} segments), limit {self.limit:,}")

    def refusal(self, table: str) -> str:
        over = []
        if self.lineage.written_bytes > self.limit:
            over.append(f"its lineage record would be {self.lineage.written_bytes:,} bytes"
                        f"{' gzipped' if self.lineage.compressed else ''}")
        if self.ideal_state.written_bytes > self.limit:
            over.append(f"the ideal state would be {self.ideal_state.written_bytes:,} bytes gzipped "
                        f"({self.ideal_state_segments:,} segments, old and new)")
        share = max(self.lineage.written_bytes, self.ideal_state.written_bytes) / self.limit
        fewer = max(1, math.floor(self.new_segments / share))
        return (f"table {table}: nothing was uploaded: a commit of {self.new_segments:,} new segment(s) replacing "
                f"{self.replaced_segments:,} is over ZooKeeper's record limit of {self.limit:,} bytes "
                f"(commit.zk-record-limit): {' and '.join(over)}. Fixes: bigger segments "
                f"(sink.buffer-flush.max-rows / max-size; about {fewer:,} segments would fit), a higher limit if the "
                f"cluster sets zk.serializer.znrecord.write.size.limit.bytes and jute.maxbuffer higher "
                f"(commit.zk-record-limit), or several smaller writes spaced by the table's retention (each write is "
                f"one lineage entry, kept until retention drops it; docs/guarantees.md)")


def project_commit(table_with_type: str, lineage: Mapping[str, Mapping], ideal_state: Mapping[str, Mapping[str, str]],
                   new: Iterable[str], replaced: Iterable[str], *, limit: int = SIZE_LIMIT,
                   replicas: int = 1, instances: Sequence[str] = ()) -> CommitBudget:
    """Both records as they will be at the commit's peak: the lineage with every entry it has now plus this one
    (IN_PROGRESS), and the ideal state with every segment it has now plus the new ones (the replaced ones stay
    in it until retention deletes them, so during a replace both snapshots count). New segments are assigned
    to ``instances`` (default: those of the segments there now, or a typical server name)."""
    new, replaced = list(new), list(replaced)
    entries = dict(lineage)
    entries["00000000-0000-0000-0000-000000000000"] = {
        "segmentsFrom": replaced, "segmentsTo": new, "state": "IN_PROGRESS", "timestamp": 10 ** (TIMESTAMP_WIDTH - 1)}
    lineage_size = written_size(lineage_record(table_with_type, entries), limit)
    assignment: dict[str, Mapping[str, str]] = dict(ideal_state)
    if not instances:
        first = next(iter(ideal_state.values()), None)
        instances = sorted(first) if first else [f"Server_pinot-server-{i}.pinot-server-headless_8098"
                                                 for i in range(replicas)]
    state = {instance: "ONLINE" for instance in instances}
    for name in new:
        assignment[name] = state
    ideal_size = written_size(ideal_state_record(table_with_type, assignment, replicas=len(state) or replicas), limit)
    return CommitBudget(lineage_size, ideal_size, limit, len(new), len(replaced), len(assignment))
