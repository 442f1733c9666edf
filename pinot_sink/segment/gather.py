"""``gather(values, indices)``: ``values[indices]`` for a numeric numpy array and indices known to be in range.

Arrow's take without its bounds check costs ~6 instructions per element; numpy's fancy indexing ~15 with intp
indices and ~23 with int32 ones (it casts them to intp first), ``np.take`` ~12 (bench/stage_instructions.py).
The builder gathers every dictionary column's dictIds by the sortedColumn's order, and dictionaries map values
to dictIds by a gather of ranks: on a 200k-row segment these gathers were a tenth of the task's instructions.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def gather(values: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``values[indices]`` (1-D, a numeric dtype, not bool) for integer ``indices`` that are all in range (not
    checked: the caller built them so). The result is read-only (Arrow's buffer) unless it is empty."""
    if (values.dtype.kind not in "iuf" or not values.dtype.isnative or values.ndim != 1 or indices.ndim != 1
            or indices.dtype.kind not in "iu" or not len(indices)):
        return values[indices]
    taken = pc.take(pa.array(values), pa.array(indices), boundscheck=False)
    return taken.to_numpy(zero_copy_only=True)
