"""Build one star-tree's records and nodes exactly as Pinot's ``OffHeapSingleTreeBuilder`` does.

1. The segment's records (dimension dictIds in split order, metric raw values) are sorted by their dimensions
   (fastutil's quicksort: the order within runs of equal dimensions decides DOUBLE sums, see ``quicksort``)
   and each run merged into one star-tree record.
2. ``constructStarTree``: a node's children are the runs of the next dimension's values; unless star nodes are
   skipped for that dimension or there is a single child, a star child aggregates the node's records over
   that dimension (its records, sorted and merged again, are appended); children with more than
   ``maxLeafRecords`` records split further. Children are visited in Java ``HashMap`` order
   (``_hashmap_order``), which decides where the star records land.
3. ``createAggregatedDocs``: every node gets an aggregated record (a one-record leaf reuses its record; a node
   with a star child reuses the star child's; otherwise a new record, with the remaining dimensions set to
   the star value 0, is appended).

Aggregated values are immutable here (``aggregators``), so sharing one between records is safe.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .aggregators import ValueAggregator
from .quicksort import fastutil_order

STAR = -1  # StarTreeNode.ALL: a star node's dimension value
STAR_IN_FORWARD_INDEX = 0  # a star dimension in the star-tree's own forward index
INVALID = -1


@dataclass
class Node:
    dimension_id: int = INVALID
    dimension_value: int = INVALID
    start: int = INVALID
    end: int = INVALID
    aggregated_doc_id: int = INVALID
    child_dimension_id: int = INVALID
    children: list["Node"] | None = None  # in Java HashMap iteration order


@dataclass
class StarTreeRecords:
    """The built tree: its records (dimension dictIds, metric aggregated values) and its nodes."""

    dims: list[tuple]
    metrics: list[list]
    root: Node
    num_nodes: int
    aggregators: list[ValueAggregator] = field(default_factory=list)


def _java_int_hash(key: int) -> int:
    h = key & 0xFFFFFFFF
    return h ^ (h >> 16)


def _hashmap_order(keys: list[int]) -> list[int]:
    """Indices of ``keys`` (inserted in this order into a ``HashMap<Integer, ...>``) in its iteration order.

    Buckets are ``hash & (capacity - 1)``, entries within a bucket in insertion order (a resize splits a
    bucket keeping that order). Capacity starts at 16 and doubles when the size passes 3/4 of it, or when a
    bucket reaches 9 entries while the table is under 64 (``treeifyBin``). A tree bin (64+ buckets, 9+
    entries in one) keeps its list order too, except for its root moving first; that case is unreachable for
    dictIds below 65,536 spread over fewer children than 3/4 of the capacity, and is not modelled."""
    hashes = [_java_int_hash(k) for k in keys]
    capacity = 16
    counts: dict[int, int] = {}
    for size, h in enumerate(hashes, start=1):
        bucket = h & (capacity - 1)
        existing = counts.get(bucket, 0)
        counts[bucket] = existing + 1
        grow = existing >= 8 and capacity < 64
        if grow or size > capacity * 3 // 4:
            while grow or size > capacity * 3 // 4:
                capacity *= 2
                grow = False
            counts = {}
            for g in hashes[:size]:
                b = g & (capacity - 1)
                counts[b] = counts.get(b, 0) + 1
    mask = capacity - 1
    return sorted(range(len(keys)), key=lambda i: (hashes[i] & mask, i))


class TreeBuilder:
    def __init__(self, num_dimensions: int, skip_star: set[int], max_leaf_records: int,
                 aggregators: list[ValueAggregator]):
        self.nd = num_dimensions
        self.skip = skip_star
        self.max_leaf = max_leaf_records
        self.aggs = aggregators
        self.order_sensitive = any(a.order_sensitive for a in aggregators)
        self.dims: list[tuple] = []
        self.metrics: list[list] = []
        self.num_nodes = 0

    def _new_node(self) -> Node:
        self.num_nodes += 1
        return Node()

    # --- step 1: the segment's records ------------------------------------------------------------

    def add_segment_records(self, dim_ids: np.ndarray, raw_metrics: list[list]) -> None:
        """``dim_ids``: (docs, dimensions) dictIds; ``raw_metrics[m][doc]``: metric m's raw value (None for
        COUNT)."""
        num_docs = len(dim_ids)
        order = self._sorted_doc_ids(dim_ids)
        sorted_dims = dim_ids[order]
        change = np.ones(num_docs, dtype=bool)
        if num_docs > 1:
            change[1:] = (sorted_dims[1:] != sorted_dims[:-1]).any(axis=1)
        starts = np.flatnonzero(change)
        ends = np.append(starts[1:], num_docs)
        order_list = order.tolist()
        for m, agg in enumerate(self.aggs):
            raw = raw_metrics[m]
            column = []
            for s, e in zip(starts.tolist(), ends.tolist()):
                first = order_list[s]
                value = agg.initial(raw[first] if raw is not None else None)
                for k in range(s + 1, e):
                    value = agg.apply_raw(value, raw[order_list[k]] if raw is not None else None)
                column.append(value)
            if m == 0:
                self.metrics = [[v] for v in column]
            else:
                for record, v in zip(self.metrics, column):
                    record.append(v)
        if not self.aggs:
            self.metrics = [[] for _ in starts]
        self.dims = [tuple(row) for row in sorted_dims[starts].tolist()]

    def _sorted_doc_ids(self, dim_ids: np.ndarray) -> np.ndarray:
        num_docs = len(dim_ids)
        stable = np.lexsort(dim_ids.T[::-1]) if self.nd else np.arange(num_docs)
        if not self.order_sensitive or num_docs < 2:
            return stable
        s = dim_ids[stable]
        if not (s[1:] == s[:-1]).all(axis=1).any():  # no ties: every correct sort agrees
            return stable
        keys = [tuple(row) for row in dim_ids.tolist()]
        return np.array(fastutil_order(keys), dtype=np.int64)

    # --- step 2: the tree ------------------------------------------------------------------------

    def build(self) -> StarTreeRecords:
        self.root = self._new_node()
        self._construct(self.root, 0, len(self.dims))
        self._aggregate(self.root)
        return StarTreeRecords(self.dims, self.metrics, self.root, self.num_nodes, self.aggs)

    def _construct(self, node: Node, start: int, end: int) -> None:
        child_dim = node.dimension_id + 1
        if child_dim == self.nd:
            return
        node.child_dimension_id = child_dim
        children = self._non_star_children(start, end, child_dim)
        if child_dim not in self.skip and len(children) > 1:
            children.append(self._star_child(start, end, child_dim))
        order = _hashmap_order([c.dimension_value for c in children])
        node.children = [children[i] for i in order]
        for child in node.children:
            if child.end - child.start > self.max_leaf:
                self._construct(child, child.start, child.end)

    def _non_star_children(self, start: int, end: int, dim: int) -> list[Node]:
        children = []
        dims = self.dims
        node_start, value = start, dims[start][dim]
        for i in range(start + 1, end):
            v = dims[i][dim]
            if v != value:
                children.append(self._leaf(dim, value, node_start, i))
                node_start, value = i, v
        children.append(self._leaf(dim, value, node_start, end))
        return children

    def _leaf(self, dim: int, value: int, start: int, end: int) -> Node:
        node = self._new_node()
        node.dimension_id, node.dimension_value, node.start, node.end = dim, value, start, end
        return node

    def _star_child(self, start: int, end: int, dim: int) -> Node:
        node = self._new_node()
        node.dimension_id, node.dimension_value = dim, STAR
        node.start = len(self.dims)
        tail = dim + 1
        keys = [d[tail:] for d in self.dims[start:end]]
        if self.order_sensitive:
            order = fastutil_order(keys)
        else:
            order = sorted(range(len(keys)), key=keys.__getitem__)
        dims, metrics, aggs = self.dims, self.metrics, self.aggs
        current_key = None
        record_dims, record_metrics = None, None
        for i in order:
            doc = start + i
            if keys[i] != current_key:
                if record_dims is not None:
                    dims.append(record_dims)
                    metrics.append(record_metrics)
                current_key = keys[i]
                source = dims[doc]
                record_dims = source[:dim] + (STAR_IN_FORWARD_INDEX,) + source[tail:]
                record_metrics = list(metrics[doc])
            else:
                other = metrics[doc]
                record_metrics = [agg.merge(v, o) for agg, v, o in zip(aggs, record_metrics, other)]
        dims.append(record_dims)
        metrics.append(record_metrics)
        node.end = len(self.dims)
        return node

    # --- step 3: aggregated records ------------------------------------------------------------------

    def _append(self, record_dims: tuple, record_metrics: list) -> int:
        self.dims.append(record_dims)
        self.metrics.append(record_metrics)
        return len(self.dims) - 1

    def _starred(self, dims: tuple, dimension_id: int) -> tuple:
        return dims[: dimension_id + 1] + (STAR_IN_FORWARD_INDEX,) * (self.nd - dimension_id - 1)

    def _aggregate(self, node: Node) -> tuple[tuple, list]:
        aggs = self.aggs
        if node.children is None:
            if node.start == node.end - 1:
                node.aggregated_doc_id = node.start
                return self.dims[node.start], self.metrics[node.start]
            merged = list(self.metrics[node.start])
            for i in range(node.start + 1, node.end):
                merged = [agg.merge(v, o) for agg, v, o in zip(aggs, merged, self.metrics[i])]
            dims = self._starred(self.dims[node.start], node.dimension_id)
            node.aggregated_doc_id = self._append(dims, merged)
            return dims, merged
        if any(child.dimension_value == STAR for child in node.children):
            result = None
            for child in node.children:
                record = self._aggregate(child)
                if child.dimension_value == STAR:
                    result = record
                    node.aggregated_doc_id = child.aggregated_doc_id
            return result
        first_dims, merged = None, None
        for child in node.children:
            child_dims, child_metrics = self._aggregate(child)
            if merged is None:
                first_dims, merged = child_dims, list(child_metrics)
            else:
                merged = [agg.merge(v, o) for agg, v, o in zip(aggs, merged, child_metrics)]
        dims = self._starred(first_dims, node.dimension_id)
        node.aggregated_doc_id = self._append(dims, merged)
        return dims, merged


def build_tree(dim_ids: np.ndarray, raw_metrics: list[list], skip_star: set[int], max_leaf_records: int,
               aggregators: list[ValueAggregator]) -> StarTreeRecords:
    builder = TreeBuilder(dim_ids.shape[1], skip_star, max_leaf_records, aggregators)
    builder.add_segment_records(dim_ids, raw_metrics)
    return builder.build()
