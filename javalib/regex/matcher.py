"""``java.util.regex.Matcher``'s ``find`` and ``appendReplacement`` over a translated pattern (pattern.py)."""
from __future__ import annotations

import re

from .pattern import JavaPattern, _AtLastMatch


# --- Java's Matcher.appendReplacement template -----------------------------------------------------


def replacement_parts(template: str, pattern: JavaPattern) -> list[str | int] | str:
    """The parts of a Java replacement (literal text, group numbers), or the error Java throws for it."""
    parts: list[str | int] = []
    i, n = 0, len(template)
    while i < n:
        c = template[i]
        if c == "\\":
            if i + 1 >= n:
                return "IllegalArgumentException: character to be escaped is missing"
            parts.append(template[i + 1])
            i += 2
        elif c == "$":
            i += 1
            if i >= n:
                return "IllegalArgumentException: Illegal group reference: group index is missing"
            if template[i] == "{":
                end = template.find("}", i)
                name = template[i + 1:end] if end != -1 else ""
                if end == -1 or not re.fullmatch(r"[a-zA-Z][a-zA-Z0-9]*", name):
                    return "IllegalArgumentException: named capturing group is missing trailing '}' or has a bad name"
                if name not in pattern.group_names:
                    return f"IllegalArgumentException: No group with name {{{name}}}"
                parts.append(pattern.group_names[name])
                i = end + 1
                continue
            if not template[i].isdigit() or not template[i].isascii():
                return "IllegalArgumentException: Illegal group reference"
            ref = int(template[i])
            if ref > pattern.groups:
                return f"IndexOutOfBoundsException: No group {ref}"
            i += 1
            while i < n and template[i].isascii() and template[i].isdigit():
                longer = ref * 10 + int(template[i])
                if longer > pattern.groups:
                    break
                ref = longer
                i += 1
            parts.append(ref)
        else:
            parts.append(c)
            i += 1
    return parts


# --- evaluation ------------------------------------------------------------------------------------

def java_find(regex: re.Pattern, s: str):
    """The successive matches of ``Matcher.find``: after an empty match the next search starts one character
    later, so no match starts where an empty one did (``finditer`` would let a non-empty one start there)."""
    pos = 0
    while pos <= len(s):
        m = regex.search(s, pos)
        if m is None:
            return
        yield m
        if m.end() == m.start() and isinstance(regex, _AtLastMatch):
            return  # the next search starts one on, past where \\G holds
        pos = m.end() + 1 if m.end() == m.start() else m.end()
