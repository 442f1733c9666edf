"""The star-tree files: ``star_tree_index``, ``star_tree_index_map`` and the ``startree.v2.*`` metadata keys.

Per tree (``StarTreeIndexCombiner``), back to back in ``star_tree_index``: the tree (``serializeTree``,
little-endian: magic 0xBADDA55B00DAD00D, version 1, header size, dimension count, per dimension its index and
UTF-8 name, node count, then per node in breadth-first order, children by dimension value with the star (-1)
first: dimensionId, dimensionValue, startDocId, endDocId, aggregatedDocId, firstChildId, lastChildId), the
dimensions' forward indexes (fixed-bit dictIds, bits from the segment dictionary's cardinality), then the
metrics' raw forward indexes (LONG / DOUBLE fixed-byte, BYTES var-byte, with the pair's compression, writer
version and chunk settings). ``star_tree_index_map`` lists each buffer's offset and size.
"""
from __future__ import annotations

import struct
from collections import deque

import numpy as np
import pyarrow as pa

from type_mapping.pinot_schema import FieldSpec

from ..bitpack import bits_per_value
from ..codecs import codec_id
from ..format import STAR_TREE_INDEX_FILE, STAR_TREE_INDEX_MAP_FILE
from ..forward_index import unsorted_forward_index
from ..properties import PropertiesWriter
from ..raw_forward import RawColumnStats, write_raw_forward
from .config import FUNCTION_NAMES, StarTreeConfig
from .tree import INVALID, Node, StarTreeRecords

MAGIC_MARKER = 0xBADDA55B00DAD00D
TREE_VERSION = 1
INDEX_FILE = STAR_TREE_INDEX_FILE
INDEX_MAP_FILE = STAR_TREE_INDEX_MAP_FILE


def tree_bytes(records: StarTreeRecords, dimensions: tuple[str, ...]) -> bytes:
    names = [d.encode("utf-8") for d in dimensions]
    header_size = 20 + sum(8 + len(n) for n in names) + 4
    head = [struct.pack("<Qii", MAGIC_MARKER, TREE_VERSION, header_size), struct.pack("<i", len(names))]
    for i, name in enumerate(names):
        head.append(struct.pack("<ii", i, len(name)) + name)
    head.append(struct.pack("<i", records.num_nodes))
    rows = []
    queue: deque[Node] = deque([records.root])
    current = 0
    while queue:
        node = queue.popleft()
        if node.children is None:
            first = last = INVALID
        else:
            ordered = sorted(node.children, key=lambda c: c.dimension_value)
            first = current + len(queue) + 1
            last = first + len(ordered) - 1
            queue.extend(ordered)
        rows.append((node.dimension_id, node.dimension_value, node.start, node.end, node.aggregated_doc_id,
                     first, last))
        current += 1
    body = np.array(rows, dtype="<i4").tobytes()
    return b"".join(head) + body


def _fixed_binary(data: bytes, width: int, count: int) -> pa.Array:
    offsets = np.arange(count + 1, dtype=np.int32) * width
    return pa.Array.from_buffers(pa.binary(), count, [None, pa.py_buffer(offsets.tobytes()), pa.py_buffer(data)])


