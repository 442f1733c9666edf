"""Reads a star-tree back and checks it against the raw rows: every node's pre-aggregated record, and every leaf
record, equals the same aggregation computed directly over the rows its path selects (not with the builder's
aggregators). Shared by the star-tree tests and the quickstart tables' test."""
from __future__ import annotations

import math
import struct
from decimal import Decimal

import numpy as np

from pinot_sink.segment.startree import hll
from pinot_sink.segment.startree.aggregators import DistinctCountHLLPlus

STAR = -1


def _java_string_hash(text: str) -> int:
    h = 0
    for unit in struct.unpack(f">{len(text.encode('utf-16-be')) // 2}H", text.encode("utf-16-be")):
        h = (31 * h + unit) & 0xFFFFFFFF
    return h


def _expected(function: str, column_values: list, stored: str):
    """The aggregation over raw rows, computed directly (not with the builder's aggregators)."""
    flat = []
    for v in column_values:
        flat.extend(v if isinstance(v, list) else [v])
    if function == "count":
        return len(column_values)
    if function == "countMV":
        return len(flat)
    if function in ("sum", "sumMV"):
        return math.fsum(float(Decimal(str(v))) for v in flat)
    if function == "min":
        return min(float(v) for v in flat)
    if function == "max":
        return max(float(v) for v in flat)
    if function in ("avg", "avgMV"):
        return (math.fsum(float(v) for v in flat), len(flat))
    if function == "minMaxRange":
        return (min(float(v) for v in flat), max(float(v) for v in flat))
    if function == "sumPrecision":
        return sum(Decimal(str(v)) for v in flat)
    if function == "distinctCountBitmap":
        return {_java_hash_code(v, stored) for v in flat}
    if function in ("distinctCountHLL", "distinctCountHLLPlus"):
        return flat  # compared register by register in _same
    raise AssertionError(function)


def _java_hash_code(v, stored: str) -> int:
    """``Object.hashCode()`` of the boxed value, as an unsigned 32-bit int."""
    if stored == "STRING":
        return _java_string_hash(v)
    if stored == "LONG":
        v &= 0xFFFFFFFFFFFFFFFF
        return (v ^ (v >> 32)) & 0xFFFFFFFF
    if stored == "DOUBLE":
        bits = struct.unpack(">Q", struct.pack(">d", v))[0]
        return (bits ^ (bits >> 32)) & 0xFFFFFFFF
    if stored == "FLOAT":
        return struct.unpack(">I", struct.pack(">f", v))[0]
    return int(v) & 0xFFFFFFFF


def _hll_hash(v, stored: str) -> int:
    if stored == "STRING":
        return hll.hash_bytes(v.encode("utf-8"))
    if stored == "FLOAT":
        return hll.hash_long(struct.unpack(">i", struct.pack(">f", v))[0])
    if stored == "DOUBLE":
        return hll.hash_long(struct.unpack(">q", struct.pack(">d", v))[0])
    return hll.hash_long(int(v))


def _same(function: str, got, want, stored: str = "") -> bool:
    if function == "distinctCountHLLPlus":  # registers from each value's Java toString() text
        registers, p = hll.plus_deserialize(got)
        text = DistinctCountHLLPlus(stored, True, {"p": p}).text
        return bool((registers == hll.plus_registers([hll.hash64(text(v).encode()) for v in want], p)).all())
    if function == "distinctCountHLL":  # registers: each the max rank of the values hashed to it
        registers, log2m = hll.deserialize(got)
        hashes = np.array([_hll_hash(v, stored) for v in want], dtype=np.uint32)
        return bool((registers == hll.registers_from_hashes(hashes, log2m)).all())
    if function in ("sum", "sumMV"):
        return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-6)
    if function in ("avg", "avgMV"):
        return got[1] == want[1] and math.isclose(got[0], want[0], rel_tol=1e-9, abs_tol=1e-6)
    if function == "sumPrecision":
        unscaled, scale = got
        return Decimal(unscaled).scaleb(-scale) == want
    if function == "distinctCountBitmap":
        return set(got) == want
    return got == want


def check_tree_against_rows(reader, tree) -> int:
    """Every node's aggregated record, and every leaf record, against the raw rows its path selects.
    Returns the number of records checked."""
    dim_ids = {d: np.asarray(reader.dict_ids(d)) for d in tree.dimensions}
    raw = {}
    for pair in tree.function_column_pairs:
        column = pair.split("__", 1)[1]
        if column != "*" and column not in raw:
            raw[column] = reader.stored_values(column).to_pylist()
    total = reader.metadata.total_docs
    checked = 0

    def check(doc: int, constraint: dict[int, int]) -> None:
        nonlocal checked
        selected = np.ones(total, dtype=bool)
        for i, value in constraint.items():
            selected &= dim_ids[tree.dimensions[i]] == value
        rows = np.flatnonzero(selected).tolist()
        assert rows, f"tree {tree.index}: record {doc} selects no row ({constraint})"
        for pair in tree.function_column_pairs:
            function, column = pair.split("__", 1)
            values = [None] * len(rows) if column == "*" else [raw[column][r] for r in rows]
            stored = "" if column == "*" else reader.column(column).data_type
            want = _expected(function, values, stored)
            got = tree.metrics[pair][doc]
            assert _same(function, got, want, stored), f"tree {tree.index} record {doc} {pair}: {got!r} != {want!r}"
        checked += 1

    stack = [(0, {})]
    while stack:
        node_id, path = stack.pop()
        dim_id, value, start, end, agg_doc, first, _ = (int(x) for x in tree.nodes[node_id])
        if node_id:
            path = {**path, dim_id: value}
        check(agg_doc, {i: v for i, v in path.items() if v != STAR})
        children = tree.children(node_id)
        if not children:
            for doc in range(start, end):
                constraint = {}
                for i, d in enumerate(tree.dimensions):
                    if path.get(i, 0) != STAR:
                        constraint[i] = int(tree.dims[d][doc])
                check(doc, constraint)
        for child in children:
            stack.append((child, path))
    return checked
