"""``java.util.regex.Pattern`` (Java 17) translated to a Python ``re`` pattern that means the same.

Moved here from pinot_sink/ingestion/functions/regexp_functions.py, whose docstring tells what is translated and how; the
function family that compiles patterns stays there. Character properties come from Java 17's own tables
(char_predicates.py).
"""
from __future__ import annotations

import functools
import re
import sys

from . import char_predicates

_LINE_END = "\n\r\x85\u2028\u2029"  # Java's line terminators (without UNIX_LINES)
_DOT = "[^\n\r\x85\u2028\u2029]"
# Java's ``$`` (no MULTILINE): the end, or before a final line terminator (``\r\n`` counting as one).
_DOLLAR = "(?:(?=(?:\r\n|(?<!\r)\n|[\r\x85\u2028\u2029])?\\Z))"
# MULTILINE: ``$`` before any line terminator (not between ``\r`` and ``\n``) or at the end; ``^`` at the start
# or after a terminator (not between ``\r`` and ``\n``), but never at the end of the input.
_DOLLAR_MULTILINE = "(?:(?=(?<!\r)\n|[\r\x85\u2028\u2029]|\\Z))"
_CARET_MULTILINE = "(?:(?!\\Z)(?:\\A|(?<=[\n\x85\u2028\u2029])|(?<=\r)(?!\n)))"
_SHORTHAND = {"d": "0-9", "w": "a-zA-Z0-9_", "s": " \\t\\n\\x0b\\f\\r"}  # ASCII, as Java without (?U)
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "a": "\x07", "e": "\x1b"}
_POSSESSIVE = sys.version_info >= (3, 11)  # possessive quantifiers and atomic groups


_AT_LAST = "(?#\\G)"  # marks a translated pattern that starts with Java's \\G


class _AtLastMatch:
    """A pattern starting with ``\\G``: it matches only where the previous match ended (the region's start
    for the first search), so a search is a match at the position it starts from."""

    def __init__(self, regex: re.Pattern) -> None:
        self.inner, self.groups, self.groupindex = regex, regex.groups, regex.groupindex

    def search(self, s: str, pos: int = 0):
        return self.inner.match(s, pos)


class JavaPattern:
    """A ``java.util.regex.Pattern`` translated to Python's ``re`` (``ValueError`` if it cannot be).

    ``case_insensitive`` alone is CASE_INSENSITIVE (ASCII folding, which Python's ``re.ASCII | re.IGNORECASE``
    matches exactly); with ``unicode_case`` it is CASE_INSENSITIVE | UNICODE_CASE, whose folding differs from
    Python's (the Kelvin sign is not in ``[A-Z]``, ``ß`` alone does not match ``ẞ``...), so then every literal
    character and range is expanded into the exact set Java matches and Python does no folding at all."""

    def __init__(self, pattern: str, case_insensitive: bool = False, unicode_case: bool = False) -> None:
        self.source = pattern
        text = _translate(pattern, case_insensitive, unicode_case)
        flags = re.ASCII | (re.IGNORECASE if case_insensitive and not unicode_case else 0)
        try:
            self.regex = re.compile(text, flags)
        except re.error as exc:
            raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
        if _AT_LAST in text:
            self.regex = _AtLastMatch(self.regex)
        self.groups = self.regex.groups
        self.group_names = dict(self.regex.groupindex)
        # Java's search (Pattern.Start) tries every UTF-16 unit as a start, between an emoji's halves too,
        # unless the pattern "has supplementary" characters (Pattern.StartS skips a pair's low half): a
        # supplementary character in the text of the pattern, a complemented class or escape (``[^...]``,
        # ``\P{..}``, ``\W \D \S \H \V``) or a Unicode property (``\p{L}``; not the ASCII POSIX ones)
        self.tries_pair_halves = not _has_supplementary(pattern)


_POSIX = {"Lower", "Upper", "ASCII", "Alpha", "Digit", "Alnum", "Punct", "Graph", "Print", "Blank", "Cntrl",
          "XDigit", "Space"}


