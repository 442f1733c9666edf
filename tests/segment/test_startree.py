"""Star-tree indexes: Pinot's bytes for the two Pinot-built fixtures, and trees that hold the right aggregates.

* ``startree`` (two trees, nine function pairs, the ``aggregationConfigs`` form with LZ4 / PASS_THROUGH, MV
  pairs) and ``startree_default`` (``enableDefaultStarTree``): every file of the segment equal to Pinot's, and
  inside ``star_tree_index`` every buffer, so a failure names the tree and the index that differ;
* the trees read back (ours, and Pinot's own) hold, under every node, the aggregation of exactly the raw rows
  the node's path selects: checked on the fixtures and on random rows with random tree configs (hypothesis);
* the record order within equal dimensions is fastutil's (the orders fastutil 8.5.11 produced are kept in
  tests/fixtures/startree/fastutil_orders.json, up to 1M keys), through each of the three sorts (the Python
  port, numba's, numpy's), and the fixtures' bytes through each;
* ``validate_star_tree_configs`` names the tree and the function pair it cannot build.
"""
from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixture_loader import CREATION_TIME_MS, load_case, read_tarball
from startree_check import check_tree_against_rows
from pinot_sink.segment.builder import BuildOptions, SegmentBuildError, build_segment
from pinot_sink.segment.properties import parse_properties
from pinot_sink.segment.read.reader import open_segment
from pinot_sink.segment.read.startree import read_star_trees
from pinot_sink.segment.startree import StarTreeConfigError, validate_star_tree_configs
from pinot_sink.segment.startree import quicksort
from pinot_sink.segment.startree.quicksort import fastutil_order, fastutil_order_array
from pinot_sink.segment.startree import tree as tree_module
from pinot_sink.segment.startree.tree import _hashmap_order
from type_mapping.java_text import big_decimal_text_array
from type_mapping.pinot_schema import PinotSchema
from type_mapping.stored import PinotColumns
from type_mapping.table_config import TableConfig

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "startree"
SORTS = ["numba", "numpy"]  # fastutil_order_array's fast paths (numba: the test extra installs it)


def _case(folder: Path):
    """The fixture's rows as Pinot's reader returned them; BIG_DECIMAL text normalised as ingestion does
    (``stripTrailingZeros``: the dump's plain text ``224153292490`` was stored as 2.2415329249E+11)."""
    case = load_case(folder)
    table = case.columns.table
    for spec in case.schema:
        if spec.stored_type == "BIG_DECIMAL":
            i = table.schema.get_field_index(spec.name)
            table = table.set_column(i, spec.name, big_decimal_text_array(table.column(spec.name).combine_chunks(),
                                                                          True))
    case.columns = PinotColumns(table, case.columns.null_masks)
    return case


def _star_buffers(files: dict[str, bytes]) -> dict[str, bytes]:
    prefix = "v3/" if "v3/star_tree_index" in files else ""
    index_map = parse_properties(files[prefix + "star_tree_index_map"])
    data = files[prefix + "star_tree_index"]
    out = {}
    for key, value in index_map.items():
        if key.endswith(".OFFSET"):
            size = int(index_map[key[: -len("OFFSET")] + "SIZE"])
            out[key[: -len(".OFFSET")]] = data[int(value): int(value) + size]
    return out


# Buffers whose bytes differ on purpose or by codec choice: cramjam's Snappy encoder picks other (equally
# valid) matches than snappy-java for one chunk; the values decode the same (checked below). The index map's
# later offsets and the CRC in creation.meta follow.
KNOWN_DIFFERENCES = {"st_mix": {"1.sumPrecision__big.FORWARD_INDEX"}}
CASES = [("shared", "startree"), ("shared", "startree_default"), ("local", "st_mix"), ("local", "st_v1"),
         ("local", "st_hllplus")]


def _folder(where: str, name: str, pinot_built: Path) -> Path:
    return (pinot_built if where == "shared" else FIXTURES) / name


