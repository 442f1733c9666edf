"""Property: build a segment from random PinotColumns, read it back, get the same stored values and null masks.

Random schemas cover every data type, SV and MV, nulls with and without null handling (table-level and
column-based), dictionary and raw encodings with each raw codec, inverted indexes, and v1 and v3 layouts. The
input already follows the ``PinotColumns`` contract (defaults filled at null rows, values normalised), so the
reader must return it unchanged; the logical view must show nulls exactly where the null vector says.
"""
from __future__ import annotations

import decimal

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pinot_sink.segment.builder import BuildOptions, build_segment
from pinot_sink.segment.read.reader import open_segment
from type_mapping.pinot_schema import PinotSchema, null_vector_columns
from type_mapping.stored import PinotColumns, arrow_type_for
from type_mapping.table_config import TableConfig

MV_TYPES = ("INT", "LONG", "FLOAT", "DOUBLE", "BOOLEAN", "TIMESTAMP", "STRING", "BYTES")
SV_TYPES = ("INT", "LONG", "FLOAT", "DOUBLE", "BIG_DECIMAL", "BOOLEAN", "TIMESTAMP", "STRING", "JSON", "BYTES")
METRIC_TYPES = ("INT", "LONG", "FLOAT", "DOUBLE", "BIG_DECIMAL")
CODECS = ("PASS_THROUGH", "SNAPPY", "ZSTANDARD", "LZ4")

_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8)


def _float32(x: float) -> float:
    return float(np.float32(x)) + 0.0  # + 0.0 turns -0.0 into 0.0, as ingestion does


def _big_decimal(pair) -> str:
    unscaled, scale = pair
    return str(decimal.Decimal(f"{unscaled}E{-scale}").normalize()) if unscaled else "0"


VALUES = {
    "INT": st.integers(-(2**31), 2**31 - 1),
    "LONG": st.integers(-(2**63), 2**63 - 1),
    "FLOAT": st.floats(width=32, allow_nan=False).map(_float32),
    "DOUBLE": st.floats(allow_nan=False).map(lambda x: x + 0.0),
    "BIG_DECIMAL": st.tuples(st.integers(-(10**25), 10**25), st.integers(-5, 12)).map(_big_decimal),
    "BOOLEAN": st.integers(0, 1),
    "TIMESTAMP": st.integers(0, 4102444800000),
    "STRING": _text,
    "JSON": st.integers(0, 5).map(lambda k: f'{{"k":{k}}}'),
    "BYTES": st.binary(max_size=6),
}


@st.composite
def column_specs(draw, index: int):
    single_value = draw(st.booleans()) or False
    data_type = draw(st.sampled_from(SV_TYPES if single_value else MV_TYPES))
    metric = single_value and data_type in METRIC_TYPES and draw(st.booleans())
    spec = {"name": f"c{index:02d}", "dataType": data_type}
    if not single_value:
        spec["singleValueField"] = False
    if draw(st.booleans()):
        spec["notNull"] = True
    return ("metricFieldSpecs" if metric else "dimensionFieldSpecs"), spec


