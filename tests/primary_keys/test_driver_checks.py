"""Primary-key table configs Pinot refuses are refused on the driver, before any task runs, in Pinot's words
(``TableConfigUtils.validateUpsertAndDedupConfig``, ``validateValidationConfig``)."""
from __future__ import annotations

import pytest

from pinot_sink.options import OptionError
from tests.datasource.helpers import prepared_job
from tests.primary_keys.tables import ARROW, SCHEMA, table_config

NAME = {"table-name": "orders"}


def _refused(config, schema=SCHEMA, extra=None) -> str:
    with pytest.raises(OptionError) as raised:
        prepared_job(schema, config, ARROW, **NAME, **(extra or {}))
    return str(raised.value)


def test_offline_upsert_needs_a_partition_config():
    config = table_config(tableIndexConfig={})
    assert _refused(config) == ("table orders: Offline upsert table must have segment partition config to ensure "
                                "correct partition-based segment assignment. Configure segmentPartitionConfig in the "
                                "indexingConfig.")


def test_offline_upsert_needs_a_comparison_or_time_column():
    config = table_config(upsertConfig={"mode": "FULL"}, segmentsConfig={"replication": "1"})
    assert _refused(config) == "table orders: Offline upsert table must have a comparison column or a time column configured"


def test_offline_partial_upsert_and_dedup_are_refused():
    assert _refused(table_config(upsertConfig={"mode": "PARTIAL", "comparisonColumns": ["ts"]})) == \
        "table orders: Partial upsert is not supported for OFFLINE table"
    assert _refused(table_config(upsertConfig=None, dedupConfig={"dedupEnabled": True})) == \
        "table orders: Dedup is not supported for OFFLINE table. Only upsert is supported for OFFLINE table"


def test_keys_and_comparison_columns_must_exist():
    no_keys = {k: v for k, v in SCHEMA.items() if k != "primaryKeyColumns"}
    assert _refused(table_config(), no_keys) == "table orders: Upsert/Dedup table must have primary key columns in the schema"
    assert _refused(table_config(upsertConfig={"comparisonColumns": ["version"]})).startswith(
        "table orders: The comparison column does not exist on schema")


def test_dimension_tables_are_offline_with_keys():
    no_keys = {k: v for k, v in SCHEMA.items() if k != "primaryKeyColumns"}
    dim = table_config(upsertConfig=None, isDimTable=True)
    assert _refused(dim, no_keys) == "table orders: Dimension table must have primary key[s]"


def test_two_partitioned_columns_leave_the_server_without_a_partition():
    config = table_config()
    config["tableIndexConfig"]["segmentPartitionConfig"]["columnPartitionMap"]["city"] = {
        "functionName": "Murmur", "numPartitions": 2}
    assert "partition by exactly one column" in _refused(config)


def test_a_valid_offline_upsert_table_is_planned(tmp_path):
    job = prepared_job(SCHEMA, table_config(), ARROW, **NAME, out=tmp_path)
    plan = job.primary_keys
    assert (plan.table_type, plan.partition_column, plan.comparison_columns, plan.key_columns) == \
        ("OFFLINE", "id", ("ts",), ("id",))
    time_only = prepared_job(SCHEMA, table_config(upsertConfig={}), ARROW, **NAME, out=tmp_path)
    assert time_only.primary_keys.comparison_columns == ("ts",)  # the time column stands in
    plain = prepared_job(SCHEMA, table_config(upsertConfig=None), ARROW, **NAME, out=tmp_path)
    assert plain.primary_keys is None


def test_realtime_tables_are_not_overwritten():
    with pytest.raises(OptionError, match="pinot_sink does not replace them: append, and rerun a 'write.id'"):
        prepared_job(SCHEMA, table_config("REALTIME"), ARROW, overwrite=True, **NAME, **{"table-type": "REALTIME"})


def test_table_type_must_match_the_config():
    with pytest.raises(OptionError, match="option 'table-type' is OFFLINE but table orders's config has tableType "
                                          "REALTIME: set 'table-type'=REALTIME"):
        prepared_job(SCHEMA, table_config("REALTIME"), ARROW, **NAME)


def test_realtime_upsert_needs_the_streams_partitioning():
    assert "Kafka's default partitioner: functionName Murmur" in _refused(
        table_config("REALTIME", tableIndexConfig={}), extra={"table-type": "REALTIME"})
    assert "pinot_sink does not write partial-upsert" in _refused(
        table_config("REALTIME", upsertConfig={"mode": "PARTIAL"}), extra={"table-type": "REALTIME"})


def test_dedup_batch_is_for_pinot_sink_write_only():
    with pytest.raises(OptionError, match=r"option 'upsert.dedup-batch' is applied by pinot_sink.write"):
        prepared_job(SCHEMA, table_config(), ARROW, **NAME, **{"upsert.dedup-batch": "latest"})
