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
        with pytest.raises(PrimaryKeyTableError, match=r"table orders: the write's 4 segment\(s\) take .* untarred, "
                                                       r"over the dimension table's storage quota 8K"):
            commit_job(job, reports)
        assert fake_controller.uploads() == []
    else:
        commit_job(job, reports)
        assert len(fake_controller.live_segments("orders")) == 4  # one per partition id


def test_the_dimension_quota_counts_untarred_bytes_as_pinot_does(fake_controller, tmp_path):
    """Pinot's upload checks a segment's *untarred* size against the quota (``PinotSegmentUploadDownloadRestletResource``:
    ``FileUtils.sizeOfDirectory`` of the untarred segment, handed to ``StorageQuotaChecker``); only a METADATA push
    falls back to the tarred size. A write whose tarballs fit the quota but whose untarred segments do not is
    refused before anything is uploaded, not by the controller halfway through the upload."""
    import tarfile

    from pinot_sink.storage.layout import local_path

    def compressible(count: int):
        yield pa.record_batch([pa.array([f"k{i}" for i in range(count)]), pa.array(["Springfield"] * count),
                               pa.array(np.arange(count), pa.int64()),
                               pa.array(1_700_000_000_000 + np.arange(count), pa.int64())], schema=ARROW)

    probe = prepared_job(SCHEMA, table_config(upsertConfig=None, isDimTable=True), ARROW, out=tmp_path,
                         **{"table-name": "orders"})
    built = write_partition(probe, compressible(2000), partition_id=0, attempt=0, task_attempt_id=0).segments
    tarred = sum(s.tar_bytes for s in built)
    untarred = 0
    for segment in built:
        with tarfile.open(local_path(segment.staged_uri)) as archive:
            untarred += sum(m.size for m in archive.getmembers() if m.isfile())
    assert tarred * 1.5 < untarred  # the quota below lies between them
    quota = str((tarred + untarred) // 2)

    config = table_config(upsertConfig=None, isDimTable=True, quota={"storage": quota})
    fake_controller.add_table(SCHEMA, config)
    job = prepared_job(SCHEMA, None, ARROW, url=fake_controller.url, **{"table-name": "orders"})
    reports = [write_partition(job, compressible(2000), partition_id=0, attempt=0, task_attempt_id=0)]
    with pytest.raises(PrimaryKeyTableError, match=rf"take .* untarred, over the dimension table's storage quota {quota}"):
        commit_job(job, reports)
    assert fake_controller.uploads() == []
