"""Per-partition buffer of converted rows, cut into segments by row count and size.

A task converts each Arrow batch to ``PinotColumns`` and adds it here; ``add`` yields the rows of every
segment that became full, so at most one segment's worth of rows (plus the batch being added) is held at a
time. A cut happens at exactly ``max_rows`` rows even when a batch straddles the limit, and when the
buffered bytes (``PinotColumns.nbytes``, the converted data the builder will read) reach ``max_bytes``; a batch
that would overshoot the size is split at the row where it reaches the limit (estimated from the batch's
bytes per row), so one large batch does not blow the bound.

Both buffers (``PartitionBuffer``, and ``BucketBuffer`` for ``sink.time-bucket``) are a ``Buffer``: what
``pinot_sink.partition_writer`` drives, and all it may ask of one.
"""
from __future__ import annotations

import math
from typing import Callable, Iterator, Protocol, runtime_checkable

import numpy as np

from type_mapping.stored import PinotColumns


def slice_columns(columns: PinotColumns, offset: int, length: int) -> PinotColumns:
    """Rows ``[offset, offset + length)``: zero-copy views of the Arrow columns and the masks."""
    if offset == 0 and length == columns.num_rows:
        return columns
    return columns.share(
        columns.table.slice(offset, length),
        {name: mask[offset : offset + length] for name, mask in columns.null_masks.items()},
    )


def take_columns(columns: PinotColumns, indices: np.ndarray) -> PinotColumns:
    """The rows at ``indices`` (a copy), masks included."""
    return columns.share(columns.table.take(indices),
                         {name: mask[indices] for name, mask in columns.null_masks.items()})


@runtime_checkable
class Buffer(Protocol):
    """Converted rows held until a segment is cut."""

    max_rows: int
    max_bytes: int

    @property
    def rows(self) -> int:
        """Rows held now."""

    @property
    def nbytes(self) -> int:
        """Converted bytes held now."""

    def add(self, part: PinotColumns) -> Iterator[PinotColumns]:
        """Hold ``part``; yield the rows of each segment that became full (zero or more)."""

    def drain_all(self) -> Iterator[PinotColumns]:
        """The rows still held, as the last segment(s); the buffer is empty afterwards."""


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

    def drain_all(self) -> Iterator[PinotColumns]:
        """The remaining rows, as the partition's last segment (if any)."""
        rows = self.drain()
        if rows is not None:
            yield rows

    def _cut(self) -> PinotColumns:
        parts, self._parts = self._parts, []
        self._rows, self._bytes = 0, 0.0
        return PinotColumns.concat(parts)


class BucketBuffer:
    """One ``PartitionBuffer`` per time bucket (``sink.time-bucket``), so every segment holds one bucket.

    ``keys(part)`` gives each row's bucket. A bucket is cut at ``max_rows`` / ``max_size`` on its own, and
    when all buckets together reach ``max_bytes`` the largest is cut: a task still holds at most
    ``max_bytes`` of buffered rows, however many buckets its partition spans (at the price of more, smaller
    segments when rows of many buckets arrive interleaved)."""

    def __init__(self, max_rows: int, max_bytes: int, keys: Callable[[PinotColumns], np.ndarray]) -> None:
        self.max_rows, self.max_bytes, self._keys = max_rows, max_bytes, keys
        self._buffers: dict[int, PartitionBuffer] = {}

    @property
    def rows(self) -> int:
        return sum(b.rows for b in self._buffers.values())

    @property
    def nbytes(self) -> int:
        return sum(b.nbytes for b in self._buffers.values())

    def add(self, part: PinotColumns) -> Iterator[PinotColumns]:
        if part.num_rows == 0:
            return
        keys = np.asarray(self._keys(part))
        if (keys == keys[0]).all():
            groups = [(int(keys[0]), part)]
        else:
            order = np.argsort(keys, kind="stable")  # rows keep their order within a bucket
            bounds = np.flatnonzero(np.diff(keys[order])) + 1
            groups = [(int(keys[chunk[0]]), take_columns(part, chunk)) for chunk in np.split(order, bounds)]
        for key, rows in groups:
            buffer = self._buffers.get(key)
            if buffer is None:
                buffer = self._buffers[key] = PartitionBuffer(self.max_rows, self.max_bytes)
            yield from buffer.add(rows)
            while self._buffers and self.nbytes >= self.max_bytes:
                largest = max(self._buffers, key=lambda k: self._buffers[k].nbytes)
                cut = self._buffers.pop(largest).drain()
                if cut is not None:
                    yield cut

    def drain_all(self) -> Iterator[PinotColumns]:
        """Every bucket's remaining rows, in bucket order."""
        buffers, self._buffers = self._buffers, {}
        for key in sorted(buffers):
            yield from buffers[key].drain_all()
