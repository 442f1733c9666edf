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

Records are stored by column (``MetricColumn``): numpy arrays for the values numpy can merge with Java's result
(counts, DOUBLE sums added strictly in Pinot's order, min / max with ``Math.min``'s NaN and signed-zero rules,
``AvgPair``, ``MinMaxRangePair``), Python objects for the rest (BigDecimal sums, bitmaps, HLL registers).
Every merge is "reduce these records, in this order, into one per group".
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from type_mapping.java_hash import hash_map_order

from .aggregators import ONE_PER_DOC, ValueAggregator
from .quicksort import compiled_sequential_sums, compiled_sort, fastutil_order_array

log = logging.getLogger(__name__)

STAR = -1  # StarTreeNode.ALL: a star node's dimension value
STAR_IN_FORWARD_INDEX = 0  # a star dimension in the star-tree's own forward index
INVALID = -1
_SMALL_GROUP = 64  # groups up to this size are summed together, position by position
_RADIX_FROM = 1 << 14  # records from which a stable sort goes by 16-bit digits (``_stable_order``)


@dataclass
class Node:
    dimension_id: int = INVALID
    dimension_value: int = INVALID
    start: int = INVALID
    end: int = INVALID
    aggregated_doc_id: int = INVALID
    child_dimension_id: int = INVALID
    children: list["Node"] | None = None  # in Java HashMap iteration order


class _Grow:
    """An append-only numpy array."""

    def __init__(self, dtype, tail: tuple = ()):
        self.a = np.empty((1024,) + tail, dtype=dtype)
        self.n = 0

    def extend(self, block: np.ndarray) -> None:
        need = self.n + len(block)
        if need > len(self.a):
            bigger = np.empty((max(need, 2 * len(self.a)),) + self.a.shape[1:], dtype=self.a.dtype)
            bigger[: self.n] = self.a[: self.n]
            self.a = bigger
        self.a[self.n: need] = block
        self.n = need

    @property
    def view(self) -> np.ndarray:
        return self.a[: self.n]


# --- grouped reductions with Java's results ---------------------------------------------------------


