"""Dictionary-encoded input columns (Arrow ``dictionary``) of the builder: a single-value column whose rows
come as dictIds over a dictionary of stored values (any order, repeats and unused values allowed), as a
compaction reads them from segments. Where nothing but its dictIds and dictionary is needed, the builder takes
its dictionary from ``dictionary_of_encoded`` (work per distinct value, plus one remap of the dictIds) and never
decodes its rows; elsewhere ``decoded_unless_encodable`` decodes it first. The bytes are those of the decoded
rows either way (tests/segment/test_encoded_columns.py).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyarrow as pa

from type_mapping.pinot_schema import PinotSchema
from type_mapping.stored import PinotColumns

from .dictionary import Dictionary, build_dictionary
from .index_policy import has_dict_ids
from .table_config import TableIndexSettings


def dictionary_of_encoded(column: pa.ChunkedArray, stored_type: str, name: str) -> Dictionary:
    """What ``build_dictionary`` gives for the decoded values of a dictionary-encoded single-value column
    (Arrow ``dictionary`` chunks, no nulls), without decoding its rows: the dictionary of its chunks'
    dictionaries put together (any order, repeats allowed), each row's dictId mapped through it, and values
    no row uses left out. A compaction's rows come this way (a segment's dictIds and its dictionary): the
    work is per distinct value, not per row."""
    chunks = [chunk for chunk in column.chunks if len(chunk)]
    if not chunks:
        return build_dictionary(pa.array([], type=column.type.value_type), stored_type, name)
    merged = build_dictionary(pa.concat_arrays([chunk.dictionary for chunk in chunks]), stored_type, name)
    ids = np.empty(len(column), dtype=merged.dict_ids.dtype)
    used = None  # the merged values some row uses, once a chunk is found not to use all of its dictionary
    at = offset = 0
    for chunk in chunks:
        indices = chunk.indices.to_numpy(zero_copy_only=False)
        mapping = merged.dict_ids[offset:offset + len(chunk.dictionary)]
        ids[at:at + len(chunk)] = mapping[indices]
        chunk_used = np.zeros(len(chunk.dictionary), dtype=np.bool_)  # small: the chunk's dictionary
        chunk_used[indices] = True
        if used is not None or not chunk_used.all():
            if used is None:
                used = np.zeros(merged.cardinality, dtype=np.bool_)
                used[merged.dict_ids[:offset]] = True  # the earlier chunks used all of theirs
            used[mapping[chunk_used]] = True
        at += len(chunk)
        offset += len(chunk.dictionary)
    if used is not None and not used.all():  # a dictionary of the used values only, ids renumbered
        renumber = (np.cumsum(used) - 1).astype(ids.dtype)
        merged = build_dictionary(merged.values.filter(pa.array(used)), stored_type, name)
        ids = renumber[ids]
    merged.dict_ids = ids
    return merged


def decoded_unless_encodable(columns: PinotColumns, schema: PinotSchema, settings: TableIndexSettings,
                              star_columns: set[str]) -> PinotColumns:
    """The rows with every dictionary-encoded (Arrow ``dictionary``) column decoded but those built from their
    dictionary and dictIds alone (``dictionary_of_encoded``): single-value, surely dictionary-encoded in the
    segment, no default to fill, and nothing else reading their values (partitions, star-trees, TIMESTAMP
    indexes). The same bytes either way; the encoded ones skip the per-row work."""
    table = columns.table
    for spec in schema:
        column = table.column(spec.name)
        if not pa.types.is_dictionary(column.type):
            continue
        c = settings.columns[spec.name]
        heuristics = settings.optimize_dictionary or settings.optimize_dictionary_for_metrics
        if (spec.single_value and has_dict_ids(c) and (c.inverted or not heuristics)
                and spec.name not in columns.defaults and spec.name not in star_columns
                and spec.name not in settings.partitions and not c.timestamp_granularities):
            continue
        decoded = pa.chunked_array([chunk.dictionary_decode() for chunk in column.chunks], column.type.value_type)
        table = table.set_column(table.schema.get_field_index(spec.name), spec.name, decoded)
    if table is columns.table:
        return columns
    return replace(columns, table=table)
