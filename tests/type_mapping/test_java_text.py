"""Java's text rules (type_mapping.java_text) against values Java prints and orders."""
from __future__ import annotations

from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

from type_mapping import java_text as jt


@pytest.mark.parametrize("text, stripped, plain", [
    ("1.500", "1.5", "1.500"),
    ("100", "1E+2", "100"),  # BigDecimal("100").stripTrailingZeros() is 1E+2
    ("-0.00", "0", "0.00"),  # no negative zero; a stripped zero is BigDecimal.ZERO
    ("0.0000001", "1E-7", "0.0000001"),
    ("1E+3", "1E+3", "1000"),
    ("-12.3400", "-12.34", "-12.3400"),
])
def test_big_decimal_text(text, stripped, plain):
    assert jt.big_decimal_string(text, strip=True) == stripped
    assert jt.big_decimal_plain_string(text) == plain
    assert jt.big_decimal_string(Decimal(text)) == jt.big_decimal_string(text)


def test_big_decimal_text_array_agrees_with_the_scalar_rule():
    texts = ["1.500", "100", "0.00", "0.0000001", "-0.0000000", "12", "0.000001"]  # as Arrow prints decimals
    for strip in (False, True):
        got = jt.big_decimal_text_array(pa.array(texts, pa.string()), strip).to_pylist()
        assert got == [jt.big_decimal_string(t, strip) for t in texts]


def test_java_grammar_only():
    for text in (" 1", "1_000", "NaN", "1e", ".", "+-1"):
        with pytest.raises(jt.BigDecimalError):
            jt.parse_big_decimal(text)
    assert jt.parse_big_decimal("+.5e-3") == (5, 4)


def test_string_order_length_and_substring_count_utf16_code_units():
    astral, high_bmp = "\U0001F600", "\uFF21"  # a surrogate pair (D83D DE00) sorts below U+FF21 in Java
    assert sorted([high_bmp, astral], key=jt.java_sort_key) == [astral, high_bmp]
    assert sorted([high_bmp, astral]) == [high_bmp, astral]  # code point order differs
    assert jt.java_length("a" + astral) == 3
    assert list(jt.java_code_units("a" + astral)) == [0x61, 0xD83D, 0xDE00]
    assert jt.java_substring("a" + astral + "b", 2) == "a?"  # half a pair: a lone surrogate, '?' in UTF-8
    assert jt.java_substring("a" + astral + "b", 3) == "a" + astral
    assert jt.utf8_needs_java_order(np.frombuffer(("x" + astral).encode(), dtype=np.uint8))
    assert not jt.utf8_needs_java_order(np.frombuffer((high_bmp + "x").encode(), dtype=np.uint8))


@pytest.mark.parametrize("value, float32, expected", [
    (1e7, False, "1.0E7"), (0.001, False, "0.001"), (1e-4, False, "1.0E-4"), (-0.0, False, "-0.0"),
    (0.1, True, "0.1"), (float("inf"), False, "Infinity"), (123456789.0, False, "1.23456789E8"),
])
def test_java_float_str(value, float32, expected):
    assert jt.java_float_str(value, float32) == expected


def test_conversion_prints_decimals_through_the_java_rules():
    from decimal import Decimal as D

    from type_mapping.convert import convert_column
    from type_mapping.pinot_schema import FieldSpec

    # JSON: Jackson reads floats as BigDecimal, its tree keeps them without trailing zeros (a zero as 0) and
    # writes them with toString (Pinot's answers: tests/fixtures/functions/round8_json_text.jsonl)
    out, _ = convert_column(pa.array(['{"a": -0.0, "b": 1.50E+3}']), FieldSpec("j", "JSON"))
    assert out.to_pylist() == ['{"a":0,"b":1.5E+3}']
    # DECIMAL -> STRING is BigDecimal.toPlainString, also where Arrow prints E notation (negative scale).
    out, _ = convert_column(pa.array([D("1E+3"), D("-2E+3")], pa.decimal128(5, -3)), FieldSpec("s", "STRING"))
    assert out.to_pylist() == ["1000", "-2000"]


def test_java_object_string():
    assert [jt.java_object_string(v) for v in (True, np.int64(7), np.float32(0.1), 0.1, Decimal("-0.00"), b"\x01\xff",
                                                "x")] == ["true", "7", "0.1", "0.1", "0.00", "01ff", "x"]
    assert jt.java_object_string(np.float32(1e10)) == "1.0E10"


def test_java_parse_long_reads_digits_as_character_digit():
    assert jt.java_parse_long("\u0663\u0663") == 33 and jt.java_parse_long("+5") == 5  # Arabic-Indic digits
    assert jt.java_parse_long("-9223372036854775808") == -(2**63)
    assert jt.java_parse_long("\uff46f", 16) == 255  # a fullwidth 'f'
    for bad in ("", "-", "+", "9223372036854775808", "1a", " 1", "\U0001d7ce"):
        with pytest.raises(ValueError):
            jt.java_parse_long(bad)
