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

class _Shifted:
    """A match found in the intact text, its positions moved into the text with some emoji split (java_find)."""
    __slots__ = ("match", "shift")

    def __init__(self, match: re.Match, shift: int) -> None:
        self.match, self.shift = match, shift

    def start(self) -> int:
        return self.match.start() + self.shift

    def end(self) -> int:
        return self.match.end() + self.shift

    def span(self) -> tuple[int, int]:
        return self.start(), self.end()

    def group(self, *groups):
        return self.match.group(*groups)


_SUPPLEMENTARY = re.compile("[\U00010000-\U0010ffff]")


def _halves(char: str) -> str:
    unit = ord(char) - 0x10000
    return chr(0xD800 + (unit >> 10)) + chr(0xDC00 + (unit & 0x3FF))


def java_find(pattern: JavaPattern | re.Pattern, s: str):
    """The successive matches of ``Matcher.find``: after an empty match the next search starts one character
    later, so no match starts where an empty one did (``finditer`` would let a non-empty one start there).

    Java's text is UTF-16: its search tries every unit as a start, the position between an emoji's two
    surrogates too, where it reads the low one as a character of its own (after an empty match right before an
    emoji "one character later" is there: ``regexpCount('😀', 'x*')`` is 3; ``\\B`` holds there in ``'a😀b'``);
    from the position after the pair on it reads the pair whole again. So each match comes with the text it
    indexes, ``(text, match)``: ``s`` with each supplementary character where a match started between the
    halves split into its two surrogates (lone surrogates in the Python str, which the caller turns into its
    own representation). A pattern Java compiles with ``hasSupplementary`` (JavaPattern.tries_pair_halves
    false) skips those positions while it searches: only a search that starts there (after an empty match)
    tries one."""
    regex = getattr(pattern, "regex", pattern)  # (a compiled Python pattern alone: as Java's Start searches)
    pairs = [m.start() for m in _SUPPLEMENTARY.finditer(s)]  # (most texts have none: nothing more to try)
    if not getattr(pattern, "tries_pair_halves", True):
        pairs = []  # (the one after an empty match is tried below)
    text, shift, pos, mid = s, 0, 0, False  # text: s with the splits so far (``shift`` of them, before ``pos``)
    while pos <= len(s):
        m = regex.search(s, pos + 1 if mid else pos)
        limit = len(s) if m is None else m.start()
        inside = None
        if pairs and not isinstance(regex, _AtLastMatch):
            for j in pairs:  # Java tries between the halves of each pair before the match found in s
                if j >= limit:
                    break
                if j >= pos:
                    inside = regex.match(s[:j] + _halves(s[j]) + s[j + 1:], j + 1)
                    if inside is not None:
                        break
        if inside is None and mid and not pairs:  # a search starting between the halves (StartS too)
            j = pos
            inside = regex.match(s[:j] + _halves(s[j]) + s[j + 1:], j + 1)
        if inside is not None:
            text = text[:j + shift] + _halves(s[j]) + text[j + shift + 1:]
            yield text, _Shifted(inside, shift)
            shift += 1
            pos, mid = (j + 1 if inside.end() == inside.start() else inside.end() - 1), False  # (back into s)
            continue
        if m is None:
            return
        yield text, _Shifted(m, shift)
        if m.end() != m.start():
            pos, mid = m.end(), False
        elif isinstance(regex, _AtLastMatch):
            return  # the next search starts one on, past where \\G holds
        elif m.end() < len(s) and ord(s[m.end()]) > 0xFFFF:
            pos, mid = m.end(), True  # one unit on: between the halves of the pair there
        else:
            pos, mid = m.end() + 1, False