def _has_supplementary(source: str) -> bool:
    """Whether Java's Pattern compiles ``source`` with ``hasSupplementary`` set (see JavaPattern)."""
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if ord(c) > 0xFFFF:
            return True
        if c == "[" and source[i + 1:i + 2] == "^":
            return True
        if c == "\\" and i + 1 < n:
            e = source[i + 1]
            if e in "PDHSVW":
                return True
            if e == "p":
                name = source[i + 3:source.find("}", i)] if source[i + 2:i + 3] == "{" else source[i + 2:i + 3]
                if name.startswith("^") or name.removeprefix("Is") not in _POSIX:
                    return True
            if e == "Q":  # quoted text: literal up to \\E
                end = source.find("\\E", i + 2)
                quoted = source[i + 2:] if end < 0 else source[i + 2:end]
                if any(ord(q) > 0xFFFF for q in quoted):
                    return True
                i = n if end < 0 else end + 2
                continue
            i += 2
            continue
        i += 1
    return False


def _char(cp: int) -> str:
    return re.escape(chr(cp))


# --- CASE_INSENSITIVE | UNICODE_CASE: Java's per-construct folding rules (Pattern.single, SliceU, CIRangeU) --

# Java's simple case mappings where Python's str.upper / str.lower (full mappings) do not give them.
_JAVA_UPPER = {**{lower: lower + 8 for block in (0x1F80, 0x1F90, 0x1FA0) for lower in range(block, block + 8)},
               0x1FB3: 0x1FBC, 0x1FC3: 0x1FCC, 0x1FF3: 0x1FFC}
_JAVA_LOWER = {0x130: 0x69}
# Latin-1 characters a class folds through Pattern.single rather than its 256-bit table (bitsOrSingle).
_NOT_IN_BIT_CLASS = {0xFF, 0xB5, 0x49, 0x69, 0x53, 0x73, 0x4B, 0x6B, 0xC5, 0xE5}


def _java_upper(cp: int) -> int:
    """``Character.toUpperCase(int)``: the simple mapping (Python's Unicode version)."""
    if cp in _JAVA_UPPER:
        return _JAVA_UPPER[cp]
    upper = chr(cp).upper()
    return ord(upper) if len(upper) == 1 else cp


def _java_lower(cp: int) -> int:
    if cp in _JAVA_LOWER:
        return _JAVA_LOWER[cp]
    lower = chr(cp).lower()
    return ord(lower) if len(lower) == 1 else cp


@functools.cache
def _cased() -> tuple[tuple[int, int, int], ...]:
    """(code point, upper case, fold key = lower(upper)) of every code point a case mapping changes."""
    out = []
    for cp in range(0x1F000):  # no cased characters above (Adlam ends at U+1E95F)
        upper, lower = _java_upper(cp), _java_lower(cp)
        if upper != cp or lower != cp:
            out.append((cp, upper, _java_lower(upper)))
    return tuple(out)


def _same_key(key: int) -> set[int]:
    """What ``SingleU(key)`` / ``SliceU`` match: ``key`` and every code point whose fold key it is."""
    return {key} | {cp for cp, _, k in _cased() if k == key}


def _fold_single(cp: int) -> set[int]:
    """``Pattern.single``: a character alone in its atom, or a class member outside the bit table."""
    upper = _java_upper(cp)
    lower = _java_lower(upper)
    return _same_key(lower) if upper != lower else {cp}


def _fold_class_member(cp: int) -> set[int]:
    """``bitsOrSingle``: Latin-1 members fold through a 256-entry table, ASCII ones by ASCII rules."""
    if cp >= 256 or cp in _NOT_IN_BIT_CLASS:
        return _fold_single(cp)
    if cp < 128:
        return {cp, ord(chr(cp).upper()), ord(chr(cp).lower())}
    return {cp, _java_lower(cp), _java_upper(cp)}


def _fold_range(first: int, last: int) -> set[int]:
    """``CIRangeU``'s members outside ``first..last``: those whose upper case or fold key is inside."""
    return {cp for cp, upper, key in _cased()
            if not first <= cp <= last and (first <= upper <= last or first <= key <= last)}


def _members(cps: set[int]) -> str:
    return "".join(_char(cp) for cp in sorted(cps))


def _literal_run(cps: list[int], fold: bool) -> str:
    """A run of literal characters outside a class: Java's atom (a slice, or one character alone)."""
    if not fold:
        return "".join(_char(cp) for cp in cps)
    out = []
    for cp in cps:
        members = _fold_single(cp) if len(cps) == 1 else _same_key(_java_lower(_java_upper(cp)))
        out.append(_char(cp) if members == {cp} else f"[{_members(members)}]")
    return "".join(out)


