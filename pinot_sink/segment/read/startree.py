"""Read a segment's star-trees back (``star_tree_index``, ``star_tree_index_map``, ``startree.v2.*`` keys).

``read_star_trees(reader)`` gives one ``StarTreeView`` per tree: its config as the metadata states it, its
nodes (breadth first: dimensionId, dimensionValue, startDocId, endDocId, aggregatedDocId, firstChildId,
lastChildId; -1 for the root's and a star node's value), its records' dimension dictIds (0 where a dimension
is starred) and its metric values decoded: LONG / DOUBLE numbers; ``avg``: (sum, count); ``minMaxRange``:
(min, max); ``sumPrecision``: ``(unscaled, scale)``; ``distinctCountBitmap``: a ``pyroaring.BitMap``;
``distinctCountHLL``: the serialised bytes. Layouts: ``pinot_sink.segment.startree.writer``.
"""
from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field

import numpy as np

from ..bitpack import bits_per_value
from ..format import METADATA_FILE, STAR_TREE_INDEX_FILE, STAR_TREE_INDEX_MAP_FILE
from ..properties import as_list, as_text, parse_properties
from .decoders import unpack_bits
from .raw_forward import read_raw_forward
from type_mapping.errors import PinotSinkError

MAGIC_MARKER = 0xBADDA55B00DAD00D
_LONG_FUNCTIONS = {"count", "countMV"}
_DOUBLE_FUNCTIONS = {"sum", "sumMV", "min", "max"}


class StarTreeFormatError(PinotSinkError, ValueError):
    pass


@dataclass
class StarTreeView:
    index: int
    num_docs: int
    dimensions: list[str]
    function_column_pairs: list[str]
    max_leaf_records: int
    skip_star_node_creation: list[str]
    nodes: np.ndarray  # (numNodes, 7) int32
    dims: dict[str, np.ndarray] = field(default_factory=dict)
    metrics: dict[str, list] = field(default_factory=dict)

    @property
    def num_nodes(self) -> int:
        return len(self.nodes)

    def children(self, node_id: int) -> range:
        first, last = int(self.nodes[node_id, 5]), int(self.nodes[node_id, 6])
        return range(first, last + 1) if first >= 0 else range(0)


def read_star_trees(reader, decode: bool = True) -> list[StarTreeView]:
    """The star-trees of an open ``SegmentReader`` (empty when it has none)."""
    props = parse_properties(reader._read_file(METADATA_FILE, required=True))
    count = int(as_text(props.get("startree.v2.count")) or 0)
    if not count:
        return []
    data = reader._read_file(STAR_TREE_INDEX_FILE, required=True)
    index_map = parse_properties(reader._read_file(STAR_TREE_INDEX_MAP_FILE, required=True))
    buffers: dict[tuple[int, str], memoryview] = {}
    view = memoryview(data)
    for key, value in index_map.items():
        if not key.endswith(".OFFSET"):
            continue
        tree, rest = key.split(".", 1)
        name = rest[: -len(".OFFSET")]
        offset = int(as_text(value))
        size = int(as_text(index_map[key[: -len("OFFSET")] + "SIZE"]))
        buffers[(int(tree), name)] = view[offset: offset + size]
    trees = []
    for t in range(count):
        p = f"startree.v2.{t}."
        num_docs = int(as_text(props[p + "total.docs"]))
        tree = StarTreeView(
            index=t,
            num_docs=num_docs,
            dimensions=as_list(props.get(p + "split.order")),
            function_column_pairs=as_list(props.get(p + "function.column.pairs")),
            max_leaf_records=int(as_text(props[p + "max.leaf.records"])),
            skip_star_node_creation=as_list(props.get(p + "skip.star.node.creation")),
            nodes=_nodes(buffers[(t, "null.STAR_TREE")], t),
        )
        if decode:
            for dim in tree.dimensions:
                cardinality = reader.column(dim).cardinality
                tree.dims[dim] = unpack_bits(buffers[(t, f"{dim}.FORWARD_INDEX")], bits_per_value(cardinality),
                                             num_docs, f"star-tree {t} dimension {dim}").astype(np.int64)
            for pair in tree.function_column_pairs:
                tree.metrics[pair] = _metric(buffers[(t, f"{pair}.FORWARD_INDEX")], pair, num_docs)
        trees.append(tree)
    return trees


def _nodes(buf: memoryview, t: int) -> np.ndarray:
    magic, version, header_size = struct.unpack_from("<Qii", buf, 0)
    if magic != MAGIC_MARKER or version != 1:
        raise StarTreeFormatError(f"star-tree {t}: bad magic marker or version {version}")
    num_nodes = struct.unpack_from("<i", buf, header_size - 4)[0]
    return np.frombuffer(buf, dtype="<i4", count=num_nodes * 7, offset=header_size).reshape(num_nodes, 7)


def _metric(buf: memoryview, pair: str, num_docs: int) -> list:
    function = pair.split("__", 1)[0]
    if function in _LONG_FUNCTIONS:
        return read_raw_forward(buf, "LONG", True, num_docs).to_pylist()
    if function in _DOUBLE_FUNCTIONS:
        return read_raw_forward(buf, "DOUBLE", True, num_docs).to_pylist()
    blobs = read_raw_forward(buf, "BYTES", True, num_docs).to_pylist()
    if function in ("avg", "avgMV"):
        return [struct.unpack(">dq", b) for b in blobs]
    if function == "minMaxRange":
        return [struct.unpack(">dd", b) for b in blobs]
    if function == "sumPrecision":
        return [(int.from_bytes(b[2:], "big", signed=True), int.from_bytes(b[:2], "big", signed=True))
                for b in blobs]
    if function == "distinctCountBitmap":
        from pyroaring import BitMap

        return [BitMap.deserialize(b) for b in blobs]
    return blobs
