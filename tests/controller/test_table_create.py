"""table.create=if-missing against the test controller: POST /schemas and POST /tables as Pinot answers them."""
from __future__ import annotations

import pyarrow as pa
import pytest

from pinot_sink.controller import ClientConfig, ControllerClient
from pinot_sink.controller.errors import ControllerRequestError
from pinot_sink.job import prepare_job
from pinot_sink.options import OptionError
from type_mapping.pinot_schema import PinotSchema

SOURCE = pa.schema([("country", pa.string()), ("value", pa.int64()), ("ts", pa.timestamp("ms"))])


def _client(controller) -> ControllerClient:
    return ControllerClient.from_config(ClientConfig(url=controller.url))


def test_fake_controller_follows_pinots_create_contract(fake_controller):
    schema = {"schemaName": "orders", "dimensionFieldSpecs": [{"name": "id", "dataType": "LONG"}]}
    config = {"tableName": "orders", "tableType": "OFFLINE", "segmentsConfig": {}, "tenants": {},
              "tableIndexConfig": {}, "metadata": {}}
    with _client(fake_controller) as client:
        with pytest.raises(ControllerRequestError) as missing:
            client.add_table(config)  # no schema named like the table yet
        assert missing.value.status == 400 and "Failed to find schema for table: orders_OFFLINE" in str(missing.value)
        assert client.add_schema(schema) == {"unrecognizedProperties": {}, "status": "orders successfully added"}
        with pytest.raises(ControllerRequestError) as again:
            client.add_schema(schema)
        assert again.value.status == 409 and "Schema: orders already exists" in str(again.value)
        assert client.add_table(config)["status"] == "Table orders_OFFLINE successfully added"
        with pytest.raises(ControllerRequestError) as twice:
            client.add_table(config)
        assert twice.value.status == 409 and "Table config for orders_OFFLINE already exists" in str(twice.value)
        served = client.get_schema("orders")  # as Pinot serves it: each field spec names its fieldType
        assert served["dimensionFieldSpecs"] == [dict(s, fieldType="DIMENSION") for s in schema["dimensionFieldSpecs"]]
        assert client.get_table_config("orders")["tableName"] == "orders_OFFLINE"


def test_if_missing_creates_schema_and_table_from_the_dataframe(fake_controller):
    options = {"table-name": "clicks", "url": fake_controller.url, "table.create": "if-missing",
               "table.time-column": "ts", "table.inverted-index-columns": "country", "table.sorted-column": "country",
               "table.metric-columns": "value"}
    job = prepare_job(options, SOURCE, overwrite=False)
    table = fake_controller.tables["clicks"]
    assert table.schema["schemaName"] == "clicks"
    assert [s["name"] for s in table.schema["dateTimeFieldSpecs"]] == ["ts"]
    assert [s["name"] for s in table.schema["metricFieldSpecs"]] == ["value"]
    assert table.config["segmentsConfig"]["timeColumnName"] == "ts"
    assert table.config["tableIndexConfig"]["invertedIndexColumns"] == ["country"]
    assert table.config["tableIndexConfig"]["sortedColumn"] == ["country"]
    assert job.schema == PinotSchema.from_json(table.schema) and job.table_config.raw["tableName"] == "clicks_OFFLINE"
    # a second write finds it and leaves it alone
    prepare_job(options, SOURCE, overwrite=False)
    assert len([r for r in fake_controller.received if r.method == "POST" and r.path == "/tables"]) == 1


def test_without_the_option_a_missing_table_is_an_error(fake_controller):
    with pytest.raises(Exception, match="clicks"):
        prepare_job({"table-name": "clicks", "url": fake_controller.url}, SOURCE, overwrite=False)
    assert "clicks" not in fake_controller.tables


def test_options_name_columns_the_dataframe_has(fake_controller):
    with pytest.raises(OptionError, match="option 'table.time-column'"):
        prepare_job({"table-name": "clicks", "url": fake_controller.url, "table.create": "if-missing",
                     "table.time-column": "when"}, SOURCE, overwrite=False)
    with pytest.raises(OptionError, match=r"option 'table.range-index-columns': columns \['price'\]"):
        prepare_job({"table-name": "clicks", "url": fake_controller.url, "table.create": "if-missing",
                     "table.range-index-columns": "price"}, SOURCE, overwrite=False)
    assert "clicks" not in fake_controller.tables


def test_embedded_writes_derive_the_schema_from_the_dataframe():
    job = prepare_job({"table-name": "clicks", "table.create": "if-missing", "table.time-column": "ts"}, SOURCE,
                      overwrite=False)
    assert job.table_config.raw["segmentsConfig"]["timeColumnName"] == "ts"
    assert {s.name for s in job.schema if s.field_type == "DIMENSION"} == {"country", "value"}


def test_a_missing_table_suggests_table_create(fake_controller):
    """Issue 32 item 8: the error names the option that would create the table."""
    with pytest.raises(OptionError, match=r"table clicks: the controller at .* has no such table .*set option "
                                          r"'table.create'=if-missing to create it"):
        prepare_job({"table-name": "clicks", "url": fake_controller.url}, SOURCE, overwrite=False)


def test_an_unknown_controller_option_suggests_url():
    from pinot_sink.options import WriteOptions

    for name in ("controller-url", "controller", "controllerUrl", "pinot.url"):
        with pytest.raises(OptionError, match=f"unknown option '{name.lower()}' \\(did you mean 'url'\\?\\)"):
            WriteOptions.parse({"table-name": "t", name: "http://c:9000"})
