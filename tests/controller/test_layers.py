"""The controller package's import graph: no loop, no call back up from the client into push policy, and
nothing above the controller layer (pinot_sink job / datasource / cli) imported from it."""
from __future__ import annotations

import ast
from pathlib import Path

import pinot_sink.controller

PACKAGE = Path(pinot_sink.controller.__file__).parent
# low to high; a module may import only modules of a lower rank (same-rank siblings are independent)
RANK = {"auth": 0, "zk_records": 0, "errors": 1, "retry": 2, "config": 3, "transport": 4, "client": 5,
        "push": 6, "server_load": 6, "consistent_push": 7, "cli_args": 8, "store": 6}


def imports(module: str) -> set[str]:
    """Every ``pinot_sink`` module a controller module imports, at top level or inside functions."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                found.add(f"pinot_sink.controller.{node.module}" if node.module else "pinot_sink.controller")
            elif node.level == 2:
                found.add(f"pinot_sink.{node.module}")
            elif node.module and node.module.startswith("pinot_sink"):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("pinot_sink"))
    return found


def test_every_module_is_ranked():
    assert {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"} == set(RANK)


def test_modules_import_only_lower_layers():
    for module, rank in RANK.items():
        for target in imports(module):
            if target.startswith("pinot_sink.controller."):
                name = target.rsplit(".", 1)[1]
                assert RANK[name] < rank, f"{module} imports {name}: same or higher layer"
            else:  # outside the package: the layers below (segment, type_mapping, storage)
                assert target.startswith(("pinot_sink.segment", "type_mapping", "pinot_sink.storage.")), \
                    f"{module} imports {target}"


def test_the_client_does_not_call_up_into_push_policy():
    assert not {"pinot_sink.controller.push", "pinot_sink.controller.consistent_push"} & imports("client")
    assert not {"pinot_sink.controller.push", "pinot_sink.controller.consistent_push"} & imports("transport")
