"""Null value vector (``NullValueVectorCreator``, SEGMENT_FORMAT.md 6.2): one RoaringBitmap of null docIds.

Pinot writes the file only when at least one doc is null; otherwise the column's metadata says
``isNonNull = true``.
"""
from __future__ import annotations

import numpy as np

from .inverted_index import serialize_bitmap


def null_vector(mask: np.ndarray | None) -> bytes | None:
    """The ``.bitmap.nullvalue`` bytes, or None when no doc is null."""
    if mask is None or not mask.any():
        return None
    return serialize_bitmap(np.flatnonzero(mask))
