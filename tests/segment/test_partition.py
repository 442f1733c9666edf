"""Partition functions against Pinot's own reference values and the events_partitioned segment."""
from __future__ import annotations

import json
import tarfile

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinot_sink.segment import partition as p
from pinot_sink.segment.properties import as_list, parse_properties
from type_mapping import java_hash
from type_mapping.pinot_schema import FieldSpec


class JavaRandom:
    """``java.util.Random`` (the LCG Pinot's tests draw their reference inputs from)."""

    def __init__(self, seed: int) -> None:
        self.seed = (seed ^ 0x5DEECE66D) & ((1 << 48) - 1)

    def next_int(self) -> int:
        self.seed = (self.seed * 0x5DEECE66D + 0xB) & ((1 << 48) - 1)
        value = self.seed >> 16
        return value - (1 << 32) if value >> 31 else value

    def next_bytes(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            rnd = self.next_int()
            for _ in range(min(n - len(out), 4)):
                out.append(rnd & 0xFF)
                rnd >>= 8
        return bytes(out)


def _pinot_test_inputs():
    """PartitionFunctionTest: 10 values of 7 bytes from ``new Random(100).nextBytes``."""
    random = JavaRandom(100)
    return [random.next_bytes(7) for _ in range(10)]


def _hash_bytes(kernel, items, dtype=np.int32):
    array = pa.array(items, pa.binary())
    data, offsets = java_hash.utf8_buffers(array)
    return java_hash.hash_each(data, offsets, dtype, kernel).tolist()


def test_murmur2_equals_kafka_reference_values():
    # Kafka's UtilsTest.testMurmur2
    cases = {b"21": -973932308, b"foobar": -790332482, b"a-little-bit-long-string": -985981536,
             b"a-little-bit-longer-string": -1486304829,
             b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971, b"abc": 479470107}
    assert _hash_bytes(java_hash.murmur2, list(cases)) == list(cases.values())
    # Pinot's PartitionFunctionTest.testMurmurEquivalence
    assert _hash_bytes(java_hash.murmur2, _pinot_test_inputs()) == [
        -1044832774, -594851693, 1441878663, 1766739604, 1034724141, -296671913, 443511156, 1483601453,
        1819695080, -931669296]


def test_murmur_partitions_equal_pinots_test():
    strings = pa.array([b.decode("utf-8", "replace") for b in _pinot_test_inputs()])
    ids = p.partition_ids(strings, FieldSpec("s", "STRING"), "Murmur", 5)
    assert ids.tolist() == [1, 4, 4, 1, 1, 2, 0, 4, 2, 3]


@pytest.mark.parametrize("seed, expected", [
    (0, [1255034832, -395463542, 659973067, 1070436837, -1193041642, -1412829846, -483463488, -1385092001,
         568671606, -807299446]),
    (9001, [-590969347, -315366997, 1642137565, -1732240651, -597560989, -1430018124, -448506674, 410998174,
            -1912106487, -19253806]),
])
def test_murmur3_x86_32_reference_values(seed, expected):
    assert _hash_bytes(java_hash.murmur3_x86_32(seed), _pinot_test_inputs()) == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(max_size=40), min_size=1, max_size=20), st.integers(-(2**31), 2**31 - 1))
def test_vectorised_murmur3_x86_32_equals_mmh3(items, seed):
    import mmh3

    # a Java int seed is the same 32 bits as mmh3's unsigned seed
    assert _hash_bytes(java_hash.murmur3_x86_32(seed), items) == [
        mmh3.hash(item, seed & 0xFFFFFFFF, signed=True) for item in items]


def test_murmur3_partition_function_uses_the_seed_and_mask():
    strings = pa.array([b.decode("utf-8", "replace") for b in _pinot_test_inputs()])
    ids = p.partition_ids(strings, FieldSpec("s", "STRING"), "Murmur3", 7, {"seed": "9001"})
    hashes = _hash_bytes(java_hash.murmur3_x86_32(9001), [s.encode("utf-8") for s in strings.to_pylist()])
    assert ids.tolist() == [(h & 0x7FFFFFFF) % 7 for h in hashes]
    x64 = p.partition_ids(strings, FieldSpec("s", "STRING"), "murmur3", 7, {"variant": "x64_32"})
    assert x64.tolist() == [(p.murmur3_x64_32(s.encode("utf-8"), 0) & 0x7FFFFFFF) % 7 for s in strings.to_pylist()]


