"""Segments for the reader's lifetime and memory tests (tests/test_read_lifetimes.py, bench-free): every
layout the reader decodes into arrays of its own, large enough (60k rows) that they come from Arrow's pool
(``segment/read/pooled.py``: 64 KiB and up): sorted columns of runs, of one run, of 1-doc runs, fixed-width
text (sorted and not), variable text, BYTES, BIG_DECIMAL, JSON, multi-value, nulls, raw columns."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pinot_sink.segment.builder import build_segment
from type_mapping.pinot_schema import PinotSchema
from type_mapping.stored import PinotColumns
from type_mapping.table_config import TableConfig

ROWS = 60_000

SCHEMA = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
    {"name": "runs", "dataType": "INT"}, {"name": "text_runs", "dataType": "STRING"},
    {"name": "one_run", "dataType": "LONG"}, {"name": "unique", "dataType": "LONG"},
    {"name": "fixed", "dataType": "STRING"}, {"name": "var", "dataType": "STRING"},
    {"name": "by", "dataType": "BYTES"}, {"name": "bd", "dataType": "BIG_DECIMAL"},
    {"name": "j", "dataType": "JSON"}, {"name": "raw_s", "dataType": "STRING"},
    {"name": "mi", "dataType": "INT", "singleValueField": False},
    {"name": "ms", "dataType": "STRING", "singleValueField": False},
], "metricFieldSpecs": [{"name": "d", "dataType": "DOUBLE"}, {"name": "l", "dataType": "LONG"},
                        {"name": "raw_l", "dataType": "LONG"}]})


def stress_table(seed: int, rows: int = ROWS) -> tuple[pa.Table, dict[str, np.ndarray]]:
    """The stored values of segment ``seed`` (each seed its own values) and its null masks."""
    rng = np.random.default_rng(seed)
    words = np.array([f"w{seed}-{i}-" + "x" * (i % 13) for i in range(3000)])
    codes = np.array([f"c{seed:03d}-{i:08d}" for i in range(8000)])  # one width (Arrow's fixed-size take), 104 KB
    lengths = rng.integers(1, 4, rows)
    offsets = pa.array(np.concatenate(([0], np.cumsum(lengths))).astype(np.int32))
    entries = int(lengths.sum())
    table = pa.table({
        "runs": pa.array((np.arange(rows) // 7 + seed).astype(np.int32)),
        "text_runs": pa.array([f"k{seed:03d}-{i // 100:06d}" for i in range(rows)]),
        "one_run": pa.array(np.full(rows, seed, dtype=np.int64)),
        "unique": pa.array(np.arange(rows, dtype=np.int64) * 3 + seed),
        "fixed": pa.array(codes[rng.integers(0, len(codes), rows)]),
        "var": pa.array(words[rng.integers(0, len(words), rows)]),
        "by": pa.array([bytes([seed % 256, int(k) % 256, 7]) * int(k % 5) for k in rng.integers(0, 5000, rows)],
                       pa.binary()),
        "bd": pa.array([f"{int(k)}.{seed}5" for k in rng.integers(-10**6, 10**6, rows)]),
        "j": pa.array([f'{{"k":{int(k)},"s":{seed}}}' for k in rng.integers(0, 4000, rows)]),
        "raw_s": pa.array(words[rng.integers(0, len(words), rows)]),
        "mi": pa.ListArray.from_arrays(offsets, pa.array(rng.integers(0, 9000, entries).astype(np.int32))),
        "ms": pa.ListArray.from_arrays(offsets, pa.array(words[rng.integers(0, len(words), entries)])),
        "d": pa.array(rng.random(rows)),
        "l": pa.array(rng.integers(-(2**40), 2**40, rows)),
        "raw_l": pa.array(rng.integers(-(2**40), 2**40, rows)),
    })
    masks = {name: np.zeros(rows, dtype=np.bool_) for name in table.column_names}
    masks["l"][seed % 5::5] = True
    masks["var"][seed % 11::11] = True
    for name in ("l", "var"):  # a null row holds the column's default, as the conversion leaves it
        default = pa.scalar(-(2**63) if name == "l" else "null", table.schema.field(name).type)
        column = table.column(name).combine_chunks()
        table = table.set_column(table.column_names.index(name), name,
                                 pc.if_else(pa.array(masks[name]), default, column))
    return table, masks


def build_stress_segment(folder, seed: int, rows: int = ROWS):
    table, masks = stress_table(seed, max(rows, 1))
    table, masks = table.slice(0, rows), {name: mask[:rows] for name, mask in masks.items()}
    config = TableConfig.from_json({"tableName": "t", "tableType": "OFFLINE", "tableIndexConfig": {
        "nullHandlingEnabled": True, "noDictionaryColumns": ["raw_s", "raw_l"]}}, SCHEMA)
    return build_segment(PinotColumns(table, masks), SCHEMA, config, folder, f"t_{seed}", 1).tar_path