# --- character properties (\\p{..}) and word boundaries, from Java 17's own tables (char_predicates.py) -------

_MAX_CODE_POINT = 0x10FFFF
# \\b looks back over at most this many combining marks for their base letter (Python's look-behinds have a
# fixed width; Java's Bound.hasBaseCharacter has no limit).
_MARKS_BEHIND = 8


@functools.cache
def _ranges(index: int) -> tuple[tuple[int, int], ...]:
    out = []
    for part in filter(None, char_predicates.SETS[index].split(",")):
        first, _, last = part.partition("-")
        out.append((int(first, 16), int(last or first, 16)))
    return tuple(out)


def _property(name: str, case_insensitive: bool) -> tuple[tuple[int, int], ...] | None:
    """The members of ``\\p{name}`` as Pattern.family looks the name up (None: Java rejects it):
    ``sc=`` / ``script=``, ``blk=`` / ``block=``, ``gc=`` / ``general_category=``; ``In`` a block; ``Is`` a
    binary property or Unicode POSIX class (any case), a category, or a script; otherwise a category, an ASCII
    POSIX class or a ``java...`` property (exact case). CASE_INSENSITIVE widens the cased ones (``Lu`` is then
    ``Lu`` or ``Ll`` or ``Lt``, ``Lower`` is ``Alpha``)."""

    def prop(key: str, table: str) -> int | None:
        found = getattr(char_predicates, table + "_CI").get(key) if case_insensitive else None
        return found if found is not None else getattr(char_predicates, table).get(key)

    index: int | None = None
    if "=" in name:
        key, value = name.split("=", 1)
        key = key.lower()
        if key in ("sc", "script"):
            index = char_predicates.SCRIPT.get(value.upper())
        elif key in ("blk", "block"):
            index = char_predicates.BLOCK.get(value.upper())
        elif key in ("gc", "general_category"):
            index = prop(value, "PROPERTY")
    elif name.startswith("In"):
        index = char_predicates.BLOCK.get(name[2:].upper())
    elif name.startswith("Is"):
        index = prop(name[2:].upper(), "UNICODE_PROPERTY")
        if index is None:
            index = prop(name[2:], "PROPERTY")
        if index is None:
            index = char_predicates.SCRIPT.get(name[2:].upper())
    else:
        index = prop(name, "PROPERTY")
    return None if index is None else _ranges(index)


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out, start = [], 0
    for first, last in ranges:
        if first > start:
            out.append((start, first - 1))
        start = last + 1
    if start <= _MAX_CODE_POINT:
        out.append((start, _MAX_CODE_POINT))
    return tuple(out)


def _class_body(ranges) -> str:
    return "".join(_char(a) if a == b else f"{_char(a)}-{_char(b)}" for a, b in ranges)


def _property_class(ranges, negated: bool) -> str:
    """A class of these members. Python's ``re`` tests the ranges above U+FFFF one by one (those below in a
    table), so a class with many of them is split, its supplementary part tried only for such a character:
    a miss on ``\\p{L}`` costs one table look-up, not 250 comparisons."""
    if not ranges:  # Python has no empty class
        return "(?s:.)" if negated else "(?!)"
    bmp, supplementary = _clip(ranges, 0, 0xFFFF), _clip(ranges, 0x10000, _MAX_CODE_POINT)
    if len(supplementary) <= 8:
        return f"[{'^' if negated else ''}{_class_body(ranges)}]"
    high = "(?=[\U00010000-\U0010ffff])"
    if negated:
        low = f"(?=[\x00-\uffff])[^{_class_body(bmp)}]" if bmp else "[\x00-\uffff]"
        return f"(?:{low}|{high}[^{_class_body(supplementary)}])"
    low = f"[{_class_body(bmp)}]|" if bmp else ""
    return f"(?:{low}{high}[{_class_body(supplementary)}])"


_SHORTHAND_RANGES = {"d": ((0x30, 0x39),), "w": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
                     "s": ((0x09, 0x0D), (0x20, 0x20))}


class _NeedsSets(Exception):
    """A class with nested classes, ``&&``, a property or a leading ``]``: translated as an explicit set."""


