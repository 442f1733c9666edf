"""The strongest check of the normalisation: the rows Pinot itself ingested, converted by us, must read
back exactly as Pinot's own reader returned them (values and null-vector docs)."""
from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

from type_mapping import PinotSchema
from type_mapping.convert import to_pinot_columns
from type_mapping.reconcile import plan_write
from type_mapping.table_config import TableConfig

# How a DataFrame would carry each Pinot type (BIG_DECIMAL as text: the fixture's values have mixed scales).
SOURCE_TYPE = {
    "INT": pa.int32(), "LONG": pa.int64(), "FLOAT": pa.float32(), "DOUBLE": pa.float64(),
    "BIG_DECIMAL": pa.string(), "BOOLEAN": pa.bool_(), "TIMESTAMP": pa.timestamp("ms", tz="UTC"),
    "STRING": pa.string(), "JSON": pa.string(), "BYTES": pa.binary(),
}


def _load(case_dir):
    schema = PinotSchema.from_json(json.loads((case_dir / "schema.json").read_text()))
    table_config = json.loads((case_dir / "table_config.json").read_text())
    rows = [json.loads(line) for line in (case_dir / "rows.jsonl").read_text().splitlines() if line]
    dump = [json.loads(line) for line in (case_dir / "dump-rows.jsonl").read_text().splitlines() if line]
    columns = {}
    for spec in schema:
        values = [row.get(spec.name) for row in rows]
        if spec.data_type == "BYTES":
            values = [None if v is None else bytes.fromhex(v) for v in values]
        value_type = SOURCE_TYPE[spec.data_type]
        columns[spec.name] = pa.array(values, value_type if spec.single_value else pa.list_(value_type))
    return schema, table_config, pa.table(columns), dump


def _same(spec, got, expected) -> bool:
    if not spec.single_value:
        return len(got) == len(expected) and all(_same_value(spec, g, e) for g, e in zip(got, expected))
    return _same_value(spec, got, expected)


def _same_value(spec, got, expected) -> bool:
    if spec.data_type == "FLOAT":  # the dump prints float32 values with their shortest digits
        return np.float32(got) == np.float32(float(expected)) and np.signbit(np.float32(got)) == np.signbit(
            np.float32(float(expected)))
    if spec.data_type == "DOUBLE":
        return got == float(expected) and np.signbit(got) == np.signbit(float(expected))
    if spec.data_type == "BYTES":
        return got.hex() == expected
    return got == expected


@pytest.mark.parametrize("case", ["all_types_dict", "all_types_nulls", "raw_codecs"])
def test_conversion_matches_what_pinot_read_back(pinot_built, case):
    schema, table_config, table, dump = _load(pinot_built / case)
    columns = to_pinot_columns(table, schema, plan_write(table.schema, schema, table_config=TableConfig.from_json(table_config, schema)))
    columns.validate(schema)
    assert columns.num_rows == len(dump)
    mismatches = []
    for spec in schema:
        got = columns.table.column(spec.name).to_pylist()
        mask = columns.null_masks.get(spec.name, np.zeros(columns.num_rows, dtype=np.bool_))
        for doc in dump:
            row = doc["docId"]
            if not _same(spec, got[row], doc["values"][spec.name]):
                mismatches.append((spec.name, row, got[row], doc["values"][spec.name]))
            if "nulls" in doc and bool(mask[row]) != (spec.name in doc["nulls"]):
                mismatches.append((spec.name, row, "null mask", bool(mask[row])))
    assert mismatches == []


def test_fixture_exercises_the_normalisation(pinot_built):
    """Guard that the comparison above is not vacuous: the fixture holds the cases it is meant to."""
    schema, table_config, table, dump = _load(pinot_built / "all_types_nulls")
    raw = table.to_pydict()
    assert any(v is not None and v == 0 and np.signbit(v) for v in raw["f"])  # -0.0
    assert "1.50" in raw["bd"]  # trailing zero
    assert [] in raw["mi"]  # empty MV
    assert any(doc["nulls"] for doc in dump)
