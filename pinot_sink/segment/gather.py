"""``gather(values, indices)``: ``values[indices]`` for a 1-D numpy array and indices known to be in range.

``np.take`` with ``mode="clip"`` (no bounds check to raise from; the indices are in range, so nothing is clipped)
costs ~12 instructions per element, numpy's fancy indexing ~15 with intp indices and ~23 with int32 ones
(bench/stage_instructions.py). The builder gathers every dictionary column's dictIds by the sortedColumn's order,
and dictionaries map values to dictIds by a gather of ranks. (Arrow's take without its bounds check costs ~6, but
its results in Arrow's allocator beside numpy's arrays raised the 32mb task peak by 5-15 MB, copied back or not:
docs/performance.md.)
"""
from __future__ import annotations

import numpy as np


# np.take copies indices that are not intp to intp first, all of them: narrower indices (a segment's int32 row
# order) are taken this many at a time, so that the copy is a block's (2 MB), not 8 bytes a row of the column
_NARROW_BLOCK = 1 << 18


def gather(values: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``values[indices]`` (1-D) for integer ``indices`` that are all in range (not checked: the caller built them
    so)."""
    if indices.dtype == np.intp or len(indices) <= _NARROW_BLOCK:
        return np.take(values, indices, mode="clip")
    out = np.empty(len(indices), dtype=values.dtype)
    for start in range(0, len(indices), _NARROW_BLOCK):
        np.take(values, indices[start:start + _NARROW_BLOCK], out=out[start:start + _NARROW_BLOCK], mode="clip")
    return out