@pytest.mark.parametrize("where, name", CASES)
def test_same_bytes_as_pinot(where, name, pinot_built, tmp_path):
    case = _case(_folder(where, name, pinot_built))
    built = build_segment(case.columns, case.schema, TableConfig.from_json(case.table_config, case.schema), tmp_path, case.segment_name,
                          CREATION_TIME_MS, BuildOptions(sort_by_sorted_column=False))
    ours, theirs = read_tarball(built.tar_path), case.pinot_files()
    assert sorted(ours) == sorted(theirs)
    ours_buffers, theirs_buffers = _star_buffers(ours), _star_buffers(theirs)
    assert sorted(ours_buffers) == sorted(theirs_buffers)
    differing = {k for k in theirs_buffers if ours_buffers[k] != theirs_buffers[k]}
    known = KNOWN_DIFFERENCES.get(name, set())
    assert differing == known, f"star-tree buffers whose bytes differ from Pinot's: {sorted(differing)}"
    if known:
        with open_segment(built.tar_path) as ours_reader, open_segment(case.tarball) as theirs_reader:
            for ours_tree, theirs_tree in zip(read_star_trees(ours_reader), read_star_trees(theirs_reader)):
                assert ours_tree.metrics == theirs_tree.metrics
        theirs = {k: v for k, v in theirs.items() if not k.endswith(("star_tree_index", "star_tree_index_map",
                                                                     "creation.meta"))}
    for file in sorted(theirs):
        assert ours[file] == theirs[file], f"{file} differs from Pinot's"


def test_fastutil_order_matches_java():
    cases = json.loads((FIXTURES / "fastutil_orders.json").read_text())["cases"]
    for case in cases:
        assert fastutil_order(case["keys"]) == case["order"]
        for how in SORTS:
            assert fastutil_order_array(np.array(case["keys"]), how).tolist() == case["order"], how
    # ties are what the port is for: a stable sort would give another order on these
    assert any(sorted(range(len(c["keys"])), key=c["keys"].__getitem__) != c["order"] for c in cases)


def _hash_keys(n: int, distinct: int, seed: int) -> np.ndarray:
    """Keys of tests/fixtures/startree/fastutil_orders.json's "large" cases (a splitmix64-style hash)."""
    x = (np.arange(n, dtype=np.uint64) + np.uint64(seed)) * np.uint64(0x9E3779B97F4A7C15)
    x ^= x >> np.uint64(31)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(29)
    return (x % np.uint64(distinct)).astype(np.int64)


@pytest.mark.parametrize("how", ["python", *SORTS])
def test_fastutil_order_of_big_inputs_matches_java(how):
    """Up to 1M keys, 1 to 144k distinct (fastutil's orders by their SHA-256; a stable sort differs on each)."""
    for case in json.loads((FIXTURES / "fastutil_orders.json").read_text())["large"]:
        if how == "python" and case["n"] > 300_000:
            continue  # ~5 s
        order = fastutil_order_array(_hash_keys(case["n"], case["distinct"], case["seed"]), how)
        assert hashlib.sha256(order.astype("<i8").tobytes()).hexdigest() == case["order_sha256"], case


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=700), st.integers(1, 40))
def test_fastutil_order_array_is_the_port(keys, modulo):
    keys = [k % modulo for k in keys]  # few distinct values: many ties, many equal-pivot partitions
    for how in SORTS:
        assert fastutil_order_array(np.array(keys, dtype=np.int64), how).tolist() == fastutil_order(keys), how


def test_which_sort(monkeypatch):
    quicksort._jit()  # numba loaded (the test extra installs it)
    assert [quicksort._choose(n) for n in (100, 10_000, 1_000_000)] == ["python", "numba", "numba"]
    assert quicksort.compiled_sort(np.array([3, 1, 3, 0] * 1000))[1].tolist() == [0] * 1000 + [1] * 1000 + [3] * 2000
    monkeypatch.setattr(quicksort, "_KERNEL", [None])  # as where numba is not installed
    assert [quicksort._choose(n) for n in (100, 10_000, 1_000_000)] == ["python", "numpy", "numpy"]
    assert quicksort.compiled_sort(np.arange(1_000_000)) is None
    monkeypatch.setattr(quicksort, "_KERNEL", [])  # numba not loaded yet: small sorts do not load it
    monkeypatch.setattr(quicksort, "_jit", lambda: pytest.fail("numba loaded for a small sort"))
    assert quicksort._choose(10_000) == "numpy"


@pytest.mark.parametrize("how", SORTS)
def test_same_bytes_as_pinot_through_the_fast_sorts(how, pinot_built, tmp_path, monkeypatch):
    """The fixtures' sorts are small (the Python port's): run them through numba's and numpy's sorts too."""
    monkeypatch.setattr(quicksort, "_choose", lambda n: how)
    for where, name in CASES:
        case = _case(_folder(where, name, pinot_built))
        out = tmp_path / name
        built = build_segment(case.columns, case.schema, TableConfig.from_json(case.table_config, case.schema), out, case.segment_name,
                              CREATION_TIME_MS, BuildOptions(sort_by_sorted_column=False))
        ours, theirs = _star_buffers(read_tarball(built.tar_path)), _star_buffers(case.pinot_files())
        differing = {k for k in theirs if ours[k] != theirs[k]}
        assert differing == KNOWN_DIFFERENCES.get(name, set()), (name, sorted(differing))


