"""Lone surrogates inside the pipeline (pinot_sink/ingestion/lone_surrogates.py): each is a marker that remembers
its unit, halves that meet again are the pair, and no marker is a character of the batch's own text. Pinot's
answers for the cases it can show are in tests/fixtures/functions/surrogates.json (test_cut_surrogates.py) and
the unicode family (test_function_expectations.py); these hold the rules that make them so."""
from __future__ import annotations

import base64
import hashlib

import pyarrow as pa
import pytest

from pinot_sink.ingestion import IngestionError, IngestionPipeline
from pinot_sink.ingestion import lone_surrogates
from pinot_sink.ingestion.lone_surrogates import UNKNOWN_HALF, LoneSurrogates
from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import TableConfig

EMOJI = "\U0001F600"  # D83D DE00


def _apply(expressions: dict[str, str], rows: list, types: dict[str, str] | None = None, continue_on_error=False):
    types = types or {}
    fields = [{"name": "s", "dataType": "STRING"}] + [
        {"name": c, "dataType": types.get(c, "STRING"), **({"singleValueField": False} if c.startswith("m") else {})}
        for c in expressions]
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": fields})
    config = {"tableName": "t", "ingestionConfig": {"continueOnError": continue_on_error, "transformConfigs": [
        {"columnName": c, "transformFunction": e} for c, e in expressions.items()]}}
    table = pa.table({"s": pa.array(rows, pa.string())})
    return IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), table.schema).apply(table, 0).table


def test_a_users_noncharacter_or_private_use_character_is_never_taken_for_a_cut():
    """The first markers of the pool are U+FDD1, U+FDD2...: a batch whose text holds them gets others, so the
    user's characters are stored and encoded as they are while the cut beside them still fails the build."""
    own = "\ufdd1\ufdd0\ue000"
    out = _apply({"c": "s", "b": "toBase64(toUtf8(s))", "n": "codepoint(s)"}, [own, "x"], {"n": "INT"})
    assert out.column("c").to_pylist() == [own, "x"] and out.column("n").to_pylist() == [0xFDD1, ord("x")]
    assert out.column("b").to_pylist()[0] == base64.b64encode(own.encode()).decode()  # their UTF-8, no '?'
    both = {"c": "s", "h": "codepoint(substr(s, 1))", "j": "concat(left(s, 1), substr(s, 1))"}
    out = _apply(both, [own, EMOJI + "x"], {"h": "INT"})  # a cut in the same batch: other markers
    assert out.column("c").to_pylist() == [own, EMOJI + "x"] and out.column("j").to_pylist() == [own, EMOJI + "x"]
    assert out.column("h").to_pylist() == [0xFDD0, 0xDE00]
    with pytest.raises(IngestionError, match=r"column 'c' \(substr\(s, 1\)\): row 1: .*Unpaired surrogate at index 0"):
        _apply({"c": "substr(s, 1)"}, [own, EMOJI + "x"])


def test_a_literals_pool_characters_are_no_markers_either():
    out = _apply({"c": "concat(concat(left(s, 1), substr(s, 1)), '\ufdd1')"}, [EMOJI + EMOJI])
    assert out.column("c").to_pylist() == [EMOJI + EMOJI + "\ufdd1"]
    with pytest.raises(IngestionError, match="Unpaired surrogate at index 0"):
        _apply({"c": "concat(concat(left(s, 1), '\ufdd1'), substr(s, 1))"}, [EMOJI + EMOJI])


def test_halves_met_in_a_lists_elements_are_the_pair_and_elements_side_by_side_are_not():
    out = _apply({"m": "prefixesWithPrefix(substr(s, 1), 2, left(s, 1))"}, [EMOJI + "x"])
    assert out.column("m").to_pylist() == [[EMOJI, EMOJI + "x"]]  # each element: the prefix, then a prefix
    with pytest.raises(IngestionError, match="Unpaired surrogate at index 0"):
        _apply({"m": "split(concat(concat(left(s, 1), '#'), substr(s, 1)), '#')"}, [EMOJI + "x"])


