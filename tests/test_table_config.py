"""The table config as one model, parsed once on the driver, and the index policy decided there."""
from __future__ import annotations

import ast
import logging
from pathlib import Path

import pyarrow as pa
import pytest

from pinot_sink.options import OptionError
from pinot_sink.segment.index_policy import plan_indexes
from tests.datasource.helpers import SCHEMA, TABLE_CONFIG, prepared_job
from type_mapping import PinotSchema
from type_mapping.table_config import TableConfig, TableConfigError

ROOT = Path(__file__).resolve().parents[1]
ARROW = pa.schema([("country", pa.string()), ("value", pa.int64()), ("ts", pa.timestamp("ms"))])


def test_the_model_holds_what_the_rooms_read():
    config = TableConfig.from_json({
        **TABLE_CONFIG,
        "ingestionConfig": {"batchIngestionConfig": {"segmentIngestionType": "REFRESH",
                                                     "segmentIngestionFrequency": "DAILY",
                                                     "consistentDataPush": "true"},
                            "continueOnError": "true", "rowTimeValueCheck": 1},
        "tableIndexConfig": {"invertedIndexColumns": ["country"], "jsonIndexConfigs": {"country": {
            "maxLevels": "2", "excludeFields": ["x"]}}},
        "fieldConfigList": [{"name": "ts", "timestampConfig": {"granularities": ["day", "WEEK"]}}],
    }, PinotSchema.from_json(SCHEMA))
    assert (config.time_column, config.time_spec.data_type, config.raw_table_name) == ("ts", "TIMESTAMP", "events")
    assert (config.push_type, config.push_frequency, config.refreshes_whole_table) == ("REFRESH", "DAILY", True)
    assert config.continue_on_error and config.row_time_check
    country = config.indexes.columns["country"]
    assert country.inverted and country.json.max_levels == 2 and country.json.exclude_fields == {"x"}
    assert config.indexes.columns["ts"].timestamp_granularities == ("DAY", "WEEK")


def test_an_unknown_granularity_names_the_key():
    with pytest.raises(TableConfigError, match=r"fieldConfigList 'ts'.timestampConfig.granularities: 'FORTNIGHT'"):
        TableConfig.from_json({"fieldConfigList": [{"name": "ts", "timestampConfig": {
            "granularities": ["FORTNIGHT"]}}]}, PinotSchema.from_json(SCHEMA))


def test_an_index_on_a_column_the_schema_lacks_fails_on_the_driver(tmp_path):
    config = {**TABLE_CONFIG, "tableIndexConfig": {"invertedIndexColumns": ["contry"]}}
    with pytest.raises(OptionError, match=r"tableIndexConfig.invertedIndexColumns names column 'contry'.*"
                                          r"did you mean 'country'"):
        prepared_job(SCHEMA, config, ARROW, out=tmp_path)


def test_the_index_policy_is_decided_once_on_the_driver(tmp_path, caplog):
    config = {**TABLE_CONFIG, "fieldConfigList": [{"name": "country", "indexes": {"text": {}}}]}
    with caplog.at_level(logging.WARNING, logger="pinot_sink"):
        job = prepared_job(SCHEMA, config, ARROW, out=tmp_path)
    assert isinstance(job.table_config, TableConfig)
    assert job.options.build.index_plan is job.index_plan  # the tasks' builds follow the driver's plan
    [deferred] = job.index_plan.deferred
    assert (deferred.column, deferred.kind, deferred.action) == ("country", "text", "deferred")
    assert "column 'country': text index" in caplog.text and "TextIndexHandler" in caplog.text
    with pytest.raises(OptionError, match="column 'country': text index.*TextIndexHandler"):
        prepared_job(SCHEMA, config, ARROW, out=tmp_path, **{"build.unsupported-indexes": "error"})


STAR_TREE = {"dimensionsSplitOrder": ["country"], "functionColumnPairs": ["COUNT__*", "SUM__value"]}


def test_a_star_tree_is_built_without_enable_dynamic_star_tree_creation(tmp_path):
    config = {**TABLE_CONFIG, "tableIndexConfig": {"starTreeIndexConfigs": [STAR_TREE]}}
    job = prepared_job(SCHEMA, config, ARROW, out=tmp_path, **{"build.unsupported-indexes": "error"})
    assert [(d.kind, d.action) for d in job.index_plan.decisions] == [("star-tree", "built")]
    assert job.index_plan.deferred == []


@pytest.mark.parametrize("tree, message", [
    ({**STAR_TREE, "functionColumnPairs": ["COUNT__*", "DISTINCTCOUNTTHETASKETCH__country"]},
     r"starTreeIndexConfigs\[1\]: function pair distinctCountThetaSketch__country: not built by this writer"),
    ({**STAR_TREE, "functionColumnPairs": ["SUM__valeu"]},
     r"starTreeIndexConfigs\[1\]: function pair sum__valeu: column 'valeu' is not in the schema.*'value'"),
    ({"dimensionsSplitOrder": ["country"]}, r"starTreeIndexConfigs\[1\]: neither functionColumnPairs"),
])
def test_a_star_tree_this_writer_cannot_build_fails_on_the_driver_naming_tree_and_pair(tmp_path, tree, message):
    # the second tree is the bad one, so that the message must say which; enableDynamicStarTreeCreation does
    # not turn it into a deferral (Pinot's servers would rebuild the whole tree at every load)
    config = {**TABLE_CONFIG, "tableIndexConfig": {"starTreeIndexConfigs": [STAR_TREE, tree],
                                                   "enableDynamicStarTreeCreation": True}}
    with pytest.raises(OptionError, match=r"table config: .*star-tree index \(tableIndexConfig."
                                          r"starTreeIndexConfigs\): " + message):
        prepared_job(SCHEMA, config, ARROW, out=tmp_path)