@pytest.mark.parametrize("seed, expected", [
    (0, [-930531654, 1010637996, -1251084035, -1551293561, 1591443335, 181872103, 1308755538, -432310401,
         -701537488, 674867586]),
    (9001, [1558697417, 933581816, 1071120824, 1964512897, 1629803052, 2037246152, -1867319466, -1003065762,
            -275998120, 1386652858]),
])
def test_murmur3_x64_32_reference_values(seed, expected):
    # Pinot hashes the *string* new String(bytes, UTF_8): malformed bytes became U+FFFD before hashing
    strings = [b.decode("utf-8", "replace").encode("utf-8") for b in _pinot_test_inputs()]
    assert [p.murmur3_x64_32(s, seed) for s in strings] == expected


def test_fnv_reference_values():
    items = [b"", b"a", b"ab", b"abc"]
    as_unsigned = [h & 0xFFFFFFFF for h in _hash_bytes(java_hash.fnv(32, False), items)]
    assert as_unsigned == [0x811C9DC5, 0x050C5D7E, 0x70772D38, 0x439C2F4B]
    as_unsigned = [h & 0xFFFFFFFF for h in _hash_bytes(java_hash.fnv(32, True), items)]
    assert as_unsigned == [0x811C9DC5, 0xE40C292C, 0x4D2505CA, 0x1A47E90B]
    as_unsigned = [h & (2**64 - 1) for h in _hash_bytes(java_hash.fnv(64, True), items, np.int64)]
    assert as_unsigned == [0xCBF29CE484222325, 0xAF63DC4C8601EC8C, 0x089C4407B545986A, 0xE71FA2190541574B]
    # testFnvPartitionFunctionNegativePartitionHandlingConfig: "" with 16 partitions, MASK vs ABS
    h = 0x811C9DC5 - 2**32
    spec = FieldSpec("s", "STRING")
    assert p.partition_ids(pa.array([""]), spec, "FNV", 16).tolist() == [(h & 0x7FFFFFFF) % 16]
    assert p.partition_ids(pa.array([""]), spec, "fnv", 16, {"partitionIdNormalizer": "abs"}).tolist() == [
        abs(int(np.fmod(h, 16)))]


def test_hash_code_is_java_string_hash_code():
    spec = FieldSpec("s", "STRING")
    strings = pa.array(["abc", "", "héllo", "😀", "polygenelubricants"])
    # "abc".hashCode() = 96354; "😀" is two UTF-16 units; "polygenelubricants".hashCode() = Integer.MIN_VALUE
    ids = p.partition_ids(strings, spec, "HashCode", 1_000_000)
    h_hello = 0
    for ch in "héllo":  # all BMP: one UTF-16 unit each
        h_hello = (31 * h_hello + ord(ch)) & 0xFFFFFFFF
    assert ids[0] == 96354 and ids[1] == 0
    assert ids[2] == abs(h_hello - (1 << 32) if h_hello >> 31 else h_hello) % 1_000_000
    assert ids[3] == abs((0xD83D * 31 + 0xDE00)) % 1_000_000
    assert ids[4] == 0  # PRE_MODULO_ABS maps Integer.MIN_VALUE to 0


def test_byte_array_is_arrays_hash_code_of_signed_bytes():
    spec = FieldSpec("s", "STRING")
    # Arrays.hashCode(new byte[]{(byte) 0xC3, (byte) 0xA9}) = 31 * (31 + -61) + -87 = -1017
    ids = p.partition_ids(pa.array(["é", "a"]), spec, "ByteArray", 100_000)
    assert ids.tolist() == [1017, (31 + 97)]


def test_modulo_follows_java_and_positive_modulo():
    spec = FieldSpec("n", "LONG")
    values = pa.array([-7, 7, -9223372036854775808, 0], pa.int64())
    assert p.partition_ids(values, spec, "Modulo", 4).tolist() == [1, 3, 0, 0]
    assert p.partition_ids(values, spec, "Modulo", 4, {"partitionIdNormalizer": "ABS"}).tolist() == [3, 3, 0, 0]
    with pytest.raises(p.PartitionFunctionError, match="'price'.*integers"):
        p.partition_ids(pa.array([1.5]), FieldSpec("price", "DOUBLE"), "Modulo", 4)


