"""Small hand-checked byte layouts: bit packing, forward indexes, dictionaries, inverted index, v3 packing."""
from __future__ import annotations

import decimal
import struct

import numpy as np
import pyarrow as pa
import pytest
from pyroaring import BitMap

from pinot_sink.segment.bitpack import bits_per_value, pack_bits, unpack_bits
from pinot_sink.segment import bigdecimal
from pinot_sink.segment.dictionary import (
    ColumnValueError,
    build_dictionary,
    entry_width,
    serialize_dictionary,
    uses_var_length,
)
from pinot_sink.segment.forward_index import (
    multi_value_forward_index,
    sorted_forward_index,
    unsorted_forward_index,
)
from pinot_sink.segment.inverted_index import inverted_index
from pinot_sink.segment.layout import IndexEntry, segment_files, v3_columns
from pinot_sink.segment.metadata import java_hash_set_order
from pinot_sink.segment.null_vector import null_vector


# --- bit packing ------------------------------------------------------------------------------------


def test_bits_per_value():
    assert [bits_per_value(c) for c in (1, 2, 3, 4, 5, 8, 9, 16, 17)] == [1, 1, 2, 2, 3, 3, 4, 4, 5]


def test_pack_bits_msb_first():
    # SEGMENT_FORMAT.md 5.2: dictIds 4,2,3,0,1 with 3 bits = 100 010 011 000 001 0 -> 89 82
    assert pack_bits(np.array([4, 2, 3, 0, 1]), 3) == bytes.fromhex("8982")
    assert pack_bits(np.array([1, 0, 1]), 1) == bytes([0b10100000])
    assert pack_bits(np.array([], dtype=np.int32), 5) == b""


def test_pack_bits_round_trip_across_chunks():
    rng = np.random.default_rng(7)
    values = rng.integers(0, 2**17, size=300_001)
    packed = pack_bits(values, 17)
    assert len(packed) == (300_001 * 17 + 7) // 8
    assert np.array_equal(unpack_bits(packed, 17, len(values)), values)


@pytest.mark.parametrize("bits", range(1, 33))
def test_pack_bits_equals_a_bit_string_for_every_width(bits):
    """Each width against a plain reference (each value's low ``bits`` bits, MSB first, back to back), at counts
    around the group sizes (a group of values fills whole 64-bit words) and the padding they need."""
    rng = np.random.default_rng(bits)
    for count in (1, 2, 7, 8, 31, 32, 63, 64, 65, 127, 129, 1000):
        values = rng.integers(0, 2**bits, size=count, dtype=np.int64).astype(np.int32 if bits < 32 else np.int64)
        reference = np.unpackbits(values.astype(">u4").view(np.uint8).reshape(count, 4), axis=1)[:, 32 - bits:]
        assert bytes(pack_bits(values, bits)) == np.packbits(reference.reshape(-1)).tobytes(), count


# --- forward indexes --------------------------------------------------------------------------------


def test_sorted_forward_index_ranges():
    data = sorted_forward_index(np.array([0, 0, 1, 2, 2, 2]), 3)
    assert data == struct.pack(">6i", 0, 1, 2, 2, 3, 5)


def test_unsorted_forward_index():
    assert unsorted_forward_index(np.array([1, 3, 0, 2]), 2) == bytes([0b01110010])


def test_multi_value_forward_index_layout():
    # rows [0,1], [2], [1,1,0]: T = 6, avg = 2, docsPerChunk = 1024, one chunk starting at value 0;
    # row-start bits 1 0 1 1 0 0 -> 0xB0; values with 2 bits: 00 01 10 01 01 00 -> 0x19 0x40
    data = multi_value_forward_index(np.array([0, 1, 2, 1, 1, 0]), np.array([2, 1, 3]), 2)
    assert data == struct.pack(">i", 0) + bytes([0xB0]) + bytes([0x19, 0x40])


def test_multi_value_forward_index_chunk_offsets():
    # 3000 rows of 1 value: docsPerChunk = 2048 -> chunks start at values 0 and 2048.
    lengths = np.ones(3000, dtype=np.int64)
    data = multi_value_forward_index(np.zeros(3000, dtype=np.int32), lengths, 1)
    assert data[:8] == struct.pack(">2i", 0, 2048)
    assert len(data) == 8 + 375 + 375


