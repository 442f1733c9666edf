"""The builder's speed paths give the same bytes as the plain ones.

Dictionaries have three ways to the same result (sorted input, hash + sort of the distinct values,
sort of fixed-width keys); each is forced here and checked against Python's own ordering. Bit packing,
the combined Adler-32, the streamed tar and the pigz-style gzip are checked against plain references,
and threads must not change a byte.
"""
from __future__ import annotations

import gzip
import io
import tarfile
import zlib

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.segment import BuildOptions, build_segment, counted_numbers, dictionary, inverted_index, row_order, tarball
from pinot_sink.segment.bitpack import pack_bits
from pinot_sink.segment import builder as builder_module
from pinot_sink.segment.builder import SegmentBuildError
from pinot_sink.segment.dictionary import ColumnValueError, build_dictionary, serialize_dictionary
from pinot_sink.segment.forward_index import sorted_forward_index
from pinot_sink.segment.layout import adler32_combine
from type_mapping.pinot_schema import PinotSchema
from type_mapping.stored import PinotColumns
from type_mapping.table_config import TableConfig

# "hash": every column looks low-cardinality; "sort": none does (strings take the sort-key path).
PATHS = {"hash": 2.0, "sort": 0.0}


def _java_key(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def _check_dictionary(values, arrow_type, stored, key):
    d = build_dictionary(pa.array(values, arrow_type), stored, "c")
    distinct = d.values.to_pylist()
    assert distinct == sorted(set(values), key=key)
    assert [distinct[i] for i in d.dict_ids] == list(values)
    return d


def _strings(rng, count, alphabet, max_length, prefix=""):
    return [prefix + "".join(rng.choice(alphabet, size=int(rng.integers(0, max_length + 1))))
            for _ in range(count)]


STRING_CASES = {
    "ascii, unequal lengths": lambda rng: _strings(rng, 300, list("abzAZ09_ ~"), 12),
    "shared 8-byte prefix (ties on the first key word)": lambda rng: _strings(rng, 300, list("ab"), 9, "prefix__"),
    "one length (the data is the key matrix)": lambda rng: [f"{v:016x}" for v in rng.integers(0, 50, 200)],
    "BMP non-ASCII, incl. U+E000..U+FFFF":
        lambda rng: _strings(rng, 200, ["é", "ß", "中", "\ue000", "\uffff", "a"], 5),
    "empty strings": lambda rng: ["", "", "a", ""],
    "shared prefix longer than a key word": lambda rng: _strings(rng, 300, list("xyz"), 6, "https://example.com/i/"),
    "values up to 64 bytes": lambda rng: _strings(rng, 300, list("0123456789abcdef-"), 64),
    "supplementary characters (Java's UTF-16 order)": lambda rng: _strings(rng, 100, ["\U0001F600", "\uffff", "a"], 3),
    # one length of at most 8 bytes: read as big-endian integer keys (counted up to 2 bytes)
    "one byte each": lambda rng: list(rng.choice(list("zaQ~ "), 300)),
    "two-byte codes": lambda rng: list(rng.choice(["US", "DE", "é", "ß", "zz", "A~"], 300)),
    "three-byte codes and a BMP character": lambda rng: list(rng.choice(["USD", "EUR", "中", "\uffff", "aé"], 300)),
    "five bytes": lambda rng: [f"{v:05d}" for v in rng.integers(0, 99_999, 300)],
    "eight bytes": lambda rng: [f"{v:08x}" for v in rng.integers(0, 2**32 - 1, 300)],
    # several lengths of at most 8 bytes: one 64-bit integer key each, hashed
    "short, several lengths, empty included": lambda rng: _strings(rng, 300, list("abzAZ09_ ~"), 8),
    "short BMP non-ASCII, several lengths": lambda rng: _strings(rng, 300, ["é", "ß", "中", "\uffff", "a"], 2),
    "short, few distinct": lambda rng: list(rng.choice(["ios", "android", "web", "", "null", "WINTER10"], 300)),
}


# "vector": numpy and Arrow whatever the count; "python": Python's sort whatever the count (_few_values)
FEW = {"vector": 0, "python": 10**9}


@pytest.mark.parametrize("few", FEW)
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", STRING_CASES)
@pytest.mark.parametrize("arrow_type", [pa.string(), pa.large_string()])
def test_string_dictionary_paths(monkeypatch, few, path, case, arrow_type):
    monkeypatch.setattr(dictionary, "_LOW_CARDINALITY_FRACTION", PATHS[path])
    monkeypatch.setattr(dictionary, "_FEW_VALUES", FEW[few])
    values = STRING_CASES[case](np.random.default_rng(len(case)))
    d = _check_dictionary(values, arrow_type, "STRING", _java_key)
    monkeypatch.setattr(dictionary, "_FEW_VALUES", FEW["vector"])
    monkeypatch.setattr(dictionary, "_LOW_CARDINALITY_FRACTION", PATHS["hash"])
    monkeypatch.setattr(dictionary, "_FIXED_KEY_MAX_BYTES", 0)  # Arrow's hash of the strings
    monkeypatch.setattr(dictionary, "_SHORT_KEY_MAX_BYTES", 0)
    plain = build_dictionary(pa.array(values, arrow_type), "STRING", "c")
    for var_length in (False, True):
        assert serialize_dictionary(d, var_length) == serialize_dictionary(plain, var_length)
    assert np.array_equal(d.serialized_lengths, plain.serialized_lengths)


def test_sort_key_path_is_taken_for_distinct_short_strings(monkeypatch):
    taken = []
    original = dictionary._sort_by_keys
    monkeypatch.setattr(dictionary, "_sort_by_keys", lambda *a: taken.append(original(*a)) or taken[-1])
    build_dictionary(pa.array([f"id-{i:06d}" for i in range(1000)][::-1]), "STRING", "c")
    assert taken and taken[0] is not None and taken[0].padded is not None


@pytest.mark.parametrize("values", [["US", "DE", "US"], ["USD", "EUR"], [f"{i:08d}" for i in range(1000)][::-1]])
def test_fixed_width_key_path_is_taken_for_short_values_of_one_length(values):
    d = dictionary._by_fixed_width_keys(pa.array(values), "STRING", "c")
    assert d is not None and d.values.to_pylist() == sorted(set(values)) and d.is_ascii
    assert dictionary._by_fixed_width_keys(pa.array(values + ["x"]), "STRING", "c") is None


@pytest.mark.parametrize("values", [["ios", "android", "web", "web"], ["", "a", ""], ["a", "ab", "b", "é", "\uffff"],
                                    [f"{i}" for i in range(2000)][::-1]])
def test_short_key_path_is_taken_for_values_up_to_8_bytes(values):
    d = dictionary._by_short_keys(pa.array(values), "c")
    assert d is not None and d.values.to_pylist() == sorted(set(values), key=_java_key)
    assert [d.values.to_pylist()[i] for i in d.dict_ids] == values
    assert dictionary._by_short_keys(pa.array(values + ["123456789"]), "c") is None  # 9 bytes
    assert dictionary._by_short_keys(pa.array(values + ["\U0001F600"]), "c") is None  # Java's UTF-16 order differs


def test_short_keys_are_the_same_made_in_slices(monkeypatch):
    """The keys are made a slice at a time (memory): a value at any slice edge gets the key of a single pass."""
    rng = np.random.default_rng(7)
    words = ["", "a", "ab", "abc", "sale", "gift", "new", "é", "日本", "12345678"]
    values = [words[i] for i in rng.integers(0, len(words), 1000)]
    whole = dictionary._by_short_keys(pa.array(values), "c")
    for size in (1, 7, 64, 999):
        monkeypatch.setattr(dictionary, "_SHORT_KEY_SLICE", size)
        sliced = dictionary._by_short_keys(pa.array(values), "c")
        assert sliced.values.equals(whole.values) and np.array_equal(sliced.dict_ids, whole.dict_ids)
        assert [sliced.values.to_pylist()[i] for i in sliced.dict_ids] == values


def _rare_outside_the_sample(common, rare, count=20_000):
    """``count`` values of ``common`` with ``rare`` once where no sample block of ``dictionary._sample`` reads."""
    values = [common[i % len(common)] for i in range(count)]
    values[dictionary._SAMPLE_BLOCK_SIZE + 100] = rare  # past the first block, before the second
    return values


@pytest.mark.parametrize("arrow_type", [pa.string(), pa.large_string()])
@pytest.mark.parametrize("values", [
    ["", "a", "ab", "sale", "android", "12345678", "é", "web", "日本"] * 3,  # lengths 0-8 at every byte of a word
    ["web", "ios", "android", "web", ""],  # less data than two words: all of it a padded copy
    ["12345678", "abcdefgh", "12345678", "x"] * 5,  # 8-byte values at word starts, the last word's value
])
def test_short_keys_read_the_data_in_place_at_any_alignment(values, arrow_type):
    """The keys read the data's whole words in place (the values in its last partial word, and data that is
    not 8-byte aligned, from a padded copy): every placement and slice gives the plain dictionary."""
    def check(array, expected):
        d = dictionary._by_short_keys(array, "c")
        assert d is not None and d.values.to_pylist() == sorted(set(expected), key=_java_key)
        assert [d.values.to_pylist()[i] for i in d.dict_ids] == expected

    plain = pa.array(values, arrow_type)
    for start in range(min(10, len(values) - 1)):  # slices (of 2 values or more): offsets from any byte
        check(plain.slice(start), values[start:])
        check(plain.slice(0, len(values) - start), values[: len(values) - start])
    encoded = [v.encode() for v in values]
    offsets = np.zeros(len(values) + 1, dtype=np.int64 if arrow_type == pa.large_string() else np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    data = b"".join(encoded)
    for shift in range(8):  # the data buffer at every address alignment
        memory = np.zeros(len(data) + 16, dtype=np.uint8)
        at = (-memory.ctypes.data + shift) % 8
        memory[at : at + len(data)] = np.frombuffer(data, dtype=np.uint8)
        array = pa.Array.from_buffers(arrow_type, len(values), [None, pa.py_buffer(offsets),
                                                                pa.py_buffer(memory[at : at + len(data)])])
        assert array.buffers()[2].address % 8 == shift
        check(array, values)


@pytest.mark.parametrize("values", [
    ["US", "DE", "FR", "US"] * 5000,  # few codes, all in the sample: no count over the column
    _rare_outside_the_sample(["US", "DE", "FR"], "BR"),  # the sample misses one: every key counted
    _rare_outside_the_sample(["a", "b"], "c"),  # one-byte keys
    [chr(48 + i % 60) + chr(48 + i // 60 % 60) for i in range(20_000)],  # many in the sample: counted at once
    ["日", "本", "本"] * 7000,  # 3 bytes: the sampled candidates instead
])
def test_counted_keys_from_the_sample_equal_the_whole_count(monkeypatch, values):
    counted = []
    original = np.bincount
    monkeypatch.setattr(dictionary.np, "bincount", lambda v, **k: counted.append(len(v)) or original(v, **k))
    d = dictionary._by_fixed_width_keys(pa.array(values), "STRING", "c")
    whole_count = len(values) in counted
    assert whole_count == (len(set(values)) != len(set(values[:dictionary._SAMPLE_BLOCK_SIZE])) or len(set(values)) > 99)
    distinct = sorted(set(values), key=_java_key)
    assert d.values.to_pylist() == distinct
    assert [distinct[i] for i in d.dict_ids] == values and d.dict_ids.dtype == np.int32
    assert d.padded.tolist() == [list(v.encode()) for v in distinct]


@pytest.mark.parametrize("values", [
    ["ios", "android", "web", "web"] * 5000, ["", "a", "", "null", "WINTER10"] * 3000,
    ["web"] * 20_000, ["no", "yes", "yes"] * 6000,  # one and two candidates (ids from the second's hits)
    _rare_outside_the_sample(["sale", "gift", "new"], "bulk"),  # the sample misses a value: the hash path
    _rare_outside_the_sample(["é", "ab"], ""),
])
@pytest.mark.parametrize("width", ["several lengths", "one length"])
def test_few_distinct_keys_give_the_hash_paths_dictionary(monkeypatch, values, width):
    """Few distinct keys in a sample are matched one candidate at a time; a key outside the sample sends the
    column to the hash, with the same dictionary either way."""
    if width == "one length":  # three bytes each (a non-ASCII character takes two)
        values = [(v + "xyz")[:3] if v.isascii() else (v + "x")[:2] for v in values]
    path = dictionary._by_fixed_width_keys if width == "one length" else (lambda f, s, c: dictionary._by_short_keys(f, c))
    matched = []
    original = dictionary._ids_among
    monkeypatch.setattr(dictionary, "_ids_among", lambda *a: matched.append(original(*a)) or matched[-1])
    few = path(pa.array(values), "STRING", "c")
    assert matched and (matched[0] is None) == (len(set(values[:dictionary._SAMPLE_BLOCK_SIZE])) < len(set(values)))
    assert few.values.to_pylist() == sorted(set(values), key=_java_key)
    assert [few.values.to_pylist()[i] for i in few.dict_ids] == values
    monkeypatch.setattr(dictionary, "_FEW_DISTINCT", 0)
    hashed = path(pa.array(values), "STRING", "c")
    assert few.values.equals(hashed.values) and np.array_equal(few.dict_ids, hashed.dict_ids)
    assert few.dict_ids.dtype == hashed.dict_ids.dtype == np.int32
    assert np.array_equal(few.padded, hashed.padded)


def test_sort_key_path_skips_shared_prefix_and_leaves_long_ties_to_arrow():
    ids = pa.array([f"user_{i:08d}" for i in np.random.default_rng(1).permutation(5000)])
    d = dictionary._sort_by_keys(ids, "STRING", "c")
    assert d is not None and d.values.to_pylist() == sorted(ids.to_pylist())
    # 40-byte values that mostly tie on their first 8 bytes after the shared ones: lexsort would be slow
    stamps = pa.array([f"2024-01-0{i % 3}T00:00:00.{i:06d}-and-some-more" for i in range(5000)])
    assert dictionary._sort_by_keys(stamps, "STRING", "c") is None
    assert build_dictionary(stamps, "STRING", "c").values.to_pylist() == sorted(stamps.to_pylist())


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("width", [0, 1, 2, 3, 8, 16, 20])
def test_bytes_of_one_length_dictionary_paths(monkeypatch, path, width):
    monkeypatch.setattr(dictionary, "_LOW_CARDINALITY_FRACTION", PATHS[path])
    rng = np.random.default_rng(width)
    values = [bytes(row) for row in rng.integers(0, 3, (300, width), dtype=np.uint8)]  # NUL bytes included
    d = _check_dictionary(values, pa.binary(), "BYTES", lambda b: b)
    assert serialize_dictionary(d, False) == b"".join(sorted(set(values)))


def test_few_bytes_values_in_python_equal_the_vector_paths(monkeypatch):
    values = [b"a", b"a\0", b"", b"\xff", b"\x00", b"a", b"\x80b"]
    few = build_dictionary(pa.array(values, pa.binary()), "BYTES", "c")
    assert len(values) <= dictionary._FEW_VALUES and few.values.to_pylist() == sorted(set(values))
    monkeypatch.setattr(dictionary, "_FEW_VALUES", FEW["vector"])
    plain = build_dictionary(pa.array(values, pa.binary()), "BYTES", "c")
    assert few.values.equals(plain.values) and np.array_equal(few.dict_ids, plain.dict_ids)
    assert np.array_equal(few.serialized_lengths, plain.serialized_lengths)
    for var_length in (False, True):
        assert serialize_dictionary(few, var_length) == serialize_dictionary(plain, var_length)


def test_bytes_of_several_lengths_are_not_padded_into_one_key():
    values = pa.array([b"a", b"a\0", b"b", b""] * 3, pa.binary())
    assert dictionary._sort_by_keys(values, "BYTES", "c") is None
    _check_dictionary(values.to_pylist(), pa.binary(), "BYTES", lambda b: b)


@pytest.mark.parametrize("few", FEW)
def test_sliced_string_array(monkeypatch, few):
    monkeypatch.setattr(dictionary, "_LOW_CARDINALITY_FRACTION", PATHS["sort"])
    monkeypatch.setattr(dictionary, "_FEW_VALUES", FEW[few])
    array = pa.array(["zz", "b", "a", "c", "b", "yy"]).slice(1, 4)
    d = build_dictionary(array, "STRING", "c")
    assert d.values.to_pylist() == ["a", "b", "c"] and d.dict_ids.tolist() == [1, 0, 2, 1]


@pytest.mark.parametrize("few", FEW)
@pytest.mark.parametrize("path", PATHS)
def test_nul_is_rejected_on_every_path(monkeypatch, path, few):
    monkeypatch.setattr(dictionary, "_LOW_CARDINALITY_FRACTION", PATHS[path])
    monkeypatch.setattr(dictionary, "_FEW_VALUES", FEW[few])
    # the second: one length (integer keys); the third: short, several lengths (one integer key each)
    for values in (["ok", "a\0b", "zz", "long enough string"], ["ok", "a\0", "zz"], ["ok", "a\0b", "zz"]):
        with pytest.raises(ColumnValueError, match="column 'c'.*NUL"):
            build_dictionary(pa.array(values), "STRING", "c")


NUMERIC_CASES = [
    ("INT", pa.int32(), lambda rng: rng.integers(-5, 5, 500).tolist()),
    ("INT", pa.int32(), lambda rng: sorted(rng.integers(-2**31, 2**31, 300).tolist())),
    ("LONG", pa.int64(), lambda rng: rng.integers(-2**63, 2**63 - 1, 300, dtype=np.int64).tolist()),
    ("LONG", pa.int64(), lambda rng: [7, 7, 7]),
    ("DOUBLE", pa.float64(), lambda rng: [0.0, -0.0, float("inf"), -1.5, 2.25, float("-inf"), -0.0, 2.25]),
    ("DOUBLE", pa.float64(), lambda rng: sorted([-0.0, 0.0, 1.0, 1.0, 3.5])),
    ("FLOAT", pa.float32(), lambda rng: np.round(rng.normal(0, 3, 400), 1).astype(np.float32).tolist()),
    # small ranges at the ends of the types: the counting path's offsets must not overflow
    ("INT", pa.int32(), lambda rng: rng.integers(2**31 - 40, 2**31, 300).tolist()),
    ("INT", pa.int32(), lambda rng: rng.integers(-2**31, -2**31 + 40, 300).tolist()),
    ("LONG", pa.int64(), lambda rng: rng.integers(-2**63, -2**63 + 900, 300, dtype=np.int64).tolist()),
    ("LONG", pa.int64(), lambda rng: rng.integers(2**63 - 900, 2**63 - 1, 300, dtype=np.int64).tolist()),
    # counting: gaps in a small range (ranks), and a range wider than the counted table (the scatter)
    ("INT", pa.int32(), lambda rng: rng.choice([-3, 1, 5, 9], 300).tolist()),
    ("LONG", pa.int64(), lambda rng: rng.integers(10**12, 10**12 + 90_000, 100_000).tolist()),
    # a small range all in the sample (no count over all values), at the type's end, and one value outside it
    ("INT", pa.int32(), lambda rng: rng.integers(-3, 5, 20_000).tolist()),
    ("INT", pa.int32(), lambda rng: rng.integers(2**31 - 8, 2**31, 20_000).tolist()),
    ("LONG", pa.int64(), lambda rng: _rare_outside_the_sample([4, 1, 3], 2)),
    # decimals (integers over 10^d): counted as those integers, checked exactly, or another path when one is not
    ("DOUBLE", pa.float64(), lambda rng: np.round(rng.integers(-20_000, 20_000, 30_000) / 100 + 0.99, 2).tolist()),
    ("DOUBLE", pa.float64(), lambda rng: [float(v) for v in rng.integers(-50, 50, 500)] + [-0.0, 0.0]),
    ("DOUBLE", pa.float64(), lambda rng: [float(f"{v:.3f}") for v in rng.normal(0, 5, 500)]),  # parsed text
    ("DOUBLE", pa.float64(), lambda rng: _rare_outside_the_sample([1.25, 3.5, 2.75], 0.125)),  # 0.125: 3 decimals
    ("DOUBLE", pa.float64(), lambda rng: _rare_outside_the_sample([1.5, 2.0], float("inf"))),
    ("DOUBLE", pa.float64(), lambda rng: [float("-inf"), 1.5, float("inf"), 1.5, -2.5]),
    ("DOUBLE", pa.float64(), lambda rng: [1e300, 3.0, -1e300, 3.0, 2.0**62, 1.0]),  # integers out of int64's range
    ("DOUBLE", pa.float64(), lambda rng: rng.integers(0, 10**9, 300).astype(float).tolist()),  # a wide range
    ("FLOAT", pa.float32(), lambda rng: (rng.integers(0, 500, 2000) / np.float32(4)).astype(np.float32).tolist()),
]
# (_COUNTING_SPAN_PER_VALUE, _COUNTING_MIN_SPAN, _DISTINCT_SPAN_PER_VALUE)
COUNTING = {"counting": (1, 1 << 16, 4), "no counting": (0, 0, 0)}


@pytest.mark.parametrize("counting", COUNTING)
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("stored, arrow_type, make", NUMERIC_CASES)
def test_numeric_dictionary_paths(monkeypatch, path, counting, stored, arrow_type, make):
    monkeypatch.setattr(dictionary, "_LOW_CARDINALITY_FRACTION", PATHS[path])
    monkeypatch.setattr(counted_numbers, "_COUNTING_SPAN_PER_VALUE", COUNTING[counting][0])
    monkeypatch.setattr(counted_numbers, "_COUNTING_MIN_SPAN", COUNTING[counting][1])
    monkeypatch.setattr(counted_numbers, "_DISTINCT_SPAN_PER_VALUE", COUNTING[counting][2])
    values = make(np.random.default_rng(3))
    d = build_dictionary(pa.array(values, arrow_type), stored, "c")
    normalised = [v + 0.0 if stored in ("FLOAT", "DOUBLE") else v for v in values]  # -0.0 -> 0.0
    distinct = d.values.to_pylist()
    assert distinct == sorted(set(normalised))
    assert [distinct[i] for i in d.dict_ids] == normalised
    assert d.dict_ids.dtype == np.int32
    stats_only = build_dictionary(pa.array(values, arrow_type), stored, "c", ids=False)  # a raw column's
    assert stats_only.values.to_pylist() == distinct
    assert stats_only.dict_ids is None
    assert (stats_only.input_count, stats_only.input_sorted) == (len(values), normalised == sorted(normalised))


@pytest.mark.parametrize("values, in_sample", [
    (np.arange(20_000) % 7, True), (np.array(_rare_outside_the_sample([4, 1, 3], 2)) - 1, False),
    (np.arange(20_000) % 3000, False),  # a range as wide as an eighth of the sample: not tried
])
def test_counting_skips_the_count_when_the_sample_holds_the_whole_range(monkeypatch, values, in_sample):
    counted = []
    original = np.bincount
    monkeypatch.setattr(dictionary.np, "bincount", lambda v, **k: counted.append(len(v)) or original(v, **k))
    d = build_dictionary(pa.array(values.astype(np.int32)), "INT", "c")
    assert (len(values) not in counted) == in_sample
    assert d.values.to_pylist() == sorted(set(values.tolist()))
    assert [d.values.to_pylist()[i] for i in d.dict_ids] == values.tolist()


@pytest.mark.parametrize("values, counted", [
    (np.round(np.arange(20_000) % 1500 / 100 + 0.99, 2), True),  # cents
    (np.arange(20_000) % 1500 / 8, True),  # eighths: three decimals
    (np.arange(20_000) % 1500 / 32, False),  # 32nds: five decimals
    (np.array(_rare_outside_the_sample([1.25, 3.5], 0.12345)), False),  # five decimals, outside the sample
])
def test_decimal_floats_are_counted_as_integers(monkeypatch, values, counted):
    calls = []
    original = counted_numbers.distinct_by_counting
    monkeypatch.setattr(counted_numbers, "distinct_by_counting", lambda *a: calls.append(a) or original(*a))
    d = build_dictionary(pa.array(values), "DOUBLE", "c")
    assert bool(calls) == counted
    assert d.values.to_pylist() == sorted(set(values.tolist()))
    assert [d.values.to_pylist()[i] for i in d.dict_ids] == values.tolist()


def _reference_pack(values, bits):
    stream = "".join(format(int(v), f"0{bits}b") for v in values)
    stream += "0" * (-len(stream) % 8)
    return bytes(int(stream[i : i + 8], 2) for i in range(0, len(stream), 8))


@pytest.mark.parametrize("bits", range(1, 32))
def test_pack_bits_matches_bit_string(bits):
    rng = np.random.default_rng(bits)
    for count in (1, 7, 8, 9, 17, 64, 101):
        values = rng.integers(0, 2**bits, count)
        values[0] = 2**bits - 1
        assert pack_bits(values.astype(np.int32), bits) == _reference_pack(values, bits)


@pytest.mark.parametrize("cardinality", [1, 2, 5, 12, 13, 300])
def test_inverted_index_scan_and_sort_agree(monkeypatch, cardinality):
    dict_ids = np.random.default_rng(cardinality).integers(0, cardinality, 2000).astype(np.int32)
    dict_ids[:cardinality] = np.arange(cardinality)  # every dictId occurs
    monkeypatch.setattr(inverted_index, "_SCAN_CARDINALITY", 1000)
    scanned = inverted_index.inverted_index(dict_ids, cardinality)
    monkeypatch.setattr(inverted_index, "_SCAN_CARDINALITY", 0)
    assert inverted_index.inverted_index(dict_ids, cardinality) == scanned
    groups = inverted_index.docs_by_dict_id(dict_ids, cardinality)
    assert all(np.array_equal(g, np.flatnonzero(dict_ids == d)) for d, g in enumerate(groups))


def _pyroaring_inverted_index(dict_ids, cardinality, row_lengths=None) -> bytes:
    """The plain writer: one pyroaring bitmap per dictId (pyroaring's bytes are Java's, see the fixtures)."""
    from pyroaring import BitMap

    docs = np.arange(len(dict_ids)) if row_lengths is None else np.repeat(np.arange(len(row_lengths)), row_lengths)
    order = np.argsort(dict_ids, kind="stable")
    bitmaps = []
    for group in np.split(docs[order], np.cumsum(np.bincount(dict_ids, minlength=cardinality))[:-1]):
        bitmap = BitMap(group.astype(np.uint32))
        bitmap.run_optimize()
        bitmaps.append(bitmap.serialize())
    offsets = np.cumsum([4 * (cardinality + 1)] + [len(b) for b in bitmaps])
    return offsets.astype(">u4").tobytes() + b"".join(bitmaps)


@pytest.mark.parametrize("shape", ["unique", "few_each", "runs", "over_4096", "mixed", "multi_value",
                                   "sparse_neighbours", "run_ties", "no_docs"])
def test_inverted_index_numpy_bitmaps_equal_pyroaring(shape):
    """Array-container bitmaps are written with numpy; every shape of bitmap must equal pyroaring's bytes:
    one and several containers (docs past 65 535), containers pyroaring turns into runs, bitmap containers
    (over 4 096 docs of one key), and multi-value rows holding a value twice."""
    rng = np.random.default_rng(len(shape))
    rows, row_lengths = 140_000, None
    if shape == "unique":
        dict_ids = rng.permutation(rows)
    elif shape == "few_each":
        dict_ids = rng.integers(0, rows // 5, rows)
    elif shape == "runs":  # consecutive docs: 1-6 in a row, so some groups compress to runs and some not
        dict_ids = np.repeat(np.arange(rows), rng.integers(1, 7, rows))[:rows]
    elif shape == "over_4096":
        dict_ids = rng.integers(0, 10, rows)
    elif shape == "mixed":
        dict_ids = np.where(rng.random(rows) < 0.5, rng.integers(0, 5, rows), rng.integers(5, 50_000, rows))
    elif shape == "sparse_neighbours":  # sparse groups, a few docs next to the one before (counted runs)
        dict_ids = rng.integers(0, rows // 40, rows)
        dict_ids[1::997] = dict_ids[:-1:997]
    elif shape == "run_ties":  # per 16 docs: 5 docs in 2 runs (10 bytes as an array or as runs: stays an
        # array), 6 in 2 runs and 5 in 1 (run containers); most docs follow the one before (the per-doc count)
        unit = np.array([0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2])
        dict_ids = (np.arange(rows) // 16) * 3 + unit[np.arange(rows) % 16]
    elif shape == "no_docs":  # dictIds without docs (between and after those with docs)
        dict_ids = rng.integers(0, 3000, rows) * 2
        built = inverted_index.inverted_index(dict_ids.astype(np.int32), 6003)
        assert bytes(built) == _pyroaring_inverted_index(dict_ids.astype(np.int32), 6003)
        return
    else:
        row_lengths = rng.integers(1, 4, rows // 2)
        dict_ids = rng.integers(0, 30_000, int(row_lengths.sum()))
        dict_ids[1] = dict_ids[0]  # row 0 holds one value twice
    _, dict_ids = np.unique(dict_ids, return_inverse=True)  # every dictId occurs
    dict_ids = dict_ids.astype(np.int32)
    cardinality = int(dict_ids.max()) + 1
    built = inverted_index.inverted_index(dict_ids, cardinality, row_lengths)
    assert bytes(built) == _pyroaring_inverted_index(dict_ids, cardinality, row_lengths)


@pytest.mark.parametrize("shape", ["dense", "dense_and_sparse_keys", "near_run_threshold", "runs", "high_keys"])
def test_bitmap_containers_without_runs_equal_pyroaring(shape):
    """Bitmaps of over 4 096 docs are written with numpy when no container would become a run container:
    the bytes must be pyroaring's, and the numpy writer must decline exactly where pyroaring's holds a run."""
    from pyroaring import BitMap

    rng = np.random.default_rng(len(shape))
    for trial in range(20):
        n = int(rng.integers(4_097, 150_000))
        if shape == "dense":  # bitmap containers only
            docs = rng.integers(0, 2 * n, n)
        elif shape == "dense_and_sparse_keys":  # a bitmap container beside array containers
            docs = np.concatenate([rng.integers(0, 65_536, n), rng.integers(65_536, 10 * 65_536, 3_000)])
        elif shape == "near_run_threshold":  # 2 + 4 * runs around 8192 bytes: blocks of consecutive docs
            blocks = int(rng.integers(1_900, 2_200))
            starts = np.sort(rng.choice(65_536 // 16, blocks, replace=False)) * 16
            docs = (starts[:, None] + np.arange(int(rng.integers(3, 12)))).ravel()
        elif shape == "runs":
            docs = np.concatenate([np.arange(1_000, 1_000 + n), rng.integers(0, 4 * n, 5_000)])
        else:  # keys past 2**16: the key and the container count's words
            docs = rng.integers(2**32 - 4 * n, 2**32, n, dtype=np.uint64)
        docs = np.unique(docs).astype(np.uint32)
        bitmap = BitMap(docs)
        bitmap.run_optimize()
        expected = bitmap.serialize()
        has_runs = int.from_bytes(expected[:2], "little") != 12346
        got = inverted_index._without_runs(docs)
        assert (got is None) == has_runs, trial
        if got is not None:
            assert got == expected, trial


@pytest.mark.parametrize("rows", [1, 4_097, 65_536, 65_537, 200_003])
@pytest.mark.parametrize("shape", ["dense", "sparse_and_dense", "sorted_runs", "run_then_dense", "one_value"])
def test_scanned_inverted_index_equals_pyroaring(monkeypatch, rows, shape):
    """Up to _SCAN_CARDINALITY dictIds: each bitmap from its boolean scan (bitmap containers packed, array
    and run containers from the set docs and run starts, with and without the offsets) equals pyroaring's."""
    rng = np.random.default_rng(rows)
    if shape == "dense":
        dict_ids = np.array([0, 1, 2, 2])[rng.integers(0, 4, rows)]
    elif shape == "sparse_and_dense":  # dictIds 1-2 rare: array containers, and keys with none of them
        dict_ids = np.where(rng.random(rows) < 0.03, rng.integers(1, 3, rows), 0)
        dict_ids[rows // 2 :] = np.where(dict_ids[rows // 2 :] == 2, 0, dict_ids[rows // 2 :])
    elif shape == "sorted_runs":  # run containers only
        dict_ids = np.sort(rng.integers(0, 5, rows))
    elif shape == "run_then_dense":  # run containers beside bitmap / array ones: the run cookie's header
        dict_ids = np.where(np.arange(rows) < rows * 0.7, 0, rng.integers(0, 3, rows))
    else:
        dict_ids = np.zeros(rows, dtype=np.int64)
    _, dict_ids = np.unique(dict_ids, return_inverse=True)
    dict_ids = dict_ids.astype(np.int32)
    cardinality = int(dict_ids.max()) + 1
    expected = _pyroaring_inverted_index(dict_ids, cardinality)
    monkeypatch.setattr(inverted_index, "_SCAN_CARDINALITY", 12)
    assert bytes(inverted_index.inverted_index(dict_ids, cardinality)) == expected
    monkeypatch.setattr(inverted_index, "_SCAN_CARDINALITY", 0)  # the sort path, as a second reference
    assert bytes(inverted_index.inverted_index(dict_ids, cardinality)) == expected


def test_dense_bitmaps_skip_pyroaring(monkeypatch):
    """The low-cardinality column's bitmaps (bitmap containers) come from numpy, with pyroaring's bytes."""
    dict_ids = np.random.default_rng(3).integers(0, 3, 200_000).astype(np.int32)
    expected = _pyroaring_inverted_index(dict_ids, 3)

    def refuse(_):
        raise AssertionError("pyroaring called")

    monkeypatch.setattr(inverted_index, "_serialize", refuse)
    assert bytes(inverted_index.inverted_index(dict_ids, 3)) == expected


def test_sorted_forward_index_rejects_gaps():
    with pytest.raises(ValueError, match="dictIds"):
        sorted_forward_index(np.array([0, 0, 2], dtype=np.int32), 3)


def test_adler32_combine():
    rng = np.random.default_rng(5)
    for first_length, second_length in [(0, 0), (0, 9), (9, 0), (1, 70000), (5552, 5553), (200000, 3)]:
        a = rng.integers(0, 256, first_length, dtype=np.uint8).tobytes()
        b = (b"\xff" * second_length) if second_length % 2 else rng.integers(0, 256, second_length,
                                                                              dtype=np.uint8).tobytes()
        assert adler32_combine(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(a + b)


def _files():
    rng = np.random.default_rng(9)
    return {
        "v3/columns.psf": [b"\xde\xad" * 700, rng.integers(0, 256, 5000, dtype=np.uint8).tobytes(), b""],
        "v3/creation.meta": b"x" * 24,
        "v3/index_map": [b"a = 1\n"],
    }


def test_tar_stream_is_what_tarfile_writes():
    files = _files()
    expected = io.BytesIO()
    with tarfile.open(fileobj=expected, mode="w", format=tarfile.GNU_FORMAT) as tar:
        tar.addfile(tarball._info("seg/", 1234, None))
        tar.addfile(tarball._info("seg/v3/", 1234, None))
        for name, content in files.items():
            data = b"".join(content) if isinstance(content, list) else content
            tar.addfile(tarball._info(f"seg/{name}", 1234, len(data)), io.BytesIO(data))
    assert b"".join(tarball.tar_stream("seg", ["v3/"], files, 1234)) == expected.getvalue()


def test_gzip_pieces_are_one_valid_member_whatever_the_threads(monkeypatch):
    monkeypatch.setattr(tarball, "GZIP_CHUNK", 1000)  # many pieces, each primed with the previous bytes
    _check_gzip_same_for_any_threads(list(tarball.tar_stream("seg", ["v3/"], _files(), 1234)), 3)


def test_gzip_pieces_isal_zlib_or_stored(monkeypatch):
    rng = np.random.default_rng(4)
    noise = rng.integers(0, 256, 100_000, dtype=np.uint8).tobytes()  # incompressible: stored
    skewed = rng.integers(0, 5, 100_000, dtype=np.uint8).tobytes()  # ISA-L does as well as zlib: ISA-L
    text = b"the same words again and again, " * 3000
    counting = np.arange(40_000, dtype=">i4").tobytes()  # ISA-L's output is 1.7x zlib's here: zlib
    methods = [tarball._method([memoryview(data)]) for data in (noise, skewed, text, counting)]
    assert methods == [tarball.STORED, tarball.ISAL, tarball.ISAL, tarball.ZLIB]
    monkeypatch.setattr(tarball, "GZIP_CHUNK", 90_000)  # pieces straddle the kinds, each primed by the last
    _check_gzip_same_for_any_threads([noise, text, skewed, counting, noise[:5000], counting, text], 2)


def _check_gzip_same_for_any_threads(buffers, threads: int) -> None:
    """``write_gzip`` gives the same bytes on one thread and on ``threads``: one valid gzip member."""
    outputs = []
    for count in (1, threads):
        out = io.BytesIO()
        tarball.write_gzip(out, buffers, count)
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1]
    assert gzip.decompress(outputs[0]) == b"".join(buffers)
    assert zlib.decompress(outputs[0], wbits=31) == b"".join(buffers)  # a single member


SCHEMA = PinotSchema.from_json({
    "schemaName": "t",
    "dimensionFieldSpecs": [
        {"name": "id", "dataType": "STRING"},
        {"name": "kind", "dataType": "STRING"},
        {"name": "tags", "dataType": "STRING", "singleValueField": False},
    ],
    "metricFieldSpecs": [{"name": "amount", "dataType": "DOUBLE"}, {"name": "n", "dataType": "LONG"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
})
CONFIG = {"tableName": "t_OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
          "tableIndexConfig": {"invertedIndexColumns": ["kind", "tags"]}}


def _table(rows=3000):
    rng = np.random.default_rng(11)
    return pa.table({
        "id": pa.array([f"{v:012x}" for v in rng.permutation(rows)]),
        "kind": pa.array(np.array(["a", "b", "c"])[rng.integers(0, 3, rows)]),
        "tags": pa.array([["x", "y"][: 1 + i % 2] for i in range(rows)], pa.list_(pa.string())),
        "amount": pa.array(np.round(rng.normal(0, 100, rows), 2)),
        "n": pa.array(rng.integers(0, 10, rows)),
        "ts": pa.array(1_700_000_000_000 + np.arange(rows, dtype=np.int64)),
    })


def test_threads_do_not_change_a_byte(tmp_path, monkeypatch):
    monkeypatch.setattr(tarball, "GZIP_CHUNK", 4096)
    built = [build_segment(PinotColumns(_table(), {}), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path / str(threads), "seg_0",
                           1_700_000_000_000, BuildOptions(threads=threads))
             for threads in (1, 3)]
    assert built[0].tar_path.read_bytes() == built[1].tar_path.read_bytes()
    assert built[0].crc == built[1].crc and built[0].data_crc == built[1].data_crc


def test_release_free_is_called_on_one_thread_and_changes_no_byte(tmp_path, monkeypatch):
    """``BuildOptions.release_free`` (the compaction's heap trim): called by a one-thread build before each column
    of at least the average size, never by several threads; the bytes are the same."""
    from pinot_sink import allocator
    from pinot_sink.segment import builder

    monkeypatch.setattr(builder, "RELEASE_FREE_MIN_ROWS", 1)  # (builds of fewer rows never call it)
    calls = []

    def count():
        calls.append(1)
        allocator.release_free()  # glibc's malloc_trim where there is one: harmless mid-build

    config = TableConfig.from_json(CONFIG, SCHEMA)
    built = [build_segment(PinotColumns(_table(), {}), SCHEMA, config, tmp_path / name, "seg_0", 1_700_000_000_000,
                           BuildOptions(threads=threads, release_free=hook))
             for name, threads, hook in (("plain", 1, None), ("trimmed", 1, count), ("threads", 3, count))]
    assert built[0].tar_path.read_bytes() == built[1].tar_path.read_bytes() == built[2].tar_path.read_bytes()
    columns = len(SCHEMA.column_names)
    assert 1 <= len(calls) < columns  # the larger columns only, all from the one-thread build


@pytest.mark.parametrize("threads", [1, 4])  # one thread builds the smallest columns first
def test_first_failing_column_in_schema_order_is_reported(tmp_path, threads):
    table = _table(10)
    table = table.set_column(0, "id", pa.array(["ok" * 40] * 9 + ["a\0b"]))  # id the largest: built last
    table = table.set_column(3, "amount", pa.array([float("nan")] * 10))
    with pytest.raises(SegmentBuildError, match="column 'id'"):
        build_segment(PinotColumns(table, {}), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", 1_700_000_000_000,
                      BuildOptions(threads=threads))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("cardinality", [1, 7, 300, 70_000])
@pytest.mark.parametrize("empty_rows", [False, True])
@pytest.mark.parametrize("block_rows, length_type", [(65_536, np.int64), (65_536, np.int32), (1, np.int32), (7, np.int64), (333, np.int32)])
def test_multi_value_reorder_is_the_row_gather(cardinality, empty_rows, block_rows, length_type, monkeypatch):
    """A multi-value column's values follow the segment's row order (the running sum of row jumps, a block of
    output rows at a time): the same values and row lengths as gathering the rows one by one."""
    from pinot_sink.segment import builder
    from pinot_sink.segment.builder import _reorder_multi_value

    monkeypatch.setattr(builder, "REORDER_BLOCK_ROWS", block_rows)

    rng = np.random.default_rng(cardinality)
    rows = 5000
    row_keys = rng.integers(0, cardinality, rows).astype(np.int32)
    lengths = rng.integers(0 if empty_rows else 1, 4, rows).astype(length_type)
    values = rng.integers(0, 50, int(lengths.sum())).astype(np.int32)
    order = row_order.rows_by_dict_id(row_keys, cardinality)
    reordered, reordered_lengths = _reorder_multi_value(values, lengths, order)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    expected = np.concatenate([values[starts[r]:starts[r + 1]] for r in order])
    assert np.array_equal(reordered, expected) and np.array_equal(reordered_lengths, lengths[order])
    assert reordered.dtype == values.dtype and reordered_lengths.dtype == lengths.dtype


@pytest.mark.parametrize("block_rows", [1, 7, 333, 65_536])
@pytest.mark.parametrize("ordered", [False, True])
def test_multi_value_reorder_points_default_rows_and_marks_them(block_rows, ordered, monkeypatch):
    """The rows whose values start at the [default] slot (``firsts``) take it as their one value, and
    ``marked_first`` tells which output rows those are, however the blocks of output rows fall."""
    from pinot_sink.segment import builder
    from pinot_sink.segment.builder import _reorder_multi_value

    monkeypatch.setattr(builder, "REORDER_BLOCK_ROWS", block_rows)
    rng = np.random.default_rng(block_rows)
    rows = 3000
    is_default = rng.random(rows) < 0.3
    lengths = np.where(is_default, 1, rng.integers(1, 4, rows)).astype(np.int32)
    values = rng.integers(0, 50, int(lengths[~is_default].sum()) + 1).astype(np.int32)  # the last: the default
    firsts = np.full(rows, len(values) - 1, dtype=np.int64)
    firsts[~is_default] = np.concatenate([[0], np.cumsum(lengths[~is_default])[:-1]])
    order = rng.permutation(rows).astype(np.int32) if ordered else None
    reordered, reordered_lengths, marked = _reorder_multi_value(values, lengths, order, firsts, len(values) - 1)
    sequence = np.arange(rows) if order is None else order
    expected = np.concatenate([values[firsts[r]:firsts[r] + lengths[r]] for r in sequence])
    assert np.array_equal(reordered, expected) and np.array_equal(reordered_lengths, lengths[sequence])
    assert np.array_equal(marked, is_default[sequence]) and reordered_lengths.dtype == lengths.dtype


@pytest.mark.parametrize("block_rows", [1, 3, 65_536])
@pytest.mark.parametrize("sliced", [False, True])
def test_longest_multi_value_row_in_bytes_by_blocks_of_rows(block_rows, sliced, monkeypatch):
    """maxNumberOfMultiValues' byte sibling (a row's values' bytes back to back), measured a block of rows at
    a time: the longest row however the blocks fall, for a list column sliced or not."""
    from pinot_sink.segment import stats

    monkeypatch.setattr(stats, "STATS_BLOCK_ROWS", block_rows)
    rng = np.random.default_rng(block_rows)
    rows = [["x" * int(n) for n in rng.integers(0, 9, int(k))] for k in rng.integers(1, 4, 500)]
    column = pa.array(rows, pa.list_(pa.string()))
    column = column.slice(7, 400) if sliced else column
    flat, lengths = stats.flatten(pa.chunked_array([column]), False)
    assert lengths.dtype == np.int32  # one per row; int64 only for a large_list
    offsets = np.frombuffer(flat.buffers()[1], dtype=np.int32)[flat.offset:flat.offset + len(flat) + 1]
    longest = max(sum(map(len, row)) for row in column.to_pylist())
    assert stats._longest_row_bytes(offsets, lengths) == longest
    # the bounds read from the list's own offsets (not rebased when sliced) instead of summed
    assert stats._longest_row_bytes(offsets, lengths, stats.offsets_view(column)) == longest


@pytest.mark.parametrize("block_rows", [1, 3, 65_536])
def test_longest_multi_value_row_of_dict_ids_by_blocks_of_rows(block_rows, monkeypatch):
    """The same figure for rows given as dictIds (a compaction's encoded lists: each value's length looked up),
    a block of rows at a time: the longest row however the blocks fall."""
    from pinot_sink.segment import stats

    monkeypatch.setattr(stats, "STATS_BLOCK_ROWS", block_rows)
    rng = np.random.default_rng(block_rows)
    value_lengths = rng.integers(0, 9, 20).astype(np.int32)
    lengths = rng.integers(1, 4, 500).astype(np.int32)
    dict_ids = rng.integers(0, 20, int(lengths.sum())).astype(np.int32)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    longest = max(int(value_lengths[dict_ids[starts[r]:starts[r + 1]]].sum()) for r in range(len(lengths)))
    assert stats._longest_row_of_ids(value_lengths, dict_ids, lengths) == longest


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
                                   np.float32, np.float64, np.bool_, ">i4"])
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32, np.uint16, np.uint8])
def test_gather_is_numpys_fancy_indexing(dtype, index_dtype):
    """The builder's in-range gathers: numpy's fancy-indexing result, for any value and index type."""
    from pinot_sink.segment.gather import gather

    rng = np.random.default_rng(3)
    values = rng.integers(0, 100, 200).astype(dtype)
    for indices in (rng.integers(0, 200, 500), np.arange(200)[::-1], np.zeros(0, dtype=np.int64)):
        indices = indices.astype(index_dtype) if index_dtype != np.uint8 else (indices % 200).astype(np.uint8)
        taken = gather(values, indices)
        assert taken.dtype == values.dtype and np.array_equal(taken, values[indices])


@pytest.mark.parametrize("cardinality, rows", [(1, 5), (3, 0), (10, 200_003), (5000, 140_000), (70_000, 150_001)])
def test_narrow_row_order_is_the_stable_order(cardinality, rows):
    # The counting sort a block of rows at a time (uint32 / int32, no intp copy) gives rows_by_dict_id's order:
    # rows of one dictId in row order, across blocks (65,536 rows each) too; its counts are bincount's.
    dict_ids = np.random.default_rng(cardinality).integers(0, cardinality, rows).astype(np.int32)
    expected = row_order.rows_by_dict_id(dict_ids, cardinality)
    for dtype in (np.uint32, np.int32):
        got = row_order.rows_by_dict_id_narrow(dict_ids, cardinality, dtype)
        assert got.dtype == dtype and np.array_equal(got, expected)
    assert np.array_equal(row_order.dict_id_counts(dict_ids, cardinality), np.bincount(dict_ids, minlength=cardinality))


@pytest.mark.parametrize("cardinality, inputs, dtype", [(1, 3, np.int8), (8, 40, np.int8), (300, 5, np.int16),
                                                         (70_000, 2, np.int32)])
def test_row_order_from_runs_is_the_stable_order(cardinality, inputs, dtype):
    # A compaction's sortedColumn: inputs one after the other, each sorted (and the first cut), the last
    # input ending where its predecessor began: the runs of each dictId, in row order, are rows_by_dict_id's
    rng = np.random.default_rng(cardinality)
    pool = rng.choice(cardinality, min(cardinality, 60), replace=False)  # few runs an input, as a sortedColumn's
    parts = [np.sort(rng.choice(pool, int(rng.integers(1, 40_000)))) for _ in range(inputs)]
    dict_ids = np.concatenate(parts).astype(dtype)[int(rng.integers(0, len(parts[0]))):]
    expected = row_order.rows_by_dict_id(dict_ids, cardinality)
    for out in (np.int32, np.intp):
        got = row_order.rows_by_dict_id_runs(dict_ids, out)
        assert got is not None and got.dtype == out and np.array_equal(got, expected)


def test_row_order_from_runs_declines_unsorted_rows():
    rng = np.random.default_rng(3)
    assert row_order.rows_by_dict_id_runs(rng.integers(0, 8, 10_000).astype(np.int8)) is None  # a Spark task's
    runs = np.repeat(np.tile(np.arange(4, dtype=np.int32), 2000), 2)  # sorted... in 2,000 short runs each
    assert row_order.rows_by_dict_id_runs(runs) is None
    assert row_order.rows_by_dict_id_runs(np.zeros(1, dtype=np.int8)) is None


def test_segment_sorted_from_runs_has_the_bytes_of_one_sorted_by_counting(tmp_path, monkeypatch):
    # The sortedColumn comes as dictionary chunks, each input sorted (a compaction's); with the order from runs
    # and without it (every row counted), the same segment
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "country", "dataType": "STRING"}, {"name": "user", "dataType": "LONG"}]})
    config = TableConfig.from_json({"tableName": "t_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {},
                                    "tableIndexConfig": {"sortedColumn": ["country"]}, "metadata": {}}, schema)
    rng = np.random.default_rng(9)
    countries, users = [], []
    for _ in range(6):
        present = sorted(rng.choice(["DE", "FR", "JP", "US"], 3, replace=False))
        ids = np.sort(rng.integers(0, 3, 700))
        countries.append(pa.DictionaryArray.from_arrays(pa.array(ids.astype(np.int8)), pa.array(present)))
        users.append(pa.array(rng.integers(0, 10**6, 700)))
    table = pa.table({"country": pa.chunked_array(countries), "user": pa.chunked_array(users)})
    called = []
    runs = row_order.rows_by_dict_id_runs
    monkeypatch.setattr(builder_module, "rows_by_dict_id_runs", lambda *a: called.append(1) or runs(*a))
    options = BuildOptions(threads=1, narrow_order=True)
    a = build_segment(PinotColumns(table, {}), schema, config, tmp_path / "a", "s", 1, options)
    monkeypatch.setattr(builder_module, "rows_by_dict_id_runs", lambda *a: None)
    b = build_segment(PinotColumns(table, {}), schema, config, tmp_path / "b", "s", 1, options)
    assert called and a.tar_path.read_bytes() == b.tar_path.read_bytes()
