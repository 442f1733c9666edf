"""The test controller's upload rules for primary-key tables, as Pinot's controller and servers apply them
(``SegmentValidationUtils.validateUpsertSegmentPartitionMetadata``, the upload resource's name-shape rule,
``StorageQuotaChecker``, ``BaseTableDataManager.handleUpsert``): raw HTTP, hand-made segments."""
from __future__ import annotations

import pytest
import requests

from segment_factory import segment_files, tar_segment

PK_SCHEMA = {"schemaName": "orders", "primaryKeyColumns": ["id"],
             "dimensionFieldSpecs": [{"name": "id", "dataType": "STRING"}],
             "metricFieldSpecs": [{"name": "value", "dataType": "LONG"}],
             "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                                     "granularity": "1:MILLISECONDS"}]}


def _config(kind="OFFLINE", **extra):
    config = {"tableName": "orders", "tableType": kind, "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
              "tableIndexConfig": {"segmentPartitionConfig": {"columnPartitionMap": {
                  "id": {"functionName": "Murmur", "numPartitions": 4}}}},
              "routing": {"instanceSelectorType": "strictReplicaGroup"},
              "upsertConfig": {"mode": "FULL", "comparisonColumns": ["ts"]}}
    config.update(extra)
    return config


def _partitioned(partitions, column="id"):
    if partitions is None:
        return {}
    return {f"column.{column}.partitionFunction": "Murmur", f"column.{column}.numPartitions": 4,
            f"column.{column}.partitionValues": [str(p) for p in partitions]}


def _upload(controller, name, *, kind="OFFLINE", partitions=(1,), payload_bytes=256):
    tar = tar_segment(name, segment_files(name, table="orders", extra_properties=_partitioned(partitions),
                                          payload_bytes=payload_bytes))
    return requests.post(f"{controller.url}/v2/segments", params={"tableName": "orders", "tableType": kind},
                         files={name: (name, tar)}, timeout=10)


def test_offline_upsert_takes_one_partition_id_per_segment(fake_controller):
    fake_controller.add_table(PK_SCHEMA, _config())
    assert _upload(fake_controller, "orders_0", partitions=(2,)).status_code == 200
    two = _upload(fake_controller, "orders_1", partitions=(0, 1))
    assert two.status_code == 400
    assert two.json()["error"] == ("Uploaded segment: orders_1 for offline upsert table: orders_OFFLINE must contain "
                                   "exactly one partition id for column: id, got: {0, 1}")  # as the real cluster says
    none = _upload(fake_controller, "orders_2", partitions=None)
    assert none.status_code == 400 and none.json()["error"].endswith("for column: id, got: null")
    assert sorted(fake_controller.segments("orders")) == ["orders_0"]
    assert fake_controller.tables["orders"].load_errors == {}


def test_the_partition_column_comes_from_the_replica_group_config_first(fake_controller):
    config = _config(instanceAssignmentConfigMap={"OFFLINE": {"replicaGroupPartitionConfig": {
        "partitionColumn": "region"}}})
    fake_controller.add_table(PK_SCHEMA, config)
    refused = _upload(fake_controller, "orders_0", partitions=(1,))  # no partition metadata for "region"
    assert refused.status_code == 400 and refused.json()["error"].endswith("for column: region, got: null")


def test_tables_without_upsert_or_partition_column_take_any_segment(fake_controller):
    fake_controller.add_table(PK_SCHEMA, _config(upsertConfig=None))
    assert _upload(fake_controller, "orders_0", partitions=(0, 1)).status_code == 200


def test_names_of_uploaded_realtime_shape_go_to_realtime_tables_only(fake_controller):
    fake_controller.add_table(PK_SCHEMA, _config())
    name = "pinot_sink__orders__1__20260101T0000Z__w1"
    refused = _upload(fake_controller, name)
    assert refused.status_code == 400
    assert refused.json()["error"] == (f"Cannot upload segment: {name} to OFFLINE table as this format is reserved "
                                       "for uploaded real-time segment")


def test_realtime_upsert_segments_need_a_partition_id_the_server_can_read(fake_controller):
    fake_controller.add_table(PK_SCHEMA, _config("REALTIME"))
    good = "pinot_sink__orders__1__20260101T0000Z__w1"
    assert _upload(fake_controller, good, kind="REALTIME", partitions=None).status_code == 200
    # the controller accepts any name here; a server cannot place a segment with no partition id in it
    assert _upload(fake_controller, "orders_plain", kind="REALTIME", partitions=None).status_code == 200
    assert _upload(fake_controller, "orders_two", kind="REALTIME", partitions=(0, 1)).status_code == 200
    assert _upload(fake_controller, "orders_one", kind="REALTIME", partitions=(3,)).status_code == 200
    errors = fake_controller.tables["orders"].load_errors
    assert sorted(errors) == ["orders_plain", "orders_two"]
    assert errors["orders_plain"].startswith("Failed to get partition id for segment: orders_plain (upsert-enabled "
                                             "table: orders_REALTIME)")
    wrong_type = _upload(fake_controller, "orders_x", kind="OFFLINE")
    assert wrong_type.status_code == 400 and wrong_type.json()["error"] == "Failed to find table: orders_OFFLINE"
    listing = requests.get(f"{fake_controller.url}/segments/orders", params={"type": "REALTIME"}, timeout=10).json()
    assert "REALTIME" in listing[0] and good in listing[0]["REALTIME"]
    config = requests.get(f"{fake_controller.url}/tables/orders", params={"type": "realtime"}, timeout=10).json()
    assert config["REALTIME"]["tableName"] == "orders_REALTIME"


@pytest.mark.parametrize("quota, accepted", [("1M", 2), ("3K", 1)])
def test_dimension_tables_keep_their_storage_quota(fake_controller, quota, accepted):
    config = {"tableName": "orders", "tableType": "OFFLINE", "isDimTable": True,
              "segmentsConfig": {"timeColumnName": "ts", "replication": "1"}, "quota": {"storage": quota}}
    fake_controller.add_table(PK_SCHEMA, config)
    answers = [_upload(fake_controller, f"orders_{i}", payload_bytes=1500) for i in range(2)]
    assert [a.status_code for a in answers] == [200] * accepted + [403] * (2 - accepted)
    if accepted == 1:
        assert answers[1].json()["error"].startswith(
            "Storage quota check failed for segment: orders_1 of table: orders_OFFLINE, reason: Storage quota "
            "exceeded for Table orders_OFFLINE. New estimated size: ")
