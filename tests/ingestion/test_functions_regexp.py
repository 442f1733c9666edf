"""The regexp functions against java.util.regex's documented semantics (translation, groups, replacement syntax)."""
from __future__ import annotations

import re

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinot_sink.ingestion.evaluate import Expression
from pinot_sink.ingestion.expression import ExpressionError
from pinot_sink.ingestion.values import Context, IngestionError


def evaluate(text: str, continue_on_error: bool = False, **columns):
    table = {name: (values if isinstance(values, pa.Array) else pa.array(values, pa.string()))
             for name, values in columns.items()}
    n = len(next(iter(table.values())))
    ctx = Context(n, 0, continue_on_error)
    ctx.where = text
    return Expression(text).evaluate_array(table, ctx).to_pylist(), ctx


TEXT = st.text(alphabet="ab1 _-\n\r\x85é", max_size=10)


def test_regexp_extract_groups_and_default():
    s = ["val abe ace", "aa bb", None]
    assert evaluate("regexpExtract(s, '(a[bcd]e) (a[bcd]e)', 2)", s=s)[0] == ["ace", "", None]
    assert evaluate("regexpExtract(s, '(a[bcd]e)')", s=s)[0] == ["abe", "", None]  # group 0: the whole match
    assert evaluate("regexpExtract(s, '(a[bcd]e)', 5, 'wrong')", s=s)[0] == ["wrong", "wrong", None]
    # a group that takes no part in the match is null (Matcher.group returns null)
    assert evaluate("regexpExtract(s, 'v(x)?al', 1, 'd')", s=s)[0] == [None, "d", None]
    # a negative group is Matcher.group(-1): IndexOutOfBoundsException on rows that match
    with pytest.raises(IngestionError, match="row 0: IndexOutOfBoundsException"):
        evaluate("regexpExtract(s, 'a', -1)", s=s)
    out, ctx = evaluate("regexpExtract(s, 'v', -1)", True, s=s)
    assert out == [None, "", None] and ctx.errors.tolist() == [True, False, False]


def test_java_line_terminators_dot_and_dollar():
    s = ["ab", "a\r", "a\n", "a\r\n", "a\u2028", "a\n\n", "a\x85"]
    # '.' excludes Java's line terminators, '$' matches before one final terminator (\r\n counts as one)
    assert evaluate("regexpLike(s, '^a.$')", s=s)[0] == [True, False, False, False, False, False, False]
    assert evaluate("regexpLike(s, '^a$')", s=s)[0] == [False, True, True, True, True, False, True]
    assert evaluate("regexpLike(s, 'a\\Z')", s=s)[0] == [False, True, True, True, True, False, True]
    assert evaluate("regexpLike(s, 'a\\z')", s=s)[0] == [False] * 7


def test_ascii_classes_and_case():
    s = ["é", "٣", "K", "k", "\u212a"]  # Arabic-Indic digit three; the Kelvin sign
    assert evaluate("regexpLike(s, '\\w')", s=s)[0] == [False, False, True, True, False]
    assert evaluate("regexpLike(s, '\\d')", s=s)[0] == [False, False, False, False, False]
    # regexpReplace's 'i' is CASE_INSENSITIVE alone (ASCII); regexpLike's 'i' adds UNICODE_CASE
    assert evaluate("regexpReplace(s, 'k', 'x', 0, -1, 'i')", s=s)[0] == ["é", "٣", "x", "x", "\u212a"]
    assert evaluate("regexpLike(s, 'k', 'i')", s=s)[0] == [False, False, True, True, True]
    assert evaluate("regexpLike(s, 'k', 'I')", s=s)[0] == [False, False, True, True, True]
    assert evaluate("regexpLike(s, 'k', 'c')", s=s)[0] == [False, False, False, True, False]
    assert evaluate("regexpLike(s, '(?i)K')", s=s)[0] == [False, False, True, True, False]
    assert evaluate("regexpLike(s, '\\p{Alpha}')", s=s)[0] == [False, False, True, True, False]


