"""Star-tree indexes, built natively with Pinot's bytes (``MultipleTreesBuilder``).

``build_star_trees`` takes the segment's columns as the builder has them (dictIds and values in segment
order) and returns the two files and the metadata lines to append; ``validate_star_tree_configs`` is the
driver-side check. The parts: ``config`` (what trees), ``aggregators`` / ``hll`` (the values), ``quicksort``
(Java's record order), ``tree`` (records and nodes), ``writer`` (bytes).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import TableConfig

from .aggregators import UnsupportedAggregation, make_aggregator
from .config import (StarTreeConfig, StarTreeConfigError, default_config, explicit_configs, has_star_trees,
                     validate_star_tree_configs)
from .tree import StarTreeRecords, build_tree
from .writer import INDEX_FILE, INDEX_MAP_FILE, combine, metadata_lines, tree_buffers

__all__ = ["StarTreeConfigError", "StarTreeOutput", "build_star_trees", "has_star_trees", "needed_columns",
           "validate_star_tree_configs", "INDEX_FILE", "INDEX_MAP_FILE"]


@dataclass
class StarTreeColumn:
    """One column as the star-tree reads it, in segment order."""

    has_dictionary: bool
    cardinality: int
    dict_ids: np.ndarray | None  # dictionary column: dictId per doc (MV: per value), segment order
    dictionary_values: Any  # the distinct values (Arrow array) or None
    values: Any  # the column's values (Arrow), for a raw column
    row_lengths: np.ndarray | None  # MV: values per doc
    stored_type: str
    single_value: bool

    def numeric_values(self) -> np.ndarray | None:
        """Single-value number columns: every doc's value as a double (``Number.doubleValue``)."""
        if not self.single_value or self.stored_type not in ("INT", "LONG", "FLOAT", "DOUBLE"):
            return None
        if self.has_dictionary and self.dict_ids is not None:
            distinct = self.dictionary_values.to_numpy(zero_copy_only=False).astype(np.float64)
            return distinct[self.dict_ids]
        values = self.values.combine_chunks() if hasattr(self.values, "combine_chunks") else self.values
        return values.to_numpy(zero_copy_only=False).astype(np.float64)

    def raw_values(self) -> list:
        """Per doc the value Pinot's column reader returns (MV: a list)."""
        if self.has_dictionary and self.dict_ids is not None:
            distinct = self.dictionary_values.to_pylist()
            flat = [distinct[i] for i in self.dict_ids.tolist()]
        else:
            values = self.values
            if not self.single_value:
                values = values.combine_chunks().flatten() if hasattr(values, "combine_chunks") else values.flatten()
            flat = values.to_pylist()
        if self.single_value:
            return flat
        out, pos = [], 0
        for n in self.row_lengths.tolist():
            out.append(flat[pos: pos + n])
            pos += n
        return out


@dataclass
class StarTreeOutput:
    files: dict[str, list[bytes]]  # star_tree_index (its buffers), star_tree_index_map
    metadata: bytes  # the startree.v2.* lines to append to metadata.properties
    trees: list[tuple[StarTreeConfig, StarTreeRecords]]


def needed_columns(table_config: TableConfig, schema: PinotSchema) -> set[str]:
    """The columns the star-trees read (all of them for the default tree, decided from the data)."""
    configs = explicit_configs(table_config)
    if table_config.indexes.star_trees.enable_default:
        return {s.name for s in schema}
    names: set[str] = set()
    for tree in configs:
        names.update(tree.dimensions)
        names.update(p.column for p in tree.pairs if p.column != "*")
    return names


def build_star_trees(table_config: TableConfig, schema: PinotSchema,
                     columns: Mapping[str, StarTreeColumn], total_docs: int) -> StarTreeOutput | None:
    """The star-trees the table config asks for, or None when it asks for none."""
    trees = explicit_configs(table_config)
    if table_config.indexes.star_trees.enable_default:
        tree = default_config(schema, {name: (c.has_dictionary, c.cardinality) for name, c in columns.items()})
        if tree not in trees:
            trees.append(tree)
    if not trees:
        return None
    built: list[tuple[StarTreeConfig, StarTreeRecords]] = []
    buffers = []
    raw_cache: dict[str, list] = {}
    numeric_cache: dict[str, np.ndarray | None] = {}
    for tree in trees:
        dim_ids = np.empty((total_docs, len(tree.dimensions)), dtype=np.int64)
        for i, dim in enumerate(tree.dimensions):
            c = columns.get(dim)
            if c is None or not c.has_dictionary or c.dict_ids is None or not c.single_value:
                raise StarTreeConfigError(f"{tree.label}: dimension {dim!r} must be a single-value column with a "
                                          f"dictionary")
            dim_ids[:, i] = c.dict_ids
        aggregators, raws = [], []
        for pair, spec in tree.aggregations:
            try:
                if pair.column == "*":
                    agg = make_aggregator(pair.function, "LONG", True, {})
                    aggregators.append(agg)
                    raws.append(agg.initial_block(None, None, total_docs))
                    continue
                c = columns[pair.column]
                agg = make_aggregator(pair.function, c.stored_type, c.single_value, dict(spec.function_parameters))
                numeric = None
                if agg.kind != "object":  # pairs on one column share its doubles (and the tree gathers them once)
                    if pair.column not in numeric_cache:
                        numeric_cache[pair.column] = c.numeric_values()
                    numeric = numeric_cache[pair.column]
                raw = None
                if numeric is None:
                    if pair.column not in raw_cache:
                        raw_cache[pair.column] = c.raw_values()
                    raw = raw_cache[pair.column]
                aggregators.append(agg)
                raws.append(agg.initial_block(numeric, raw, total_docs))
            except UnsupportedAggregation as exc:
                raise StarTreeConfigError(f"{tree.label}: function pair {pair.column_name}: {exc}") from None
        skip = {tree.dimensions.index(d) for d in tree.skip_star_node_creation}
        try:
            records = build_tree(dim_ids, raws, skip, tree.max_leaf_records, aggregators)
        except UnsupportedAggregation as exc:
            raise StarTreeConfigError(f"{tree.label}: {exc}") from None
        built.append((tree, records))
        cardinalities = {d: columns[d].cardinality for d in tree.dimensions}
        buffers.append(tree_buffers(records, tree, cardinalities))
    parts, index_map = combine(buffers)
    metadata = metadata_lines([(tree, records.num_docs) for tree, records in built]).render()
    return StarTreeOutput({INDEX_FILE: parts, INDEX_MAP_FILE: [index_map]}, metadata, built)
