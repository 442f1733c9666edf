"""``pinot-sink <cmd>`` imports only the subcommand it runs (the others pull in Arrow, the segment builder,
the HTTP client): checked on the modules a fresh interpreter has loaded, not on time."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pinot_sink.cli import SUBCOMMANDS, requested_command

PROBE = """
import contextlib, io, json, sys
from pinot_sink.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith("pinot_sink.cli."))))
"""


def _loaded(*argv: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("command", ["schema", "inspect", "push"])
def test_a_subcommand_imports_only_its_module(command):
    assert _loaded("-v", command, "--help") == [f"pinot_sink.cli.{command}_cmd"]


def test_the_top_level_help_lists_every_subcommand():
    assert _loaded("--help") == sorted(f"pinot_sink.cli.{name}_cmd" for name in SUBCOMMANDS)


def test_requested_command():
    assert requested_command(["-v", "build", "--out", "x"]) == "build"
    assert requested_command(["--help"]) is None
    assert requested_command(["nope", "build"]) is None  # argparse reports the unknown command


def test_version_imports_no_subcommand_and_no_arrow():
    """``pinot-sink --version`` answers from the package's version alone (issue 36: 0.8 CPU-s when every
    command's imports came with it): no subcommand module, no Arrow, numpy or converters."""
    assert _loaded("--version") == []
    probe = PROBE.replace('if m.startswith("pinot_sink.cli.")', 'if m.split(".")[0] in ("pyarrow", "numpy") '
                          'or m.startswith("type_mapping.") and m != "type_mapping.errors"')
    out = subprocess.run([sys.executable, "-c", probe, "--version"], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_type_mapping_names_load_on_first_use():
    import type_mapping

    assert type_mapping.PinotSchema.__name__ == "PinotSchema"
    assert set(type_mapping.__all__) <= set(dir(type_mapping))
    with pytest.raises(AttributeError):
        type_mapping.NoSuchName  # noqa: B018


def test_a_reader_that_leaves_early_is_no_error():
    """`pinot-sink history ... | head` printed "pinot-sink history: [Errno 32] Broken pipe" and exited 1: the
    reader of stdout going away is not the command failing. Quiet, with the shells' status for SIGPIPE."""
    ddl = ", ".join(f"c{i} INT" for i in range(3000))  # a schema far over a pipe's buffer
    child = subprocess.Popen([sys.executable, "-m", "pinot_sink.cli", "schema", "--from-spark-ddl", ddl, "--name", "t"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout.readline().strip() == b"{"
    child.stdout.close()
    err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 141 and err == "", err
