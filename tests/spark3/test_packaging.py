"""What a user installs and imports: pyspark optional, Spark 4.0 batch without the 4.1 stream writer, and
``format("pinot")`` found by Spark with no import of pinot_sink (``pyspark_pinot``), in fresh processes."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyspark
import pytest

from tests.datasource.helpers import SCHEMA, TABLE_CONFIG, read_rows

REPO = Path(__file__).resolve().parents[2]
SPARK_4 = int(pyspark.__version__.split(".")[0]) >= 4
BLOCK_PYSPARK = "import sys\nsys.modules['pyspark'] = None  # as if pyspark were not installed\n"


def run_python(code: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr[-4000:]}"
    return result


def test_package_cli_and_builder_work_without_pyspark(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"country": ["US", "DE"], "value": [1, 2],
                             "ts": pa.array([1_700_000_000_000, 1_700_000_001_000], pa.timestamp("ms"))}),
                   tmp_path / "in.parquet")
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "table.json").write_text(json.dumps(TABLE_CONFIG))
    out = run_python(BLOCK_PYSPARK + textwrap.dedent("""
        try:
            import pyspark
        except ImportError:
            pass
        else:
            raise SystemExit("the hook did not block pyspark")
        import pinot_sink, pyspark_pinot
        from pinot_sink.cli import main
        assert not hasattr(pyspark_pinot, "DefaultSource")
        try:
            pinot_sink.write(None, "events")
        except ModuleNotFoundError as exc:
            print("WRITE:", exc)
        try:
            main(["--help"])
        except SystemExit as exit:
            assert exit.code == 0
        d = sys.argv[1]
        code = main(["build", "--schema", f"{d}/schema.json", "--table-config", f"{d}/table.json",
                     "--input", f"{d}/in.parquet", "--out", f"{d}/out", "--creation-time", "1700000000000"])
        assert code in (0, None), code
        assert "pyspark" not in {m.split(".")[0] for m, v in sys.modules.items() if v is not None}
    """), str(tmp_path))
    assert "pip install 'pinot-sink[spark]'" in out.stdout
    assert "build" in out.stdout  # the CLI's help lists its commands
    assert [p.name for p in (tmp_path / "out").glob("*.tar.gz")] == ["events_1700000000000_1700000001000_0.tar.gz"]


@pytest.mark.skipif(not SPARK_4, reason="the Data Source API is pyspark 4")
def test_spark_40_writes_batches_and_says_streaming_needs_41():
    """pyspark 4.0 has DataSourceArrowWriter but not DataSourceStreamArrowWriter (4.1): simulated by removing
    the latter before pinot_sink.datasource is imported."""
    out = run_python("""
        import pyspark.sql.datasource as api
        del api.DataSourceStreamArrowWriter
        import pinot_sink.datasource as ds
        assert ds._ARROW_WRITER_MISSING is None
        assert issubclass(ds.PinotBatchWriter, api.DataSourceArrowWriter)
        source = ds.PinotDataSource({"table-name": "events"})
        try:
            source.streamWriter(None, False)
        except RuntimeError as exc:
            print("STREAM:", exc)
    """)
    assert "STREAM: writeStream.format('pinot') needs pyspark 4.1+" in out.stdout


FORMAT_PINOT_SCRIPT = """
    import json, sys
    if sys.argv[2] == "import-first":
        import pinot_sink  # before any SparkSession: must not leave format("pinot") unregistered
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "1").getOrCreate())
    df = spark.range(0, 50, numPartitions=1).selectExpr(
        "'US' AS country", "id AS value", "timestamp_millis(1700000000000 + id * 1000) AS ts")
    (df.write.format("pinot").option("table-name", "events").option("schema", json.dumps(SCHEMA))
       .option("table-config", json.dumps(TABLE_CONFIG)).option("output-uri", sys.argv[1]).mode("append").save())
    print("DRIVER IMPORTED pinot_sink:", "pinot_sink" in sys.modules)
    spark.stop()
"""


@pytest.mark.slow
@pytest.mark.skipif(not SPARK_4, reason="Spark finds pyspark_* data sources from 4.0")
@pytest.mark.parametrize("order", ["no-import", "import-first"])
def test_format_pinot_in_a_fresh_process(tmp_path, order):
    script = f"SCHEMA = {SCHEMA!r}\nTABLE_CONFIG = {TABLE_CONFIG!r}\n" + textwrap.dedent(FORMAT_PINOT_SCRIPT)
    out = run_python(script, str(tmp_path), order)
    assert f"DRIVER IMPORTED pinot_sink: {order == 'import-first'}" in out.stdout
    written = read_rows((tmp_path / "events").glob("*.tar.gz"))
    assert sorted(written.column("value").to_pylist()) == list(range(50))
