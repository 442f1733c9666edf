"""The members of java.util.regex's character properties as Java 17 matches them (Unicode 13; Python's
unicodedata is another version, and knows no scripts nor blocks), for pattern.py's ``\\p{..}`` and ``\\b``.

The members are data, Java's own answers: char_predicates.json beside this module, written by
``python -m tools.java_regex.unicode_tables`` (a JDK 17; ``--check`` compares a fresh run with the committed
bytes), read once, on first use. ``SETS`` holds the distinct sets as hex ranges (``"41-5a,61-7a"``); each table
maps a name, spelt as ``Pattern`` looks it up, to its set's index: ``PROPERTY`` (``\\p{L}``, ``\\p{javaLowerCase}``),
``UNICODE_PROPERTY`` (``\\p{IsAlphabetic}``), ``SCRIPT``, ``BLOCK``, and the ``_CI`` tables: under
CASE_INSENSITIVE, the names whose set differs.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

DATA = Path(__file__).with_name("char_predicates.json")
TABLES = ("PROPERTY", "PROPERTY_CI", "UNICODE_PROPERTY", "UNICODE_PROPERTY_CI", "SCRIPT", "BLOCK")


@functools.cache
def _load() -> dict:
    data = json.loads(DATA.read_text(encoding="ascii"))
    return {"SETS": tuple(data["sets"]), **{name: data["tables"][name] for name in TABLES}}


def __getattr__(name: str):
    """``SETS`` and the tables, loaded from the data file the first time one is asked for."""
    if name == "SETS" or name in TABLES:
        return _load()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
