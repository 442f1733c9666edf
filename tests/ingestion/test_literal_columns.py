"""A column where a function reads a literal (a pattern, unit, zone, JSON path, substr/pad/split argument).

Pinot evaluates row by row, so ``toDateTime(ts, fmt_col)`` works there; here the function runs once per
distinct value of such arguments. The property: an expression with a column argument gives, row by row,
exactly what the same expression gives with that row's value written as a literal: the same value, the
same null, the same failure (without continueOnError the build fails on the first failing row, named by
its own number; with it the row is null and counted).
"""
from __future__ import annotations

import re

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinot_sink.ingestion import IngestionPipeline
from pinot_sink.ingestion.evaluate import Expression
from pinot_sink.ingestion.expression import ExpressionError, parse_expression
from pinot_sink.ingestion.java_objects import is_object, objects
from pinot_sink.ingestion.values import Context, IngestionError
from type_mapping.convert import json_text
from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import TableConfig

ROW_OFFSET = 1000
MILLIS = st.one_of(st.none(), st.integers(-2_000_000_000_000, 4_000_000_000_000))
ZONES = st.sampled_from([None, "UTC", "America/Los_Angeles", "Asia/Kolkata", "Europe/Berlin", "Mars/Olympus"])
PRINT_PATTERNS = st.sampled_from([None, "yyyy-MM-dd", "HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm ZZ", "EEE MMM d",
                                  "qqq", "yyyy 'unclosed"])
PARSE_PATTERNS = st.sampled_from([None, "yyyy-MM-dd", "yyyy-MM-dd HH:mm", "dd/MM/yyyy", "yyyy"])
DOCUMENTS = st.sampled_from([None, '{"a": 1, "b": {"c": "x"}, "d": [1, 2, 3]}', '{"a": "12", "d": []}',
                             '[1, 2]', "not json", '{"a": 2.5}'])
PATHS = st.sampled_from([None, "$.a", "$.b.c", "$.b", "$.d[1]", "$.d[*]", "$..c", "$.missing", "a", "$[",
                         "$.d[?(@ > 1)]", "$[?(@.c == 'x')]"])


