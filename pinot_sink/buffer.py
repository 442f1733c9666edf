"""Per-partition buffer of converted rows, cut into segments by row count and size.

A task converts each Arrow batch to ``PinotColumns`` and adds it here; ``add`` yields the rows of every
segment that became full, so at most one segment's worth of rows (plus the batch being added) is held at a
time. A cut happens at exactly ``max_rows`` rows even when a batch straddles the limit, and when the
buffered bytes (``PinotColumns.nbytes``, the converted data the builder will read) reach ``max_bytes``; a batch
that would overshoot the size is split at the row where it reaches the limit (estimated from the batch's
bytes per row), so one large batch does not blow the bound.
"""
from __future__ import annotations

import math
from typing import Iterator

from type_mapping.stored import PinotColumns


def slice_columns(columns: PinotColumns, offset: int, length: int) -> PinotColumns:
    """Rows ``[offset, offset + length)``: zero-copy views of the Arrow columns and the masks."""
    if offset == 0 and length == columns.num_rows:
        return columns
    return PinotColumns(
        columns.table.slice(offset, length),
        {name: mask[offset : offset + length] for name, mask in columns.null_masks.items()},
    )


class PartitionBuffer:
    """Collects ``PinotColumns`` parts and hands them back in segment-sized groups."""

    def __init__(self, max_rows: int, max_bytes: int) -> None:
        if max_rows < 1 or max_bytes < 1:
            raise ValueError("PartitionBuffer needs positive max_rows and max_bytes")
        self.max_rows = max_rows
        self.max_bytes = max_bytes
        self._parts: list[PinotColumns] = []
        self._rows = 0
        self._bytes = 0.0

    @property
    def rows(self) -> int:
        return self._rows

    @property
    def nbytes(self) -> int:
        return int(self._bytes)

    def __len__(self) -> int:
        return self._rows

    def add(self, part: PinotColumns) -> Iterator[PinotColumns]:
        """Buffer ``part``; yield the rows of each segment that fills up (zero or more)."""
        total = part.num_rows
        if total == 0:
            return
        bytes_per_row = part.nbytes / total
        offset = 0
        while offset < total:
            take = min(total - offset, self.max_rows - self._rows)
            if bytes_per_row > 0:
                rows_to_size_limit = math.ceil((self.max_bytes - self._bytes) / bytes_per_row)
                take = min(take, max(1, rows_to_size_limit))
            self._parts.append(slice_columns(part, offset, take))
            self._rows += take
            self._bytes += take * bytes_per_row
            offset += take
            if self._rows >= self.max_rows or self._bytes >= self.max_bytes:
                yield self._cut()

    def drain(self) -> PinotColumns | None:
        """The remaining rows (the partition's last segment), or None when empty."""
        return self._cut() if self._rows else None

    def _cut(self) -> PinotColumns:
        parts, self._parts = self._parts, []
        self._rows, self._bytes = 0, 0.0
        return PinotColumns.concat(parts)
