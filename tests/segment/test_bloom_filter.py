"""Bloom filters: bit for bit against Pinot's, Guava's sizing, and the value strings Java would hash."""
from __future__ import annotations

import json
import tarfile

import mmh3
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinot_sink.segment import bloom_filter as bf
from pinot_sink.segment.properties import parse_properties
from type_mapping.pinot_schema import FieldSpec


def _pinot_bloom_and_dictionary(case_dir, case, column):
    with tarfile.open(case_dir / f"{case}_0.tar.gz") as tar:
        psf = tar.extractfile(f"{case}_0/v3/columns.psf").read()
        index_map = parse_properties(tar.extractfile(f"{case}_0/v3/index_map").read())
    start = int(index_map[f"{column}.bloom_filter.startOffset"])
    size = int(index_map[f"{column}.bloom_filter.size"])
    columns = [json.loads(line) for line in (case_dir / "dump-columns.jsonl").read_text().splitlines()]
    dictionary = next(c["dictionary"] for c in columns if c.get("kind") == "column" and c["column"] == column)
    return psf[start + 8 : start + size], dictionary


@pytest.mark.parametrize("case", ["events_indexes", "events_partitioned"])
def test_city_bloom_filter_is_pinots_bit_for_bit(pinot_built, case):
    pinot, dictionary = _pinot_bloom_and_dictionary(pinot_built / case, case, "city")
    ours = bf.build_bloom_filter(pa.array(dictionary), FieldSpec("city", "STRING"))
    assert ours == pinot
    assert all(bf.bloom_might_contain(pinot, value) for value in dictionary)


def test_guava_sizing():
    # n = 300, p = 0.05: m = 1870 bits -> 30 longs, k = round(1870 / 300 * ln 2) = 4 (the fixture's header)
    assert bf.guava_sizing(300, 0.05) == (4, 30)
    assert bf.guava_sizing(0, 0.05) == bf.guava_sizing(1, 0.05)  # Guava: 0 expected insertions -> 1
    assert bf.guava_sizing(1000, 0.01) == (7, 150)  # m = 9585 bits
    with pytest.raises(bf.BloomFilterError):
        bf.guava_sizing(10, 1.0)
    with pytest.raises(bf.BloomFilterError, match="no bits"):
        bf.guava_sizing(1, 0.9)  # m = (long) 0.22 = 0


def test_max_size_raises_the_fpp():
    values = pa.array([f"v{i}" for i in range(300)])
    small = bf.build_bloom_filter(values, FieldSpec("c", "STRING"), fpp=0.05, max_size_in_bytes=100)
    num_longs = int.from_bytes(small[10:14], "big")
    assert num_longs * 8 <= 104  # about 100 bytes instead of 240
    assert bf.java_fpp(0.05, 100, 300) == pytest.approx(0.27770, abs=1e-5)  # 2^-(800/300 * ln 2)
    assert bf.java_fpp(0.05, 10_000, 300) == 0.05  # a large budget keeps the configured fpp


def test_absent_values_are_mostly_rejected():
    values = pa.array([f"city_{i}" for i in range(300)])
    buf = bf.build_bloom_filter(values, FieldSpec("city", "STRING"))
    false_positives = sum(bf.bloom_might_contain(buf, f"town_{i}") for i in range(4000))
    assert false_positives < 4000 * 0.10  # configured fpp 0.05


@pytest.mark.parametrize(
    "data_type, values, expected",
    [
        ("DOUBLE", pa.array([1e30, 0.5, -0.0, float("-inf")]), ["1.0E30", "0.5", "-0.0", "-Infinity"]),
        ("FLOAT", pa.array([0.1, 3.0e-5], pa.float32()), ["0.1", "3.0E-5"]),
        ("LONG", pa.array([-9223372036854775808], pa.int64()), ["-9223372036854775808"]),
        ("BYTES", pa.array([b"\x00\xff", b""], pa.binary()), ["00ff", ""]),
        ("BIG_DECIMAL", pa.array(["1E+3", "0.0000001", "1.5"]), ["1E+3", "1E-7", "1.5"]),
        ("BOOLEAN", pa.array([0, 1], pa.int32()), ["0", "1"]),
    ],
)
def test_value_strings_are_javas_to_string(data_type, values, expected):
    assert bf.java_strings(values, FieldSpec("c", data_type)) == expected


def test_every_type_is_found_by_its_java_string():
    values = pa.array(np.array([1.5, 2.25, 1e-9], dtype=np.float64))
    buf = bf.build_bloom_filter(values, FieldSpec("d", "DOUBLE"))
    assert bf.bloom_might_contain(buf, "1.0E-9") and bf.bloom_might_contain(buf, "2.25")


def test_unknown_file_is_rejected():
    with pytest.raises(bf.BloomFilterError, match="unknown bloom filter"):
        bf.bloom_might_contain(b"\x00\x00\x00\x02" + bytes(12), "x")


def test_integer_filters_hold_the_decimal_strings():
    values = pa.array([-2147483648, 0, 42, 2147483647], pa.int32())
    buf = bf.build_bloom_filter(values, FieldSpec("n", "INT"))
    assert all(bf.bloom_might_contain(buf, text) for text in ("-2147483648", "0", "42", "2147483647"))
    reference = bf.build_bloom_filter(pa.array(["-2147483648", "0", "42", "2147483647"]), FieldSpec("s", "STRING"))
    assert buf == reference  # same strings, same sizing -> same bits


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=70), min_size=1, max_size=30))
def test_vectorised_murmur3_128_equals_the_reference(items):
    h1, h2 = bf._hashes(pa.array(items, pa.binary()))
    reference = [mmh3.hash_bytes(item) for item in items]  # Guava's murmur3_128 byte order: h1, h2 LE
    assert [int(a).to_bytes(8, "little") + int(b).to_bytes(8, "little") for a, b in zip(h1, h2)] == reference
