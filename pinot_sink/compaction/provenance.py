"""Which writes' rows a compacted segment holds, and the rule that keeps a write exactly once after its
segments were compacted.

A write's segments carry its write tag in their names (``naming``), and a rerun of the write (the same
``write.id``, a replayed micro-batch) replaces exactly the live segments with that tag. A compaction merges
segments of many writes into segments of its own (run tag ``c``), so their names no longer say whose rows
they hold: each compacted segment records the write tags of every segment it merged (and of the compacted
segments it merged, transitively) in its custom metadata, ``custom.pinotSinkSourceWrites`` (the controller
copies it into the segment's ZK metadata; a folder's tarball keeps it in ``metadata.properties``).

A rerun whose write tag a live compacted segment lists is **refused on the driver before anything is
uploaded** (``refuse_rerun_of_compacted``): its rows are in that segment together with other writes' rows,
and replacing only them would need per-row provenance. The message names the compacted segment and what to
do instead. The same check runs after a run's segments are in place (``rival_compactions``), so a compaction
that committed at the same moment is caught by whichever looks last.
"""
from __future__ import annotations

from typing import Iterable

from pinot_sink.naming import name_tags, segment_replaces
from type_mapping.errors import PinotSinkError

SOURCE_WRITES_KEY = "pinotSinkSourceWrites"  # custom.<key> in metadata.properties, custom.map in ZK metadata


class CompactedWriteError(PinotSinkError, RuntimeError):
    """A rerun of a write whose segments a compaction merged: refused, nothing uploaded."""


def is_compacted(name: str) -> bool:
    return segment_replaces(name) == "compact"


def source_writes(names: Iterable[str], store) -> set[str]:
    """The write tags whose rows ``names`` hold: a writer's segment its own tag, a compacted one what it lists."""
    names = list(names)
    tags = {t[0] for t in map(name_tags, names) if t is not None and not is_compacted_tags(t)}
    compacted = [n for n in names if is_compacted(n)]
    for custom in store.custom_metadata(compacted).values():
        tags.update(parse_writes(custom.get(SOURCE_WRITES_KEY)))
    return tags


def write_tag_of(name: str) -> str | None:
    """The write tag in a name this writer made (None for another's)."""
    tags = name_tags(name)
    return tags[0] if tags is not None else None


def is_compacted_tags(tags: tuple[str, str]) -> bool:
    return tags[1][:1] == "c"


def parse_writes(text: str | None) -> set[str]:
    return set((text or "").split())


def format_writes(tags: Iterable[str]) -> str:
    return " ".join(sorted(set(tags)))


def compactions_holding(write_tag: str, names: Iterable[str], store) -> list[str]:
    """The compacted segments among ``names`` that list ``write_tag``."""
    compacted = sorted(n for n in names if is_compacted(n))
    if not compacted:
        return []
    found = store.custom_metadata(compacted)
    return [n for n in compacted if write_tag in parse_writes((found.get(n) or {}).get(SOURCE_WRITES_KEY))]


def refuse_rerun_of_compacted(table: str, write_id: str | None, write_tag: str, live: Iterable[str],
                              store) -> None:
    """The rerun rule (module doc): raises ``CompactedWriteError`` when a live compacted segment holds rows of
    this write."""
    holding = compactions_holding(write_tag, live, store)
    if holding:
        raise CompactedWriteError(
            f"table {table}: write {write_id} was compacted into {holding[0]}"
            f"{f' (and {len(holding) - 1} more)' if len(holding) > 1 else ''} with other writes' rows, so a rerun "
            f"cannot replace exactly its rows; nothing was uploaded. To change those rows, overwrite their time "
            f"window (mode overwrite with overwrite.time-range), or write the difference with a new write.id")