def test_string_forms_are_javas():
    assert p.java_string_forms(pa.array([1.0, 1e-5, 1e7]), FieldSpec("d", "DOUBLE")).to_pylist() == [
        "1.0", "1.0E-5", "1.0E7"]
    assert p.java_string_forms(pa.array(["1E+3", "0.50"]), FieldSpec("b", "BIG_DECIMAL")).to_pylist() == [
        "1000", "0.50"]  # toPlainString
    assert p.java_string_forms(pa.array([b"\x01\xab"]), FieldSpec("y", "BYTES")).to_pylist() == ["01ab"]


def test_use_raw_bytes_hashes_the_hex_decoded_bytes():
    spec = FieldSpec("y", "BYTES")
    raw = p.partition_ids(pa.array([b"foobar"]), spec, "Murmur", 1 << 30, {"useRawBytes": "true"})
    assert raw.tolist() == [(-790332482 & 0x7FFFFFFF) % (1 << 30)]
    with pytest.raises(p.PartitionFunctionError, match="not hex"):
        p.partition_ids(pa.array(["xyz1"]), FieldSpec("s", "STRING"), "Murmur", 4, {"useRawBytes": "true"})


def test_bounded_column_value():
    spec = FieldSpec("s", "STRING")
    config = {"columnValues": "Maths|english||Chemistry", "columnValuesDelimiter": "|"}
    ids = p.partition_ids(pa.array(["maths", "English", "chemistry", "art"]), spec, "BoundedColumnValue", 4, config)
    assert ids.tolist() == [1, 2, 3, 0]
    with pytest.raises(p.PartitionFunctionError, match="one more"):
        p.partition_ids(pa.array(["x"]), spec, "BoundedColumnValue", 3, config)


def test_unknown_function_names_the_column():
    with pytest.raises(p.PartitionFunctionError, match="'city'.*Sha1"):
        p.partition_values(pa.array(["x"]), FieldSpec("city", "STRING"), "Sha1", 4)


def test_multi_value_columns_get_ids_per_value_but_no_partition_values():
    spec = FieldSpec("tags", "STRING", single_value=False)
    tags = pa.array([["abc", ""], ["abc"]], pa.list_(pa.string()))
    assert p.partition_ids(tags, spec, "HashCode", 7).tolist() == [96354 % 7, 0, 96354 % 7]
    assert p.partition_values(tags, spec, "HashCode", 7) == []  # Pinot's collectors skip MV values


def test_events_partitioned_metadata_is_reproduced(pinot_built):
    case = pinot_built / "events_partitioned"
    with tarfile.open(case / "events_partitioned_0.tar.gz") as tar:
        metadata = parse_properties(tar.extractfile("events_partitioned_0/v3/metadata.properties").read())
    rows = [json.loads(line) for line in (case / "rows.jsonl").read_text().splitlines()]
    user_id = pa.array([r["user_id"] for r in rows], pa.int32())
    city = pa.array([r["city"] for r in rows])
    for column, values, spec in (("user_id", user_id, FieldSpec("user_id", "INT")),
                                 ("city", city, FieldSpec("city", "STRING"))):
        name = metadata[f"column.{column}.partitionFunction"]
        n = int(metadata[f"column.{column}.numPartitions"])
        expected = [int(v) for v in as_list(metadata[f"column.{column}.partitionValues"])]
        assert p.partition_values(values, spec, name, n) == expected
        assert p.canonical_function_name(name.upper()) == name


def test_events_partitioned_single_partition_subsets():
    """The fixture's segment covers every partition; a subset must give exactly its partitions."""
    spec = FieldSpec("user_id", "INT")
    values = pa.array([3, 11, 19], pa.int32())
    expected = sorted({(h & 0x7FFFFFFF) % 8 for h in _hash_bytes(java_hash.murmur2, [b"3", b"11", b"19"])})
    assert p.partition_values(values, spec, "murmur2", 8) == expected