@pytest.mark.parametrize("top", [1_000, 150_000, 2**32 + 5])
def test_stable_order_by_digits_is_numpys_stable_argsort(top):
    keys = np.random.default_rng(top).integers(0, top, 40_000).astype(np.int64)
    keys[:5000] = keys[5000:10000]  # ties, whose row order a stable sort keeps
    assert np.array_equal(tree_module._stable_order(keys), np.argsort(keys, kind="stable"))


def test_compiled_sequential_sums_are_the_numpy_loops(monkeypatch):
    if quicksort._jit() is None:
        pytest.skip("numba is not installed (the fast extra)")
    rng = np.random.default_rng(5)
    values = rng.normal(0, 1e6, 5000) * rng.choice([1.0, 1e-9, 1e12], 5000)
    values[rng.integers(0, 5000, 40)] = rng.choice([-0.0, np.inf, -np.inf, np.nan], 40)
    sizes = rng.integers(1, 150, 60)  # small groups (added position by position) and big ones (cumsum)
    sizes = sizes[np.cumsum(sizes) <= len(values)]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    compiled = tree_module.seq_sum(values, starts, sizes)
    monkeypatch.setattr(tree_module, "compiled_sequential_sums", lambda: None)
    with np.errstate(invalid="ignore"):  # inf + -inf: NaN in both
        loops = tree_module.seq_sum(values, starts, sizes)
    assert compiled.tobytes() == loops.tobytes()


def test_same_bytes_as_pinot_with_every_sort_by_digits(pinot_built, tmp_path, monkeypatch):
    """The fixtures' record sorts are below the digit sort's size: run every sort through it."""
    monkeypatch.setattr(tree_module, "_RADIX_FROM", 0)
    for where, name in CASES:
        case = _case(_folder(where, name, pinot_built))
        built = build_segment(case.columns, case.schema, TableConfig.from_json(case.table_config, case.schema), tmp_path / name, case.segment_name,
                              CREATION_TIME_MS, BuildOptions(sort_by_sorted_column=False))
        ours, theirs = _star_buffers(read_tarball(built.tar_path)), _star_buffers(case.pinot_files())
        assert {k for k in theirs if ours[k] != theirs[k]} == KNOWN_DIFFERENCES.get(name, set()), name


def test_hashmap_order():
    # Integer keys iterate by bucket (hash & (capacity - 1)): -1 (the star) lands in bucket 0 after 0
    assert _hashmap_order([0, 1, 2, -1]) == [0, 3, 1, 2]
    # 13 entries grow the table to 32 buckets: 16 and 17 then follow 0..15 instead of sharing buckets 0 and 1
    keys = list(range(18)) + [-1]
    assert [keys[i] for i in _hashmap_order(keys)] == [0, -1] + list(range(1, 18))
    # nine keys in one bucket of a 16-bucket table force a resize (treeifyBin below 64 buckets)
    keys = [16 * i for i in range(9)]
    assert [keys[i] for i in _hashmap_order(keys)] == [0, 32, 64, 96, 128, 16, 48, 80, 112]


# --- the trees hold the right aggregates ------------------------------------------------------------




@pytest.mark.parametrize("where, name", CASES)
@pytest.mark.parametrize("whose", ["pinot", "ours"])
def test_trees_hold_the_aggregates_of_the_raw_rows(where, name, whose, pinot_built, tmp_path):
    case = _case(_folder(where, name, pinot_built))
    path = case.tarball
    if whose == "ours":
        path = build_segment(case.columns, case.schema, TableConfig.from_json(case.table_config, case.schema), tmp_path, case.segment_name,
                             CREATION_TIME_MS, BuildOptions(sort_by_sorted_column=False)).tar_path
    with open_segment(path) as reader:
        trees = read_star_trees(reader)
        assert len(trees) == {"startree": 2, "st_mix": 3, "st_hllplus": 2}.get(name, 1)
        for tree in trees:
            assert tree.num_nodes > 1
            assert check_tree_against_rows(reader, tree) > tree.num_nodes


