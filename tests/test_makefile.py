"""The Makefile's stage runner (`make test`, `make test-slow`): every stage runs even when one before it failed,
the failed ones are named at the end, and the exit status is non-zero (issue 36). Checked on stand-in stages
(MAKEFILES adds them to every make, the sub-makes included), so no test runs here."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STAND_INS = """
first:
\t@echo ran first
broken:
\t@echo ran broken; exit 3
last:
\t@echo ran last
all-stages:
\t$(call stages,first broken last)
good-stages:
\t$(call stages,first last)
"""


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")
def test_every_stage_runs_and_the_failed_ones_are_named(tmp_path):
    extra = tmp_path / "stand_ins.mk"
    extra.write_text(STAND_INS)
    env = {"PATH": "/usr/bin:/bin", "MAKEFILES": str(extra)}
    done = subprocess.run(["make", "--no-print-directory", "all-stages"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode != 0
    assert [line for line in done.stdout.splitlines() if line.startswith("ran ")] == [
        "ran first", "ran broken", "ran last"]
    assert "make all-stages: FAILED: broken" in done.stderr
    done = subprocess.run(["make", "--no-print-directory", "good-stages"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and "make good-stages: all stages passed" in done.stdout
