"""df.write.format("pinot") through a table config with transforms, a filter and an unnested array (embedded).

The task loop runs ``IngestionPipeline`` before type mapping; the driver plans against its output.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import pinot_sink
from tests.datasource.helpers import read_rows

pytestmark = pytest.mark.spark

SCHEMA = {
    "schemaName": "orders",
    "dimensionFieldSpecs": [
        {"name": "id", "dataType": "LONG"},
        {"name": "day", "dataType": "INT"},
        {"name": "customer.name", "dataType": "STRING"},
        {"name": "items.sku", "dataType": "STRING"},
        {"name": "sku_upper", "dataType": "STRING"},
    ],
    "metricFieldSpecs": [{"name": "items.qty", "dataType": "INT"}, {"name": "gross", "dataType": "DOUBLE"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
}
TABLE_CONFIG = {
    "tableName": "orders_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
    "tableIndexConfig": {"nullHandlingEnabled": "true"},
    "ingestionConfig": {
        "complexTypeConfig": {"fieldsToUnnest": ["items"]},
        "transformConfigs": [
            {"columnName": "day", "transformFunction": "toEpochDays(ts)"},
            {"columnName": "sku_upper", "transformFunction": "upper(\"items.sku\")"},
            {"columnName": "gross", "transformFunction": "\"items.qty\" * price"},
        ],
        "filterConfig": {"filterFunction": "startsWith(status, 'test')"},
    },
}
BASE_MS = 1_700_000_000_000


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    assert pinot_sink.register(spark) is True


def _rows():
    rows = []
    for i in range(40):
        items = [{"sku": f"s{i}-{j}", "qty": j + 1} for j in range(i % 3)]  # 0, 1 or 2 items
        rows.append((i, BASE_MS + i * 3_600_000, "test" if i % 10 == 0 else "ok", {"name": f"c{i % 4}"}, items,
                     1.5 + i))
    return rows


def _expected():
    out = []
    for i, ts, status, customer, items, price in _rows():
        if status.startswith("test"):
            continue
        for item in items or [None]:  # an empty array keeps its row once, with null item fields
            out.append({"id": i, "ts": ts, "day": ts // 86_400_000, "customer.name": customer["name"],
                        "items.sku": item["sku"] if item else None, "items.qty": item["qty"] if item else None,
                        "sku_upper": item["sku"].upper() if item else None,
                        "gross": item["qty"] * price if item else None})  # null vectors (nullHandlingEnabled)
    return sorted(out, key=_order)


def _order(row):
    return row["id"], row["items.sku"] or ""


def test_transforms_filter_and_unnest_give_exact_rows(spark, tmp_path):
    df = spark.createDataFrame(
        _rows(), "id long, ts long, status string, customer struct<name:string>, "
                 "items array<struct<sku:string,qty:int>>, price double").repartition(2)
    (df.write.format("pinot").option("table-name", "orders").option("schema", json.dumps(SCHEMA))
     .option("table-config", json.dumps(TABLE_CONFIG)).option("output-uri", str(tmp_path))
     .option("creation-time", "1700000000000").mode("append").save())
    table = read_rows(Path(tmp_path, "orders").glob("*.tar.gz"))
    rows = sorted(({k: r[k] for k in _expected()[0]} for r in table.to_pylist()), key=_order)
    assert rows == _expected()
    [manifest] = Path(tmp_path, "orders", "_manifests").glob("*.json")
    document = json.loads(manifest.read_text())
    assert document["input_rows"] == 40 and document["filtered_rows"] == 5  # 4 test rows, 5 after unnesting


def test_an_ingestion_setting_it_cannot_apply_fails_on_the_driver(spark, tmp_path):
    config = json.loads(json.dumps(TABLE_CONFIG))
    config["ingestionConfig"]["transformConfigs"].append(
        {"columnName": "sku_upper", "transformFunction": "Groovy({items.sku.toUpperCase()}, items)"})
    df = spark.createDataFrame(_rows(), "id long, ts long, status string, customer struct<name:string>, "
                                        "items array<struct<sku:string,qty:int>>, price double")
    with pytest.raises(Exception, match="(?i)groovy.*ingestion.unsupported"):
        (df.write.format("pinot").option("table-name", "orders").option("schema", json.dumps(SCHEMA))
         .option("table-config", json.dumps(config)).option("output-uri", str(tmp_path)).mode("append").save())
    assert not Path(tmp_path, "orders").exists() or not list(Path(tmp_path, "orders").glob("*.tar.gz"))
