"""Time buckets of a compaction's rows: a dictionary-encoded time column (a segment's dictIds, as the reader
gives it) is bucketed per dictionary value, and must give what its decoded values give."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.compaction.merge import _time_buckets
from type_mapping.pinot_schema import FieldSpec

DAY = 86_400_000


@pytest.mark.parametrize("data_type, fmt, values", [
    ("LONG", "1:MILLISECONDS:EPOCH", [1_704_067_200_000 + k * 72_000_000 for k in range(30)]),
    ("STRING", "1:DAYS:SIMPLE_DATE_FORMAT:yyyy-MM-dd", [f"2024-01-{d:02d}" for d in range(1, 31)]),
])
def test_a_dictionary_encoded_time_column_buckets_as_its_values(data_type, fmt, values):
    spec = FieldSpec.from_json({"name": "t", "dataType": data_type, "format": fmt, "granularity": "1:DAYS"},
                               "DATE_TIME")
    dictionary = pa.array(values)
    rng = np.random.default_rng(7)
    chunks = [pa.DictionaryArray.from_arrays(pa.array(rng.integers(0, len(values), n).astype(np.int8)), dictionary)
              for n in (50, 0, 13)]
    encoded = pa.chunked_array(chunks)
    decoded = pa.chunked_array([chunk.dictionary.take(chunk.indices) for chunk in chunks], dictionary.type)
    got = _time_buckets(encoded, spec, DAY)
    assert got.dtype == np.int64 and len(got) == 63
    np.testing.assert_array_equal(got, _time_buckets(decoded, spec, DAY))
    assert len(np.unique(got)) > 5  # the rows span many days: a constant would not pass