# --- dictionaries -----------------------------------------------------------------------------------


def test_fixed_width_numeric_dictionary():
    d = build_dictionary(pa.array([1209, 617, 824, 617], pa.int32()), "INT", "c")
    assert d.values.to_pylist() == [617, 824, 1209]
    assert d.dict_ids.tolist() == [2, 0, 1, 0]
    assert serialize_dictionary(d, False) == bytes.fromhex("00000269 00000338 000004b9")
    assert entry_width(d) == 0


def test_float_dictionary_folds_negative_zero_and_rejects_nan():
    d = build_dictionary(pa.array([-0.0, 0.0, float("-inf")], pa.float64()), "DOUBLE", "d")
    assert d.values.to_pylist() == [float("-inf"), 0.0]
    assert serialize_dictionary(d, False) == struct.pack(">2d", float("-inf"), 0.0)
    with pytest.raises(ColumnValueError, match="column 'd'.*NaN"):
        build_dictionary(pa.array([1.0, float("nan")], pa.float64()), "DOUBLE", "d")


def test_padded_string_dictionary():
    # SEGMENT_FORMAT.md 4.3: lynda\0\0\0\0 + lynda 2.0, W = 9
    d = build_dictionary(pa.array(["lynda 2.0", "lynda"]), "STRING", "name")
    assert serialize_dictionary(d, uses_var_length(d, False, False)) == b"lynda\0\0\0\0lynda 2.0"
    assert entry_width(d) == 9


def test_string_order_is_utf16():
    # U+1F600 is the surrogate pair D83D DE00, which Java sorts before U+FFFD; UTF-8 order is the reverse.
    d = build_dictionary(pa.array(["\ufffd", "\U0001F600", "a"]), "STRING", "s")
    assert d.values.to_pylist() == ["a", "\U0001F600", "\ufffd"]
    assert d.dict_ids.tolist() == [2, 1, 0]


def test_var_length_bytes_dictionary():
    d = build_dictionary(pa.array([b"\xff\x00", b"", b"\x01"], pa.binary()), "BYTES", "by")
    assert d.values.to_pylist() == [b"", b"\x01", b"\xff\x00"]  # unsigned order, shorter first
    assert uses_var_length(d, False, False)
    expected = b".vl;" + struct.pack(">iii", 1, 3, 16) + struct.pack(">4i", 32, 32, 33, 35) + b"\x01\xff\x00"
    assert serialize_dictionary(d, True) == expected


def test_equal_length_bytes_use_fixed_dictionary():
    d = build_dictionary(pa.array([b"\x02\x02", b"\x01\x01"], pa.binary()), "BYTES", "by")
    assert not uses_var_length(d, False, False)
    assert serialize_dictionary(d, False) == b"\x01\x01\x02\x02"


def test_big_decimal_serialisation_and_order():
    assert bigdecimal.serialize(decimal.Decimal("1.5")) == bytes.fromhex("0001" "0f")
    assert bigdecimal.serialize(decimal.Decimal("0")) == bytes.fromhex("0000" "00")
    assert bigdecimal.serialize(decimal.Decimal("128")) == bytes.fromhex("0000" "0080")
    assert bigdecimal.serialize(decimal.Decimal("-128")) == bytes.fromhex("0000" "80")
    assert bigdecimal.serialize(decimal.Decimal("1E+3")) == bytes.fromhex("fffd" "01")
    d = build_dictionary(pa.array(["10", "9.5", "-1", "10"]), "BIG_DECIMAL", "bd")
    assert d.values.to_pylist() == ["-1", "9.5", "10"]
    assert d.dict_ids.tolist() == [2, 1, 0, 2]
    with pytest.raises(ColumnValueError, match="column 'bd'"):
        build_dictionary(pa.array(["x"]), "BIG_DECIMAL", "bd")


