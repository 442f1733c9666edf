"""Schemas and table configs of primary-key tables for the tests (an ``orders`` table keyed by ``id``)."""
from __future__ import annotations

import copy

import pyarrow as pa

SCHEMA = {"schemaName": "orders", "primaryKeyColumns": ["id"],
          "dimensionFieldSpecs": [{"name": "id", "dataType": "STRING"}, {"name": "city", "dataType": "STRING"}],
          "metricFieldSpecs": [{"name": "amount", "dataType": "LONG"}],
          "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                                  "granularity": "1:MILLISECONDS"}]}
ARROW = pa.schema([("id", pa.string()), ("city", pa.string()), ("amount", pa.int64()), ("ts", pa.int64())])


def table_config(kind: str = "OFFLINE", partitions: int = 4, *, function: str = "Murmur", **extra) -> dict:
    config = {"tableName": f"orders_{kind}", "tableType": kind,
              "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
              "tableIndexConfig": {"segmentPartitionConfig": {"columnPartitionMap": {
                  "id": {"functionName": function, "numPartitions": partitions}}}},
              "routing": {"instanceSelectorType": "strictReplicaGroup"},
              "upsertConfig": {"mode": "FULL", "comparisonColumns": ["ts"]}, "metadata": {}}
    for key, value in extra.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    return copy.deepcopy(config)