@st.composite
def cases(draw):
    num_columns = draw(st.integers(1, 5))
    schema_json: dict = {"schemaName": "prop"}
    for i in range(num_columns):
        group, spec = draw(column_specs(i))
        schema_json.setdefault(group, []).append(spec)
    null_mode = draw(st.sampled_from(["off", "table", "column"]))
    if null_mode == "column":
        schema_json["enableColumnBasedNullHandling"] = True
    schema = PinotSchema.from_json(schema_json)

    raw, inverted, field_configs = [], [], []
    for spec in schema:
        encoding = draw(st.sampled_from(["dict", "dict", "raw", "inverted"]))
        if encoding == "raw":
            raw.append(spec.name)
            field_configs.append({"name": spec.name, "encodingType": "RAW",
                                  "compressionCodec": draw(st.sampled_from(CODECS))})
        elif encoding == "inverted":
            inverted.append(spec.name)
    table_config = {
        "tableName": "prop",
        "tableType": "OFFLINE",
        "segmentsConfig": {},
        "tableIndexConfig": {"noDictionaryColumns": raw, "invertedIndexColumns": inverted,
                             "nullHandlingEnabled": null_mode == "table"},
        "fieldConfigList": field_configs,
    }
    # Half the cases sort their rows by a single-value column: every other column follows the rows.
    sortable = [spec.name for spec in schema if spec.single_value]
    sorted_column = draw(st.sampled_from(sortable)) if sortable and draw(st.booleans()) else None
    if sorted_column:
        table_config["tableIndexConfig"]["sortedColumn"] = [sorted_column]

    rows = draw(st.integers(1, 25))
    arrays, masks = {}, {}
    for spec in schema:
        values = VALUES[spec.data_type]
        if not spec.single_value:
            values = st.lists(values, min_size=1, max_size=4)
        data = draw(st.lists(values, min_size=rows, max_size=rows))
        # Low-cardinality columns too, so sorted forward indexes and repeated values appear.
        if draw(st.booleans()):
            data = [data[i % 2] for i in range(rows)]
        mask = np.array(draw(st.lists(st.booleans(), min_size=rows, max_size=rows)), dtype=np.bool_)
        default = spec.default_null_value
        default = str(default) if spec.data_type == "BIG_DECIMAL" else default
        filled = [(default if spec.single_value else [default]) if null else value for value, null in zip(data, mask)]
        arrays[spec.name] = pa.array(filled, type=arrow_type_for(spec))
        masks[spec.name] = mask
    version = draw(st.sampled_from(["v1", "v3"]))
    return schema, table_config, PinotColumns(pa.table(arrays), masks), version


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=cases())
def test_build_then_read_gives_back_the_input(tmp_path_factory, case):
    schema, table_config, columns, version = case
    out = tmp_path_factory.mktemp("roundtrip")
    built = build_segment(columns, schema, TableConfig.from_json(table_config, schema), out, "prop_0", creation_time_ms=1700000000000,
                          options=BuildOptions(segment_version=version))
    null_columns = null_vector_columns(schema, table_config)

    sorted_by = table_config["tableIndexConfig"].get("sortedColumn")
    order = _pinot_row_order(schema[sorted_by[0]], columns.table.column(sorted_by[0]).to_pylist()) if sorted_by \
        else np.arange(columns.num_rows)
    columns = PinotColumns(columns.table.take(pa.array(order)), {k: m[order] for k, m in columns.null_masks.items()})

    with open_segment(built.tar_path) as reader:
        meta = reader.metadata
        assert (meta.name, meta.total_docs, meta.version) == ("prop_0", columns.num_rows, version)
        if sorted_by:
            assert reader.column(sorted_by[0]).sorted
        assert (meta.crc, meta.data_crc, meta.creation_time_ms) == (built.crc, built.data_crc, 1700000000000)
        assert reader.compute_crcs() == (built.crc, built.data_crc)
        contents = reader.read()
        for spec in schema:
            name = spec.name
            column = reader.column(name)
            expected = columns.table.column(name).combine_chunks()
            got = contents.stored.table.column(name).combine_chunks()
            assert got.equals(expected), f"{name} ({spec.data_type}, sv={spec.single_value}): {got} != {expected}"
            assert (column.data_type, column.single_value) == (spec.data_type, spec.single_value)
            assert column.has_dictionary == (name not in table_config["tableIndexConfig"]["noDictionaryColumns"])
            flat = expected if spec.single_value else expected.flatten()
            assert column.cardinality == len(set(_hashable(flat.to_pylist())))
            if column.has_dictionary:
                _check_dictionary_and_inverted(reader, name, column, expected, spec.single_value)

            mask = columns.null_masks[name]
            if name in null_columns and mask.any():
                assert np.array_equal(contents.null_masks[name], mask), name
            elif name in null_columns:
                assert column.non_null and not contents.null_masks[name].any(), name
            else:
                assert name not in contents.null_masks, name
            logical_nulls = np.asarray(contents.table.column(name).is_null())
            assert np.array_equal(logical_nulls, mask if name in null_columns else np.zeros_like(mask)), name


def _pinot_row_order(spec, values) -> np.ndarray:
    """Rows stably ordered by the values in Pinot's dictionary order (SEGMENT_FORMAT.md 4.1), worked out
    here from the values rather than by the builder's code."""
    def key(value):
        if spec.stored_type == "STRING":
            return value.encode("utf-16-be", "surrogatepass")  # String.compareTo: UTF-16 code units
        if spec.stored_type == "BIG_DECIMAL":
            number = decimal.Decimal(value)
            return number, number.as_tuple().exponent
        return value
    return np.array(sorted(range(len(values)), key=lambda row: key(values[row])), dtype=np.int64)


def _hashable(values):
    return [tuple(v) if isinstance(v, list) else v for v in values]


def _check_dictionary_and_inverted(reader, name, column, expected, single_value):
    dictionary = reader.dictionary(name)
    ids = reader.dict_ids(name)
    flat_ids = ids if single_value else ids.flatten()
    flat_values = expected if single_value else expected.flatten()
    assert dictionary.take(flat_ids).equals(flat_values), name
    assert len(dictionary) == column.cardinality
    postings = reader.inverted_index(name)
    if postings is not None:
        doc_of_value = np.arange(len(ids)) if single_value else np.repeat(
            np.arange(len(ids)), np.diff(np.asarray(ids.offsets)))
        for dict_id, docs in enumerate(postings):
            assert docs.tolist() == sorted(set(doc_of_value[np.asarray(flat_ids) == dict_id].tolist())), name