def test_replacement_syntax():
    s = ["xaby a", "none"]
    assert evaluate("regexpReplace(s, '(a)(b)?', '[$1$2]')", s=s)[0] == ["x[ab]y [a]", "none"]
    assert evaluate("regexpReplace(s, '(?<first>a)', '${first}\\$')", s=s)[0] == ["xa$by a$", "none"]
    assert evaluate("regexpReplace(s, '(a)', '$12')", s=s)[0] == ["xa2by a2", "none"]  # $1 then '2': no group 12
    # an invalid replacement throws on rows with a match only
    with pytest.raises(IngestionError, match="row 0: IllegalArgumentException"):
        evaluate("regexpReplace(s, 'a', 'x$')", s=s)
    out, ctx = evaluate("regexpReplace(s, 'a', '$2')", True, s=s)
    assert out == [None, "none"] and ctx.errors.tolist() == [True, False]
    # with an occurrence, the replacement is literal text
    assert evaluate("regexpReplace(s, 'a', '$1', 0, 1)", s=s)[0] == ["xaby $1", "none"]
    assert evaluate("regexpReplace(s, 'a', 'Z', 0, 5)", s=s)[0] == ["xaby a", "none"]


def test_match_start_position_counts_utf16_and_anchors_at_the_region():
    s = ["😀aa", "aaa"]
    assert evaluate("regexpReplace(s, 'a', 'b', 3)", s=s)[0] == ["😀ab", "aaa"]
    assert evaluate("regexpReplace(s, '^a', 'b', 1)", s=["aa"])[0] == ["ab"]  # ^ at the region's start
    assert evaluate("regexpReplace(s, '(?<=a)a', 'b', 1)", s=["aa"])[0] == ["aa"]  # opaque bounds
    with pytest.raises(IngestionError, match="row 1: IndexOutOfBoundsException"):
        evaluate("regexpReplace(s, 'a', 'b', 3)", s=["aaaa", "aa"])


def test_find_after_an_empty_match_starts_one_character_later():
    # Matcher.find: after an empty match the next search starts one character on, so no non-empty match may
    # start where an empty one did (Python's finditer allows it). Expected values from Java's Matcher.
    assert evaluate("regexpCount(s, '|a')", s=["a", "aaa", ""])[0] == [2, 4, 1]
    assert evaluate("regexpCount(s, 'a*?')", s=["abab"])[0] == [5]
    assert evaluate("regexpReplace(s, 'a*?', '[$0]')", s=["abab"])[0] == ["[]a[]b[]a[]b[]"]
    assert evaluate("regexpReplace(s, '|a', 'X', 0, 1)", s=["aaa"])[0] == ["aXaa"]
    assert evaluate("regexpReplace(s, '|a', 'X', 1)", s=["aaa"])[0] == ["aXaXaX"]
    assert evaluate("regexpCount(s, 'x*')", s=["abxd"])[0] == [5]  # an empty match right after a non-empty one


def test_not_a_word_boundary_matches_the_empty_text():
    assert evaluate("regexpLike(s, '\\B')", s=["", "a", "ab"])[0] == [True, False, True]
    assert evaluate("regexpCount(s, '\\B')", s=["", "a b", "ab"])[0] == [1, 0, 1]


def test_class_shorthands_do_not_fold_case_with_the_i_match_parameter():
    # CASE_INSENSITIVE | UNICODE_CASE folds literal characters only: the Kelvin sign and the long s fold to
    # 'k' and 's' but are not \w (nor POSIX classes); Java results.
    s = ["\u212a", "\u017f", "k", "-"]
    assert evaluate("regexpLike(s, '\\w', 'i')", s=s)[0] == [False, False, True, False]
    assert evaluate("regexpLike(s, '\\W', 'i')", s=s)[0] == [True, True, False, True]
    assert evaluate("regexpLike(s, '\\p{Lower}', 'i')", s=s)[0] == [False, False, True, False]
    assert evaluate("regexpLike(s, '\\P{Alpha}', 'i')", s=s)[0] == [True, True, False, True]
    assert evaluate("regexpLike(s, 'k', 'i')", s=s)[0] == [True, False, True, False]
    assert evaluate("regexpLike(s, '[\\w-]', 'i')", s=s)[0] == [False, False, True, True]


