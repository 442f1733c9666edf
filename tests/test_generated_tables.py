"""Generated tables are data files, each with its generator and the command that makes it (issue 36): every data
file under javalib names its generator's command, that generator writes exactly this file, the module reading
it names the command too, and setup.cfg ships it as package data. (Whether a fresh run gives the committed
bytes needs a JDK 17: each generator's --check.)"""
from __future__ import annotations

import configparser
import fnmatch
import importlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA_FILES = sorted((ROOT / "javalib").rglob("*.json"))


def test_every_data_file_names_a_generator_that_writes_it():
    assert {p.relative_to(ROOT).as_posix() for p in DATA_FILES} >= {"javalib/regex/char_predicates.json",
                                                                    "javalib/hotspot_math/tables.json"}
    for path in DATA_FILES:
        command = json.loads(path.read_text())["generator"]
        assert command.startswith("python -m tools."), (path, command)
        module = command.split()[2]
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), (path, module)
        assert importlib.import_module(module).TARGET == path, f"{module} writes another file than {path}"
        readers = [p for p in path.parent.glob("*.py") if command in p.read_text()]
        assert readers, f"no module beside {path} names its command {command!r}"


def test_setup_cfg_ships_every_data_file():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    patterns = [p.strip() for p in config["options.package_data"]["javalib"].split(",")]
    for path in DATA_FILES:
        inside = path.relative_to(ROOT / "javalib").as_posix()
        assert any(fnmatch.fnmatch(inside, pattern) for pattern in patterns), f"{inside} is not package data"