def _literal(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(value)


def _unchecked(text: str) -> Expression:
    """The expression without the check of its literals when the config is read (which rejects a bad pattern
    up front): as Pinot, it then fails on the rows where the function runs, and only there."""
    expression = Expression.__new__(Expression)
    expression.text, expression.root = text, parse_expression(text)
    return expression


def _run(text: str, columns: dict[str, pa.Array], continue_on_error: bool, checked: bool = True):
    """(values, failed rows) or the IngestionError / ExpressionError raised."""
    n = len(next(iter(columns.values())))
    ctx = Context(n, ROW_OFFSET, continue_on_error)
    ctx.where = text
    try:
        out = (Expression(text) if checked else _unchecked(text)).evaluate_array(columns, ctx)
        out = objects(out) if is_object(out.type) else out.to_pylist()  # Java objects (an Object[] of Maps)
    except (IngestionError, ExpressionError) as exc:
        return exc
    failed = [] if ctx.errors is None else [i for i in range(n) if ctx.errors[i]]
    return out, failed


def _row_by_row(template: str, data: dict[str, pa.Array], literal_columns: tuple[str, ...]):
    """Each row alone, its literal columns written into the expression: (value or None, fails?)."""
    n = len(next(iter(data.values())))
    expected = []
    for i in range(n):
        text = template.format(**{c: _literal(data[c][i].as_py()) for c in literal_columns},
                               **{c: c for c in data if c not in literal_columns})
        row = {c: data[c].slice(i, 1) for c in data if c not in literal_columns}
        if not row:
            row = {"_": pa.array([0])}
        result = _run(text, row, True, checked=False)
        if isinstance(result, Exception):
            expected.append((None, True))
        else:
            values, failed = result
            expected.append((values[0], bool(failed)))
    return expected


def check_row_by_row(template: str, data: dict[str, pa.Array], literal_columns: tuple[str, ...],
                     normalize=lambda value: value) -> None:
    expected = [(normalize(value), fails) for value, fails in _row_by_row(template, data, literal_columns)]
    text = template.format(**{c: c for c in data})
    # continueOnError: each failing row is null and counted, every other row is its literal result
    result = _run(text, data, True)
    assert not isinstance(result, Exception), result
    values, failed = result
    values = [normalize(value) for value in values]
    assert failed == [i for i, (_, fails) in enumerate(expected) if fails]
    assert values == [value for value, _ in expected]
    # without: the build fails naming the first failing row; without any, the same values
    result = _run(text, data, False)
    failing = [i for i, (_, fails) in enumerate(expected) if fails]
    if failing:
        assert isinstance(result, IngestionError), result
        assert re.search(rf": row {ROW_OFFSET + failing[0]}: ", str(result)), str(result)
    else:
        assert not isinstance(result, Exception), result
        assert ([normalize(value) for value in result[0]], result[1]) == (values, [])


def _columns(**columns) -> dict[str, pa.Array]:
    types = {"ts": pa.int64(), "n": pa.int32(), "m": pa.int64()}
    return {name: pa.array(values, types.get(name, pa.string())) for name, values in columns.items()}


@given(st.lists(st.tuples(MILLIS, PRINT_PATTERNS, ZONES), min_size=1, max_size=12))
@settings(max_examples=60, deadline=None)  # timings vary with the machine's load; never a timed test
def test_to_date_time_with_pattern_and_zone_columns(rows):
    data = _columns(ts=[r[0] for r in rows], fmt=[r[1] for r in rows], zone=[r[2] for r in rows])
    check_row_by_row("toDateTime(ts, {fmt})", {k: data[k] for k in ("ts", "fmt")}, ("fmt",))
    check_row_by_row("toDateTime(ts, {fmt}, {zone})", data, ("fmt", "zone"))
    check_row_by_row("toDateTime(ts, 'yyyy-MM-dd HH:mm', {zone})", {k: data[k] for k in ("ts", "zone")}, ("zone",))


@given(st.lists(st.tuples(st.sampled_from([None, "2024-03-10", "2024-03-10 02:30", "10/03/2024", "2024", "x"]),
                          PARSE_PATTERNS, ZONES), min_size=1, max_size=12))
@settings(max_examples=60, deadline=None)  # timings vary with the machine's load; never a timed test
def test_from_date_time_with_pattern_and_zone_columns(rows):
    data = _columns(s=[r[0] for r in rows], fmt=[r[1] for r in rows], zone=[r[2] for r in rows])
    check_row_by_row("fromDateTime(s, {fmt})", {k: data[k] for k in ("s", "fmt")}, ("fmt",))
    check_row_by_row("fromDateTime(s, {fmt}, {zone})", data, ("fmt", "zone"))
    check_row_by_row("fromDateTime(s, {fmt}, 'UTC', -1)", {k: data[k] for k in ("s", "fmt")}, ("fmt",))


# values in any of these units stay within years 1..9999 (datetime.to_local's range)
@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(-4_000_000_000, 4_000_000_000)),
                          st.sampled_from([None, "day", "HOUR", "week", "month", "year", "decade"]),
                          st.sampled_from([None, "MILLISECONDS", "SECONDS", "minutes", "FORTNIGHTS"]), ZONES),
                min_size=1, max_size=12))
@settings(max_examples=60, deadline=None)  # timings vary with the machine's load; never a timed test
def test_date_trunc_with_unit_and_zone_columns(rows):
    data = _columns(ts=[r[0] for r in rows], unit=[r[1] for r in rows], tu=[r[2] for r in rows],
                    zone=[r[3] for r in rows])
    check_row_by_row("dateTrunc({unit}, ts)", {k: data[k] for k in ("ts", "unit")}, ("unit",))
    check_row_by_row("dateTrunc({unit}, ts, {tu}, {zone})", data, ("unit", "tu", "zone"))
    check_row_by_row("dateTrunc('day', ts, 'MILLISECONDS', {zone}, {tu})", {k: data[k] for k in ("ts", "tu", "zone")},
                     ("tu", "zone"))


@given(st.lists(st.tuples(MILLIS, st.sampled_from([None, "1:DAYS:EPOCH", "1:HOURS:EPOCH", "5:MINUTES:EPOCH",
                                                   "1:MILLISECONDS:EPOCH", "1:WEEKS:EPOCH"]),
                          st.sampled_from([None, "1:DAYS", "15:MINUTES", "1:HOURS", "1:FOO"]), ZONES),
                min_size=1, max_size=12))
