"""The package import graph: no import cycle between modules, no lower layer importing a higher one.

Floors, low to high (docs/architecture.md):

   -1 javalib                   the basement: ports of Java libraries (java.util.regex, JTS, JsonPath,
                                java.net.URI, HotSpot's and StrictMath's math, FloatingDecimal); they import
                                nothing of the house
    0 rules     type_mapping            Spark/Flink/Arrow types, conversion, Java's text, number, hash rules
                pinot_sink.ingestion    the other half of Pinot's record pipeline: the table config's
                                        transforms, filter, complex types (the rules a row goes through)
    1 pinot_sink.segment        segment files, written and read
    2 pinot_sink.storage        where segment files live and move: layout, staging, copying, manifests, the
                                segment store interface and its folder; nothing of the controller
    3 pinot_sink.controller     the controller's REST API, push (copying into a deep store through storage's
                                files), the controller's table as a segment store
    4 job       pinot_sink.<module>     buffer, naming, options, job, task, commit, recovery, ...
    5 entry points              pinot_sink (the package: Spark registration), pinot_sink.datasource
    6 pinot_sink.cli            the console script

Every import counts, at module level or inside a function (a lazy import hides a dependency, it does
not remove it); only imports under ``if TYPE_CHECKING:`` are left out, as they never run.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("javalib", "type_mapping", "pinot_sink")
ENTRY_POINTS = {"pinot_sink", "pinot_sink.datasource", "pinot_sink.spark_write", "pinot_sink.spark_task",
                "pinot_sink.spark_python"}  # other Spark entry points join this set



RULES = ("type_mapping", "pinot_sink.ingestion")  # the rules floor: packages whose modules sit on floor 0
BASEMENT = "javalib"  # the Java library ports, below the rules


def layer(module: str) -> int:
    if module == BASEMENT or module.startswith(BASEMENT + "."):
        return -1
    if any(module == package or module.startswith(package + ".") for package in RULES):
        return 0
    if module.startswith("pinot_sink.segment"):
        return 1
    if module.startswith("pinot_sink.storage"):
        return 2
    if module.startswith("pinot_sink.controller"):
        return 3
    if module.startswith("pinot_sink.cli"):
        return 6
    if module in ENTRY_POINTS:
        return 5
    return 4


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    return skipped


def _imports(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    skipped = _type_checking_nodes(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:  # "from pkg import module" imports the module
                targets.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    resolved = set()
    for target in targets:
        while target and target not in modules:  # "import a.b.c.name" -> the module a.b.c
            target = target.rpartition(".")[0]
        if target and target != module:
            resolved.add(target)
    return resolved


@functools.lru_cache(maxsize=1)  # the sources do not change during a run: parse them once, not per test
def import_graph() -> dict[str, frozenset[str]]:
    modules = _modules()
    return {module: frozenset(_imports(module, path, modules)) for module, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_module_and_function_level_imports():
    graph = import_graph()
    assert "type_mapping.pinot_schema" in graph["type_mapping.convert"]  # module level
    assert "type_mapping.spark_types" in graph["type_mapping.reconcile"]  # inside a function
    assert "type_mapping.reconcile" not in graph["type_mapping.convert"]  # under TYPE_CHECKING only


def test_no_import_cycle():
    cycles = [sorted(c) for c in _cycles(import_graph())]
    assert not cycles, f"import cycles: {cycles}"


def test_no_upward_import():
    upward = sorted(
        (importer, imported, layer(importer), layer(imported))
        for importer, targets in import_graph().items() for imported in targets
        if layer(imported) > layer(importer)
    )
    assert not upward, "lower layers import higher ones (importer, imported, layers): " + "; ".join(map(str, upward))


def test_the_rules_floor_imports_only_rules():
    """Ingestion and type mapping are rules a row goes through: they import nothing from the segment files,
    the controller, the job, the entry points or the CLI."""
    graph = import_graph()
    above = sorted((importer, imported) for importer, targets in graph.items() if layer(importer) == 0
                   for imported in targets if layer(imported) > 0)
    assert not above, f"the rules floor imports from above it: {above}"
    assert layer("pinot_sink.ingestion.pipeline") == layer("type_mapping.convert") < layer("pinot_sink.job")


def test_the_java_library_ports_import_nothing_of_the_house():
    """javalib ports Java's libraries and knows nothing of Pinot: every floor may import it, it imports only
    itself (and third-party libraries), so a port can be read, tested and replaced alone (issue 36)."""
    graph = import_graph()
    ports = [m for m in graph if layer(m) == -1]
    assert {"javalib.regex.pattern", "javalib.jts.relate_op", "javalib.jsonpath", "javalib.uri",
            "javalib.hotspot_math", "javalib.fdlibm", "javalib.floating_decimal"} <= set(ports)
    outside = sorted((m, t) for m in ports for t in graph[m] if layer(t) != -1)
    assert not outside, f"javalib imports from the house: {outside}"
    users = {m for m, targets in graph.items() if layer(m) >= 0 for t in targets if layer(t) == -1}
    assert {"pinot_sink.ingestion.functions.regexp_functions", "type_mapping.java_text"} <= users


def test_the_storage_room_sits_below_the_controller_and_the_job():
    """Storage knows nothing of a controller, a write's options, tasks or commit: those hand it paths, records
    and configs. The controller's push copies into a deep store through storage's files, and the controller's
    store implements storage's interface: the arrows between the two rooms all point down (issue 36)."""
    graph = import_graph()
    storage = [m for m in graph if m == "pinot_sink.storage" or m.startswith("pinot_sink.storage.")]
    assert {"pinot_sink.storage.stores", "pinot_sink.storage.manifests", "pinot_sink.storage.staging"} <= set(storage)
    assert all(layer(m) < layer("pinot_sink.controller.client") < layer("pinot_sink.job") for m in storage)
    above = sorted((m, t) for m in storage for t in graph[m] if layer(t) > layer(m))
    assert not above, f"the storage room imports from above it: {above}"
    used = {t for m, targets in graph.items() if m.startswith("pinot_sink.controller") for t in targets
            if t.startswith("pinot_sink.storage")}
    assert used, "the controller's push and store use the storage room"


