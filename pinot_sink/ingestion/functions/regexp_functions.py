"""Regular-expression functions (the regexp/ classes and regexpCount / regexpSubstr of StringFunctions).

Pinot compiles patterns with ``java.util.regex`` (ingestion never initialises ``PatternFactory`` for RE2J).
Arrow's kernels are RE2, which differs from Java (``.`` and ``$`` around ``\\r``, ``\\u0085``, back
references, look-around), so each pattern is translated once into a Python pattern that means the same in
Java, and the function runs once per distinct input value. Character properties (``\\p{L}``, ``\\p{IsLatin}``,
``\\p{InGreek}``, ``\\p{javaLowerCase}``...) and Java 17's ``\\b`` become explicit classes from Java 17's own
tables (``javalib/regex``, Unicode 13); inline flags (``(?i)``, ``(?s)``, ``(?m)``, ``(?x)``, ``(?u)``,
``(?-i)``, ``(?i:...)``) hold to the end of their group as in Java. Java constructs with no faithful
translation (the flags ``(?d)``, ``(?U)``, ``(?c)``, ``\\G`` other than starting the whole pattern) are
rejected when the config is read, naming the construct. Nested classes and intersections ``&&`` become
explicit sets (``Pattern.clazz``'s rules).

Known differences left: Java works on UTF-16, so after an empty match just before a supplementary character
its next search starts between the two surrogates (``regexpCount(s, 'x*')`` counts one more per such
character; Python cannot start there); case mappings follow Python's Unicode version, not the JVM's; ``\\b``
finds the base letter of a run of combining marks at most 8 marks back.
"""
from __future__ import annotations

import re
from typing import Callable

import pyarrow as pa
import pyarrow.compute as pc

from javalib.regex.matcher import java_find, replacement_parts as _replacement
from javalib.regex.pattern import JavaPattern, _java_lower

from .. import lone_surrogates
from ..values import Const, Context, IngestionError, Value, broadcast, per_distinct, to_int, to_string
from .registry import scalar_function
from .rowwise import JavaThrows, per_row


def _text(ctx: Context, value: Value) -> pa.Array:
    return broadcast(to_string(value, ctx), ctx.num_rows, pa.string())


def _literal(ctx: Context, value: Value, what: str):
    """A ``literal_args`` position: the evaluator hands it a Const (a column runs once per distinct value)."""
    if not isinstance(value, Const):
        raise IngestionError(f"{ctx.where}: the {what} is not at a literal position of this function")
    return value.value


def _compiled(ctx: Context, source: str, *flags, **named) -> "JavaPattern":
    """A pattern at evaluation time (from a column, when not a literal checked up front): Java's
    PatternSyntaxException fails the rows that hold it."""
    try:
        return JavaPattern(source, *flags, **named)
    except ValueError as exc:
        raise IngestionError(f"{ctx.where}: {exc} (PatternSyntaxException)") from None


def _int_literal(ctx: Context, value: Value, what: str) -> int:
    return _literal(ctx, to_int(value, ctx), what)


def _check_pattern(position: int, flags: Callable[[list], dict] = lambda args: {}):
    def check(args: list) -> None:
        if isinstance(args[position], str):
            JavaPattern(args[position], **flags(args))

    return check


def _match_flags(args: list) -> dict:
    """regexpLike's match parameter (``RegexpPatternConverterUtils.isCaseInsensitive``)."""
    if len(args) < 3 or args[2] is None or args[2] == "":
        return {}
    # Character.toLowerCase of its one char: the simple mapping ('İ' is 'i', where Python's full one adds a dot)
    lowered = chr(_java_lower(ord(args[2]))) if isinstance(args[2], str) and len(args[2]) == 1 else None
    if lowered is None or lowered not in "ic":
        raise ValueError(f"the match parameter must be 'i' or 'c' (got {args[2]!r})")
    insensitive = lowered == "i"
    return {"case_insensitive": insensitive, "unicode_case": insensitive}  # JavaUtilPattern: both or none


