"""A text cut inside a surrogate pair (an emoji cut in half) stored into a column: Pinot's builder fails on it
(its statistics pass, ``Utf8.encodedLength``: "Unpaired surrogate at index N"); with continueOnError it fails
in its index pass or writes a segment its own reader finds inconsistent. This writer fails the build in both
modes, naming the row. Pinot's answers: tests/fixtures/functions/surrogates.json
(tools/pinot_functions/surrogates.py, each expression its own build); a mirror documented in docs/ingestion.md."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from pinot_sink.ingestion import IngestionError, IngestionPipeline
from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import TableConfig

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "functions" / "surrogates.json").read_text())
CASES = [pytest.param(c, id=f"{c['expression']}-{len(c.get('rows', FIXTURE['rows']))}") for c in FIXTURE["cases"]]


def _apply(case: dict, continue_on_error: bool, rows=None):
    field = {"name": "c", "dataType": "STRING", "singleValueField": case["single_value"]}
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "s", "dataType": "STRING"}, field, {"name": "k", "dataType": "INT"}]})
    config = {"tableName": "t", "ingestionConfig": {"continueOnError": continue_on_error, "transformConfigs": [
        {"columnName": "c", "transformFunction": case["expression"]}]}}
    rows = case.get("rows", FIXTURE["rows"]) if rows is None else rows
    table = pa.table({"s": pa.array(rows, pa.string()), "k": pa.array(range(len(rows)))})
    return IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), table.schema).apply(table, 0)


def _pinot_wrote_a_good_segment(case: dict, outcome: dict) -> bool:
    return (not outcome["fails"] and outcome["reader_errors"] == 0
            and outcome["total_docs"] == len(case.get("rows", FIXTURE["rows"])))


def test_the_table_has_both_outcomes():
    assert {c["off"]["fails"] for c in FIXTURE["cases"]} == {True, False}


@pytest.mark.parametrize("mode", ["off", "on"])
@pytest.mark.parametrize("case", CASES)
def test_the_build_fails_where_pinots_does_or_gives_no_good_segment(case, mode):
    outcome = case[mode]
    if mode == "on" and not _pinot_wrote_a_good_segment(case, outcome):
        assert case["off"]["fails"]  # a failed or broken build only where the build without it fails
    if _pinot_wrote_a_good_segment(case, outcome):
        result = _apply(case, mode == "on")
        assert result.error_rows == 0 and result.table.num_rows == len(case.get("rows", FIXTURE["rows"]))
        if "values" in outcome:  # what Pinot stored (a null as the column's default null value, "null")
            stored = result.table.column("c").to_pylist()
            assert [("null" if v is None else v) if case["single_value"] else (["null"] if v is None else v)
                    for v in stored] == outcome["values"]
        return
    expected = case["off"]["message"]  # (the row and the index are those of the first cut text, in row order)
    with pytest.raises(IngestionError, match=f"{expected}: a function cut an emoji"):
        _apply(case, mode == "on")


def test_a_cut_text_a_helper_transform_made_fails_where_another_stores_it():
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "s", "dataType": "STRING"}, {"name": "c", "dataType": "STRING"}, {"name": "n", "dataType": "INT"}]})
    config = {"tableName": "t", "ingestionConfig": {"continueOnError": True, "transformConfigs": [
        {"columnName": "h", "transformFunction": "substr(s, 0, 1)"},  # not a schema column: never stored
        {"columnName": "n", "transformFunction": "length(h)"}, {"columnName": "c", "transformFunction": "upper(h)"}]}}
    table = pa.table({"s": ["ab", "\U0001F600x"]})
    pipeline = IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), table.schema)
    with pytest.raises(IngestionError, match=r"transform of column 'c' \(upper\(h\)\): row 1: .*Unpaired surrogate "
                                             r"at index 0"):
        pipeline.apply(table, 0)
    assert pipeline.apply(table.slice(0, 1), 0).table.column("c").to_pylist() == ["A"]


def test_a_cut_text_read_by_another_function_is_javas():
    """Not stored, the cut text is Java's String: one UTF-16 unit, '?' in UTF-8 (getBytes), and a helper column
    that holds it is no failure; stored through another transform it is."""
    case = {"single_value": True, "expression": "concat(toUtf8(substr(s, 0, 1)), '')"}
    assert _apply({**case, "expression": "length(substr(s, 0, 1))"}, False, ["\U0001F600x"]).table.column(
        "c").to_pylist() == ["1"]
    assert _apply({**case, "expression": "toBase64(toUtf8(substr(s, 0, 1)))"}, False, ["\U0001F600x"]).table.column(
        "c").to_pylist() == ["Pw=="]  # '?'


def test_a_string_columns_max_length_cutting_an_emoji_fails_as_pinots_build_does():
    """Pinot's SanitizationTransformer cuts at maxLength with substring, which can leave half a pair (the same
    failure as a function's cut); with convert.on-oversize-string=pinot the writer's truncation says so."""
    from type_mapping.convert import ConversionError, ConversionOptions, convert_column
    from type_mapping.pinot_schema import FieldSpec

    case = FIXTURE["truncation"]
    assert case["fails"]
    with pytest.raises(ConversionError, match=case["message"]):
        convert_column(pa.array(case["rows"]), FieldSpec("s", "STRING"),
                       options=ConversionOptions(on_oversize_string="pinot"))


def test_a_cut_text_an_enricher_stores_fails_too_at_the_earliest_row_of_any_column():
    """The statistics pass goes row by row over every stored column: a text an enricher (generateColumn) cut
    fails the build as a transform's does, and the earliest row wins over the step that ran first."""
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "s", "dataType": "STRING"}, {"name": "e", "dataType": "STRING"}, {"name": "c", "dataType": "STRING"}]})
    config = {"tableName": "t", "ingestionConfig": {
        "enrichmentConfigs": [{"enricherType": "generateColumn",
                               "properties": {"fieldToFunctionMap": {"e": "substr(s, 0, 1)"}}}],
        "transformConfigs": [{"columnName": "c", "transformFunction": "substr(s, 2, 3)"}]}}
    table = pa.table({"s": ["ab\U0001F600", "\U0001F600xy", "abc"]})
    pipeline = IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), table.schema)
    with pytest.raises(IngestionError, match=r"transform of column 'c' \(substr\(s, 2, 3\)\): row 0: .*Unpaired "
                                             r"surrogate at index 0"):
        pipeline.apply(table, 0)
    with pytest.raises(IngestionError, match=r"generateColumn 'e' \(substr\(s, 0, 1\)\): row 6: .*Unpaired"):
        pipeline.apply(table.slice(1), 6)
    assert pipeline.apply(table.slice(2), 0).table.column("e").to_pylist() == ["a"]