def seq_sum(values: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Per group, ``((v0 + v1) + v2) + ...`` in the given order (Java's loop; numpy's own sums pair up)."""
    compiled = compiled_sequential_sums() if values.dtype == np.float64 and len(starts) else None
    if compiled is not None:
        return compiled(values, starts.astype(np.int64, copy=False), sizes.astype(np.int64, copy=False))
    out = values[starts].astype(values.dtype, copy=True)
    small = np.flatnonzero((sizes > 1) & (sizes <= _SMALL_GROUP))
    for g in np.flatnonzero(sizes > _SMALL_GROUP).tolist():
        s = int(starts[g])
        out[g] = np.cumsum(values[s: s + int(sizes[g])])[-1]  # cumsum adds strictly left to right
    k = 1
    while len(small):
        out[small] += values[starts[small] + k]
        k += 1
        small = small[sizes[small] > k]
    return out


def _java_extreme(values: np.ndarray, starts: np.ndarray, sizes: np.ndarray, lowest: bool) -> np.ndarray:
    """``Math.min`` / ``Math.max`` over each group: NaN wins; -0.0 is below 0.0."""
    ufunc = np.minimum if lowest else np.maximum
    out = ufunc.reduceat(values, starts) if len(values) else values[:0].copy()
    zeros = out == 0
    if zeros.any():
        signed = np.signbit(values) if lowest else ~np.signbit(values)
        has = np.logical_or.reduceat(signed & (values == 0), starts)
        want_negative = has if lowest else ~has
        out[zeros] = np.where(want_negative[zeros], -0.0, 0.0)
    return out


class MetricColumn:
    """One metric's aggregated values for every record of a tree."""

    def __init__(self, agg: ValueAggregator):
        self.agg = agg
        self.kind = agg.kind
        if self.kind == "long":
            self.parts = [_Grow(np.int64)]
        elif self.kind == "double":
            self.parts = [_Grow(np.float64)]
        elif self.kind == "avg":
            self.parts = [_Grow(np.float64), _Grow(np.int64)]
        elif self.kind == "range":
            self.parts = [_Grow(np.float64), _Grow(np.float64)]
        else:
            self.objects: list = []

    def __len__(self) -> int:
        return self.parts[0].n if self.kind != "object" else len(self.objects)

    def arrays(self) -> list[np.ndarray] | list:
        return [p.view for p in self.parts] if self.kind != "object" else self.objects

    def extend(self, block) -> None:
        if self.kind == "object":
            self.objects.extend(block)
        else:
            for part, values in zip(self.parts, block):
                part.extend(values)

    def reduce(self, block, starts: np.ndarray, sizes: np.ndarray):
        """Merge each group (``starts`` / ``sizes`` into ``block``, records in merge order) into one value."""
        kind, agg = self.kind, self.agg
        if kind == "long":
            return [np.add.reduceat(block[0], starts)]
        if kind == "double":
            if agg.name in ("min", "max"):
                return [_java_extreme(block[0], starts, sizes, agg.name == "min")]
            return [self._sum(block[0], starts, sizes)]
        if kind == "avg":
            counts = sizes.astype(np.int64) if block[1] is ONE_PER_DOC else np.add.reduceat(block[1], starts)
            return [self._sum(block[0], starts, sizes), counts]
        if kind == "range":
            return [_java_extreme(block[0], starts, sizes, True), _java_extreme(block[1], starts, sizes, False)]
        out = []
        for s, n in zip(starts.tolist(), sizes.tolist()):
            value = block[s]
            for i in range(s + 1, s + n):
                value = agg.merge(value, block[i])
            out.append(value)
        return out

    def _sum(self, values: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        if self.agg.order_sensitive:
            return seq_sum(values, starts, sizes)
        # whole numbers whose total stays below 2^53 (``aggregators._exact_in_any_order``): every order of
        # additions gives the same double, so numpy's own (pairwise) grouped sum does
        return np.add.reduceat(values, starts) if len(values) else values[:0].copy()

    def take(self, index: np.ndarray):
        if self.kind == "object":
            objects = self.objects
            return [objects[i] for i in index.tolist()]
        return [p.view[index] for p in self.parts]


@dataclass
class StarTreeRecords:
    """The built tree: its records (dimension dictIds, metric aggregated values) and its nodes."""

    dims: np.ndarray  # (records, dimensions) dictIds, 0 where starred
    metrics: list[MetricColumn]
    root: Node
    num_nodes: int
    aggregators: list[ValueAggregator] = field(default_factory=list)

    @property
    def num_docs(self) -> int:
        return len(self.dims)


def _hashmap_order(keys: list[int]) -> list[int]:
    """Indices of ``keys`` (inserted in this order into a ``HashMap<Integer, ...>``: an Integer's hashCode is
    itself) in its iteration order. A tree bin (64+ buckets, 9+ entries in one) keeps its list order too,
    except for its root moving first; that case needs 9 children whose dictIds agree modulo the capacity, and
    is not modelled: it is logged."""
    order, tree_bin = hash_map_order(keys)
    if tree_bin:
        log.warning("star-tree: 9 or more children share a HashMap bucket (a Java tree bin); their order, and so "
                    "the star-tree's record order, may differ from Pinot's (the tree is still correct)")
    return order


def _packed(keys: np.ndarray) -> np.ndarray:
    """One int64 per row ordering like the rows (columns of non-negative ints): mixed radix when the columns
    fit 63 bits together, else each row's rank."""
    spans = [int(keys[:, i].max()) + 1 for i in range(keys.shape[1])]
    if float(np.prod([float(s) for s in spans])) < 2.0**62:
        packed = np.zeros(len(keys), dtype=np.int64)
        for span, column in zip(spans, keys.T):
            packed *= span
            packed += column
        return packed
    _, ranks = np.unique(keys, axis=0, return_inverse=True)
    return ranks.reshape(-1).astype(np.int64)


def _order(keys: np.ndarray, pinot_order: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row order of a (rows, columns) array of non-negative ints, and the starts and sizes of its runs of
    equal rows in that order. ``pinot_order``: ties exactly where Pinot's fastutil quicksort leaves them
    (needed when the merge order shows in the bytes), else in row order."""
    n = len(keys)
    if keys.shape[1] == 0 or n < 2:  # all keys equal: fastutil moves nothing either
        return np.arange(n), np.zeros(min(n, 1), dtype=np.int64), np.array([n] if n else [], dtype=np.int64)
    packed = _packed(keys)
    compiled = compiled_sort(packed) if pinot_order else None
    if compiled is not None:
        order, ordered = compiled
    else:
        order = _stable_order(packed)
        ordered = packed[order]
    starts, sizes = _runs(ordered)
    if pinot_order and compiled is None and len(starts) < n:  # with no ties every correct sort agrees
        ranks = np.empty(n, dtype=np.int64)
        ranks[order] = np.repeat(np.arange(len(starts), dtype=np.int64), sizes)
        order = fastutil_order_array(ranks)
    return order, starts, sizes


def _stable_order(packed: np.ndarray) -> np.ndarray:
    """``np.argsort(packed, kind="stable")``. Keys of up to 32 bits (a tree's dimensions packed: a product of
    cardinalities) are sorted by two 16-bit digits, least significant first: numpy sorts 16-bit keys by radix,
    ~3x faster than its timsort of the int64 keys on a segment's 1M records; short inputs keep timsort."""
    n = len(packed)
    top = int(packed.max()) if n else 0
    if n < _RADIX_FROM or top >= 1 << 32:
        return np.argsort(packed, kind="stable")
    order = np.argsort((packed & 0xFFFF).astype(np.uint16), kind="stable")
    if top >= 1 << 16:
        high = (packed >> 16).astype(np.uint16)
        order = order[np.argsort(high[order], kind="stable")]
    return order


def _runs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and sizes of the runs of equal rows of a 2-D (or 1-D) array."""
    n = len(keys)
    change = np.ones(n, dtype=bool)
    if n > 1:
        diff = keys[1:] != keys[:-1]
        change[1:] = diff.any(axis=1) if diff.ndim == 2 else diff
    starts = np.flatnonzero(change)
    sizes = np.diff(np.append(starts, n))
    return starts, sizes


class TreeBuilder:
    def __init__(self, num_dimensions: int, skip_star: set[int], max_leaf_records: int,
                 aggregators: list[ValueAggregator]):
        self.nd = num_dimensions
        self.skip = skip_star
        self.max_leaf = max_leaf_records
        self.aggs = aggregators
        self.dims = _Grow(np.int64, (num_dimensions,))
        self.metrics = [MetricColumn(a) for a in aggregators]
        self.num_nodes = 0
        self.order_sensitive = False

    def _new_node(self) -> Node:
        self.num_nodes += 1
        return Node()

    def _append(self, dims: np.ndarray, blocks: list) -> None:
        self.dims.extend(dims)
        for column, block in zip(self.metrics, blocks):
            column.extend(block)

    # --- step 1: the segment's records ------------------------------------------------------------

    def add_segment_records(self, dim_ids: np.ndarray, raw_metrics: list) -> None:
        """``dim_ids``: (docs, dimensions) dictIds; ``raw_metrics[m]``: metric m's initial values per doc as
        ``MetricColumn`` blocks (``aggregators.ValueAggregator.initial_block``)."""
        self.order_sensitive = any(a.order_sensitive for a in self.aggs)
        order, starts, sizes = _order(dim_ids, self.order_sensitive)
        blocks = []
        order_list = None
        gathered: dict[int, np.ndarray] = {}  # metrics on one column share its values: gather them once
        for column, raw in zip(self.metrics, raw_metrics):
            if column.kind == "object":  # Pinot's getInitialAggregatedValue, then applyRawValue per doc
                if order_list is None:
                    order_list = order.tolist()
                agg, values = column.agg, []
                for s, n in zip(starts.tolist(), sizes.tolist()):
                    value = agg.initial(raw[order_list[s]])
                    for k in range(s + 1, s + n):
                        value = agg.apply_raw(value, raw[order_list[k]])
                    values.append(value)
                blocks.append(values)
            elif column.kind == "long" and column.agg.name == "count":
                blocks.append([sizes.astype(np.int64)])  # a count of docs is the run's length
            else:
                parts = []
                for part in raw:
                    if part is ONE_PER_DOC:  # nothing to reorder: the run's size is its count
                        parts.append(part)
                        continue
                    if id(part) not in gathered:
                        gathered[id(part)] = part[order]
                    parts.append(gathered[id(part)])
                blocks.append(column.reduce(parts, starts, sizes))
        self._append(dim_ids[order[starts]], blocks)

    # --- step 2: the tree ------------------------------------------------------------------------

    def build(self) -> StarTreeRecords:
        self.root = self._new_node()
        self._construct(self.root, 0, self.dims.n)
        self._aggregate(self.root)
        return StarTreeRecords(self.dims.view, self.metrics, self.root, self.num_nodes, self.aggs)

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
        values = self.dims.view[start:end, dim]
        starts, sizes = _runs(values)
        children = []
        for s, n in zip(starts.tolist(), sizes.tolist()):
            node = self._new_node()
            node.dimension_id, node.dimension_value = dim, int(values[s])
            node.start, node.end = start + s, start + s + n
            children.append(node)
        return children

    def _star_child(self, start: int, end: int, dim: int) -> Node:
        node = self._new_node()
        node.dimension_id, node.dimension_value = dim, STAR
        node.start = self.dims.n
        tail = dim + 1
        dims = self.dims.view
        keys = dims[start:end, tail:]
        order, starts, sizes = _order(keys, self.order_sensitive)
        index = start + order
        blocks = [column.reduce(column.take(index), starts, sizes) for column in self.metrics]
        new_dims = dims[index[starts]].copy()
        new_dims[:, dim] = STAR_IN_FORWARD_INDEX
        self._append(new_dims, blocks)
        node.end = self.dims.n
        return node

    # --- step 3: aggregated records ------------------------------------------------------------------

    def _append_merged(self, index: np.ndarray, dimension_id: int) -> int:
        """Append the merge of the records ``index`` (in that order) with the dimensions after
        ``dimension_id`` starred; return its doc id."""
        one = np.zeros(1, dtype=np.int64)
        blocks = [column.reduce(column.take(index), one, np.array([len(index)])) for column in self.metrics]
        dims = self.dims.view[index[:1]].copy()
        dims[:, dimension_id + 1:] = STAR_IN_FORWARD_INDEX
        self._append(dims, blocks)
        return self.dims.n - 1

    def _aggregate(self, node: Node) -> int:
        """Give ``node`` its aggregated record; return that record's doc id."""
        if node.children is None:
            if node.start == node.end - 1:
                node.aggregated_doc_id = node.start
            else:
                node.aggregated_doc_id = self._append_merged(np.arange(node.start, node.end), node.dimension_id)
            return node.aggregated_doc_id
        if any(child.dimension_value == STAR for child in node.children):
            for child in node.children:
                doc = self._aggregate(child)
                if child.dimension_value == STAR:
                    node.aggregated_doc_id = doc
            return node.aggregated_doc_id
        docs = [self._aggregate(child) for child in node.children]
        node.aggregated_doc_id = self._append_merged(np.array(docs, dtype=np.int64), node.dimension_id)
        return node.aggregated_doc_id


def build_tree(dim_ids: np.ndarray, raw_metrics: list, skip_star: set[int], max_leaf_records: int,
               aggregators: list[ValueAggregator]) -> StarTreeRecords:
    builder = TreeBuilder(dim_ids.shape[1], skip_star, max_leaf_records, aggregators)
    builder.add_segment_records(dim_ids, raw_metrics)
    return builder.build()