@pytest.mark.parametrize("version", ["v1", "v3"])
def test_inverted_index_roundtrip_fixed_example(tmp_path, version):
    """A fixed case so a failure here is easy to read: MV strings with an inverted index, nulls on."""
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "tags", "dataType": "STRING", "singleValueField": False},
        {"name": "n", "dataType": "INT"},
    ]})
    table_config = {"tableName": "t", "tableIndexConfig": {"invertedIndexColumns": ["tags"],
                                                            "nullHandlingEnabled": True}}
    table = pa.table({"tags": pa.array([["b", "a"], ["null"], ["a"]], pa.list_(pa.string())),
                      "n": pa.array([3, -(2**31), 1], pa.int32())})
    masks = {"tags": np.array([False, True, False]), "n": np.array([False, True, False])}
    built = build_segment(PinotColumns(table, masks), schema, TableConfig.from_json(table_config, schema), tmp_path, "t_0",
                          options=BuildOptions(segment_version=version))
    with open_segment(built.tar_path) as reader:
        assert reader.dictionary("tags").to_pylist() == ["a", "b", "null"]
        assert [d.tolist() for d in reader.inverted_index("tags")] == [[0, 2], [0], [1]]
        assert reader.values("tags").to_pylist() == [["b", "a"], None, ["a"]]
        assert reader.values("n").to_pylist() == [3, None, 1]


@pytest.mark.parametrize("raw", [False, True])
def test_roundtrip_several_chunks(tmp_path, raw):
    """3 000 rows: several MV forward-index chunks, several raw chunks per codec, nulls, v3."""
    rng = np.random.default_rng(7)
    n = 3000
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "i", "dataType": "INT"}, {"name": "s", "dataType": "STRING"},
        {"name": "bd", "dataType": "BIG_DECIMAL"}, {"name": "by", "dataType": "BYTES"},
        {"name": "mi", "dataType": "INT", "singleValueField": False},
        {"name": "ms", "dataType": "STRING", "singleValueField": False},
    ], "metricFieldSpecs": [{"name": "d", "dataType": "DOUBLE"}]})
    lengths = rng.integers(1, 4, n)
    offsets = pa.array(np.concatenate(([0], np.cumsum(lengths))).astype(np.int32))
    words = np.array(["", "a", "b,c", "日本", "x" * 40, "épsilon"])
    table = pa.table({
        "i": pa.array(rng.integers(-(2**31), 2**31, n).astype(np.int32)),
        "s": pa.array(words[rng.integers(0, len(words), n)]),
        "bd": pa.array([_big_decimal((int(u), int(k))) for u, k in zip(rng.integers(-10**6, 10**6, n),
                                                                       rng.integers(-2, 8, n))]),
        "by": pa.array([bytes(rng.integers(0, 256, int(k)).astype(np.uint8)) for k in rng.integers(0, 9, n)],
                       pa.binary()),
        "mi": pa.ListArray.from_arrays(offsets, pa.array(rng.integers(0, 50, int(lengths.sum())).astype(np.int32))),
        "ms": pa.ListArray.from_arrays(offsets, pa.array(words[rng.integers(0, len(words), int(lengths.sum()))])),
        "d": pa.array(rng.random(n)),
    })
    masks = {name: np.zeros(n, dtype=np.bool_) for name in table.column_names}
    masks["i"][::7] = True
    table = table.set_column(0, "i", pa.array(np.where(masks["i"], -(2**31), table.column("i").to_numpy())
                                              .astype(np.int32)))
    codecs = dict(zip(table.column_names, CODECS * 2))
    table_config = {"tableName": "t", "tableIndexConfig": {
        "nullHandlingEnabled": True, "noDictionaryColumns": table.column_names if raw else []},
        "fieldConfigList": [{"name": c, "encodingType": "RAW", "compressionCodec": codecs[c]}
                            for c in table.column_names] if raw else []}
    built = build_segment(PinotColumns(table, masks), schema, TableConfig.from_json(table_config, schema), tmp_path, "t_0")
    with open_segment(built.tar_path) as reader:
        contents = reader.read()
        assert contents.stored.table.select(table.column_names).equals(table)
        assert np.array_equal(contents.null_masks["i"], masks["i"])
        assert contents.table.column("i").null_count == masks["i"].sum()
        assert reader.compute_crcs() == (built.crc, built.data_crc)
        if not raw:
            mv = reader.column("mi")
            docs_per_chunk = -(-2048 // (mv.total_number_of_entries // mv.total_docs))
            assert mv.total_docs > 2 * docs_per_chunk  # the MV forward index has at least 3 chunks
