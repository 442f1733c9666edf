"""Compaction: merge a table's small segments into right-sized ones per time bucket, atomically and exactly
once (``compact``; ``pinot-sink compact``). ``run`` drives it, ``plan`` chooses what is merged, ``merge`` makes
the rows and cuts the segments, ``provenance`` keeps a write exactly once after its segments were merged.

This package's ``__init__`` imports nothing: the commit imports ``provenance``, and ``run`` imports the commit.
"""
from __future__ import annotations


def compact(table: str, **kwargs):
    """``pinot_sink.compaction.run.compact`` (see there)."""
    from .run import compact as run_compact

    return run_compact(table, **kwargs)