def test_big_decimal_text_is_java_to_string():
    # BigDecimal.toString: scientific below 1E-6 and for negative scales; no negative zero.
    d = build_dictionary(pa.array(["1e3", "0.0000001", "-0.00", "0.00", "12.50"]), "BIG_DECIMAL", "bd")
    assert d.values.to_pylist() == ["0.00", "1E-7", "12.50", "1E+3"]
    assert d.dict_ids.tolist() == [3, 1, 0, 0, 2]


# --- inverted index, null vector ----------------------------------------------------------------------


def test_inverted_index_layout():
    data = inverted_index(np.array([1, 0, 1]), 2)
    # Portable roaring, no run containers: cookie 12346, 1 container, key 0, card-1, offset 16, values.
    bitmap_0 = bytes.fromhex("3a300000" "01000000" "0000" "0000" "10000000" "0100")
    bitmap_1 = bytes.fromhex("3a300000" "01000000" "0000" "0100" "10000000" "0000" "0200")
    assert BitMap([1]).serialize() == bitmap_0
    assert data == struct.pack(">3I", 12, 12 + 18, 12 + 18 + 20) + bitmap_0 + bitmap_1


def test_multi_value_inverted_index_uses_docs():
    data = inverted_index(np.array([0, 0, 1, 0]), 2, row_lengths=np.array([2, 2]))
    count = struct.unpack(">3I", data[:12])
    assert BitMap.deserialize(data[count[0]:count[1]]) == BitMap([0, 1])
    assert BitMap.deserialize(data[count[1]:count[2]]) == BitMap([1])


def test_null_vector_only_with_nulls():
    assert null_vector(np.zeros(3, dtype=bool)) is None
    assert null_vector(None) is None
    data = null_vector(np.array([False, True, True, True]))
    assert BitMap.deserialize(data) == BitMap([1, 2, 3])


# --- layout -----------------------------------------------------------------------------------------


def test_v3_packing_and_index_map():
    entries = [
        IndexEntry("b", "forward_index", ".sv.unsorted.fwd", b"\x01"),
        IndexEntry("b", "dictionary", ".dict", b"\x02\x03"),
        IndexEntry("a b", "dictionary", ".dict", b""),
    ]
    psf, index_map = v3_columns(entries)
    marker = bytes.fromhex("deadbeefdeafbead")
    assert psf == marker + marker + b"\x02\x03" + marker + b"\x01"
    assert index_map == (
        b"a\\ b.dictionary.startOffset = 0\na\\ b.dictionary.size = 8\n"
        b"b.dictionary.startOffset = 8\nb.dictionary.size = 10\n"
        b"b.forward_index.startOffset = 18\nb.forward_index.size = 9\n"
    )


def test_crc_and_creation_meta():
    import zlib

    entries = [IndexEntry("x", "dictionary", ".dict", b"D"), IndexEntry("x", "forward_index", ".sv.sorted.fwd", b"F")]
    v1 = segment_files(entries, b"M", "v1", 1234)
    assert list(v1.files) == ["creation.meta", "metadata.properties", "x.dict", "x.sv.sorted.fwd"]
    assert v1.crc == zlib.adler32(b"M" + b"D" + b"F")
    assert v1.data_crc == zlib.adler32(b"DF")
    assert v1.files["creation.meta"] == struct.pack(">qqq", v1.crc, 1234, v1.data_crc)
    v3 = segment_files(entries, b"M", "v3", 1234)
    assert list(v3.files) == ["v3/columns.psf", "v3/creation.meta", "v3/index_map", "v3/metadata.properties"]
    assert v3.crc == zlib.adler32(v3.files["v3/columns.psf"] + v3.files["v3/index_map"] + b"M")
    assert v3.data_crc == v1.data_crc  # taken over the v1 file set


def test_partition_values_follow_java_hash_set_order():
    assert java_hash_set_order([3, 1, 2, 0]) == [0, 1, 2, 3]
    assert java_hash_set_order([17, 3]) == [17, 3]  # 16 buckets: 17 lands in bucket 1
    assert java_hash_set_order(range(13)) == list(range(13))  # 13 > 12 -> 32 buckets


def test_string_with_nul_is_rejected():
    with pytest.raises(ColumnValueError, match="column 's'.*NUL"):
        build_dictionary(pa.array(["ok", "a\0b"]), "STRING", "s")
