"""Dimension tables: a write whose segments exceed the table's storage quota (quota.storage, else the
controller's 200M dimTable.maxSize) is refused by the commit before anything is uploaded."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.commit import commit_job
from pinot_sink.primary_keys import PrimaryKeyTableError
from pinot_sink.task import write_partition
from tests.datasource.helpers import prepared_job
from tests.primary_keys.tables import ARROW, SCHEMA, table_config


def _rows(count: int):
    rnd = np.random.default_rng(7)
    cities = [rnd.bytes(12).hex() for _ in range(count)]  # incompressible text: the tarball is big
    yield pa.record_batch([pa.array([f"k{i}" for i in range(count)]), pa.array(cities),
                           pa.array(np.arange(count), pa.int64()), pa.array(1_700_000_000_000 + np.arange(count), pa.int64())],
                          schema=ARROW)


@pytest.mark.parametrize("quota, refused", [("8K", True), ("1M", False)])
def test_the_dimension_quota_is_checked_before_upload(fake_controller, quota, refused):
    config = table_config(upsertConfig=None, isDimTable=True, quota={"storage": quota})
    fake_controller.add_table(SCHEMA, config)
    job = prepared_job(SCHEMA, None, ARROW, url=fake_controller.url, **{"table-name": "orders"})
    reports = [write_partition(job, _rows(2000), partition_id=0, attempt=0, task_attempt_id=0)]
    if refused:
        with pytest.raises(PrimaryKeyTableError, match=r"table orders: the write's 4 segment\(s\) take .* compressed, "
                                                       r"over the dimension table's storage quota 8K"):
            commit_job(job, reports)
        assert fake_controller.uploads() == []
    else:
        commit_job(job, reports)
        assert len(fake_controller.live_segments("orders")) == 4  # one per partition id
