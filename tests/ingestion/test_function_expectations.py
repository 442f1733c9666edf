"""Pinot's own answers, kept as data, replayed through this package: one table per family,
tests/fixtures/functions/<family>.jsonl, made by Pinot's builder (tools/pinot_functions/expectations.py with
pinot-verify; never run by the tests) from random and extreme rows (tools/pinot_functions/families.py) with
continueOnError on. A header line (Pinot commit, schema, table config, the inputs' Arrow types), then one line per
row: the input row, Pinot's stored values and the columns its null vector marks.

Each output column is a case, run alone (its transform, and the helper transforms it reads):

* with ``continueOnError`` on: the same value in every row, nulls included (a row where Pinot's function threw
  is null here too); where the family has ``isNotNull(<expression>)`` beside the case (a family of cases), that
  column tells a failure from a null, so the rows this package counts failed must be Pinot's;
* with it off: where the failures are known, the build fails exactly when Pinot's would, at the first row Pinot
  fails on; elsewhere the rows where Pinot stored a value go through whole and give the same values.
"""
from __future__ import annotations

import decimal
import functools
import json
import math
import os
from functools import lru_cache
from pathlib import Path

import pyarrow as pa
import pytest

from javalib.floating_decimal import java17_float_string
from pinot_sink.ingestion import IngestionError, IngestionPipeline
from pinot_sink.ingestion.functions.arithmetic_functions import LIBM_FUNCTIONS
from type_mapping.java_text import big_decimal_plain_string, java_substring
from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import TableConfig

# (a sweep's tables elsewhere, tools/pinot_functions/expectations.py --out, are replayed by naming their folder)
FIXTURES = Path(os.environ.get("PINOT_SINK_FUNCTION_FIXTURES") or Path(__file__).resolve().parents[1] / "fixtures" / "functions")
FAMILIES = sorted(p.stem for p in FIXTURES.glob("*.jsonl"))
_ARROW = {"string": pa.string(), "int64": pa.int64(), "int32": pa.int32(), "float64": pa.float64(), "binary": pa.binary(),
          "bool": pa.bool_(), "list<string>": pa.list_(pa.string()), "list<int64>": pa.list_(pa.int64()),
          "list<int32>": pa.list_(pa.int32()), "list<float64>": pa.list_(pa.float64()),
          "map<string,int64>": pa.map_(pa.string(), pa.int64())}

# Cases where this package still differs from Pinot (issue 23), each to be fixed and removed from here: strict
# xfail, so a fix that makes one pass is noticed. (continueOnError on / off, case id)
KNOWN_DIFFERENCES = {
}
# The random differential search's cases (tools/pinot_functions/differential.py --keep) still differing, kept
# with Pinot's answers in tests/fixtures/functions/diff_*.jsonl: (mode, case id) pairs, strict xfails as above
_SEARCH_LEFT = FIXTURES / "diff_known_differences.json"
if _SEARCH_LEFT.exists():
    KNOWN_DIFFERENCES = {**KNOWN_DIFFERENCES, **{(mode, case_id): "differential search"
                                                 for mode, case_id in json.loads(_SEARCH_LEFT.read_text())}}
# ... and those a documented deliberate difference explains (docs/ingestion.md, "The random differential
# search": a pattern from a column, which Pinot's function object compiles once; an array of over 2^24
# elements): (mode, case id, rule) triples, strict xfails too, so Pinot's answers stay on record
_DELIBERATE = FIXTURES / "diff_deliberate_differences.json"
if _DELIBERATE.exists():
    KNOWN_DIFFERENCES = {**KNOWN_DIFFERENCES, **{(mode, case_id): f"deliberate: {rule}"
                                                 for mode, case_id, rule in json.loads(_DELIBERATE.read_text())}}

# The write's instant of every replay (what now() / ago() give): the day the clock's shapes were asked of Pinot
_NOW = 1_795_910_400_000  # 2026-11-29T00:00:00Z

# Cases that cost tens of seconds (lpad to lengths near Integer.MAX_VALUE builds strings of up to 2 GB where
# Java's does): `make test-slow` runs them, `make test` leaves them out.
SLOW_CASES = {"math:c14=lpad('a', d, 'b')"}


@lru_cache(maxsize=None)
def load(family: str):
    lines = [json.loads(line) for line in (FIXTURES / f"{family}.jsonl").read_text().splitlines() if line.strip()]
    return lines[0], lines[1:]


def _transforms(header: dict) -> dict[str, str]:
    return {t["columnName"]: t["transformFunction"] for t in header["table_config"]["ingestionConfig"]["transformConfigs"]}