def test_plan_names_every_error_at_once():
    schema = PinotSchema.from_json(SCHEMA)
    config = TableConfig.from_json({"fieldConfigList": [
        {"name": "country", "indexes": {"map": {}}}, {"name": "value", "compressionCodec": "BROTLI"}]}, schema)
    with pytest.raises(TableConfigError, match="column 'country': map index.*column 'value'.*BROTLI"):
        plan_indexes(config, schema)


def test_time_column_name_is_read_in_one_module():
    readers = []
    for package in ("pinot_sink", "type_mapping"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Constant) and node.value == "timeColumnName":
                    readers.append(path.relative_to(ROOT).as_posix())
    assert sorted(set(readers)) == ["type_mapping/table_config.py"]


def test_the_schema_and_table_config_are_parsed_at_one_site():
    """Below the edge (``pinot_sink.prepare.parse_table``) code takes the models: no other module parses the
    JSON into them, none accepts a dict in their place, none tells the two apart at run time."""
    parsers, dual = [], []
    for package in ("pinot_sink", "type_mapping"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text()
            name = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr == "from_json" and isinstance(node.func.value, ast.Name) \
                        and node.func.value.id in ("PinotSchema", "TableConfig"):
                    parsers.append(name)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
                        and "TableConfig" in ast.unparse(node.args[1]):
                    dual.append(name)
            if "TableConfig | Mapping" in text or "TableConfig | dict" in text:
                dual.append(name)
    assert sorted(set(parsers)) == ["pinot_sink/prepare.py"]
    assert dual == []


@pytest.mark.parametrize("config, key", [
    ({"ingestionConfig": {"transformConfigs": [{"columnName": {"a": 1}}]}},
     r"ingestionConfig.transformConfigs\[0\].columnName"),
    ({"ingestionConfig": {"complexTypeConfig": {"fieldsToUnnest": [["x"]]}}},
     "ingestionConfig.complexTypeConfig.fieldsToUnnest"),
    ({"ingestionConfig": {"rowTimeValueCheck": "maybe"}}, "ingestionConfig.rowTimeValueCheck"),
    ({"tableIndexConfig": {"starTreeIndexConfigs": [{"dimensionsSplitOrder": ["d"], "aggregationConfigs": [
        {"columnName": "m", "aggregationFunction": "SUM", "indexVersion": "four"}]}]}},
     r"starTreeIndexConfigs\[0\].aggregationConfigs\[0\].indexVersion"),
    ({"tableIndexConfig": {"segmentPartitionConfig": {"columnPartitionMap": {"d": {"numPartitions": 4}}}}},
     "columnPartitionMap.d.functionName"),
])
def test_typed_settings_name_the_key_of_a_bad_value(config, key):
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [{"name": "d", "dataType": "STRING"}],
                                    "metricFieldSpecs": [{"name": "m", "dataType": "LONG"}]})
    with pytest.raises(ValueError, match=key):
        TableConfig.from_json(config, schema)


def test_ingestion_star_tree_and_partition_settings_are_typed_and_frozen():
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [{"name": "d", "dataType": "STRING"}],
                                    "metricFieldSpecs": [{"name": "m", "dataType": "LONG"}]})
    config = TableConfig.from_json({
        "tableIndexConfig": {"starTreeIndexConfigs": [{"dimensionsSplitOrder": "d", "functionColumnPairs": ["SUM__m"],
                                                       "maxLeafRecords": "100"}],
                             "segmentPartitionConfig": {"columnPartitionMap": {
                                 "d": {"functionName": "Murmur", "numPartitions": "8"}}}},
        "ingestionConfig": {"transformConfigs": [{"columnName": "d", "transformFunction": "upper(x)"}],
                            "filterConfig": {"filterFunction": "m > 3"}, "continueOnError": "true",
                            "batchIngestionConfig": {"segmentIngestionType": "REFRESH"}}}, schema)
    ingestion = config.ingestion
    assert (ingestion.transforms[0].column_name, ingestion.filter_function, ingestion.continue_on_error,
            ingestion.push_type, config.push_type) == ("d", "m > 3", True, "REFRESH", "REFRESH")
    tree = config.indexes.star_trees.configs[0]  # Jackson's coercions: one value as a list, numbers as text
    assert (tree.dimensions_split_order, tree.max_leaf_records, config.indexes.star_trees.any) == (("d",), 100, True)
    assert config.indexes.partitions["d"].num_partitions == 8
    for settings in (ingestion, tree, config.indexes.star_trees, config.indexes.partitions["d"]):
        with pytest.raises(AttributeError):
            settings.key = "changed"  # frozen: read on the driver, the same in every task
