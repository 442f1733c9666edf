"""One rule turns stored epoch values into millis: ``datetime_formats.stored_to_millis``, Java's
``TimeUnit.toMillis`` (truncation toward zero from finer units). Every caller uses it: the builder's time
values, a task's segment record, the ZK metadata and tarball readers, normalizedDate names, ingestion."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.controller import ControllerClient, RetryPolicy, push_segment
from pinot_sink.naming import make_namer
from pinot_sink.segment.builder import time_values_ms
from pinot_sink.controller.store import ControllerStore, zk_time_range
from pinot_sink.storage.tarballs import NO_TIME_MS
from segment_factory import make_segment
from type_mapping import PinotSchema
from type_mapping.datetime_formats import range_to_millis, stored_to_millis
from type_mapping.table_config import TableConfig

DAY = 86_400_000
D0 = 1_709_251_200_000  # 2024-03-01T00:00Z


def test_finer_units_truncate_toward_zero_as_java_does():
    assert stored_to_millis(-1500, "MICROSECONDS") == -1  # Java: -1500 / 1000 == -1; floor would say -2
    assert stored_to_millis(1_700_000_000_123_456_789, "NANOSECONDS") == 1_700_000_000_123  # exact, no float
    assert stored_to_millis(D0 // DAY, "DAYS") == D0 and isinstance(stored_to_millis(3, "SECONDS"), int)
    assert range_to_millis(-1999, 1999, "MICROSECONDS") == (-1, 1)
    assert stored_to_millis(np.array([-1500, 2500]), "MICROSECONDS").tolist() == [-1, 2]


def test_the_builder_reads_time_values_by_the_same_rule():
    spec = PinotSchema.from_json({"schemaName": "t", "dateTimeFieldSpecs": [
        {"name": "ts", "dataType": "LONG", "format": "1:MICROSECONDS:EPOCH", "granularity": "1:MICROSECONDS"}]})["ts"]
    assert time_values_ms(pa.array([-1500, 1500], pa.int64()), spec).tolist() == [-1, 1]


def test_zk_metadata_in_any_unit_reads_as_millis():
    assert zk_time_range({"segment.start.time": str(D0 // DAY), "segment.end.time": str(D0 // DAY + 1),
                          "segment.time.unit": "DAYS"}) == (D0, D0 + DAY)
    assert zk_time_range({"segment.start.time": "1500", "segment.end.time": "2500",
                          "segment.time.unit": "MICROSECONDS"}) == (1, 2)
    assert zk_time_range({}) == (NO_TIME_MS, NO_TIME_MS)


def test_a_controllers_time_ranges_come_in_millis_whatever_the_segment_unit(fake_controller, tmp_path):
    """(Was the controller client's own unit table and SegmentTimeRange; one home now.)"""
    client = ControllerClient(fake_controller.url, retry=RetryPolicy.none())
    push_segment(client, "events", make_segment(tmp_path, "days_0", start_time=D0 // DAY,
                                                end_time=D0 // DAY + 1, time_unit="DAYS"))
    fake_controller.add_simple_table("snapshots", time_column=None)
    push_segment(client, "snapshots", make_segment(tmp_path, "snap_0", table="snapshots", time_column=None,
                                                   start_time=None, end_time=None))
    zk = client.segment_zk_metadata("snapshots")["snap_0"]
    assert not {"segment.start.time", "segment.end.time", "segment.time.unit"} & set(zk)  # as Pinot leaves them
    assert ControllerStore("events", client.config).time_ranges(["days_0"]) == {"days_0": (D0, D0 + DAY)}
    assert ControllerStore("snapshots", client.config).time_ranges(["snap_0"]) == {
        "snap_0": (NO_TIME_MS, NO_TIME_MS)}


@pytest.mark.parametrize("value, day", [(1_709_251_200_000_000, "2024-03-01"), (-1, "1970-01-01")])
def test_normalized_date_names_truncate_too(value, day):
    schema = PinotSchema.from_json({"schemaName": "t", "dateTimeFieldSpecs": [
        {"name": "ts", "dataType": "LONG", "format": "1:MICROSECONDS:EPOCH", "granularity": "1:MICROSECONDS"}]})
    namer = make_namer("normalizedDate", "t", schema, TableConfig.from_json({"segmentsConfig": {"timeColumnName": "ts"}}, schema))
    assert namer.normalized_date(value) == day  # -1 us is 0 ms (Java), not -1 ms on 1969-12-31
