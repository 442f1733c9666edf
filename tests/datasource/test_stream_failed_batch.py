"""A micro-batch whose task fails, with real Spark: PySpark aborts it with its committing writer (made apart
from the tasks'), which learns nothing of the failed task. The table stays as it was, the query fails, and the
task removed its staged tarball itself."""
from __future__ import annotations

import copy
import shutil
import tempfile
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pinot_sink
from pinot_sink.storage.staging import private_stage_roots
from tests.datasource.helpers import BASE_MS, SCHEMA, TABLE_CONFIG

pytestmark = pytest.mark.spark


@pytest.mark.slow  # a streaming query of its own
def test_a_micro_batch_whose_task_fails_leaves_the_table_and_only_the_tasks_root(spark, fake_controller, tmp_path):
    pinot_sink.register(spark)
    table = f"stream_fail_{uuid.uuid4().hex[:12]}"  # its own roots in the machine's temp folder
    fake_controller.add_table(dict(copy.deepcopy(SCHEMA), schemaName=table),
                              dict(copy.deepcopy(TABLE_CONFIG), tableName=f"{table}_OFFLINE"))
    source = tmp_path / "in"
    source.mkdir()
    stamps = [BASE_MS + i * 1000 for i in range(199)] + [4_000_000_000_000]  # 2096: Pinot rejects the segment
    pq.write_table(pa.table({"country": ["US", "DE"] * 100, "value": pa.array(range(200), pa.int64()),
                             "ts": pa.array(stamps, pa.timestamp("ms", tz="UTC"))}), source / "part-000.parquet")
    query = (spark.readStream.schema("country STRING, value BIGINT, ts TIMESTAMP").parquet(str(source))
             .coalesce(1).writeStream.format("pinot").option("table-name", table).option("url", fake_controller.url)
             .option("sink.buffer-flush.max-rows", 150).option("checkpointLocation", str(tmp_path / "cp"))
             .trigger(availableNow=True).start())
    with pytest.raises(Exception, match="1971-01-01..2071-01-01"):
        query.awaitTermination()
    assert fake_controller.live_segments(table) == []
    roots = private_stage_roots(table)  # Spark's Python workers share the machine's temp folder
    assert len(roots) == 1  # the tasks' (the committing writer's own is gone), with the task's note for recover
    left = [p.name for p in Path(roots[0]).rglob("*") if p.is_file()]
    assert not [n for n in left if n.endswith(".tar.gz")] and [n for n in left if n.endswith(".task-error")]
    assert Path(roots[0]).parent == Path(tempfile.gettempdir())
    shutil.rmtree(roots[0])  # what `pinot-sink recover --apply` would do
