"""Print the house's import map as text: rooms (a module, or a folder of modules), their floors and the arrows
between rooms, from the same graph and floors tests/test_import_graph.py checks. docs/architecture.md shows it.

    python tools/import_map.py                 # this tree
    python tools/import_map.py --root DIR      # another checkout (e.g. an old commit's, from git worktree or archive)
    python tools/import_map.py --detail 0      # floors above 0 as one line each: the ingestion wing's map

A room is a folder of modules where the folder is one job (the segment files, the controller, the functions),
else a module; the lowest floors, the ingestion wing's, are drawn module by module. An arrow ``a -> b (n)`` is
n imports from room a's modules into room b's; an arrow that runs up a floor is marked ``UP``.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from collections import Counter, defaultdict
from pathlib import Path

# folders drawn as one room each (the deepest prefix wins)
FOLDERS = ("pinot_sink.segment", "pinot_sink.storage", "pinot_sink.controller", "pinot_sink.compaction",
           "pinot_sink.cli", "pinot_sink.ingestion.functions", "javalib.regex", "javalib.jts", "javalib.hotspot_math")


def _graph_module(root: Path):
    """The checkout's own tests/test_import_graph.py: its graph and its floors."""
    spec = importlib.util.spec_from_file_location("_import_graph_of_checkout", root / "tests" / "test_import_graph.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def room(module: str) -> str:
    return max((f for f in FOLDERS if module == f or module.startswith(f + ".")), key=len, default=module)


def render(root: Path, detail: int = 99) -> str:
    checker = _graph_module(root)
    graph = checker.import_graph()
    lines: dict[str, int] = Counter()
    for module in graph:
        path = root.joinpath(*module.split("."))
        file = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        lines[room(module)] += file.read_text(errors="replace").count("\n")
    floor = {}
    for module in graph:
        floor[room(module)] = min(floor.get(room(module), 99), checker.layer(module))
    arrows: Counter = Counter()
    for module, targets in graph.items():
        for target in targets:
            if room(module) != room(target):
                arrows[room(module), room(target)] += 1
    out = []
    by_floor = defaultdict(list)
    for name in floor:
        by_floor[floor[name]].append(name)
    for level in sorted(by_floor, reverse=True):
        if level > detail:
            names = sorted(by_floor[level])
            into = sum(n for (s, t), n in arrows.items() if s in names and floor[t] <= detail)
            out.append(f"floor {level:>2}  {len(names)} rooms ({sum(lines[n] for n in names)} lines), {into} imports "
                       f"into floors <= {detail}: {', '.join(names)}")
            continue
        out.append(f"floor {level:>2}")
        for name in sorted(by_floor[level]):
            down = sorted((t, n) for (s, t), n in arrows.items() if s == name)
            shown = ", ".join(f"{t}{' UP' if floor[t] > level else ''} ({n})" for t, n in down)
            out.append(f"  {name} [{lines[name]} lines]" + (f" -> {shown}" if shown else ""))
    up = sum(n for (s, t), n in arrows.items() if floor[t] > floor[s])
    out.append(f"{len(floor)} rooms on {len(by_floor)} floors, {sum(arrows.values())} imports between rooms, "
               f"{up} of them upward, {len(checker._cycles(graph))} import circles")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--detail", type=int, default=99, help="draw rooms and arrows up to this floor only")
    args = parser.parse_args()
    root = args.root.resolve()
    sys.path.insert(0, str(root))
    print(render(root, args.detail), end="")


if __name__ == "__main__":
    main()