def metric_forward_index(records: StarTreeRecords, m: int, spec, column_name: str) -> bytes:
    column = records.metrics[m]
    agg = column.agg
    arrays = column.arrays()
    codec = codec_id(spec.compression_codec)
    kwargs = dict(writer_version=spec.index_version, target_max_chunk_size=spec.target_max_chunk_size_bytes,
                  target_docs_per_chunk=spec.target_docs_per_chunk,
                  derive_num_docs_per_chunk=spec.derive_num_docs_per_chunk)
    count = len(column)
    if column.kind == "long":
        return write_raw_forward(pa.array(arrays[0], pa.int64()), FieldSpec(column_name, "LONG", "METRIC"), codec,
                                 **kwargs)
    if column.kind == "double":
        return write_raw_forward(pa.array(arrays[0], pa.float64()), FieldSpec(column_name, "DOUBLE", "METRIC"),
                                 codec, **kwargs)
    if column.kind in ("avg", "range"):  # AvgPair (sum, count) / MinMaxRangePair (min, max), big-endian
        packed = np.empty(count, dtype=[("a", ">f8"), ("b", ">i8" if column.kind == "avg" else ">f8")])
        packed["a"], packed["b"] = arrays[0], arrays[1]
        values = _fixed_binary(packed.tobytes(), 16, count)
    else:
        values = pa.array([agg.serialize(v) for v in arrays], pa.binary())
    field = FieldSpec(column_name, "BYTES", "METRIC")
    stats = RawColumnStats(length_of_longest_element=agg.max_byte_size(), total_number_of_entries=count)
    return write_raw_forward(values, field, codec, stats, **kwargs)


def tree_buffers(records: StarTreeRecords, tree: StarTreeConfig, cardinalities: dict[str, int]) -> list[tuple]:
    """``[(index key, bytes)]`` in the combiner's order; the key as in the index map (``null.STAR_TREE``,
    ``<column>.FORWARD_INDEX``)."""
    out = [("null.STAR_TREE", tree_bytes(records, tree.dimensions))]
    dims = records.dims
    for i, dim in enumerate(tree.dimensions):
        bits = bits_per_value(cardinalities[dim])
        out.append((f"{dim}.FORWARD_INDEX", bytes(unsorted_forward_index(dims[:, i], bits))))
    for m, (pair, spec) in enumerate(tree.aggregations):
        name = pair.column_name
        out.append((f"{name}.FORWARD_INDEX", metric_forward_index(records, m, spec, name)))
    return out


def combine(trees: list[list[tuple]]) -> tuple[list[bytes], bytes]:
    """The ``star_tree_index`` buffers and the ``star_tree_index_map`` bytes."""
    index_map = PropertiesWriter()
    parts: list[bytes] = []
    offset = 0
    for t, buffers in enumerate(trees):
        for key, data in buffers:
            index_map.put(f"{t}.{key}.OFFSET", offset)
            index_map.put(f"{t}.{key}.SIZE", len(data))
            parts.append(data)
            offset += len(data)
    return parts, index_map.render()


def metadata_lines(trees: list[tuple[StarTreeConfig, int]]) -> PropertiesWriter:
    """``startree.v2.count`` and per tree ``StarTreeV2Metadata.writeMetadata``'s keys; list values are one
    line per element (commons-configuration's list save)."""
    w = PropertiesWriter()
    w.put("startree.v2.count", len(trees))
    for t, (tree, total_docs) in enumerate(trees):
        p = f"startree.v2.{t}."
        w.put(p + "total.docs", total_docs)
        for dim in tree.dimensions:
            w.put(p + "split.order", dim)
        for pair in tree.pairs:
            w.put(p + "function.column.pairs", pair.column_name)
        w.put(p + "aggregation.count", len(tree.aggregations))
        for i, (pair, spec) in enumerate(tree.aggregations):
            a = f"{p}aggregation.{i}."
            w.put(a + "function.type", FUNCTION_NAMES[pair.function])
            w.put(a + "column.name", pair.column)
            for key, value in spec.function_parameters:
                w.put(a + "function.parameters." + key, value)
            w.put(a + "compression.codec", spec.compression_codec)
            w.put(a + "derive.num.docs.per.chunk", spec.derive_num_docs_per_chunk)
            w.put(a + "index.version", spec.index_version)
            w.put(a + "target.max.chunk.size.bytes", spec.target_max_chunk_size_bytes)
            w.put(a + "target.docs.per.chunk", spec.target_docs_per_chunk)
        w.put(p + "max.leaf.records", tree.max_leaf_records)
        for dim in tree.skip_star_node_creation:
            w.put(p + "skip.star.node.creation", dim)
    return w