@settings(max_examples=60, deadline=None)  # timings vary with the machine's load; never a timed test
def test_date_time_convert_with_format_granularity_and_zone_columns(rows):
    data = _columns(ts=[r[0] for r in rows], out=[r[1] for r in rows], gran=[r[2] for r in rows],
                    zone=[r[3] for r in rows])
    check_row_by_row("dateTimeConvert(ts, '1:MILLISECONDS:EPOCH', {out}, {gran})",
                     {k: data[k] for k in ("ts", "out", "gran")}, ("out", "gran"))
    check_row_by_row("dateTimeConvert(ts, '1:MILLISECONDS:EPOCH', {out}, {gran}, {zone})", data,
                     ("out", "gran", "zone"))


@given(st.lists(st.tuples(MILLIS, ZONES), min_size=1, max_size=12))
@settings(max_examples=30, deadline=None)  # timings vary with the machine's load; never a timed test
def test_calendar_fields_with_a_zone_column(rows):
    data = _columns(ts=[r[0] for r in rows], zone=[r[1] for r in rows])
    for name in ("year", "dayOfWeek", "hour"):
        check_row_by_row(name + "(ts, {zone})", data, ("zone",))


@given(st.lists(st.tuples(DOCUMENTS, PATHS, st.sampled_from([None, "dflt", ""])), min_size=1, max_size=12))
@settings(max_examples=60, deadline=None)  # timings vary with the machine's load; never a timed test
def test_json_paths_with_path_and_default_columns(rows):
    data = _columns(j=[r[0] for r in rows], p=[r[1] for r in rows], d=[r[2] for r in rows])
    just_path = {k: data[k] for k in ("j", "p")}
    check_row_by_row("jsonPathString(j, {p})", just_path, ("p",))
    check_row_by_row("jsonPathString(j, {p}, {d})", data, ("p", "d"))
    check_row_by_row("jsonPathLong(j, {p})", just_path, ("p",))
    check_row_by_row("jsonPathDouble(j, {p}, 0.5)", just_path, ("p",))
    check_row_by_row("jsonPathExists(j, {p})", just_path, ("p",))
    # lists whose elements differ in type are brought to one list type (numbers to double, else Java's text)
    check_row_by_row("jsonPathArrayDefaultEmpty(j, {p})", just_path, ("p",), _texts)


def _texts(values: list | None) -> list | None:
    """Elements compared as text, numbers as doubles (1, 1.0 and "1" alike)."""
    if values is None:
        return None
    texts = [v if isinstance(v, str) else json_text(v) for v in values]
    return [float(t) if re.fullmatch(r"-?\d+(\.\d+)?(E-?\d+)?", t) else t for t in texts]


@given(st.lists(st.tuples(st.one_of(st.none(), st.text(alphabet="ab😀,c", max_size=8)),
                          st.one_of(st.none(), st.integers(-10, 10)), st.one_of(st.none(), st.integers(-10, 10))),
                min_size=1, max_size=12))
@settings(max_examples=60, deadline=None)  # timings vary with the machine's load; never a timed test
def test_string_functions_with_bound_columns(rows):
    data = _columns(s=[r[0] for r in rows], n=[r[1] for r in rows], m=[r[2] for r in rows])
    check_row_by_row("substr(s, {n})", {k: data[k] for k in ("s", "n")}, ("n",))
    check_row_by_row("substr(s, {n}, {m})", data, ("n", "m"))
    check_row_by_row("lpad(s, {n}, 'xy')", {k: data[k] for k in ("s", "n")}, ("n",))
    check_row_by_row("splitPart(s, ',', {n})", {k: data[k] for k in ("s", "n")}, ("n",))


@given(st.lists(st.tuples(st.one_of(st.none(), st.text(alphabet="ab,c", max_size=6)),
                          st.one_of(st.none(), st.sampled_from(["", "a", ",", "bc"]))), min_size=1, max_size=12))
