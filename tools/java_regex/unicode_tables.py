"""Write javalib/regex/char_predicates.json: the members of every character property java.util.regex
(Java 17, Unicode 13) accepts, as Java itself computes them (tests/java/JavaRegex.java ``tables``), read by
javalib/regex/char_predicates.py. Needs a JDK 17 (JAVA_HOME, /usr/lib/jvm or ``java`` on PATH: pinot_sink.java_check):

    python -m tools.java_regex.unicode_tables            # rewrites the data file
    python -m tools.java_regex.unicode_tables --check    # fails unless a fresh run gives the committed bytes

Python's unicodedata is another Unicode version and has no scripts or blocks, so the tables are Java's own.
tests/ingestion/test_regexp_java.py checks the module against a fresh run.
"""
from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from tools.java_math.java_runner import jdk17, write_or_check

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests" / "java" / "JavaRegex.java"
TARGET = ROOT / "javalib" / "regex" / "char_predicates.json"
# kind of line -> the table it fills (flags 0, and CASE_INSENSITIVE where that differs)
TABLES = {("prop", "0"): "PROPERTY", ("prop", "2"): "PROPERTY_CI", ("uprop", "0"): "UNICODE_PROPERTY",
          ("uprop", "2"): "UNICODE_PROPERTY_CI", ("script", "0"): "SCRIPT", ("block", "0"): "BLOCK"}


def parse(lines: list[str]) -> tuple[list[str], dict[str, dict[str, int]]]:
    """(distinct range lists, table name -> {property name -> index}); CASE_INSENSITIVE | UNICODE_CASE gives
    the same sets as CASE_INSENSITIVE (checked), the CI tables keep only names whose set differs."""
    sets: list[str] = []
    index: dict[str, int] = {}
    tables: dict[str, dict[str, int]] = {name: {} for name in TABLES.values()}
    seen: dict[tuple[str, str, str], str] = {}
    for line in lines:
        kind, flags, name, ranges = line.split(" ")
        name = name.replace("~", " ")
        seen[kind, flags, name] = ranges
        if (kind, flags) not in TABLES:
            continue
        if flags == "2" and seen.get((kind, "0", name)) == ranges:
            continue
        if ranges not in index:
            index[ranges] = len(sets)
            sets.append(ranges)
        tables[TABLES[kind, flags]][name] = index[ranges]
    for (kind, flags, name), ranges in seen.items():
        if flags == "66" and seen[kind, "2", name] != ranges:
            raise SystemExit(f"{kind} {name}: UNICODE_CASE changes the set; the tables need a third variant")
    return sets, tables


def java_tables() -> list[str]:
    jdk = jdk17()
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([str(jdk / "bin" / "javac"), "-d", out, "-sourcepath", str(SOURCE.parent), str(SOURCE)], check=True)
        done = subprocess.run([str(jdk / "bin" / "java"), "-cp", out, "JavaRegex", "tables"], capture_output=True,
                              text=True, check=True)
    return done.stdout.splitlines()


def render(sets: list[str], tables: dict[str, dict[str, int]]) -> str:
    """The data file: one set (hex ranges) or one name a line, names sorted, so a new Java shows as a small diff."""
    data = {"generator": "python -m tools.java_regex.unicode_tables", "java": "17", "unicode": "13",
            "sets": sets, "tables": {table: dict(sorted(names.items())) for table, names in tables.items()}}
    return json.dumps(data, indent=1, ensure_ascii=True) + "\n"


def main() -> None:
    write_or_check(TARGET, render(*parse(java_tables())), "Java 17's java.util.regex")


if __name__ == "__main__":
    main()