def _norm(ranges) -> tuple[tuple[int, int], ...]:
    """Sorted, overlapping and adjacent ranges merged."""
    out: list[list[int]] = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], last)
        else:
            out.append([first, last])
    return tuple((a, b) for a, b in out)


def _intersect(left, right) -> tuple[tuple[int, int], ...]:
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        first, last = max(left[i][0], right[j][0]), min(left[i][1], right[j][1])
        if first <= last:
            out.append((first, last))
        if left[i][1] < right[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def _clip(ranges, first: int, last: int) -> tuple[tuple[int, int], ...]:
    return tuple((max(a, first), min(b, last)) for a, b in ranges if b >= first and a <= last)


@functools.cache
def _word_boundary(boundary: bool) -> str:
    """Java 17's ``\\b`` (``Pattern.Bound``; Java 19+ made it ASCII): a word character is a letter or digit
    (``Character.isLetterOrDigit``), ``_``, or a non-spacing mark (Mn) whose run of marks follows a letter or
    digit (``hasBaseCharacter``); a boundary is where exactly one side is a word character. ``\\B``: where
    none or both are.

    ``hasBaseCharacter`` steps back one UTF-16 unit at a time, so a supplementary character in the run (mark
    or base) ends it unbased. Hence before a mark the only boundaries are after ``_`` or a supplementary
    letter or digit (word characters that are no base); elsewhere the right side is a word character and the
    left side needs the run's base only after a mark, looked for at most ``_MARKS_BEHIND`` marks back."""
    letter_digit = _ranges(char_predicates.PROPERTY["javaLetterOrDigit"])
    marks = _ranges(char_predicates.PROPERTY["Mn"])
    word = _property_class(_norm(letter_digit + ((0x5F, 0x5F),)), False)
    mark = _property_class(marks, False)
    unbased = _property_class(_norm(_clip(letter_digit, 0x10000, _MAX_CODE_POINT) + ((0x5F, 0x5F),)), False)
    base, bmp_mark = (_property_class(_clip(r, 0, 0xFFFF), False) for r in (letter_digit, marks))
    based = "(?:" + "|".join(f"(?<={base}{bmp_mark}{{{count}}})" for count in range(1, _MARKS_BEHIND + 1)) + ")"
    if boundary:
        return (f"(?:(?={mark})(?<={unbased})|(?!{mark})(?:(?<={mark})(?:(?={word})(?!{based})|(?!{word}){based})"
                f"|(?<!{mark})(?:(?<={word})(?!{word})|(?<!{word})(?={word}))))")
    return (f"(?:(?={mark})(?<!{unbased})|(?!{mark})(?:(?<={mark})(?:(?={word}){based}|(?!{word})(?!{based}))"
            f"|(?<!{mark})(?:(?<={word})(?={word})|(?<!{word})(?!{word}))))")


# --- the translation ----------------------------------------------------------------------------------

def _translate(p: str, case_insensitive: bool = False, unicode_case: bool = False) -> str:
    """The Python pattern for Java pattern ``p`` compiled with those flags (Python's IGNORECASE set when
    ``case_insensitive`` alone: ASCII folding is Python's with re.ASCII).

    Inline flags (``(?i)``, ``(?-i)``, ``(?s)``, ``(?m)``, ``(?x)``, ``(?u)``, and ``(?i:...)`` groups) hold,
    as in Java, from where they stand to the end of the enclosing group, across ``|``: ``.``, ``^``, ``$``
    and literals are translated under the flags in force, and Python's IGNORECASE is switched by scoped
    groups ``(?i:`` / ``(?-i:``, closed before each ``|`` and ``)`` of their level and reopened after ``|``.
    Under CASE_INSENSITIVE | UNICODE_CASE literals are expanded to Java's folding (no IGNORECASE there).
    Java folds literal characters and ranges only: the shorthand and POSIX classes keep their exact members
    (``\\p{Lower}`` / ``\\p{Upper}`` become ``[a-zA-Z]`` under CASE_INSENSITIVE)."""
    out: list[str] = []
    pending: list[int] = []  # literal characters of the current atom (Pattern.atom)
    i, n = 0, len(p)
    flags = set("i" if case_insensitive else "") | set("u" if unicode_case else "")
    case_insensitive, fold, comments = "i" in flags, "i" in flags and "u" in flags, False
    at_last: list[bool] = []  # a leading \\G was met

    def python_i(state: set) -> bool:
        return "i" in state and "u" not in state

    # one entry per open group: (the flags to restore at its ')', Python's IGNORECASE at its start, the
    # scoped groups opened at its level)
    levels: list[list] = [[set(flags), python_i(flags), 0]]

    def set_flags(new: set) -> None:
        nonlocal flags, case_insensitive, fold, comments
        if python_i(new) != python_i(flags):
            out.append("(?i:" if python_i(new) else "(?-i:")
            levels[-1][2] += 1
        flags = new
        case_insensitive, fold, comments = "i" in flags, "i" in flags and "u" in flags, "x" in flags

    def close_scopes() -> None:
        out.append(")" * levels[-1][2])
        levels[-1][2] = 0

    def skip_comments(j: int) -> int:
        """COMMENTS: whitespace and ``#`` to the end of the line are not part of the pattern."""
        while comments and j < n:
            if p[j] in " \t\n\x0b\f\r":
                j += 1
            elif p[j] == "#":
                while j < n and p[j] not in _LINE_END:
                    j += 1
            else:
                break
        return j

    def reject(what: str):
        raise ValueError(f"the Java regular expression {p!r} uses {what}, which is not supported here")

    def escape(j: int, in_class: bool, as_set: bool = False) -> tuple[str | list[int] | tuple, int]:
        """The escape at p[j] == '\\': its literal code points, or its Python text (``as_set``: a class's
        members as ranges); and the next index."""
        if j + 1 >= n:
            raise ValueError(f"invalid regular expression {p!r}: a trailing backslash")
        c = p[j + 1]
        k = j + 2
        if as_set and c.lower() in _SHORTHAND:
            ranges = _SHORTHAND_RANGES[c.lower()]
            return (_complement(ranges) if c.isupper() else ranges), k
        if c in _SHORTHAND:
            return (_SHORTHAND[c] if in_class else f"[{_SHORTHAND[c]}]"), k
        if c in "DWS":
            return (f"\\{c}" if in_class else f"[^{_SHORTHAND[c.lower()]}]"), k  # re.ASCII: Java's classes
        if c in _SIMPLE_ESCAPES:
            return [ord(_SIMPLE_ESCAPES[c])], k
        if c == "0":
            m = re.match(r"[0-3][0-7]{2}|[0-7]{1,2}", p[k:])
            if not m:
                raise ValueError(f"invalid regular expression {p!r}: illegal octal escape")
            return [int(m.group(), 8)], k + m.end()
        if c == "x":
            m = re.match(r"\{([0-9a-fA-F]+)\}|[0-9a-fA-F]{2}", p[k:])
            if not m:
                raise ValueError(f"invalid regular expression {p!r}: illegal hexadecimal escape")
            cp = int(m.group(1) or m.group(), 16)
            if cp > 0x10FFFF:
                raise ValueError(f"invalid regular expression {p!r}: hexadecimal code point out of range")
            return [cp], k + m.end()
        if c == "u":
            m = re.match(r"[0-9a-fA-F]{4}", p[k:])
            if not m:
                raise ValueError(f"invalid regular expression {p!r}: illegal Unicode escape")
            cp = int(m.group(), 16)
            k += 4
            low = re.match(r"\\u(d[c-f][0-9a-f]{2})", p[k:], re.IGNORECASE)
            if 0xD800 <= cp < 0xDC00 and low:  # a surrogate pair written as two escapes is one code point
                cp = 0x10000 + ((cp - 0xD800) << 10) + (int(low.group(1), 16) - 0xDC00)
                k += 6
            return [cp], k
        if c == "c":
            if k >= n:
                raise ValueError(f"invalid regular expression {p!r}: illegal control escape")
            return [ord(p[k]) ^ 64], k + 1
        if c == "Q":
            end = p.find("\\E", k)
            literal = p[k:] if end == -1 else p[k:end]
            return [ord(ch) for ch in literal], (n if end == -1 else end + 2)
        if c in "pP":
            if k < n and p[k] == "{":
                end = p.find("}", k)
                if end == -1:
                    raise ValueError(f"invalid regular expression {p!r}: unclosed character family")
                name, k = p[k + 1:end], end + 1
                if not name:
                    raise ValueError(f"invalid regular expression {p!r}: empty character family")
            elif k < n:  # \\pL: a one-letter name
                name, k = p[k], k + 1
            else:
                raise ValueError(f"invalid regular expression {p!r}: a trailing \\{c}")
            ranges = _property(name, case_insensitive)
            if ranges is None:
                raise ValueError(f"invalid regular expression {p!r}: unknown character property \\{c}{{{name}}}")
            if in_class:
                ranges = _complement(ranges) if c == "P" else ranges
                return (ranges if as_set else _class_body(ranges)), k
            return _property_class(ranges, c == "P"), k
        if not in_class:
            if c == "b":
                return _word_boundary(True), k
            if c == "B":
                return _word_boundary(False), k
            if c == "G":  # the end of the previous match: only where it anchors the whole pattern
                if pending or "".join(out) not in ("", "(?i:", "(?-i:") or len(levels) > 1:
                    reject("\\G other than at the start of the pattern")
                at_last.append(True)
                return _AT_LAST, k
            if c == "A":
                return "(?:\\A)", k
            if c == "z":
                return "(?:\\Z)", k
            if c == "Z":
                return _DOLLAR, k
            if c.isdigit() or c == "k":
                if fold:  # CIBackRef compares with UNICODE_CASE folding
                    reject("a back reference with a case-insensitive match parameter")
            if c.isdigit():  # a back reference: one digit here (Java reads more while such a group exists)
                if k < n and p[k].isdigit():
                    reject("a back reference followed by a digit")
                return f"(?:\\{c})", k
            if c == "k":
                m = re.match(r"<([a-zA-Z][a-zA-Z0-9]*)>", p[k:])
                if not m:
                    raise ValueError(f"invalid regular expression {p!r}: \\k is not followed by <name>")
                return f"(?P={m.group(1)})", k + m.end()
        if c.isalnum():
            reject(f"the escape \\{c}")
        return [ord(c)], k

    def flush(quantified: bool = False) -> None:
        """Emit the pending literals; before a quantifier the last one is an atom of its own."""
        if quantified and len(pending) > 1:
            out.append(_literal_run(pending[:-1], fold))
            del pending[:-1]
        if pending:
            out.append(_literal_run(pending, fold))
            pending.clear()

    def single_set(cp: int) -> tuple:
        if fold:
            members = _fold_class_member(cp)
        elif case_insensitive and cp < 128 and chr(cp).isalpha():
            members = {cp, ord(chr(cp).swapcase())}
        else:
            members = {cp}
        return _norm([(m, m) for m in members])

    def range_set(first: int, last: int) -> tuple:
        if fold:
            extra = _fold_range(first, last)
        elif case_insensitive:  # CASE_INSENSITIVE alone: ASCII letters whose other case is inside
            extra = {c for c in range(128) if chr(c).isalpha() and first <= ord(chr(c).swapcase()) <= last}
        else:
            extra = set()
        return _norm([(first, last)] + [(m, m) for m in extra])

    def class_set(j: int, bracket: bool) -> tuple[tuple, int]:
        """Java 17's ``Pattern.clazz``: a class's members as ranges, with nested classes (union) and ``&&``
        (intersection of all before with all after, up to the closing ``]``); ``^`` right after ``[``
        negates the whole. Literals and ranges folded as the flags say; ``j`` is past the ``[``
        (``bracket``), or where the right side of ``&&`` starts."""
        negated = False
        if bracket and j < n and p[j] == "^":
            negated, j = True, j + 1
        prev: tuple | None = None
        while True:
            j = skip_comments(j)
            if j >= n:
                raise ValueError(f"invalid regular expression {p!r}: unclosed character class")
            c = p[j]
            if c == "[":
                sub, j = class_set(j + 1, True)
                prev = sub if prev is None else _norm(prev + sub)
                continue
            if p.startswith("&&", j):
                j += 2
                right: tuple | None = None
                while True:
                    j = skip_comments(j)
                    if j >= n:
                        raise ValueError(f"invalid regular expression {p!r}: unclosed character class")
                    if p[j] in "]&":
                        break
                    sub, j = class_set(j + 1, True) if p[j] == "[" else class_set(j, False)
                    right = sub if right is None else _norm(right + sub)
                if right is None:
                    reject("a class intersection (&&) with nothing on its right")
                prev = right if prev is None else _intersect(prev, right)
                continue
            if c == "]" and prev is not None:
                if bracket:
                    j += 1
                return (_complement(prev) if negated else prev), j
            if c == "\\":
                value, j = escape(j, True, as_set=True)
                if isinstance(value, tuple):
                    prev = value if prev is None else _norm(prev + value)
                    continue
                if isinstance(value, str):
                    reject(f"the escape {p[j - 2:j]} inside a class with && or a nested class")
                cps = value
            else:
                cps, j = [ord(c)], j + 1
            for cp in cps[:-1]:
                prev = single_set(cp) if prev is None else _norm(prev + single_set(cp))
            cp = cps[-1] if cps else None
            if cp is None:
                continue
            leaf = single_set(cp)
            dash = skip_comments(j)  # COMMENTS: "a - c" is a range
            if len(cps) == 1 and dash + 1 < n and p[dash] == "-" and p[dash + 1] not in "][":
                end, j = _range_end(p, skip_comments(dash + 1), escape, cp)
                leaf = range_set(cp, end)
            prev = leaf if prev is None else _norm(prev + leaf)

    while i < n:
        if comments:
            i = skip_comments(i)
            if i >= n:
                break
        c = p[i]
        if c == "\\":
            text, i = escape(i, False)
            if isinstance(text, list):
                pending.extend(text)
                continue
            flush()
            out.append(text)
            continue
        if c not in ".$^()[{*+?|":
            pending.append(ord(c))
            i += 1
            continue
        flush(quantified=c in "{*+?")
        if c == ".":
            out.append("(?s:.)" if "s" in flags else _DOT)
        elif c == "$":
            out.append(_DOLLAR_MULTILINE if "m" in flags else _DOLLAR)
        elif c == "^":
            out.append(_CARET_MULTILINE if "m" in flags else "(?:\\A)")
        elif c == "(":
            levels.append([set(flags), python_i(flags), 0])
            if p.startswith("(?", i):
                m = re.match(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])", p[i:])
                if m:  # inline flags (none: "(?:" and Java's "(?)")
                    on, off = m.group(1), m.group(2) or ""
                    for flag in on + off:
                        if flag in "dcU":
                            reject({"d": "the flag (?d) (UNIX_LINES)", "c": "the flag (?c) (CANON_EQ)",
                                    "U": "the flag (?U) (UNICODE_CHARACTER_CLASS)"}[flag])
                        if flag not in "imsxu":
                            raise ValueError(f"invalid regular expression {p!r}: unknown inline modifier {flag!r}")
                    new = (flags | set(on)) - set(off)
                    i += m.end()
                    if m.group(3) == ")":  # (?i): to the end of the enclosing group
                        levels.pop()
                        set_flags(new)
                        after = skip_comments(i)
                        if after < n and p[after] in "*+?":  # Java: a dangling meta character
                            raise ValueError(f"invalid regular expression {p!r}: a quantifier after {m.group()}")
                        if after < n and p[after] == "{":  # Java drops it without a word
                            reject(f"a repetition after the inline flags {m.group()}")
                        continue
                    out.append("(?:")
                    set_flags(new)
                    continue
                m = re.match(r"\(\?(?:=|!|<=|<!|>|<([a-zA-Z][a-zA-Z0-9]*)>)", p[i:])
                if not m:
                    reject(f"the group construct {p[i:i + 6]!r}")
                if m.group() == "(?>" and not _POSSESSIVE:
                    reject("an atomic group (Python 3.11 or later needed)")
                out.append(f"(?P<{m.group(1)}>" if m.group(1) else m.group())
                i += m.end()
                continue
            out.append("(")
        elif c == ")":
            if len(levels) == 1:
                raise ValueError(f"invalid regular expression {p!r}: unmatched closing ')'")
            close_scopes()
            out.append(")")
            restore = levels.pop()[0]
            flags, case_insensitive = restore, "i" in restore
            fold, comments = "i" in restore and "u" in restore, "x" in restore
        elif c == "[":
            try:
                text, i = _translate_class(p, i, escape, reject, fold, skip_comments)
            except _NeedsSets:  # nested classes or &&: computed as explicit sets of code points
                ranges, i = class_set(i + 1, True)
                text = _property_class(ranges, False)
                if python_i(flags):  # the members are folded already
                    text = f"(?-i:{text})"
            out.append(text)
            continue
        elif c == "{":
            m = re.match(r"\{\d+(,\d*)?\}", p[i:])
            if not m:
                raise ValueError(f"invalid regular expression {p!r}: illegal repetition near index {i}")
            out.append(m.group())
            i += m.end()
            i = _quantifier_suffix(p, skip_comments(i), out, reject)
            if p.startswith("{", skip_comments(i)):
                reject("a repetition {n,m} right after a quantifier (Java ignores it)")
            continue
        elif c in "*+?":
            out.append(c)
            i = _quantifier_suffix(p, skip_comments(i + 1), out, reject)
            if p.startswith("{", skip_comments(i)):
                reject("a repetition {n,m} right after a quantifier (Java ignores it)")
            continue
        elif c == "|":
            if at_last and len(levels) == 1:
                reject("\\G with an alternative beside it")
            close_scopes()
            out.append("|")
            if python_i(flags) != levels[-1][1]:
                out.append("(?i:" if python_i(flags) else "(?-i:")
                levels[-1][2] = 1
        i += 1
    flush()
    if len(levels) > 1:
        raise ValueError(f"invalid regular expression {p!r}: unclosed group")
    close_scopes()
    return "".join(out)


