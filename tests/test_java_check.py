"""The one-line Java diagnosis that `make demo` / `make test` print before starting Spark."""
from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from pinot_sink import java_check


def _fake_java(tmp_path, version_line: str) -> str:
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    java.write_text(f"#!/bin/sh\necho '{version_line}' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IXUSR)
    return str(tmp_path)


@pytest.mark.parametrize(
    "line, major",
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('openjdk version "21" 2023-09-19', 21),
        ('java version "1.8.0_392"', 8),
        ('openjdk version "11.0.2" 2019-01-15', 11),
    ],
)
def test_reads_the_major_version(tmp_path, line, major):
    home = _fake_java(tmp_path, line)
    assert java_check.java_major_version(os.path.join(home, "bin", "java")) == major


def test_too_old_java_is_one_clear_line(tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", _fake_java(tmp_path, 'java version "1.8.0_392"'))
    message = java_check.problem()
    assert message is not None and "Java 8" in message and "17" in message and "\n" not in message


def test_missing_java_names_the_fix(monkeypatch, tmp_path):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    message = java_check.problem()
    assert message is not None and "not found" in message and "JAVA_HOME" in message


def test_module_exit_code_reflects_the_problem(tmp_path):
    env = {**os.environ, "JAVA_HOME": _fake_java(tmp_path, 'java version "1.8.0_392"')}
    result = subprocess.run([sys.executable, "-m", "pinot_sink.java_check"], env=env, capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "Spark 4 needs Java 17+" in result.stderr


def test_this_machine_can_run_spark():
    assert java_check.problem() is None