def test_unicode_case_folds_as_java_not_as_python():
    # UNICODE_CASE (regexpLike's 'i', LIKE) folds per construct: a range takes x when x, its upper case or
    # lower(upper(x)) is inside; a character alone in its atom only when it has case; a run (slice) compares
    # lower(upper(x)). Python's IGNORECASE gives the opposite answer in each line below (Java's results).
    s = ["\u212a", "\u0131", "\u0130", "k"]  # Kelvin sign, dotless i, dotted capital I
    assert evaluate("regexpLike(s, '[A-Z]', 'i')", s=s)[0] == [False, True, False, True]
    assert evaluate("regexpLike(s, 'ß', 'i')", s=["\u1e9e", "ß"])[0] == [False, True]  # capital sharp s
    assert evaluate("regexpLike(s, 'ßa', 'i')", s=["\u1e9eA"])[0] == [True]
    assert evaluate("s LIKE 'ß'", s=["\u1e9e", "ß"])[0] == [False, True]
    assert evaluate("s LIKE '%ß%'", s=["x\u1e9e", "xß"])[0] == [False, True]
    with pytest.raises(ExpressionError, match="back reference"):
        Expression("regexpLike(s, '(a)\\1', 'i')")  # CIBackRef's Unicode folding: not translated


def test_count_substr_and_like():
    assert evaluate("regexpCount(s, 'x*')", s=["abxd", ""])[0] == [5, 1]
    assert evaluate("regexpSubstr(s, '\\d+')", s=["a12b3", "x"])[0] == ["12", None]
    s = ["abc", "ABC", "xabc", "a.c", "a%c", "a_"]
    assert evaluate("s LIKE 'a%'", s=s)[0] == [True, True, False, True, True, True]  # case-insensitive
    assert evaluate("s LIKE 'a_c'", s=s)[0] == [True, True, False, True, True, False]
    assert evaluate("s LIKE '%b%'", s=s)[0] == [True, True, True, False, False, False]
    assert evaluate("s LIKE 'a\\%c'", s=s)[0] == [False, False, False, False, True, False]
    assert evaluate("s LIKE 'a.c'", s=s)[0] == [False, False, False, True, False, False]


@pytest.mark.parametrize("pattern", ["a{", "x{,3}", "[a&&]", "[a&&b", "(?d).", "(?U)\\w", "(?c)a", "(?q)a", "a)", "(?i:a",
                                     "a\\G", "a(?i){1,2}", "a(?s)*", "a+{2}", "\\Ga|b", "(\\Ga)", "\\y", "a\\",
                                     "(", "[a", "\\p{Foo}", "\\p{lu}", "\\p{isLatin}",
                                     "\\p{InLatin}", "\\p{}"])
def test_patterns_java_rejects_or_we_cannot_translate_fail_when_read(pattern):
    with pytest.raises(ExpressionError):
        Expression(f"regexpLike(s, '{pattern}')")


def test_unicode_properties_are_java_17s():
    # Java 17's answers (tests/ingestion/test_regexp_java.py compares many more with Java itself)
    s = ["é", "Ω", "a", "٣", "\u0301", "日", "ǅ", "😀"]
    assert evaluate("regexpLike(s, '\\p{L}')", s=s)[0] == [True, True, True, False, False, True, True, False]
    assert evaluate("regexpLike(s, '\\p{IsLatin}')", s=s)[0] == [True, False, True, False, False, False, True, False]
    assert evaluate("regexpLike(s, '\\p{InGreek}')", s=s)[0] == [False, True, False, False, False, False, False, False]
    assert evaluate("regexpLike(s, '[^\\P{Nd}]')", s=s)[0] == [False, False, False, True, False, False, False, False]
    assert evaluate("regexpLike(s, '\\p{IsAlpha}')", s=s)[0] == [True, True, True, False, False, True, True, False]
    # under CASE_INSENSITIVE a cased category takes the other cases too (Lu is then Lu, Ll or Lt)
    assert evaluate("regexpLike(s, '\\p{Lu}')", s=s)[0] == [False, True, False, False, False, False, False, False]
    assert evaluate("regexpLike(s, '\\p{Lu}', 'i')", s=s)[0] == [True, True, True, False, False, False, True, False]


def test_word_boundary_is_java_17s():
    # Java 17's \b: letters and digits of any script, and combining marks after one, are word characters
    s = ["é", "xé", "e\u0301", "_\u0301", "٣"]  # '_' is a word character but no base for a mark
    assert evaluate("regexpCount(s, '\\b')", s=s)[0] == [2, 2, 2, 2, 2]
    assert evaluate("regexpCount(s, '\\B')", s=s)[0] == [0, 1, 1, 1, 0]
    assert evaluate("regexpReplace(s, '\\b', '|')", s=["café au lait"])[0] == ["|café| |au| |lait|"]
    # the documented limit: the base letter is looked for at most 8 marks back (Java: 2 and 2)
    assert evaluate("regexpCount(s, '\\b')", s=["e" + "\u0301" * 8 + " ", "e" + "\u0301" * 9 + " "])[0] == [2, 1]