@scalar_function("regexpLike", "regexpLikeVar", arity=(2, 3), literal_args=(1, 2),
                 check=_check_pattern(1, _match_flags))
def _regexp_like(ctx: Context, args: list[Value]) -> Value:
    literals = [None, _literal(ctx, to_string(args[1], ctx), "pattern")]
    if len(args) == 3:
        literals.append(_literal(ctx, to_string(args[2], ctx), "match parameter"))
    try:
        flags = _match_flags(literals)
    except ValueError as exc:  # a match parameter from a column
        raise IngestionError(f"{ctx.where}: {exc}") from None
    regex = _compiled(ctx, literals[1], **flags).regex
    return per_distinct(_text(ctx, args[0]), lambda s: None if s is None else regex.search(s) is not None,
                        pa.bool_())


def like_to_regexp(like: str) -> str:
    """``RegexpPatternConverterUtils.likeToRegexpLike``: ``%`` any text, ``_`` one character, ``\\`` escapes
    them; anchored unless the pattern starts / ends with ``%``."""
    if like == "":
        return "^$"
    if like == "%" or set(like) == {"%"}:
        return ""
    prefix, suffix = "^", "$"
    if like[0] == "%" and len(like) > 1:
        like, prefix = like.lstrip("%"), ""
    if like.endswith("%") and len(like) > 0:
        like, suffix = like.rstrip("%"), ""
    out = [prefix]
    after_backslash = False
    for c in like:
        if c == "_":
            out.append(c if after_backslash else ".")
        elif c == "%":
            out.append(c if after_backslash else ".*")
        else:
            if c in "^$.{}[]()*+?|<>-&/" or after_backslash:
                out.append("\\")
            out.append(c)
        after_backslash = c == "\\"
    if after_backslash:
        out.append("\\")
    out.append(suffix)
    return "".join(out)


@scalar_function("like", "likeVar", arity=2, literal_args=(1,),
                 check=lambda args: JavaPattern(like_to_regexp(args[1]), True, True) if isinstance(args[1], str)
                 else None)
def _like(ctx: Context, args: list[Value]) -> Value:
    regex = _compiled(ctx, like_to_regexp(_literal(ctx, to_string(args[1], ctx), "LIKE pattern")), True, True).regex
    return per_distinct(_text(ctx, args[0]), lambda s: None if s is None else regex.search(s) is not None,
                        pa.bool_())


@scalar_function("regexpExtract", "regexpExtractVar", arity=(2, 3, 4), literal_args=(1, 2),
                 check=_check_pattern(1))
def _regexp_extract(ctx: Context, args: list[Value]) -> Value:
    """The group of the first match; the default ("" unless given) when there is no match or the group number
    is beyond the pattern's groups; null when the group did not take part in the match."""
    pattern = _compiled(ctx, _literal(ctx, to_string(args[1], ctx), "pattern"))
    group = _int_literal(ctx, args[2], "group") if len(args) > 2 else 0
    text = _text(ctx, args[0])
    encoded = pc.dictionary_encode(text)
    found, defaulted, failed = [], [], []
    for s in encoded.dictionary.to_pylist():
        m = pattern.regex.search(s)
        miss = m is None or group > pattern.groups
        defaulted.append(miss)
        failed.append(not miss and group < 0)  # Matcher.group(-1)
        found.append(None if miss or group < 0 else m.group(group))  # null: the group took no part
    fails = pa.array(failed, pa.bool_()).take(encoded.indices)
    ctx.fail(fails, f"IndexOutOfBoundsException: No group {group}", text)
    is_default = pc.fill_null(pa.array(defaulted, pa.bool_()).take(encoded.indices), False)
    found = pa.array(found, pa.string()).take(encoded.indices)
    default = _text(ctx, args[3]) if len(args) > 3 else pa.scalar("", pa.string())
    return pc.if_else(is_default, default, found)


