"""Without ISA-L (no wheel for the platform) the builder falls back to zlib: the same segment files and
CRCs, a valid tarball (its compressed bytes differ)."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

BUILD = textwrap.dedent("""
    import sys
    if sys.argv[2] == "no-isal":
        sys.modules["isal"] = None  # what an install without the isal wheel looks like
    import numpy as np, pyarrow as pa
    from pinot_sink.segment import build_segment, read_segment
    from pinot_sink.segment.fast_zlib import HAVE_ISAL
    from type_mapping import PinotSchema, TableConfig
    from type_mapping.stored import PinotColumns
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "id", "dataType": "LONG"}, {"name": "s", "dataType": "STRING"}]})
    ids = np.arange(200_000, dtype=np.int64)
    table = pa.table({"id": ids, "s": pa.array(np.array(["a", "bb", "ccc"])[ids % 3])})
    columns = PinotColumns(table, {"id": np.zeros(len(ids), bool), "s": np.zeros(len(ids), bool)})
    built = build_segment(columns, schema, TableConfig.from_json({"tableName": "t_OFFLINE"}, schema), sys.argv[1], "t_0", creation_time_ms=0,
                          options=None)
    back = read_segment(str(built.tar_path)).table
    assert back.column("id").to_pylist() == ids.tolist()
    print(HAVE_ISAL, built.crc, built.data_crc)
""")


def build(tmp_path: Path, mode: str) -> list[str]:
    out = tmp_path / mode
    result = subprocess.run([sys.executable, "-c", BUILD, str(out), mode], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_builds_without_isal_give_the_same_segment(tmp_path):
    pytest.importorskip("isal")
    with_isal = build(tmp_path, "isal")
    without = build(tmp_path, "no-isal")
    assert with_isal[0] == "True" and without[0] == "False"
    assert with_isal[1:] == without[1:]  # CRC and data CRC of the segment files: the same bytes


@pytest.mark.parametrize("mode, level", [("isal", "2"), ("no-isal", "1")])
def test_without_isal_the_windows_keep_zlibs_level(mode, level):
    # ISA-L's level 2 is its cheapest good one; zlib's level 2 would cost ~13% more than its level 1 for ~6% more
    # bytes, so without the wheel (fast_zlib is zlib) no window may take ISA-L's level
    if mode == "isal":
        pytest.importorskip("isal")
    script = ("import sys\nif sys.argv[1] == 'no-isal': sys.modules['isal'] = None\n"
              "from pinot_sink.segment import tarball\nprint(tarball._LEVEL[tarball.ISAL])")
    result = subprocess.run([sys.executable, "-c", script, mode], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [level]