# No hand-written module over this many lines (the house's rule): a module that grows past it is two jobs.
SIZE_FLOOR = 900
# Generated tables are exempt only as data files, or as modules whose first line says "Generated by <the
# generator>" and whose generator is in the repository.
# Hand-written modules allowed over the floor: none since issue 36 split or generated the last ones; none may join.
KNOWN_OVERSIZE: set[str] = set()


def _generated_by(path: Path) -> str | None:
    """The generator a module's header names ("Generated by tools/x.py ..."), or None."""
    head = path.read_text(errors="replace")[:400]
    marker = head.find("Generated by ")
    if marker < 0:
        return None
    return head[marker + len("Generated by "):].split()[0].rstrip(".,:;)")


def _oversize() -> dict[str, int]:
    found = {}
    for package in PACKAGES + ("pyspark_pinot",):
        for path in sorted((ROOT / package).rglob("*.py")):
            lines = path.read_text(errors="replace").count("\n")
            if lines <= SIZE_FLOOR:
                continue
            generator = _generated_by(path)
            if generator and (ROOT / generator).is_file():
                continue
            found[str(path.relative_to(ROOT))] = lines
    return found


def test_no_hand_written_module_over_the_size_floor():
    oversize = _oversize()
    new = {path: lines for path, lines in oversize.items() if path not in KNOWN_OVERSIZE}
    assert not new, f"hand-written modules over {SIZE_FLOOR} lines (split them by job): {new}"
    gone = sorted(KNOWN_OVERSIZE - set(oversize))
    assert not gone, f"now under {SIZE_FLOOR} lines or generated with its generator: remove from KNOWN_OVERSIZE: {gone}"


def test_the_size_floor_sees_generated_modules_by_their_generator(tmp_path):
    generated = tmp_path / "table.py"
    generated.write_text('"""Generated by tools/java_regex/unicode_tables.py from Java 17: do not edit."""\n')
    assert _generated_by(generated) == "tools/java_regex/unicode_tables.py"
    plain = tmp_path / "plain.py"
    plain.write_text('"""A module."""\n')
    assert _generated_by(plain) is None