def _region_split(s: str, start: int) -> tuple[str, str] | None:
    """``s`` cut at UTF-16 offset ``start`` (``Matcher.region``), None when out of range; a start between an
    emoji's two halves cuts the pair (Java's region starts at the low half: a match there, '^', puts text
    between them, and a lone half stored fails Pinot's build, and this package's)."""
    if start < 0:
        return None
    units = 0
    for index, ch in enumerate(s):
        if units >= start:
            return s[:index], s[index:]
        if ord(ch) > 0xFFFF and units + 1 == start:
            high, low = chr(0xD800 + ((ord(ch) - 0x10000) >> 10)), chr(0xDC00 + ((ord(ch) - 0x10000) & 0x3FF))
            return s[:index] + high, low + s[index + 1:]
        units += 2 if ord(ch) > 0xFFFF else 1
    return (s, "") if units >= start else None


@scalar_function("regexpReplace", "regexpReplaceVar", arity=(3, 4, 5, 6), literal_args=(1, 2, 3, 4, 5),
                 check=_check_pattern(1, lambda args: {"case_insensitive": len(args) > 5 and args[5] == "i"}))
def _regexp_replace(ctx: Context, args: list[Value]) -> Value:
    """All matches (from ``matchStartPos``), with Java's ``$n`` / ``${name}`` / ``\\`` replacement syntax; or
    only the ``occurrence``-th match (from 0), then with the replacement text taken literally."""
    source = _literal(ctx, to_string(args[1], ctx), "pattern")
    replacement = _literal(ctx, to_string(args[2], ctx), "replacement")
    start = _int_literal(ctx, args[3], "match start position") if len(args) > 3 else 0
    occurrence = _int_literal(ctx, args[4], "occurrence") if len(args) > 4 else -1
    flag = _literal(ctx, to_string(args[5], ctx), "flag") if len(args) > 5 else ""
    pattern = _compiled(ctx, source, case_insensitive=flag == "i")  # only "i" exactly; others are ignored
    regex = pattern.regex
    template = _replacement(replacement, pattern) if occurrence < 0 else None

    def expand(m: re.Match) -> str:
        return "".join(part if isinstance(part, str) else (m.group(part) or "") for part in template)

    def one(s: str):
        cut = _region_split(s, start)
        if cut is None:
            raise JavaThrows("IndexOutOfBoundsException: start")
        head, tail = cut
        if occurrence >= 0:
            for index, (text, m) in enumerate(java_find(pattern, tail)):
                if index == occurrence:
                    return _from_java(head + text[:m.start()] + replacement + text[m.end():])
            return s
        if isinstance(template, str):  # an invalid replacement throws on the first match
            if regex.search(tail) is None:
                return s
            raise JavaThrows(template)
        out, end, text = [head], 0, tail
        for text, m in java_find(pattern, tail):  # (text: tail, an emoji stepped into split in two, see java_find)
            out += [text[end:m.start()], expand(m)]
            end = m.end()
        out.append(text[end:])
        return _from_java("".join(out))

    return per_row(ctx, one, pa.string(), _text(ctx, args[0]))


@scalar_function("regexpCount", arity=2, literal_args=(1,), check=_check_pattern(1))
def _regexp_count(ctx: Context, args: list[Value]) -> Value:
    pattern = _compiled(ctx, _literal(ctx, to_string(args[1], ctx), "pattern"))
    return per_distinct(_text(ctx, args[0]), lambda s: None if s is None else sum(1 for _ in java_find(pattern, s)),
                        pa.int32())


def _from_java(text: str) -> str:
    """A result that may hold an emoji's halves apart (an empty match stepped between them): each half as the
    pipeline holds a lone surrogate (lone_surrogates.py), two side by side as their character again."""
    return lone_surrogates.current().from_java(text)


@scalar_function("regexpSubstr", arity=2, literal_args=(1,), check=_check_pattern(1))
def _regexp_substr(ctx: Context, args: list[Value]) -> Value:
    """The first match, null when there is none."""
    regex = _compiled(ctx, _literal(ctx, to_string(args[1], ctx), "pattern")).regex

    def one(s):
        m = None if s is None else regex.search(s)
        return None if m is None else m.group()

    return per_distinct(_text(ctx, args[0]), one, pa.string())

