"""Pinot's own answers, kept as data: each tests/fixtures/functions/<family>.jsonl was made by Pinot's builder
(tools/pinot_functions/expectations.py, pinot-verify) from random and extreme rows with continueOnError; the
same schema, table config and rows through this package's pipeline must give every stored value, nulls
included (a row where Pinot's function threw is null here too)."""
from __future__ import annotations

import decimal
import json
import math
from pathlib import Path

import pyarrow as pa
import pytest

from pinot_sink.ingestion import IngestionPipeline
from pinot_sink.ingestion.functions.numeric import LIBM_FUNCTIONS
from type_mapping.java_text import big_decimal_plain_string
from type_mapping.pinot_schema import PinotSchema

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "functions"
FAMILIES = sorted(p.stem for p in FIXTURES.glob("*.jsonl"))
_ARROW = {"string": pa.string(), "int64": pa.int64(), "int32": pa.int32(), "float64": pa.float64(), "binary": pa.binary(),
          "bool": pa.bool_(), "list<string>": pa.list_(pa.string()), "list<int64>": pa.list_(pa.int64()),
          "list<int32>": pa.list_(pa.int32()), "list<float64>": pa.list_(pa.float64()),
          "map<string,int64>": pa.map_(pa.string(), pa.int64())}


def load(family: str):
    lines = [json.loads(line) for line in (FIXTURES / f"{family}.jsonl").read_text().splitlines() if line.strip()]
    return lines[0], lines[1:]


def _input_table(header: dict, rows: list[dict]) -> pa.Table:
    columns = {}
    for name, type_name in header["input_types"].items():
        values = [r["row"].get(name) for r in rows]
        if type_name.startswith("map<"):
            values = [None if v is None else list(v.items()) for v in values]
        if type_name == "binary":
            values = [None if v is None else bytes.fromhex(v) for v in values]
        columns[name] = pa.array(values, _ARROW[type_name])
    return pa.table(columns)


def _stored(value, pinot_type: str):
    """Our output value as Pinot's reader reports it (BOOLEAN as 0/1, BYTES as hex)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and math.isnan(value):
        return None  # the column's conversion stores NaN as null (Pinot's SpecialValueTransformer)
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list):
        return [_stored(v, pinot_type) for v in value]
    if pinot_type == "BIG_DECIMAL" and isinstance(value, (str, decimal.Decimal)):
        return big_decimal_plain_string(decimal.Decimal(value))  # the reader prints toPlainString
    return value


def _same(expected, ours, ulps: int = 0) -> bool:
    if isinstance(expected, float) or isinstance(ours, float):
        if ours is None or expected is None:
            return False
        if float(expected) == float(ours):
            return True
        return ulps > 0 and math.isfinite(expected) and abs(float(ours) - expected) <= ulps * math.ulp(expected)
    return expected == ours


def _ulps(expression: str) -> int:
    """A function computed with the platform's libm may differ from Java's Math by one unit in the last place
    (numeric.LIBM_FUNCTIONS, a documented difference); everything else must be exact."""
    name = expression.split("(", 1)[0].strip()
    return (2 if name == "cot" else 1) if name in LIBM_FUNCTIONS else 0


@pytest.mark.parametrize("family", FAMILIES)
def test_every_value_is_what_pinot_stored(family):
    header, rows = load(family)
    schema = PinotSchema.from_json(header["schema"])
    table = _input_table(header, rows)
    pipeline = IngestionPipeline.from_configs(schema, header["table_config"], table.schema)
    ours = pipeline.apply(table, 0).table.to_pylist()
    outputs = [f["name"] for f in header["schema"]["dimensionFieldSpecs"] if f["name"] != "row_id"]
    types = {f["name"]: f["dataType"] for f in header["schema"]["dimensionFieldSpecs"]}
    ulps = {t["columnName"]: _ulps(t["transformFunction"]) for t in header["table_config"]["ingestionConfig"]["transformConfigs"]}
    as_json = set(header.get("json_columns", []))
    wrong = []
    for i, (pinot, mine) in enumerate(zip(rows, ours)):
        for column in outputs:
            value = _stored(mine[column], types[column])
            if column in pinot["nulls"]:
                if value is not None:
                    wrong.append((i, column, pinot["row"], None, value))
            elif column in as_json:
                if value is None or json.loads(pinot["values"][column]) != json.loads(value):
                    wrong.append((i, column, pinot["row"], pinot["values"][column], value))
            elif not _same(pinot["values"][column], value, ulps[column]):
                wrong.append((i, column, pinot["row"], pinot["values"][column], value))
    by_column = {}
    for w in wrong:
        by_column.setdefault(w[1], []).append(w)
    summary = {c: (len(ws), ws[0]) for c, ws in by_column.items()}
    assert not wrong, f"{len(wrong)} values differ in {len(by_column)} columns: {summary}"


@pytest.mark.parametrize("family", FAMILIES)
def test_without_continue_on_error_the_rows_pinot_stored_whole_build(family):
    """With continueOnError off, the rows where Pinot stored a value in every column go through without an error
    and give the same values (a function failing where Java does not would fail the build here)."""
    header, rows = load(family)
    config = json.loads(json.dumps(header["table_config"]))
    transforms = config["ingestionConfig"]["transformConfigs"]
    # a column Pinot never stores (every row throws, e.g. a primitive array stored directly) is left out here
    never = {t["columnName"] for t in transforms if all(t["columnName"] in r["nulls"] for r in rows)}
    config["ingestionConfig"]["transformConfigs"] = [t for t in transforms if t["columnName"] not in never]
    whole = [r for r in rows if not set(r["nulls"]) - never]
    if not whole:
        pytest.skip("no row without a null")
    config["ingestionConfig"]["continueOnError"] = False
    table = _input_table(header, whole)
    pipeline = IngestionPipeline.from_configs(PinotSchema.from_json(header["schema"]), config, table.schema)
    ours = pipeline.apply(table, 0).table.to_pylist()
    types = {f["name"]: f["dataType"] for f in header["schema"]["dimensionFieldSpecs"]}
    ulps = {t["columnName"]: _ulps(t["transformFunction"]) for t in config["ingestionConfig"]["transformConfigs"]}
    as_json = set(header.get("json_columns", []))
    wrong = [(c, p["row"]) for p, mine in zip(whole, ours) for c in ulps
             if (json.loads(p["values"][c]) != json.loads(mine[c]) if c in as_json
                 else not _same(p["values"][c], _stored(mine[c], types[c]), ulps[c]))]
    assert not wrong, wrong[:3]


def test_a_row_pinot_fails_fails_the_build_without_continue_on_error():
    header, rows = load("timestamp_arith")
    bad = [r for r in rows if r["row"]["unit"] == "days" and r["row"]["t1"] is not None][:3]
    config = json.loads(json.dumps(header["table_config"]))
    config["ingestionConfig"]["continueOnError"] = False
    config["ingestionConfig"]["transformConfigs"] = [{"columnName": "date_add_col",
                                                      "transformFunction": "dateAdd(unit, n, t1)"}]
    table = _input_table(header, bad)
    schema = PinotSchema.from_json(header["schema"])
    from pinot_sink.ingestion.values import IngestionError

    with pytest.raises(IngestionError, match=r"row 0.*'days' is not a valid Timestamp field"):
        IngestionPipeline.from_configs(schema, config, table.schema).apply(table, 0)
    config["ingestionConfig"]["continueOnError"] = True
    result = IngestionPipeline.from_configs(schema, config, table.schema).apply(table, 0)
    assert result.error_rows == len(bad) and result.table.column("date_add_col").null_count == len(bad)