@settings(max_examples=40, deadline=None)  # timings vary with the machine's load; never a timed test
def test_string_functions_with_text_argument_columns(rows):
    data = _columns(s=[r[0] for r in rows], t=[r[1] for r in rows])
    for template in ("split(s, {t})", "startsWith(s, {t})", "contains(s, {t})", "replace(s, {t}, '-')",
                     "splitPart(s, {t}, 1)", "lpad(s, 5, {t})"):
        check_row_by_row(template, data, ("t",))


def test_a_path_that_does_not_compile_fails_the_row_or_gives_the_default():
    # A literal one is rejected when the config is read; a column's value is met row by row: the functions
    # that catch every exception (the default forms, jsonPathLong/Double, jsonPathExists) give their default.
    data = {"j": pa.array(['{"a": 1}'] * 3), "p": pa.array(["$.a", "$[", "$.a"])}
    assert _run("jsonPathString(j, p, 'd')", data, False) == (["1", "d", "1"], [])
    assert _run("jsonPathLong(j, p)", data, False) == ([1, -2**63, 1], [])
    assert _run("jsonPathExists(j, p)", data, False) == ([True, False, True], [])
    assert _run("jsonPathArrayDefaultEmpty(j, p)", data, False) == ([[1], [], [1]], [])
    assert _run("jsonPathString(j, p)", data, True) == (["1", None, "1"], [1])
    with pytest.raises(IngestionError, match=rf"row {ROW_OFFSET + 1}: JSON path '\$\[': unclosed"):
        _run_raising("jsonPathArray(j, p)", data)


def test_round_decimal_and_truncate_with_a_scale_column():
    data = {"x": pa.array([2.345, 2.345, None, 1.5]), "k": pa.array([1, 2, 1, None], pa.int32())}
    check_row_by_row("roundDecimal(x, {k})", data, ("k",))
    check_row_by_row("truncate(x, {k})", data, ("k",))


def test_a_literal_only_expression_with_a_column_argument_is_grouped():
    out = _run("toDateTime(86400000, fmt)", {"fmt": pa.array(["yyyy", "dd", None, "yyyy"])}, False)
    assert out == (["1970", "02", None, "1970"], [])


def test_results_of_different_types_are_brought_to_one_type():
    doc = '{"a": [1, 2], "b": ["x", "y"]}'
    out, _ = _run("jsonPathArray(j, p)", {"j": pa.array([doc] * 3), "p": pa.array(["$.a", "$.b", "$.a"])}, False)
    assert out == [["1", "2"], ["x", "y"], ["1", "2"]]  # one list<string> column, ints in Java's text
    out, _ = _run("jsonPathArray(j, p)", {"j": pa.array([doc] * 2), "p": pa.array(["$.a", "$.a[0]"])}, False)
    assert out == [[1, 2], [1]]  # the same type in every group: kept
    day = 86_400_000
    out, _ = _run("dateTimeConvert(ts, '1:MILLISECONDS:EPOCH', f, '1:DAYS')",
                  {"ts": pa.array([day, day], pa.int64()),
                   "f": pa.array(["1:DAYS:EPOCH", "1:MILLISECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd"])}, False)
    assert out == ["1", "1970-01-02"]


def test_the_earliest_failing_row_of_all_groups_is_reported():
    # Row 1 fails in the group of 'yyyy' (bad text), row 2 in its own group (bad pattern): row 1 is reported,
    # whatever order the groups run in.
    data = {"s": pa.array(["2024-01-01", "bad", "2024", "x"]),
            "p": pa.array(["yyyy-MM-dd", "yyyy", "qqq", "yyyy"])}
    with pytest.raises(IngestionError, match=rf"row {ROW_OFFSET + 1}: cannot parse .* \(value 'bad'\)"):
        _run_raising("fromDateTime(s, p)", data)
    data["s"] = pa.array(["2024-01-01", "2024", "2024", "x"])
    with pytest.raises(IngestionError, match=rf"row {ROW_OFFSET + 2}: .*'q'.* \(value 'qqq'\)"):
        _run_raising("fromDateTime(s, p)", data)


def _run_raising(text: str, columns: dict[str, pa.Array]):
    ctx = Context(len(next(iter(columns.values()))), ROW_OFFSET, False)
    ctx.where = text
    return Expression(text).evaluate_array(columns, ctx)


