"""What Pinot's own reader returned (a ``pinot-segment-dump`` of rows), turned into the values
``pinot_sink.read`` must give, and the row-for-row comparison (tests/test_reading.py, the Spark reader's test).

The dump's values are Pinot's stored form (BOOLEAN 0/1, TIMESTAMP epoch millis, BYTES hex, BIG_DECIMAL
``toPlainString``, FLOAT ``Float.toString``, non-finite numbers as text); a row whose doc the null vector marks
(``nulls``) must read as null; every other value as Pinot returned it.
"""
from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path

import numpy as np


def dump_rows(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r.get("kind", "row") == "row"]
    return sorted(rows, key=lambda r: r["docId"])


def dump_types(columns_dump: Path) -> dict[str, tuple[str, bool]]:
    """column -> (Pinot data type, single value) from a ``dump-columns.jsonl`` (its metadata line)."""
    for line in Path(columns_dump).read_text().splitlines():
        record = json.loads(line)
        if record.get("kind") == "metadata":
            return {c["columnName"]: (c["dataType"], c["singleValue"]) for c in record["columns"]}
    raise AssertionError(f"{columns_dump}: no metadata line")


def _scalar(value, data_type: str):
    if data_type in ("FLOAT", "DOUBLE"):
        number = float(value)
        return float(np.float32(number)) if data_type == "FLOAT" else number
    if data_type == "BOOLEAN":
        return bool(value)
    if data_type == "TIMESTAMP":
        return int(value)
    if data_type == "BYTES":
        return bytes.fromhex(value)
    if data_type == "BIG_DECIMAL":
        return str(value)  # toPlainString
    return value


def _ours(value, data_type: str):
    if data_type == "TIMESTAMP":
        assert value.tzinfo is not None, value
        return round(value.timestamp() * 1000)
    if data_type == "BIG_DECIMAL":
        assert isinstance(value, str) and "E" not in value, value  # toPlainString, as Pinot's query results
        return value
    if data_type == "FLOAT":
        return float(np.float32(value))
    return value


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)  # -0.0 stays -0.0
    return a == b


def compare(table, rows: list[dict], types: dict[str, tuple[str, bool]], columns=None) -> int:
    """Assert ``table`` (pyarrow) holds ``rows`` in order; returns the number of values compared."""
    names = list(columns) if columns is not None else sorted(types)
    assert table.num_rows == len(rows), (table.num_rows, len(rows))
    compared = 0
    for name in names:
        data_type, single = types[name]
        got = table.column(name).to_pylist()
        for doc, (value, row) in enumerate(zip(got, rows)):
            if name in (row.get("nulls") or []):
                assert value is None, f"column {name} doc {doc}: {value!r}, Pinot's null vector marks it null"
                continue
            expected = row["values"][name]
            assert value is not None, f"column {name} doc {doc}: null, Pinot read {expected!r}"
            if single:
                ok = _same(_ours(value, data_type), _scalar(expected, data_type))
            else:
                ok = len(value) == len(expected) and all(
                    _same(_ours(v, data_type), _scalar(e, data_type)) for v, e in zip(value, expected))
            assert ok, f"column {name} doc {doc}: {value!r}, Pinot read {expected!r}"
            compared += 1
    return compared


def millis(moment: datetime) -> int:
    return round(moment.replace(tzinfo=moment.tzinfo or timezone.utc).timestamp() * 1000)