def _cases(family: str) -> list[tuple[str, str, str, str | None]]:
    """(family, column, expression, the column holding ``isNotNull(expression)`` or None) per output column."""
    header, _ = load(family)
    transforms = _transforms(header)
    outputs = [f["name"] for f in header["schema"]["dimensionFieldSpecs"] if f["name"] in transforms]
    checks = {transforms[c][len("isNotNull("):-1]: c for c in outputs if transforms[c].startswith("isNotNull(")}
    return [(family, c, transforms[c], checks.get(transforms[c])) for c in outputs
            if not (transforms[c].startswith("isNotNull(") and transforms[c][len("isNotNull("):-1] in
                    {transforms[o] for o in outputs if o != c})]


CASES = [case for family in FAMILIES for case in _cases(family)]


def _params(mode: str):
    params = []
    for case in CASES:
        case_id = f"{case[0]}:{case[1]}={case[2]}"
        marks = [pytest.mark.slow] if case_id in SLOW_CASES else []
        if (mode, case_id) in KNOWN_DIFFERENCES:
            marks.append(pytest.mark.xfail(strict=True, reason=f"differs from Pinot ({KNOWN_DIFFERENCES[mode, case_id]})"))
        # a lone surrogate in an id cannot travel to pytest-xdist's workers (UTF-8): escaped there only
        params.append(pytest.param(*case, id=case_id.encode("utf-8", "backslashreplace").decode("utf-8"),
                                   marks=marks))
    return params


def test_every_known_difference_is_a_case():
    ids = {f"{c[0]}:{c[1]}={c[2]}" for c in CASES}
    assert {case_id for _, case_id in KNOWN_DIFFERENCES} | SLOW_CASES <= ids


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


def _pipeline(header: dict, columns: list[str], continue_on_error: bool, table: pa.Table) -> IngestionPipeline:
    """The family's configs reduced to ``columns`` (with the schema's inputs and the helper transforms, those
    whose column is not in the schema, that they may read)."""
    transforms = _transforms(header)
    fields = [f for f in header["schema"]["dimensionFieldSpecs"] if f["name"] not in transforms or f["name"] in columns]
    in_schema = {f["name"] for f in header["schema"]["dimensionFieldSpecs"]}
    config = json.loads(json.dumps(header["table_config"]))
    config["ingestionConfig"] = {
        "continueOnError": continue_on_error,
        "transformConfigs": [{"columnName": c, "transformFunction": e} for c, e in transforms.items()
                             if c in columns or c not in in_schema]}
    schema = PinotSchema.from_json({**header["schema"], "dimensionFieldSpecs": fields})
    pipeline = IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), table.schema)
    # now() / ago() read the write's instant: here a fixed one, _NOW (the tables hold the clock's functions only
    # inside shapes any instant keeps, e.g. greaterThan(now(), ...): tools/pinot_functions/forms.py)
    pipeline.apply = functools.partial(pipeline.apply, instant_ms=_NOW)
    return pipeline


