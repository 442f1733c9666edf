"""BIG_DECIMAL bytes and text, checked against values Java prints / Pinot stored."""
from __future__ import annotations

import tarfile
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pinot_sink.segment import bigdecimal as bd
from type_mapping import java_text as jt


@pytest.mark.parametrize(
    "text, expected_hex",
    [
        ("0", "000000"),
        ("1.5", "00010f"),
        ("3.14159", "000504cb2f"),
        ("-1", "0000ff"),
        ("128", "00000080"),  # needs a sign byte: BigInteger(128).toByteArray() = 00 80
        ("-128", "000080"),
        ("-129", "0000ff7f"),
        ("1E+3", "fffd01"),  # scale -3 as a signed short
        ("-12345678901234567890.123456789", "0009d81be4cdb941364e91c67eeb"),
    ],
)
def test_serialize_matches_java_bytes(text, expected_hex):
    assert bd.serialize(text).hex() == expected_hex
    assert jt.big_decimal_string(bd.deserialize(bytes.fromhex(expected_hex))) == text
    assert bd.byte_size(text) == len(bytes.fromhex(expected_hex))


def test_bytes_pinot_wrote_for_the_raw_codecs_fixture(pinot_built):
    """The PASS_THROUGH BIG_DECIMAL forward index of raw_codecs holds exactly these serialisations."""
    with tarfile.open(pinot_built / "raw_codecs" / "raw_codecs_0.tar.gz") as tar:
        psf = tar.extractfile("raw_codecs_0/v3/columns.psf").read()
    for text in ("-12345678901234567890.123456789", "3.14159", "1.5"):
        assert bd.serialize(text) in psf
    # Pinot's metadata for that column: lengthOfShortestElement 3 ("0"), lengthOfLongestElement 14
    assert bd.byte_size("0") == 3
    assert bd.byte_size("-12345678901234567890.123456789") == 14


@pytest.mark.parametrize(
    "text, to_string, plain",
    [
        ("0.0000001", "1E-7", "0.0000001"),
        ("0.000001", "0.000001", "0.000001"),
        ("1E+3", "1E+3", "1000"),
        ("-1.50E+5", "-1.50E+5", "-150000"),
        ("0E+2", "0E+2", "0"),
        ("0.00", "0.00", "0.00"),
        ("-0", "0", "0"),
        ("123.456e-10", "1.23456E-8", "0.0000000123456"),
        (".5", "0.5", "0.5"),
        ("5.", "5", "5"),
        ("+7", "7", "7"),
    ],
)
def test_java_text_forms(text, to_string, plain):
    assert jt.big_decimal_string(text) == to_string
    assert jt.big_decimal_plain_string(text) == plain


@pytest.mark.parametrize("text", ["", "1_000", "NaN", "Infinity", " 1", "1e", "--1", "0x10", "1.2.3"])
def test_text_java_rejects_is_rejected(text):
    with pytest.raises(bd.BigDecimalError):
        jt.parse_big_decimal(text)


def test_scale_outside_a_short_is_rejected():
    with pytest.raises(bd.BigDecimalError, match="scale"):
        bd.serialize("1E-40000")


@given(st.integers(min_value=-(10**40), max_value=10**40), st.integers(min_value=-300, max_value=300))
def test_round_trips_through_bytes_and_text(unscaled, scale):
    raw = bd.serialize((unscaled, scale))
    assert bd.deserialize(raw) == (unscaled, scale)
    assert len(raw) == bd.byte_size((unscaled, scale))
    # Java's toString is exact: parsing it back gives the same unscaled value and scale.
    assert jt.parse_big_decimal(jt.big_decimal_string((unscaled, scale))) == (unscaled, scale)
    assert Decimal(jt.big_decimal_plain_string((unscaled, scale))) == jt.to_decimal(unscaled, scale)
    assert jt.from_decimal(jt.to_decimal(unscaled, scale)) == (unscaled, scale)
