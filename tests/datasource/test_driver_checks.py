"""Mistakes found on the driver before any task runs: columns named like Pinot's virtual columns, and table
names or postfixes that make segment names too long for a file name (the option named)."""
from __future__ import annotations

import json
import tempfile

import pyarrow as pa
import pytest

from pinot_sink.cli import main
from pinot_sink.options import OptionError
from pinot_sink.segment.format import SEGMENT_NAME_MAX_BYTES
from pinot_sink.task import write_partition
from tests.datasource.helpers import prepared_job
from type_mapping.pinot_schema import SchemaError

CONFIG = {"tableName": "events_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
          "tableIndexConfig": {}, "metadata": {}}


def schema(*names: str) -> dict:
    return {"schemaName": "events", "dimensionFieldSpecs": [{"name": n, "dataType": "STRING"} for n in names],
            "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                                    "granularity": "1:MILLISECONDS"}]}


def arrow(*names: str) -> pa.Schema:
    return pa.schema([(n, pa.string()) for n in names] + [("ts", pa.int64())])


@pytest.mark.parametrize("column", ["$docId", "$hostName", "$segmentName", "$mine"])
def test_columns_named_like_virtual_columns_are_refused_on_the_driver(tmp_path, column):
    with pytest.raises(SchemaError, match=rf"^table events: column '\{column}'"):
        prepared_job(schema("id", column), CONFIG, arrow("id", column), out=tmp_path)


def test_the_cli_refuses_them_too(tmp_path, capsys):
    (tmp_path / "s.json").write_text(json.dumps(schema("$docId")))
    (tmp_path / "t.json").write_text(json.dumps(CONFIG))
    (tmp_path / "in.jsonl").write_text('{"$docId": "a", "ts": 1}\n')
    assert main(["build", "--schema", str(tmp_path / "s.json"), "--table-config", str(tmp_path / "t.json"),
                 "--input", str(tmp_path / "in.jsonl"), "--out", str(tmp_path / "out")]) == 1
    assert "column '$docId'" in capsys.readouterr().err


def _rows():
    yield pa.record_batch([pa.array(["a"]), pa.array([1_700_000_000_000])], schema=arrow("id"))


def test_a_table_name_too_long_for_a_file_name_fails_on_the_driver_naming_the_option(tmp_path):
    longest_ok = "t" * 120
    config = {k: v for k, v in CONFIG.items() if k != "tableName"}  # a config naming events is events' alone
    job = prepared_job(schema("id"), config, arrow("id"), out=tmp_path, **{"table-name": longest_ok})
    name = write_partition(job, _rows(), partition_id=0).segments[0].name  # a real name of that table fits
    assert len(name) <= SEGMENT_NAME_MAX_BYTES
    with pytest.raises(OptionError, match=r"^option 'table-name': segment names of table t{60}\.\.\. would be up "
                                          r"to \d+ bytes .* shorten 'table-name'$"):
        prepared_job(schema("id"), config, arrow("id"), out=tmp_path, **{"table-name": "t" * 200})


def test_a_postfix_too_long_fails_on_the_driver_naming_it(tmp_path):
    with pytest.raises(OptionError, match=r"^option 'table-name': .* shorten 'table-name' or 'segment.name.postfix'$"):
        prepared_job(schema("id"), CONFIG, arrow("id"), out=tmp_path, **{"segment.name.postfix": "p" * 180})


def test_a_failed_check_leaves_no_private_staging_folder(fake_controller, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(OptionError):
        prepared_job(None, None, pa.schema([("country", pa.string()), ("value", pa.int64()),
                                            ("ts", pa.timestamp("ms"))]),  # the time column: the plan needs it
                     url=fake_controller.url, **{"segment.name.postfix": "p" * 230})
    assert list(tmp_path.iterdir()) == []