_SCHEMA = PinotSchema.from_json({
    "schemaName": "t",
    "dimensionFieldSpecs": [{"name": "a", "dataType": "STRING"}, {"name": "b", "dataType": "INT"},
                            {"name": "c", "dataType": "LONG"},
                            {"name": "tags", "dataType": "INT", "singleValueField": False}],
    "metricFieldSpecs": [{"name": "m", "dataType": "DOUBLE"}, {"name": "n", "dataType": "LONG"},
                         {"name": "big", "dataType": "BIG_DECIMAL"}],
})
_PAIRS = ["COUNT__*", "SUM__m", "SUM__n", "MIN__m", "MAX__n", "AVG__m", "MINMAXRANGE__n", "SUMPRECISION__big",
          "DISTINCTCOUNTBITMAP__a", "DISTINCTCOUNTBITMAP__b", "DISTINCTCOUNTHLL__c", "SUMMV__tags", "COUNTMV__tags",
          "AVGMV__tags", "DISTINCTCOUNTHLLPLUS__a", "DISTINCTCOUNTHLLPLUS__m"]


@st.composite
def _tables(draw):
    n = draw(st.integers(1, 120))
    card = draw(st.lists(st.integers(1, 30), min_size=3, max_size=3))
    rows = {
        "a": [f"v{draw(st.integers(0, card[0] - 1))}" for _ in range(n)],
        "b": [draw(st.integers(0, card[1] - 1)) * 7 - 3 for _ in range(n)],
        "c": [draw(st.integers(0, card[2] - 1)) * 10**12 for _ in range(n)],
        "tags": [draw(st.lists(st.integers(-5, 5), min_size=1, max_size=3)) for _ in range(n)],
        "m": [draw(st.floats(-1e6, 1e6, allow_nan=False)) for _ in range(n)],
        "n": [draw(st.integers(-10**6, 10**6)) for _ in range(n)],
        "big": [str(Decimal(draw(st.integers(-10**15, 10**15))).scaleb(-draw(st.integers(0, 4)))) for _ in range(n)],
    }
    dims = draw(st.permutations(["a", "b", "c"]))[: draw(st.integers(1, 3))]
    skip = draw(st.lists(st.sampled_from(dims), unique=True, max_size=len(dims)))
    pairs = draw(st.lists(st.sampled_from(_PAIRS), min_size=1, max_size=6, unique=True))
    tree = {"dimensionsSplitOrder": dims, "skipStarNodeCreationForDimensions": skip,
            "functionColumnPairs": pairs, "maxLeafRecords": draw(st.integers(1, 12))}
    return rows, tree, draw(st.sampled_from([None, "n", "m", "a"]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(case=_tables())
def test_random_trees_hold_the_aggregates_of_the_raw_rows(tmp_path_factory, case):
    rows, tree, sorted_column = case
    out = tmp_path_factory.mktemp("st")
    table = pa.table({
        "a": pa.array(rows["a"], pa.string()), "b": pa.array(rows["b"], pa.int32()),
        "c": pa.array(rows["c"], pa.int64()), "tags": pa.array(rows["tags"], pa.list_(pa.int32())),
        "m": pa.array(rows["m"], pa.float64()), "n": pa.array(rows["n"], pa.int64()),
        "big": big_decimal_text_array(pa.array(rows["big"], pa.string()), True),
    })
    config = {"tableName": "t", "tableIndexConfig": {"starTreeIndexConfigs": [tree]}}
    if sorted_column:  # the builder reorders the rows: every column must follow
        config["tableIndexConfig"]["sortedColumn"] = [sorted_column]
    built = build_segment(PinotColumns(table, {}), _SCHEMA, TableConfig.from_json(config, _SCHEMA), out, "t_0", CREATION_TIME_MS)
    with open_segment(built.tar_path) as reader:
        (view,) = read_star_trees(reader)
        assert view.dimensions == list(tree["dimensionsSplitOrder"])
        check_tree_against_rows(reader, view)


# --- configs this builder cannot write ------------------------------------------------------------------


def _config(*trees, **index):
    return {"tableName": "t", "tableIndexConfig": {"starTreeIndexConfigs": list(trees), **index}}


@pytest.mark.parametrize("tree, message", [
    ({"dimensionsSplitOrder": ["a"], "functionColumnPairs": ["DISTINCTCOUNTTHETASKETCH__b"]},
     "starTreeIndexConfigs[0]: function pair distinctCountThetaSketch__b: not built by this writer"),
    ({"dimensionsSplitOrder": ["a"], "aggregationConfigs": [{"columnName": "c", "aggregationFunction":
                                                            "percentileTDigest"}]},
     "starTreeIndexConfigs[0]: function pair percentileTDigest__c: not built by this writer"),
    ({"dimensionsSplitOrder": ["a"], "aggregationConfigs": [{"columnName": "b", "aggregationFunction":
                                                            "DISTINCTCOUNTRAWHLLPLUS", "functionParameters":
                                                            {"p": 14, "sp": 20}}]},
     "function pair distinctCountHLLPlus__b: sp 20: HyperLogLogPlus's sparse representation is not built"),
    ({"dimensionsSplitOrder": ["a"], "functionColumnPairs": ["SUM__mm"]},
     "function pair sum__mm: column 'mm' is not in the schema (did you mean 'm'?)"),
    ({"dimensionsSplitOrder": ["aa"], "functionColumnPairs": ["COUNT__*"]},
     "dimensionsSplitOrder names 'aa', which the schema lacks (did you mean 'a'?)"),
    ({"dimensionsSplitOrder": ["tags"], "functionColumnPairs": ["COUNT__*"]}, "dimension 'tags' is multi-value"),
    ({"dimensionsSplitOrder": ["a"], "functionColumnPairs": ["MODE__m"]}, "function pair mode__m"),
    ({"dimensionsSplitOrder": ["a"], "skipStarNodeCreationForDimensions": ["b"], "functionColumnPairs":
      ["COUNT__*"]}, "skipStarNodeCreationForDimensions ['b'] are not in dimensionsSplitOrder"),
    ({"dimensionsSplitOrder": ["a"], "aggregationConfigs": [{"columnName": "m", "aggregationFunction": "SUM",
                                                            "compressionCodec": "BROTLI"}]},
     "aggregationConfigs SUM(m): compressionCodec"),
])
def test_validate_names_the_tree_and_the_pair(tree, message):
    with pytest.raises(StarTreeConfigError) as info:
        validate_star_tree_configs(TableConfig.from_json(_config({"dimensionsSplitOrder": ["b"], "functionColumnPairs": ["COUNT__*"]},
                                           tree), _SCHEMA), _SCHEMA)
    assert message.replace("[0]", "[1]") in str(info.value)


def test_validate_accepts_what_the_builder_writes(pinot_built):
    validate_star_tree_configs(TableConfig.from_json(_config({"dimensionsSplitOrder": ["a", "b"], "functionColumnPairs": _PAIRS}), _SCHEMA),
                               _SCHEMA)
    for name in ("startree", "startree_default"):
        case = load_case(pinot_built / name)
        validate_star_tree_configs(TableConfig.from_json(case.table_config, case.schema), case.schema)


def test_raw_dimension_is_an_error_at_build(tmp_path):
    table = pa.table({"a": ["x", "y"], "b": pa.array([1, 2], pa.int32()), "c": pa.array([1, 2], pa.int64()),
                      "tags": pa.array([[1], [2]], pa.list_(pa.int32())), "m": [1.0, 2.0],
                      "n": pa.array([1, 2], pa.int64()), "big": ["1", "2"]})
    config = _config({"dimensionsSplitOrder": ["b"], "functionColumnPairs": ["COUNT__*"]},
                     noDictionaryColumns=["b"])
    with pytest.raises(StarTreeConfigError, match="dimension 'b' has no dictionary"):
        validate_star_tree_configs(TableConfig.from_json(config, _SCHEMA), _SCHEMA)
    with pytest.raises(SegmentBuildError, match="star-tree index.*: starTreeIndexConfigs\\[0\\]: dimension 'b'"):
        build_segment(PinotColumns(table, {}), _SCHEMA, TableConfig.from_json(config, _SCHEMA), tmp_path, "t_0", CREATION_TIME_MS)


@pytest.mark.parametrize("name", ["startree", "startree_default"])
def test_cli_build_from_the_raw_rows_is_pinots_segment(name, pinot_built, tmp_path, capsys):
    """`pinot-sink build` from the rows Pinot was given (rows.jsonl, through the real type mapping): every
    file of the segment, star-trees included, equals Pinot's."""
    from pinot_sink.cli import main

    folder = pinot_built / name
    assert main(["build", "--schema", str(folder / "schema.json"), "--table-config",
                 str(folder / "table_config.json"), "--input", str(folder / "rows.jsonl"), "--out",
                 str(tmp_path), "--name", f"{name}_0", "--creation-time", str(CREATION_TIME_MS)]) == 0
    capsys.readouterr()
    ours, theirs = read_tarball(tmp_path / f"{name}_0.tar.gz"), load_case(folder).pinot_files()
    assert sorted(ours) == sorted(theirs)
    assert [f for f in sorted(theirs) if ours[f] != theirs[f]] == []
