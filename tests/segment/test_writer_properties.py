"""Property tests: dictionaries follow Java's order and map every value back; bit packing round-trips."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pinot_sink.segment.bitpack import pack_bits, unpack_bits
from pinot_sink.segment.dictionary import build_dictionary

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=6)


def _check(values, arrow_type, stored, java_key):
    d = build_dictionary(pa.array(values, arrow_type), stored, "c")
    distinct = d.values.to_pylist()
    assert distinct == sorted(set(values), key=java_key)
    assert [distinct[i] for i in d.dict_ids] == values


@settings(max_examples=60, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=40))
def test_string_dictionary_java_order(values):
    _check(values, pa.string(), "STRING", lambda s: s.encode("utf-16-be", "surrogatepass"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=5), min_size=1, max_size=40))
def test_bytes_dictionary_unsigned_order(values):
    _check(values, pa.binary(), "BYTES", lambda b: b)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=40))
def test_long_dictionary_numeric_order(values):
    _check(values, pa.int64(), "LONG", lambda v: v)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 31), st.lists(st.integers(0, 2**31 - 1), min_size=1, max_size=50))
def test_pack_bits_round_trip(bits, raw):
    values = np.array(raw, dtype=np.int64) % (1 << bits)
    packed = pack_bits(values, bits)
    assert len(packed) == (len(values) * bits + 7) // 8
    assert np.array_equal(unpack_bits(packed, bits, len(values)), values)