def test_javas_order_and_units_read_the_surrogate_not_its_marker():
    """String.compareTo orders by unit: a lone high surrogate (0xD83D) before U+E001 and after U+D7FF, wherever
    its marker sits in the BMP; ascii / codepoint give the unit."""
    out = _apply({"n": "strcmp(left(s, 1), '\ue001')", "a": "ascii(substr(s, 1))",
                  "o": "codepoint(substr(arrayToString(arraySortString(split(concat(concat(left(s, 1), ','), "
                       "'\ue001,\ud7ff'), ',')), ''), 1))",  # sorted: ["\ud7ff", "\ud83d", "\ue001"]
                  "r": "concat(chr(55357), chr(codepoint(substr(s, 1))))"},
                 [EMOJI], {"n": "INT", "a": "INT", "o": "INT"})
    assert out.column("n").to_pylist()[0] < 0 and out.column("a").to_pylist() == [0xDE00]
    assert out.column("o").to_pylist() == [0xD83D] and out.column("r").to_pylist() == [EMOJI]


def test_encoders_write_javas_replacement_for_any_marker():
    out = _apply({"b": "toBase64(toUtf8(concat(substr(s, 1), left(s, 1))))",
                  "u": "toBase64(toBytes(substr(s, 1), 'UTF-16BE'))", "h": "md5(toUtf8(substr(s, 1)))",
                  "e": "encodeUrl(concat(left(s, 1), ' '))"},
                 [EMOJI + "x"])
    assert out.column("e").to_pylist() == ["%3F+"]  # URLEncoder: the bytes getBytes gives
    assert out.column("b").to_pylist() == ["P3g/"]  # "?x?"
    assert out.column("u").to_pylist() == ["//0AeA=="]  # U+FFFD, 'x'
    assert out.column("h").to_pylist() == [hashlib.md5(b"?x").hexdigest()]


def test_markers_are_per_batch_and_a_used_up_pool_gives_the_unknown_half():
    lone = LoneSurrogates(lambda: lone_surrogates._POOL)  # every pool character taken by the batch's text
    assert lone.marker(0xD83D) == UNKNOWN_HALF == lone.marker(0xDE00) and lone.unknown and not lone.pairs
    assert lone.rejoin(UNKNOWN_HALF * 2) == UNKNOWN_HALF * 2  # it does not remember its unit: never rejoined
    assert lone.first_index("ab" + UNKNOWN_HALF) == 2
    assert lone.rows_holding(pa.array(["a", UNKNOWN_HALF, None])).tolist() == [False, True, False]
    with lone_surrogates.scope() as first:
        high = first.marker(0xD83D)
        assert first.marker(0xD83D) == high and first.marker(0xDE00) != high and first.pairs
        with lone_surrogates.scope() as second:
            assert not second.made and second.rows_holding(pa.array([high])) is None
        assert lone_surrogates.current() is first
        assert first.rejoin(pa.array([high + first.marker(0xDE00), first.marker(0xDE00) + high, None])
                            ).to_pylist() == [EMOJI, first.marker(0xDE00) + high, None]


def test_the_ported_jsonpath_compares_a_marker_as_the_unit_it_stands_for():
    """javalib's JsonPath knows nothing of markers: this module installs their reading there (read_text_with),
    so a filter's ``<`` orders a cut half by its unit (0xDC00 sorts below U+E000), as Java's compareTo does."""
    from javalib import jsonpath

    with lone_surrogates.scope() as state:
        low = state.marker(0xDC00)
        assert low > "\ue000"  # the marker character itself (U+FDD1) sorts above
        steps, definite = jsonpath.compile_path("$[?(@.k < '\ue000')].k")
        assert jsonpath.read_path([{"k": low}, {"k": "\uf000"}], steps, definite) == [low]
