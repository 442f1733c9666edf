"""Pinot's ComplexTypeTransformer on nested lists and maps: rows with a list of maps that hold lists of maps (and
empty ones), built by Pinot's own builder (pinot-verify) with ``fieldsToUnnest`` at two levels and at the top
only, kept as tests/fixtures/complex_types/unnest_nested.json and replayed by
tests/ingestion/test_complex_nested.py.

    python tools/pinot_functions/complex_cases.py      # needs ~/pinot-verify (not the tests)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from expectations import COMMIT, ROOT, run_pinot  # noqa: E402

SCHEMA = {"schemaName": "t", "dimensionFieldSpecs": [
    {"name": "id", "dataType": "INT"}, {"name": "a.x", "dataType": "STRING"}, {"name": "a.b.c", "dataType": "INT"},
    {"name": "a.b", "dataType": "STRING"}, {"name": "a.m.k", "dataType": "STRING"}, {"name": "a.l", "dataType": "STRING"},
    {"name": "a.l.z", "dataType": "INT"}, {"name": "a.b.d.e", "dataType": "INT"}]}
ROWS = [
    {"id": 1, "a": [{"x": "p", "b": [{"c": 1, "d": None}, {"c": 2, "d": None}], "m": {"k": "v1"}, "l": None},
                    {"x": "q", "b": [{"c": 3, "d": None}], "m": {"k": "v2"}, "l": [{"z": 1}, {"z": 2}]}]},
    {"id": 2, "a": [{"x": "r", "b": [], "m": None, "l": []}, {"x": "s", "b": None, "m": None, "l": None}]},
    {"id": 3, "a": [{"x": "t", "b": [{"c": 4, "d": {"e": 5}}, {"c": 6, "d": None}], "m": None, "l": [{"z": 3}]}]},
    {"id": 4, "a": []},
    {"id": 5, "a": None},
    {"id": 6, "a": [{"x": None, "b": [{"c": None, "d": {"e": None}}], "m": {"k": None}, "l": [{"z": None}]}]},
]
CONFIGS = {"two_levels": ["a", "a.b"], "top_only": ["a"], "three_fields": ["a", "a.b", "a.l"]}
# lists not unnested into JSON and multi-value STRING columns: an empty one stays an array (NON_PRIMITIVE), which a
# JSON column prints "[]"
JSON_SCHEMA = {"schemaName": "t", "dimensionFieldSpecs": [
    {"name": "id", "dataType": "INT"}, {"name": "a.b", "dataType": "JSON"}, {"name": "l", "dataType": "JSON"},
    {"name": "m", "dataType": "STRING", "singleValueField": False}, {"name": "a.s", "dataType": "STRING"}]}
JSON_ROWS = [{"id": 1, "a": [{"b": [], "s": []}], "l": [], "m": []},
             {"id": 2, "a": [{"b": [{"c": 1}], "s": [{"c": 2}]}], "l": [{"x": 1}], "m": [{"x": 1}]},
             {"id": 3, "a": [{"b": None, "s": None}], "l": None, "m": None}]


def main() -> Path:
    out = {"pinot_commit": COMMIT, "made_by": "tools/pinot_functions/complex_cases.py", "schema": SCHEMA, "rows": ROWS,
           "cases": {}}
    runs = [(name, fields, SCHEMA, ROWS) for name, fields in CONFIGS.items()] + [("json_columns", ["a"], JSON_SCHEMA,
                                                                                  JSON_ROWS)]
    for name, fields, schema, rows in runs:
        config = {"tableName": "t", "tableType": "OFFLINE", "segmentsConfig": {"replication": "1"},
                  "tableIndexConfig": {"loadMode": "MMAP", "nullHandlingEnabled": True}, "tenants": {}, "metadata": {},
                  "ingestionConfig": {"continueOnError": True, "complexTypeConfig": {"fieldsToUnnest": fields}}}
        docs = run_pinot(schema, config, rows)
        out["cases"][name] = {"table_config": config, **({} if schema is SCHEMA else {"schema": schema, "rows": rows}),
                              "pinot_rows": [{k: (None if k in (d.get("nulls") or []) else v)
                                              for k, v in d["values"].items()} for d in docs]}
    path = ROOT / "tests" / "fixtures" / "complex_types" / "unnest_nested.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n")
    return path


if __name__ == "__main__":
    print(main())