def test_rows_an_and_already_decided_are_not_evaluated():
    # Pinot stops AND at a false operand: the bad pattern of row 1 is never used there.
    data = {"k": pa.array([1, 0, 1]), "ts": pa.array([0, 0, 0], pa.int64()), "p": pa.array(["yyyy", "qqq", "MM"])}
    out, failed = _run("k = 1 AND startsWith(toDateTime(ts, p), '19')", data, False)
    assert (out, failed) == ([True, False, False], [])


def test_nested_groups_report_the_row_of_the_whole_batch():
    data = {"ts": pa.array([0, 0, 0, 0], pa.int64()), "p": pa.array(["yyyy", "yyyy", "MM", "MM"]),
            "n": pa.array([1, 2, 1, 9], pa.int32())}
    out, _ = _run("substr(toDateTime(ts, p), n)", data, False)
    assert out == ["970", "70", "1", ""]
    data["q"] = pa.array(["yyyy", "MM", "yyyy", "qq"])
    with pytest.raises(IngestionError, match=rf"row {ROW_OFFSET + 3}: "):
        _run_raising("substr(toDateTime(ts, q), toDateTime(ts, p) = '1970')", data)


def test_through_the_ingestion_pipeline_with_continue_on_error():
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "day", "dataType": "STRING"}, {"name": "id", "dataType": "STRING"}]})
    table = pa.table({"ts": pa.array([0, 86_400_000, 0, None], pa.int64()),
                      "fmt": pa.array(["yyyy-MM-dd", "dd/MM", "qqq", "yyyy"]),
                      "payload": pa.array(['{"a": {"id": 7}}', '{"b": 8}', '{"a": {"id": 9}}', "{}"]),
                      "path": pa.array(["$.a.id", "$.b", "$.a", None])})
    cfg = {"tableName": "t", "ingestionConfig": {"continueOnError": True, "transformConfigs": [
        {"columnName": "day", "transformFunction": "toDateTime(ts, fmt)"},
        {"columnName": "id", "transformFunction": "jsonPathString(payload, path)"}]}}
    result = IngestionPipeline.from_configs(schema, TableConfig.from_json(cfg, schema), table.schema).apply(table, 0)
    assert result.table.column("day").to_pylist() == ["1970-01-01", "02/01", None, None]
    assert result.table.column("id").to_pylist() == ["7", "8", '{"id":9}', None]
    assert result.error_rows == 1  # the row whose pattern Joda rejects
    cfg["ingestionConfig"]["continueOnError"] = False
    with pytest.raises(IngestionError, match=r"toDateTime\(ts, fmt\)\): row 12: .*'q'"):
        IngestionPipeline.from_configs(schema, TableConfig.from_json(cfg, schema), table.schema).apply(table, 10)


@given(st.lists(st.tuples(st.one_of(st.none(), st.text(alphabet="ab1 2,", max_size=8)),
                          st.one_of(st.none(), st.sampled_from(["\\d+", "[a-z]", "(a)(b)?", "a{", "", "(?i)A"])),
                          st.one_of(st.none(), st.integers(-1, 3))), min_size=1, max_size=12))
@settings(max_examples=40, deadline=None)  # timings vary with the machine's load; never a timed test
def test_regexp_functions_with_pattern_group_and_flag_columns(rows):
    """The regexp functions (merged beside this mechanism) read their patterns, groups and flags through it."""
    data = _columns(s=[r[0] for r in rows], p=[r[1] for r in rows], n=[r[2] for r in rows])
    text_and_pattern = {k: data[k] for k in ("s", "p")}
    for template in ("regexpLike(s, {p})", "regexpExtract(s, {p})", "regexpReplace(s, {p}, '#')",
                     "regexpCount(s, {p})"):
        check_row_by_row(template, text_and_pattern, ("p",))
    check_row_by_row("regexpExtract(s, {p}, {n})", data, ("p", "n"))
    flags = _columns(s=[r[0] for r in rows], f=[["i", "c", "x", None][i % 4] for i in range(len(rows))])
    check_row_by_row("regexpLike(s, 'A', {f})", flags, ("f",))