def test_a_cut_text_in_a_row_the_filter_drops_is_never_stored_and_a_kept_ones_row_is_its_input_row():
    """Pinot's statistics pass sees the rows the filter kept: a cut text in a dropped row fails nothing, and
    the failure of a kept row names its row in the input, not among the kept ones."""
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "s", "dataType": "STRING"}, {"name": "c", "dataType": "STRING"}, {"name": "k", "dataType": "INT"}]})
    config = {"tableName": "t", "ingestionConfig": {
        "transformConfigs": [{"columnName": "c", "transformFunction": "substr(s, 0, 1)"}],
        "filterConfig": {"filterFunction": "k = 0"}}}
    table = pa.table({"s": ["\U0001F600x", "ab", "\U0001F600y", "cd"], "k": pa.array([0, 1, 1, 0], pa.int32())})
    pipeline = IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), table.schema)
    kept = pipeline.apply(table.slice(0, 2), 0)  # the cut text is in row 0, which the filter drops
    assert kept.table.column("c").to_pylist() == ["a"] and kept.filtered_rows == 1
    with pytest.raises(IngestionError, match=r"row 12: .*Unpaired surrogate at index 0"):
        pipeline.apply(table, 10)  # kept: rows 11 and 12 of the input, the second (input row 12) cut
