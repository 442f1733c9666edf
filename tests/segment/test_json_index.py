"""The JSON index flattens each distinct value by its shape (``json_index._flatten_distinct``): every value must
give exactly the records the flattener gives it alone (``Flattener.flatten_text``, which the Pinot-built
fixtures check byte for byte in test_writer_fixtures.py), whatever the mix of shapes, scalars and configs."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinot_sink.segment.dictionary import ColumnValueError
from pinot_sink.segment.json_index import KEY_VALUE_SEPARATOR, Flattener, _flatten_distinct, build_json_index
from type_mapping.table_config import JsonIndexSettings


def _records_by_value(distinct, config):
    keys, key_ids, widths, key_starts, key_counts, record_starts, record_counts = _flatten_distinct(
        distinct, np.arange(len(distinct)), config, "c")
    out = []
    for v in range(len(distinct)):
        ids = key_ids[key_starts[v]: key_starts[v] + key_counts[v]].tolist()
        records, at = [], 0
        for width in widths[record_starts[v]: record_starts[v] + record_counts[v]].tolist():
            record = {}
            for key in (keys[i] for i in ids[at: at + width]):
                path, separator, text = key.partition(KEY_VALUE_SEPARATOR)
                if separator:
                    record[path] = text
                else:
                    assert path in {keys[i].partition(KEY_VALUE_SEPARATOR)[0] for i in ids[at: at + width]}
            records.append(record)
            at += width
        out.append(records)
    return out


def _reference(distinct, config):
    flattener = Flattener(config)
    return [flattener.flatten_text(text) for text in distinct]


scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6),
                    st.sampled_from(["a", "b", "é", "\u2028", "\ue001", "😀", 'q"uo\\te', ""]))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.sampled_from(["a", "b", "c", "a.b", "", "x y", "é"]), inner, max_size=3)), max_leaves=10)
configs = st.builds(
    JsonIndexSettings,
    max_levels=st.sampled_from([-1, 1, 2, 3]), exclude_array=st.booleans(),
    disable_cross_array_unnest=st.booleans(),
    exclude_fields=st.sampled_from([None, frozenset({"b"})]),
    include_paths=st.sampled_from([None, frozenset({"$.a", "$.c[*]"})]),
    index_paths=st.sampled_from([None, frozenset({"a", "c.*"}), frozenset({"**"})]),
    max_value_length=st.sampled_from([0, 1, 3]), skip_invalid_json=st.just(True))


@settings(max_examples=80, deadline=None)
@given(values=st.lists(json_values, min_size=1, max_size=12), config=configs, data=st.data())
def test_each_value_flattens_as_alone(values, config, data):
    texts = []
    for value in values:
        text = json.dumps(value, ensure_ascii=data.draw(st.booleans()),
                          separators=data.draw(st.sampled_from([(",", ":"), (", ", ": "), (" ,", " : ")])))
        texts.append(text)
    # the same shapes with other scalars, other spacing, and texts that are not JSON
    texts += ["[1 2]", "[ 1]", '{"a": 01}', '{"a": 1}', '{"a":1,"a":"x"}', '{"a":"y","a":2}', "1.5e3", "-0",
              "-0.0", '"\\u00e9\\n"', "tru", "{", "", "  ", "null", "[]", "{}", '{"a":[1,2],"c":[3,{"b":4}]}',
              '{"a":[5,6],"c":[7,{"b":8}]}', '{"a": 1e400}', '["\\ud800"]', '{"\\u0061": 1}', '{"a": 1}',
              "[1.0, 100, 1E2, 0.1, 12345678901234567890123]", "NaN", "[Infinity]"]
    distinct = list(dict.fromkeys(texts))
    assert _records_by_value(distinct, config) == _reference(distinct, config)


def test_invalid_json_names_the_row():
    distinct = ['{"a": 1}', '{"a": 01}']
    with pytest.raises(ColumnValueError, match=r"column 'c': row 3: the JSON index cannot flatten '\{\"a\": 01\}'"):
        build_json_index(distinct, np.array([0, 0, 0, 1, 1]), JsonIndexSettings(), "c")


def test_a_shape_shared_with_valid_json_is_not_enough_to_pass():
    # '[1 2]' and '[ 1]' leave the same text between their scalars; the shape must tell them apart
    with pytest.raises(ColumnValueError, match="row 1"):
        build_json_index(["[ 1]", "[1 2]"], np.array([0, 1]), JsonIndexSettings(), "c")