def _quantifier_suffix(p: str, i: int, out: list[str], reject) -> int:
    if i < len(p) and p[i] == "?":
        out.append("?")
        return i + 1
    if i < len(p) and p[i] == "+":
        if not _POSSESSIVE:
            reject("a possessive quantifier (Python 3.11 or later needed)")
        out.append("+")
        return i + 1
    return i


def _range_end(p: str, j: int, escape, start: int) -> tuple[int, int]:
    """The last code point of a class range ``start-...`` whose end begins at ``j`` (a character or an escape of
    one), and the index after it; Java's errors for an unclosed class or a backwards range."""
    if j >= len(p):
        raise ValueError(f"invalid regular expression {p!r}: unclosed character class")
    if p[j] == "\\":
        end, j = escape(j, True)
        if not isinstance(end, list) or len(end) != 1:
            raise ValueError(f"invalid regular expression {p!r}: illegal character range")
        end = end[0]
    else:
        end, j = ord(p[j]), j + 1
    if end < start:
        raise ValueError(f"invalid regular expression {p!r}: illegal character range")
    return end, j


def _translate_class(p: str, i: int, escape, reject, fold: bool, skip=lambda j: j) -> tuple[str, int]:
    """A Java character class ``[...]`` starting at p[i]; returns its Python text and the next index."""
    n = len(p)
    j = i + 1
    out = ["["]
    if j < n and p[j] == "^":
        out.append("^")
        j += 1
    if j < n and p[j] == "]":  # a literal ']' in Java
        raise _NeedsSets
    last: int | None = None  # the previous member, when a single character (a range may start there)

    def member(cp: int | None) -> None:
        """Emit the previous single-character member, remembering ``cp`` as the new one."""
        nonlocal last
        if last is not None:
            out.append(_members(_fold_class_member(last)) if fold else _char(last))
        last = cp

    while True:
        j = skip(j)  # COMMENTS: whitespace and comments inside a class too
        if j >= n:
            raise ValueError(f"invalid regular expression {p!r}: unclosed character class")
        c = p[j]
        if c == "]":
            member(None)
            out.append("]")
            return "".join(out), j + 1
        if c == "[" or p.startswith("&&", j):
            raise _NeedsSets
        if c == "-" and last is not None and j + 1 < n and p[j + 1] != "]":
            end, j = _range_end(p, skip(j + 1), escape, last)  # COMMENTS: "a - c" is a range
            out.append(f"{_char(last)}-{_char(end)}")
            if fold:
                out.append(_members(_fold_range(last, end)))
            last = None
            continue
        if c == "\\":
            if p[j + 1:j + 2] in ("p", "P"):  # a property: an explicit set (many ranges, _property_class)
                raise _NeedsSets
            text, j = escape(j, True)
            if isinstance(text, list):
                for cp in text:
                    member(cp)
            else:
                member(None)
                out.append(text)
            continue
        member(ord(c))
        j += 1
