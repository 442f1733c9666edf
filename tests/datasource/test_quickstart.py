"""The README's quick start, run as a user runs it: examples/quickstart.py against the test controller,
with the virtualenv's python and no PYSPARK_PYTHON; the table does not exist before."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.spark


def test_readme_shows_the_quickstart_call():
    readme = (REPO / "README.md").read_text()
    example = (REPO / "examples" / "quickstart.py").read_text()
    call = example[example.index("result = pinot_sink.write("):example.index("})\n") + 2]
    assert call in readme  # the README's snippet is the example's code, not a copy that drifts
    assert "tests/fake_controller.py --port 9000 --serve" in readme and "pip install '.[spark]'" in readme


@pytest.mark.slow  # a Spark driver of its own (a JVM start and a cold Python worker): `make test-slow`
def test_quickstart_creates_the_table_and_writes(fake_controller, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run([sys.executable, str(REPO / "examples" / "quickstart.py"), fake_controller.url],
                          capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert "wrote 10000 rows in" in done.stdout, done.stdout + done.stderr[-3000:]
    table = fake_controller.tables["clicks"]
    assert table.config["segmentsConfig"]["timeColumnName"] == "ts"
    assert table.config["tableIndexConfig"]["invertedIndexColumns"] == ["country"]
    assert {s["name"]: s["dataType"] for s in table.schema["dimensionFieldSpecs"]} == {
        "click_id": "LONG", "country": "STRING", "price": "BIG_DECIMAL"}
    live = fake_controller.live_segments("clicks")
    assert sum(int(fake_controller.segments("clicks")[n].zk["segment.total.docs"]) for n in live) == 10_000
    # Run again (a newcomer does): the write.id makes it replace its own rows; without it the table held 20,000.
    again = subprocess.run([sys.executable, str(REPO / "examples" / "quickstart.py"), fake_controller.url],
                           capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert "wrote 10000 rows in" in again.stdout, again.stdout + again.stderr[-3000:]
    rerun = fake_controller.live_segments("clicks")
    assert not set(rerun) & set(live)
    assert sum(int(fake_controller.segments("clicks")[n].zk["segment.total.docs"]) for n in rerun) == 10_000
