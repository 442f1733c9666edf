"""Pinot's Murmur partition function is Kafka's default partitioner for a key serialised as the UTF-8 of the
column's value: ``toPositive(murmur2(keyBytes)) % numPartitions`` (``BuiltInPartitioner.partitionForKey``),
with Kafka's own murmur2 reference values (``UtilsTest.testMurmur2``)."""
from __future__ import annotations

import pyarrow as pa
import pytest

from pinot_sink.segment.partition import partition_ids
from type_mapping.pinot_schema import FieldSpec

KAFKA_MURMUR2 = {"21": -973932308, "foobar": -790332482, "a-little-bit-long-string": -985981536,
                 "a-little-bit-longer-string": -1486304829,
                 "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971, "abc": 479470107}


@pytest.mark.parametrize("partitions", [1, 3, 8, 12, 64])
def test_murmur_partition_ids_are_kafkas_default_partitions(partitions):
    keys = list(KAFKA_MURMUR2)
    kafka = [(KAFKA_MURMUR2[k] & 0x7FFFFFFF) % partitions for k in keys]
    assert partition_ids(pa.array(keys), FieldSpec("id", "STRING"), "Murmur", partitions).tolist() == kafka


def test_a_long_key_is_kafkas_when_serialised_as_its_decimal_text():
    # Pinot hashes Long.toString of a LONG column: the partition of a Kafka record whose key is that text
    assert partition_ids(pa.array([21], pa.int64()), FieldSpec("id", "LONG"), "Murmur", 8).tolist() == \
        [(KAFKA_MURMUR2["21"] & 0x7FFFFFFF) % 8]