def test_inline_flags_classes_and_last_match_end_as_java():
    # Java 17's answers (tests/ingestion/test_regexp_java.py compares many more with Java itself)
    assert evaluate("regexpLike(s, 'a(?i)b|c')", s=["xC", "AB", "aB"])[0] == [True, False, True]  # (?i) spans |
    assert evaluate("regexpLike(s, '(?s)a.b')", s=["a\nb"])[0] == [True]
    assert evaluate("regexpExtract(s, '(?m)^b$')", s=["a\nb\nc"])[0] == ["b"]
    assert evaluate("regexpLike(s, '(?x) a b # c')", s=["ab", "a b"])[0] == [True, False]
    assert evaluate("regexpReplace(s, '[a-z&&[^aeiou]]+', '_')", s=["queue bcd"])[0] == ["_ueue _"]
    assert evaluate("regexpLike(s, '[^a[b]]')", s=["ab", "c"])[0] == [False, True]
    assert evaluate("regexpCount(s, '\\Ga')", s=["aaba", "ba"])[0] == [2, 0]


def test_bad_match_parameter_fails_when_read():
    assert evaluate("regexpLike(s, '[\\W]', 'i')", s=["é", "a", "\u212a"])[0] == [True, False, True]
    assert evaluate("regexpLike(s, '[\\W]', 'c')", s=["é", "a"])[0] == [True, False]
    assert evaluate("regexpLike(s, '(?i)é', 'c')", s=["É"])[0] == [False]  # (?i) alone is ASCII-only
    with pytest.raises(ExpressionError, match="match parameter"):
        Expression("regexpLike(s, 'a', 'x')")


# Java-neutral patterns: their meaning in Python (re.ASCII) is Java's, so Python is an independent reference.
NEUTRAL = st.sampled_from(["a", "a+b?", "(a|b)+", "[ab]{1,2}", "[^a ]", "\\d", "(a)(1)?", "b*", "\\s+", "_|-",
                           "(?:ab)+"])


@given(st.lists(st.one_of(st.none(), TEXT), min_size=1, max_size=20), NEUTRAL, st.integers(0, 2))
@settings(deadline=None)
def test_extract_like_and_count_match_java_on_neutral_patterns(values, pattern, group):
    regex = re.compile(pattern, re.ASCII)
    column = pa.array(values, pa.string())

    def extract(v):
        m = regex.search(v)
        if m is None or group > regex.groups:
            return ""
        return m.group(group)

    assert evaluate(f"regexpExtract(s, '{pattern}', {group})", s=column)[0] == \
        [None if v is None else extract(v) for v in values]
    assert evaluate(f"regexpLike(s, '{pattern}')", s=column)[0] == \
        [None if v is None else regex.search(v) is not None for v in values]
    assert evaluate(f"regexpCount(s, '{pattern}')", s=column)[0] == \
        [None if v is None else len(list(regex.finditer(v))) for v in values]


@given(st.lists(TEXT, min_size=1, max_size=20), NEUTRAL, st.integers(0, 3), st.integers(-1, 2))
@settings(deadline=None)
def test_replace_matches_java_on_neutral_patterns(values, pattern, start, occurrence):
    regex = re.compile(pattern, re.ASCII)

    def java(v):
        if start > len(v):
            return None  # IndexOutOfBoundsException, nulled with continueOnError
        head, tail = v[:start], v[start:]
        if occurrence < 0:
            return head + regex.sub("<\\g<0>>", tail)
        matches = list(regex.finditer(tail))
        if occurrence >= len(matches):
            return v
        m = matches[occurrence]
        return head + tail[:m.start()] + "<$0>" + tail[m.end():]

    out, ctx = evaluate(f"regexpReplace(s, '{pattern}', '<$0>', {start}, {occurrence})", True, s=values)
    assert out == [java(v) for v in values]
    assert ctx.errors is None or ctx.errors.tolist() == [start > len(v) for v in values]