def _stored(value, pinot_type: str | None = None):
    """Our output value as Pinot's reader reports it (BOOLEAN as 0/1, BYTES as hex, BIG_DECIMAL as
    toPlainString)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and math.isnan(value):
        return None  # the column's conversion stores NaN as null (Pinot's SpecialValueTransformer)
    if pinot_type == "FLOAT" and isinstance(value, float) and math.isfinite(value):
        return float(java17_float_string(value))  # the reader prints a FLOAT with Float.toString's digits
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list):  # (NaN elements dropped, none left is null: SpecialValueTransformer, as the writer)
        kept = [v for v in value if not (isinstance(v, float) and math.isnan(v))]
        return None if value and not kept else [_stored(v, pinot_type) for v in kept]
    if pinot_type == "BIG_DECIMAL" and isinstance(value, (str, decimal.Decimal)):
        return big_decimal_plain_string(decimal.Decimal(value))  # the reader prints toPlainString
    return value


def _pinot_type(header: dict, column: str) -> str | None:
    return next((f["dataType"] for f in header["schema"]["dimensionFieldSpecs"] if f["name"] == column), None)


def _held_to_max_length(value, pinot_type: str | None = "STRING"):
    """A text beyond a STRING column's default maxLength (512) is cut there by Pinot's SanitizationTransformer,
    each element of a multi-value one too (a JSON column is not cut by default); here the writer does it
    (type_mapping/convert.py, on_oversize_string), after the transforms; and first cut at a NUL, as the same
    transformer does (type_mapping/sanitise.py): chr(0) is stored as ''."""
    if pinot_type != "STRING":
        return value
    if isinstance(value, list):
        return [_held_to_max_length(v) for v in value]
    if isinstance(value, str) and "\x00" in value:
        value = value[:value.index("\x00")]
    return java_substring(value, 512) if isinstance(value, str) and len(value) > 256 else value  # UTF-16 units


def _same(expected, ours, ulps: int = 0, as_json: bool = False) -> bool:
    if as_json:
        return ours is not None and json.loads(expected) == json.loads(ours)
    if isinstance(expected, list) or isinstance(ours, list):
        return isinstance(expected, list) and isinstance(ours, list) and len(expected) == len(ours) and all(
            _same(e, o, ulps) for e, o in zip(expected, ours))
    if isinstance(expected, float) or isinstance(ours, float):
        if ours is None or expected is None:
            return False
        if float(expected) == float(ours):
            return True
        return ulps > 0 and math.isfinite(expected) and abs(float(ours) - expected) <= ulps * math.ulp(expected)
    return expected == ours  # texts exactly: numbers as Java 17 prints them (javalib/floating_decimal.py)


def _ulps(expression: str) -> int:
    """A function computed with the platform's libm may differ from Java's Math by one unit in the last place
    (arithmetic_functions.LIBM_FUNCTIONS, a documented difference); everything else must be exact."""
    name = expression.split("(", 1)[0].strip()
    return 1 if name in LIBM_FUNCTIONS else 0


def _pinot(row: dict, column: str):
    return None if column in row["nulls"] else row["values"][column]


def _single_value(header: dict, column: str) -> bool:
    field = next(f for f in header["schema"]["dimensionFieldSpecs"] if f["name"] == column)
    return field.get("singleValueField", True)


def _pinot_failed_rows(header: dict, rows: list[dict], column: str, check: str) -> tuple[list[int], list[int]]:
    """Rows where Pinot's evaluation surely failed (``isNotNull`` threw too, or it saw a value that the column's
    conversion then failed on), and rows where it may have: a multi-value column, or one of a function that
    returns a Java Map / List (``may_be_empty`` in the header), is null both for an empty result and for a
    failed conversion."""
    failed, maybe = [], []
    # a Java Map / List / array result: an empty one the column's conversion stores as null, not a failure
    # (DataTypeTransformerUtils.standardize), which the table cannot tell from a failed conversion
    single = _single_value(header, column) and column not in header.get("may_be_empty", ())
    for i, row in enumerate(rows):
        if check in row["nulls"]:
            failed.append(i)
        elif row["values"][check] == 1 and column in row["nulls"]:
            (failed if single else maybe).append(i)
    return failed, maybe


@pytest.mark.parametrize("family,column,expression,check", _params("on"))
def test_continue_on_error_gives_pinots_values_and_failures(family, column, expression, check):
    header, rows = load(family)
    table = _input_table(header, rows)
    columns = [column] + ([check] if check else [])
    result = _pipeline(header, columns, True, table).apply(table, 0)
    ulps, as_json = _ulps(expression), column in header.get("json_columns", [])
    wrong = []
    for name in columns:
        ours = result.table.column(name).to_pylist()
        for i, row in enumerate(rows):
            pinot_type = _pinot_type(header, name)
            expected, mine = _pinot(row, name), _held_to_max_length(_stored(ours[i], pinot_type), pinot_type)
            if (expected is None) != (mine is None) or (expected is not None and not _same(
                    expected, mine, ulps if name == column else 0, as_json and name == column)):
                wrong.append((i, name, row["row"], expected, mine))
    assert not wrong, f"{expression}: {len(wrong)} values differ from Pinot's, first (row, column, input, Pinot, ours): {wrong[:3]}"
    if check:
        failed, maybe = _pinot_failed_rows(header, rows, column, check)
        assert len(failed) <= result.error_rows <= len(failed) + len(maybe), f"{expression}: Pinot failed rows {failed}"
    else:  # a row that failed here is null in Pinot's table (failed or null there: the table cannot tell)
        assert result.error_rows <= sum(column in row["nulls"] for row in rows), expression


@pytest.mark.parametrize("family,column,expression,check", _params("off"))
def test_without_continue_on_error_the_build_fails_where_pinots_does(family, column, expression, check):
    header, rows = load(family)
    if check is None:
        _rows_pinot_stored_go_through(header, rows, column, expression)
        return
    table = _input_table(header, rows)
    pipeline = _pipeline(header, [column], False, table)
    failed, maybe = _pinot_failed_rows(header, rows, column, check)
    if not failed and not maybe:
        pipeline.apply(table, 0)
        return
    if not failed:  # only empty multi-value results or failed conversions: either is Pinot's
        try:
            pipeline.apply(table, 0)
        except IngestionError as exc:
            assert any(f": row {i}: " in str(exc) for i in maybe), str(exc)
        return
    first = min(failed + [m for m in maybe if m < failed[0]])
    with pytest.raises(IngestionError, match=r": row (\d+): ") as info:
        pipeline.apply(table, 0)
    row = int(info.value.args[0].split(": row ")[1].split(":")[0])
    assert row == failed[0] or (row in maybe and first <= row <= failed[0]), str(info.value)


def _rows_pinot_stored_go_through(header: dict, rows: list[dict], column: str, expression: str) -> None:
    """Where the table cannot tell a failure from a null: the rows where Pinot stored a value go through without
    an error and give the same values (a function failing where Java does not would fail the build here)."""
    whole = [r for r in rows if column not in r["nulls"]]
    if not whole:
        pytest.skip("Pinot stored no value in this column (e.g. a primitive array into a column)")
    table = _input_table(header, whole)
    ours = _pipeline(header, [column], False, table).apply(table, 0).table.column(column).to_pylist()
    as_json = column in header.get("json_columns", [])
    wrong = [(r["row"], r["values"][column], mine) for r, mine in zip(whole, ours)
             if not _same(r["values"][column], _held_to_max_length(_stored(mine, _pinot_type(header, column)),
                                                                   _pinot_type(header, column)),
                          _ulps(expression), as_json)]
    assert not wrong, f"{expression}: {wrong[:3]}"


def test_a_row_pinot_fails_fails_the_build_without_continue_on_error():
    header, rows = load("timestamp_arith")
    bad = [r for r in rows if r["row"]["unit"] == "days" and r["row"]["t1"] is not None][:3]
    table = _input_table(header, bad)
    with pytest.raises(IngestionError, match=r"row 0.*'days' is not a valid Timestamp field"):
        _pipeline(header, ["date_add_col"], False, table).apply(table, 0)
    result = _pipeline(header, ["date_add_col"], True, table).apply(table, 0)
    assert result.error_rows == len(bad) and result.table.column("date_add_col").null_count == len(bad)


# The deliberate difference "a pattern from a column" (docs/ingestion.md), checked against Pinot's own answers: its
# Regexp*ConstFunctions object compiles the pattern of the first row it is called on (no null argument) whose
# pattern compiles and matches every row with it. So Pinot's stored values are this package's with column ``p``
# holding that first pattern in every row where the pattern column is not null. (family, column, the case with the
# pattern read from p, the pattern's column, the columns the call reads)
_FIRST_PATTERN_CASES = [
    ("diff_regexp_extract_const_functions_1", "c0", "regexpextract(j, p, n)", "s", ("j", "s", "n")),
    ("diff_regexp_extract_const_functions_1", "c1", "regexpextract('$.length()', p)", "z", ("z",)),
    ("diff_regexp_like_const_functions", "c0", "regexplike('$.a', p)", "z", ("z",)),
    ("diff_regexp_replace_const_functions_1", "c0", "regexpreplace(z, p, 'America/New_York', 3)", "z", ("z",)),
    ("diff_regexp_extract_const_functions", "c0", "regexpextract(z, p, n, '{\"a\": [1, {\"b\": null}]}')", "s",
     ("z", "s", "n")),
]


@pytest.mark.parametrize("family,column,expression,pattern_column,reads", _FIRST_PATTERN_CASES)
def test_a_pattern_from_a_column_is_pinots_first_compiling_pattern(family, column, expression, pattern_column, reads):
    from javalib.regex.pattern import JavaPattern

    header, rows = load(family)

    def compiles(text: str) -> bool:
        try:
            JavaPattern(text)
            return True
        except ValueError:
            return False

    first = next(r["row"][pattern_column] for r in rows
                 if all(r["row"].get(c) is not None for c in reads) and compiles(r["row"][pattern_column]))
    header = json.loads(json.dumps(header))
    header["input_types"]["p"] = "string"
    header["table_config"]["ingestionConfig"]["transformConfigs"] = [
        {"columnName": column, "transformFunction": expression}]
    rows = [{**r, "row": {**r["row"], "p": None if r["row"][pattern_column] is None else first}} for r in rows]
    table = _input_table(header, rows)
    ours = _pipeline(header, [column], True, table).apply(table, 0).table.column(column).to_pylist()
    pinot_type = _pinot_type(header, column)
    wrong = [(i, _pinot(r, column), mine) for i, (r, mine) in enumerate(zip(rows, ours))
             if _pinot(r, column) != _held_to_max_length(_stored(mine, pinot_type), pinot_type)]
    assert not wrong, f"{expression} with p = {first!r}: {wrong[:3]}"
    assert (KNOWN_DIFFERENCES.get(("on", f"{family}:{column}={_transforms(load(family)[0])[column]}"))
            == "deliberate: pattern from a column")
