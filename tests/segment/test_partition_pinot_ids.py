"""Partition ids against Pinot's own ``PartitionFunctionFactory``: 10^6 random keys per key type and function
config (``partition_keys.py`` draws them from a fixed seed; ``tools/pinot_partition_ids`` asked Pinot). The
fixture keeps the SHA-256 of Pinot's ids, their histogram and the first 2,000; the fast test checks the
first 2,000 keys of every case, the slow one all 10^6."""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import partition_keys as pk
from pinot_sink.segment import partition as p
from pinot_sink.segment.partition import partition_ids
from type_mapping.pinot_schema import FieldSpec

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "partition_ids" / "pinot_ids.json").read_text())
CASES = FIXTURE["cases"]


def _ids(case: dict, values: list) -> bytes:
    spec = FieldSpec(name="k", data_type=case["type"])
    found = partition_ids(pk.arrow_keys(case["type"], values), spec, case["function"], case["numPartitions"],
                          case["functionConfig"])
    return np.asarray(found, dtype=np.uint8).tobytes()


def _name(case: dict) -> str:
    return f"{case['type']}-{case['function']}-{case['numPartitions']}-{case['functionConfig']}"


def test_fixture_covers_every_function_and_key_type():
    assert FIXTURE["seed"] == pk.SEED and FIXTURE["count"] == pk.COUNT == 10**6
    assert {c["function"] for c in CASES} == {"Murmur", "Murmur3", "FNV", "HashCode", "ByteArray", "Modulo",
                                              "BoundedColumnValue"}
    assert {c["type"] for c in CASES} == set(pk.SPECS)
    assert all(255 not in map(int, c["histogram"]) for c in CASES)  # Pinot threw on no key


@pytest.fixture(scope="module")
def samples():
    return {kind: pk.keys(kind, pk.SAMPLE) for kind in pk.SPECS}


@pytest.mark.parametrize("case", CASES, ids=_name)
def test_first_keys_get_pinots_ids(case, samples):
    assert _ids(case, samples[case["type"]]).hex() == case["first"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(pk.SPECS))
def test_a_million_keys_get_pinots_ids(kind):
    # the string forms once per key type (a million Float/Double.toString), then every function over them
    encoded = pk.arrow_keys(kind, pk.keys(kind)).dictionary_encode()
    strings = p.java_string_forms(encoded.dictionary, FieldSpec(name="k", data_type=kind))
    rows = encoded.indices.to_numpy(zero_copy_only=False)
    for case in (c for c in CASES if c["type"] == kind):
        distinct = p._partition_of_strings(strings, "k", case["function"], case["numPartitions"],
                                           case["functionConfig"])
        ids = np.asarray(distinct, dtype=np.int64)[rows].astype(np.uint8).tobytes()
        histogram = {str(i): n for i, n in sorted(Counter(ids).items())}
        assert (hashlib.sha256(ids).hexdigest(), histogram) == (case["sha256"], case["histogram"]), _name(case)
