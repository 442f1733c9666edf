"""String functions (StringFunctions, string/StringFunctions), with Java's String semantics.

Java strings count UTF-16 code units: ``length`` and ``substr`` indexes differ from code points only for
characters outside the Basic Multilingual Plane (emoji); a batch holding such characters is done per
distinct value with UTF-16 arithmetic, any other batch with Arrow's kernels. ``trim`` removes the
characters up to U+0020 (``String.trim``), not Unicode white space.
"""
from __future__ import annotations

import functools
import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import lone_surrogates
from ..values import (Const, Context, IngestionError, Value, as_numpy_mask, broadcast, java_utf8, per_distinct, to_int,
                      to_string)
from .json_functions import within_jackson_limits
from .registry import scalar_function
from .rowwise import JavaThrows, per_row

_JAVA_TRIM = "".join(chr(i) for i in range(0x21))
_REGEX_SPACE = " \t\n\x0b\f\r"  # Java's \s (ltrim / rtrim strip ^\s+ / \s+$)
_ASTRAL = r"[\x{10000}-\x{10FFFF}]"


def _text(ctx: Context, value: Value) -> pa.Array:
    return broadcast(to_string(value, ctx), ctx.num_rows, pa.string())


def _has_astral(text: pa.Array) -> bool:
    return bool(pc.any(pc.match_substring_regex(text, _ASTRAL)).as_py())


def _utf16(s: str) -> bytes:
    """Java's UTF-16 units of ``s`` (a lone surrogate's marker read as its unit: lone_surrogates.py)."""
    if lone_surrogates.IN_USE[0] and lone_surrogates.MAY_HOLD_ONE.search(s):
        s = lone_surrogates.current().java_chars(s)
    return s.encode("utf-16-le", "surrogatepass")


def _from_utf16(b: bytes) -> str:
    """UTF-16 units as a Java String: a high surrogate followed by a low one is their character, any other
    surrogate a lone one, kept as its marker (what Pinot's builder then fails on when it is stored)."""
    try:
        return b.decode("utf-16-le")
    except UnicodeDecodeError:
        return lone_surrogates.current().from_utf16(b)


def _java_case(text: pa.Array, kernel, full_mapping, special: np.ndarray) -> pa.Array:
    """``String.toLowerCase`` / ``toUpperCase``: full mappings ('ß' -> "SS", a final sigma), which Python's
    str methods apply and Arrow's per-character kernels do not. Only a few characters map differently, so
    text without them takes the kernel; they are looked for in the UTF-8 bytes (the first two bytes of
    each: a match of those alone just takes the exact path)."""
    offsets = np.frombuffer(text.buffers()[1], np.int32)[text.offset:text.offset + len(text) + 1]
    data = np.frombuffer(text.buffers()[2], np.uint8)[offsets[0]:offsets[-1]] if len(text) else np.empty(0, np.uint8)
    if data.size == 0 or data.max() < 0x80:
        return kernel(text)
    leads = np.flatnonzero(data[:-1] >= 0xC0)
    pairs = (data[leads].astype(np.uint16) << 8) | data[leads + 1]
    if not np.isin(pairs, special).any():
        return kernel(text)
    return per_distinct(text, full_mapping, pa.string())


@functools.lru_cache(maxsize=None)
def _special_case(mapping) -> np.ndarray:
    """The first two UTF-8 bytes (as one number) of the characters String.toLowerCase / toUpperCase map
    otherwise than Character.toLowerCase / toUpperCase (Arrow's kernels): those whose full mapping is several
    characters (all in the BMP: 'İ', 'ß', ligatures, Greek with iota subscript...), and for lower case the
    capital sigma (final form at the end of a word)."""
    chars = {chr(c) for c in range(0x80, 0x10000) if not 0xD800 <= c <= 0xDFFF and len(mapping(chr(c))) > 1}
    if mapping is str.lower:
        chars.add("\u03a3")
    return np.array(sorted({(c.encode()[0] << 8) | c.encode()[1] for c in chars}), dtype=np.uint16)


@scalar_function("lower", arity=1)
def _lower(ctx: Context, args: list[Value]) -> Value:
    return _java_case(_text(ctx, args[0]), pc.utf8_lower, str.lower, _special_case(str.lower))


@scalar_function("upper", arity=1)
def _upper(ctx: Context, args: list[Value]) -> Value:
    return _java_case(_text(ctx, args[0]), pc.utf8_upper, str.upper, _special_case(str.upper))


@scalar_function("trim", arity=1)
def _trim(ctx: Context, args: list[Value]) -> Value:
    return pc.utf8_trim(_text(ctx, args[0]), characters=_JAVA_TRIM)


@scalar_function("ltrim", arity=1)
def _ltrim(ctx: Context, args: list[Value]) -> Value:
    return pc.utf8_ltrim(_text(ctx, args[0]), characters=_REGEX_SPACE)


@scalar_function("rtrim", arity=1)
def _rtrim(ctx: Context, args: list[Value]) -> Value:
    return pc.utf8_rtrim(_text(ctx, args[0]), characters=_REGEX_SPACE)


@scalar_function("length", arity=1)
def _length(ctx: Context, args: list[Value]) -> Value:
    text = _text(ctx, args[0])
    length = pc.utf8_length(text)
    if _has_astral(text):  # one code point, two UTF-16 units
        length = pc.add(length, pc.count_substring_regex(text, _ASTRAL))
    return length.cast(pa.int32())


def _java_substring(s: str, begin: int, end: int | None) -> str:
    """``StringUtils.substring``: negative indexes count from the end, out-of-range ones are clamped."""
    units = _utf16(s)
    n = len(units) // 2
    if end is None:
        end = n
    if end < 0:
        end += n
    if begin < 0:
        begin += n
    end = min(end, n)
    begin = max(begin, 0)
    if begin > end:
        return ""
    return _from_utf16(units[2 * begin:2 * end])


@scalar_function("substr", arity=(2, 3), literal_args=(1, 2))
def _substr(ctx: Context, args: list[Value]) -> Value:
    text = _text(ctx, args[0])
    begin = to_int(args[1], ctx).value
    end = to_int(args[2], ctx).value if len(args) == 3 else None
    if end == -1:
        end = None
    if begin >= 0 and (end is None or end >= 0) and not _has_astral(text):
        if end is not None and begin > end:
            return pc.if_else(text.is_valid(), "", pa.scalar(None, pa.string()))
        return pc.utf8_slice_codeunits(text, start=begin, stop=end)
    return per_distinct(text, lambda s: None if s is None else _java_substring(s, begin, end), pa.string())


@scalar_function("concat", arity=2)
def _concat(ctx: Context, args: list[Value]) -> Value:
    return pc.binary_join_element_wise(_text(ctx, args[0]), _text(ctx, args[1]), "")


@scalar_function("concat", arity=3)
def _concat_separator(ctx: Context, args: list[Value]) -> Value:
    return pc.binary_join_element_wise(_text(ctx, args[0]), _text(ctx, args[2]), _text(ctx, args[1]), "")


@scalar_function("concatWS", arity=3)
def _concat_ws(ctx: Context, args: list[Value]) -> Value:
    return pc.binary_join_element_wise(_text(ctx, args[1]), _text(ctx, args[0]), _text(ctx, args[2]), "")


@scalar_function("replace", arity=3, literal_args=(1, 2))
def _replace(ctx: Context, args: list[Value]) -> Value:
    text = _text(ctx, args[0])
    search = to_string(args[1], ctx).value
    replacement = to_string(args[2], ctx).value
    if search == "":
        return text
    return pc.replace_substring(text, pattern=search, replacement=replacement)


@scalar_function("reverse", arity=1)
def _reverse(ctx: Context, args: list[Value]) -> Value:
    text = _text(ctx, args[0])
    if lone_surrogates.current().rows_holding(text) is None:  # reversed characters: a pair stays a pair, as in Java
        return pc.utf8_reverse(text)
    return per_distinct(text, lambda s: None if s is None else _java_reverse(s), pa.string())


def _java_reverse(s: str) -> str:
    """``StringBuilder.reverse``: the UTF-16 units reversed, then each low surrogate now followed by a high one
    swapped with it, left to right (a cut low then high reversed is the character again)."""
    units = _units(s)[::-1]
    i = 0
    while i < len(units) - 1:
        if 0xDC00 <= units[i] <= 0xDFFF and 0xD800 <= units[i + 1] <= 0xDBFF:
            units[i], units[i + 1] = units[i + 1], units[i]
            i += 1
        i += 1
    return _from_utf16(b"".join(u.to_bytes(2, "little") for u in units))


_JAVA_ARRAY_LIMIT = 2**31 - 2  # HotSpot's largest array length (Integer.MAX_VALUE - 2)


def _pad(left: bool):
    def impl(ctx: Context, args: list[Value]) -> Value:
        text = _text(ctx, args[0])
        size = to_int(args[1], ctx).value
        pad = to_string(args[2], ctx).value or " "  # StringUtils: empty pad is a space
        if len(pad) == 1 and not _has_astral(text) and len(_utf16(pad)) == 2 and -2**30 < size < _JAVA_ARRAY_LIMIT:
            return (pc.utf8_lpad if left else pc.utf8_rpad)(text, width=max(size, 0), padding=pad)

        def one(s: str | None) -> str | None:
            if s is None:
                return None
            missing = (size - len(_utf16(s)) // 2 + 2**31) % 2**32 - 2**31  # Java's int: near Integer.MIN_VALUE it wraps
            if missing <= 0:
                return s
            if missing >= _JAVA_ARRAY_LIMIT:  # StringUtils allocates the padding as one char[]
                raise JavaThrows("OutOfMemoryError: Requested array size exceeds VM limit")
            # StringUtils cycles the pad's chars (UTF-16 units): an emoji pad can be cut in half
            units = _utf16(pad)
            filler = _from_utf16((units * (missing * 2 // len(units) + 1))[:missing * 2])
            return filler + s if left else s + filler

        if -2**30 < size < _JAVA_ARRAY_LIMIT:
            return per_distinct(text, one, pa.string())
        return per_row(ctx, one, pa.string(), text)  # (rows past Java's array limit throw)

    return impl


scalar_function("lpad", arity=3, literal_args=(1, 2))(_pad(True))
scalar_function("rpad", arity=3, literal_args=(1, 2))(_pad(False))


def _java_whitespace(ch: str) -> bool:
    """``Character.isWhitespace``: Unicode space separators except the no-break ones, and \t \n \v \f \r
    \x1c-\x1f (not U+0085, unlike Python's ``str.isspace``)."""
    import unicodedata

    if ch in "\t\n\x0b\f\r\x1c\x1d\x1e\x1f":
        return True
    return unicodedata.category(ch) in ("Zs", "Zl", "Zp") and ch not in "\xa0\u2007\u202f"


def split_whole(s: str, separator: str, limit: int = -1) -> list[str]:
    """``StringUtils.splitByWholeSeparator(s, separator, limit)``: leading and repeated separators are skipped,
    but a separator that ends the text leaves a final "" token; with ``limit > 0`` the last of at most
    ``limit`` tokens holds the rest; an empty separator splits on Java white space."""
    if s == "":
        return []
    if separator == "":
        return _split_whitespace(s, limit)
    tokens: list[str] = []
    begin = end = 0
    while end < len(s):
        end = s.find(separator, begin)
        if end < 0:
            tokens.append(s[begin:])
            end = len(s)
        elif end > begin:
            if len(tokens) + 1 == limit:
                tokens.append(s[begin:])
                end = len(s)
            else:
                tokens.append(s[begin:end])
                begin = end + len(separator)
        else:
            begin = end + len(separator)
    return tokens


def _split_whitespace(s: str, limit: int) -> list[str]:
    """``StringUtils.splitWorker(s, null, limit, false)``: tokens between runs of white space."""
    tokens: list[str] = []
    start, in_token, i = 0, False, 0
    while i < len(s):
        if _java_whitespace(s[i]):
            if in_token:
                if len(tokens) + 1 == limit:
                    tokens.append(s[start:])
                    return tokens
                tokens.append(s[start:i])
                in_token = False
            i += 1
            start = i
        else:
            in_token = True
            i += 1
    if in_token:
        tokens.append(s[start:])
    return tokens


def _fields(s: str, delimiter: str) -> list[str]:
    """The fields ``splitPart`` walks: leading delimiters and runs of delimiters are skipped; the text after
    the last delimiter is a field even when empty ("a," has fields "a" and "")."""
    n, width = len(s), len(delimiter)
    start = 0
    while start < n and s.startswith(delimiter, start):
        start += width
    fields = []
    while True:
        end = s.find(delimiter, start)
        if end == -1:
            fields.append(s[start:])
            return fields
        fields.append(s[start:end])
        start = end + width
        while start < n and s.startswith(delimiter, start):
            start += width


def _split_part(s: str, delimiter: str, index: int) -> str:
    """``StringFunctions.splitPart``: the index-th field, "null" when there is none."""
    if delimiter == "":
        fields = split_whole(s, "")
    elif s == "":
        return "null"
    else:
        fields = _fields(s, delimiter)
    if index < 0:
        index += len(fields)
    return fields[index] if 0 <= index < len(fields) else "null"


@scalar_function("splitPart", arity=3, literal_args=(1, 2))
def _split_part_fn(ctx: Context, args: list[Value]) -> Value:
    text = _text(ctx, args[0])
    delimiter = to_string(args[1], ctx).value
    index = to_int(args[2], ctx).value
    return per_distinct(text, lambda s: None if s is None else _split_part(s, delimiter, index), pa.string())


@scalar_function("splitPart", arity=4, literal_args=(1, 2, 3))
def _split_part_limited(ctx: Context, args: list[Value]) -> Value:
    """``splitPart(input, delimiter, limit, index)``: the index-th (negative: from the end) of
    ``splitByWholeSeparator(input, delimiter, limit)``'s tokens, "null" when there is none; a limit of 0 or
    less is none."""
    text = _text(ctx, args[0])
    delimiter = to_string(args[1], ctx).value
    limit = to_int(args[2], ctx).value
    index = to_int(args[3], ctx).value

    def one(s: str | None) -> str | None:
        if s is None:
            return None
        if (s == "" and delimiter != "") or index == -(2**31):
            return "null"
        tokens = split_whole(s, delimiter, limit if limit > 0 else -1)
        position = index + len(tokens) if index < 0 else index
        return tokens[position] if 0 <= position < len(tokens) else "null"

    return per_distinct(text, one, pa.string())


def _whole_separator_tokens(lists: pa.Array) -> pa.Array:
    """``splitByWholeSeparator``'s tokens from Arrow's ``split_pattern`` (same left-to-right matches): the
    empty tokens dropped, except the last one of a text that ends with the separator (vectorised)."""
    flat = pc.list_flatten(lists)
    parents = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False)
    lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    position = np.arange(len(flat)) - starts[parents]
    trailing = (position == lengths[parents] - 1) & (lengths[parents] >= 2)
    keep = pc.or_(pc.not_equal(pc.utf8_length(flat), 0), pa.array(trailing))
    counts = np.bincount(parents[as_numpy_mask(keep)], minlength=len(lists))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    mask = lists.is_null()
    return pa.ListArray.from_arrays(pa.array(offsets), flat.filter(keep), mask=mask if lists.null_count else None)


@scalar_function("split", "stringToArray", arity=2, literal_args=(1,))
def _split(ctx: Context, args: list[Value]) -> Value:
    text = _text(ctx, args[0])
    delimiter = to_string(args[1], ctx).value
    if not delimiter:
        return per_distinct(text, lambda s: None if s is None else split_whole(s, ""), pa.list_(pa.string()))
    return _whole_separator_tokens(pc.split_pattern(text, pattern=delimiter))


@scalar_function("split", "stringToArray", arity=3)
def _split_limit(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, split_whole, pa.list_(pa.string()), _text(ctx, args[0]), to_string(args[1], ctx),
                   to_int(args[2], ctx))


@scalar_function("startsWith", arity=2, literal_args=(1,))
def _starts_with(ctx: Context, args: list[Value]) -> Value:
    return pc.starts_with(_text(ctx, args[0]), pattern=to_string(args[1], ctx).value)


@scalar_function("endsWith", arity=2, literal_args=(1,))
def _ends_with(ctx: Context, args: list[Value]) -> Value:
    return pc.ends_with(_text(ctx, args[0]), pattern=to_string(args[1], ctx).value)


@scalar_function("contains", arity=2, literal_args=(1,))
def _contains(ctx: Context, args: list[Value]) -> Value:
    return pc.match_substring(_text(ctx, args[0]), pattern=to_string(args[1], ctx).value)


# --- more of StringFunctions, run once per distinct argument tuple (rowwise.per_row) ----------------


def _units(s: str) -> list[int]:
    """The UTF-16 code units of ``s`` (Java's chars)."""
    b = _utf16(s)
    return [b[i] | (b[i + 1] << 8) for i in range(0, len(b), 2)]


def _find(s: str, find: str, start: int) -> int:
    """``String.indexOf(find, start)`` in UTF-16 units (a match starts on a unit boundary of the encoding)."""
    hay, needle = _utf16(s), _utf16(find)
    i = hay.find(needle, 2 * max(start, 0))
    while i != -1 and i % 2:
        i = hay.find(needle, i + 1)
    return -1 if i == -1 else i // 2


def _rfind(s: str, find: str, start: int) -> int:
    """``String.lastIndexOf(find, start)``: the last match starting at or before UTF-16 index ``start``."""
    if start < 0:
        return -1
    hay, needle = _utf16(s), _utf16(find)
    i = hay.rfind(needle, 0, min(2 * start, len(hay)) + len(needle))
    while i != -1 and i % 2:
        i = hay.rfind(needle, 0, i + len(needle) - 1)
    return -1 if i == -1 else i // 2


def _ints(ctx: Context, value: Value) -> Value:
    return to_int(value, ctx)


def _strings(ctx: Context, value: Value) -> Value:
    return to_string(value, ctx)


def _string_function(name: str, *aliases: str, arity: int | tuple[int, ...], kinds: str, out_type: pa.DataType):
    """Register ``fn(*values)`` whose arguments are converted by ``kinds`` (``s`` String, ``i`` int)."""
    def register(fn):
        def impl(ctx: Context, args: list[Value]) -> Value:
            converted = [_strings(ctx, a) if kind == "s" else _ints(ctx, a) for kind, a in zip(kinds, args)]
            return per_row(ctx, fn, out_type, *converted)

        scalar_function(name, *aliases, arity=arity)(impl)
        return fn

    return register


def _ordinal_index_of(s: str, find: str, ordinal: int) -> int:
    """``StringUtils.ordinalIndexOf``: occurrences may overlap; -1 when fewer than ``ordinal``; 0 for ""."""
    if ordinal <= 0:
        return -1
    if find == "":
        return 0
    index = -1
    for _ in range(ordinal):
        index = _find(s, find, index + 1)
        if index < 0:
            return -1
    return index


_string_function("strpos", arity=2, kinds="ss", out_type=pa.int32())(lambda s, find: _find(s, find, 0))
_string_function("strpos", arity=3, kinds="ssi", out_type=pa.int32())(_ordinal_index_of)
_string_function("strrpos", arity=2, kinds="ss", out_type=pa.int32())(lambda s, find: _rfind(s, find, 2**31 - 1))
# StringUtils.lastIndexOf(s, find, startPos): a start position, not an occurrence count
_string_function("strrpos", arity=3, kinds="ssi", out_type=pa.int32())(_rfind)


def _left(s: str, n: int) -> str:
    """``StringUtils.left``: the first ``n`` UTF-16 units ("" for a negative ``n``)."""
    return "" if n < 0 else _java_substring(s, 0, n)


def _right(s: str, n: int) -> str:
    if n < 0:
        return ""
    total = len(_utf16(s)) // 2
    return s if n >= total else _java_substring(s, total - n, None)


_string_function("leftSubStr", "left", arity=2, kinds="si", out_type=pa.string())(_left)
_string_function("rightSubStr", "right", arity=2, kinds="si", out_type=pa.string())(_right)


@_string_function("substring", arity=(2, 3), kinds="sii", out_type=pa.string())
def _substring(s: str, begin: int, length: int | None = None) -> str:
    """1-based ``substring(s, begin[, length])``: ``StringUtils.substring(s, begin - 1, begin - 1 + length)``
    with Java's int arithmetic (wrapping)."""
    begin = _wrap_int(begin - 1)
    return _java_substring(s, begin, None if length is None else _wrap_int(begin + length))


def _wrap_int(v: int) -> int:
    return ((v + 2**31) % 2**32) - 2**31


@_string_function("repeat", arity=2, kinds="si", out_type=pa.string())
def _repeat(s: str, times: int) -> str:
    """``StringUtils.repeat``: "" for ``times <= 0``."""
    if times <= 0:
        return ""
    _check_repeated(len(_utf16(s)) // 2 * times, "repeat(s, n)")
    return s * times


@_string_function("repeat", arity=3, kinds="ssi", out_type=pa.string())
def _repeat_separated(s: str, separator: str, times: int) -> str:
    if times <= 0:
        return ""
    _check_repeated((len(_utf16(s)) + len(_utf16(separator))) // 2 * times, "repeat(s, separator, n)")
    return separator.join([s] * times)


_MAX_STRING = 2**31 - 2
# The longest text repeat builds here, in UTF-16 units (as the 2^24 elements of a generated array): beyond it
# a JVM builds gigabytes with heap enough (and Pinot stores the value cut at the column's maxLength), this
# package would exhaust the machine or Arrow's 2 GB of text per batch; the row fails saying so
_MAX_REPEATED = 1 << 24


def _check_repeated(length: int, call: str) -> None:
    if length > _MAX_STRING:
        raise JavaThrows("OutOfMemoryError: the repeated string is longer than a Java string can be")
    if length > _MAX_REPEATED:
        raise JavaThrows(f"{call} would make a text of {length:,} characters, over the {_MAX_REPEATED:,} this "
                         f"package builds (refused here: a JVM with heap enough allocates it)")


@_string_function("hammingDistance", arity=2, kinds="ss", out_type=pa.int32())
def _hamming(a: str, b: str) -> int:
    """Differing UTF-16 units; -1 when the lengths differ."""
    x, y = _units(a), _units(b)
    return -1 if len(x) != len(y) else sum(1 for p, q in zip(x, y) if p != q)


@_string_function("levenshteinDistance", arity=2, kinds="ss", out_type=pa.int32())
def _levenshtein(a: str, b: str) -> int:
    x, y = _units(a), _units(b)
    previous = list(range(len(y) + 1))
    for i, p in enumerate(x, 1):
        current = [i]
        for j, q in enumerate(y, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (p != q)))
        previous = current
    return previous[-1]


@_string_function("strcmp", arity=2, kinds="ss", out_type=pa.int32())
def _strcmp(a: str, b: str) -> int:
    """``String.compareTo``: the difference of the first differing UTF-16 units, else of the lengths."""
    x, y = _units(a), _units(b)
    for p, q in zip(x, y):
        if p != q:
            return p - q
    return len(x) - len(y)


@_string_function("codepoint", arity=1, kinds="s", out_type=pa.int32())
def _codepoint(s: str) -> int:
    if s == "":
        raise JavaThrows("StringIndexOutOfBoundsException: codePointAt(0) of an empty string")
    return ord(lone_surrogates.current().java_chars(s[0]))  # a lone surrogate: its unit


@_string_function("chr", arity=1, kinds="i", out_type=pa.string())
def _chr(codepoint: int) -> str:
    """``Character.toChars``; a surrogate code point is a lone surrogate (its marker, lone_surrogates.py)."""
    if not 0 <= codepoint <= 0x10FFFF:
        raise JavaThrows(f"IllegalArgumentException: Not a valid Unicode code point: {codepoint:#X}")
    if 0xD800 <= codepoint <= 0xDFFF:
        return lone_surrogates.current().marker(codepoint)
    return chr(codepoint)


@_string_function("ascii", arity=1, kinds="s", out_type=pa.int32())
def _ascii(s: str) -> int:
    """The first UTF-16 unit (0 for "")."""
    return _units(s[:1])[0] if s else 0


@_string_function("space", arity=1, kinds="i", out_type=pa.string())
def _space(n: int) -> str:
    if n <= 0:
        return ""
    _check_repeated(n, "space(n)")
    return " " * n


@_string_function("firstLine", arity=1, kinds="s", out_type=pa.string())
def _first_line(s: str) -> str:
    """The text before the first '\\n' or '\\r'."""
    for i, ch in enumerate(s):
        if ch in "\n\r":
            return s[:i]
    return s


@_string_function("substringIndex", arity=3, kinds="ssi", out_type=pa.string())
def _substring_index(s: str, delimiter: str, count: int) -> str:
    """Before the count-th delimiter (after the count-th from the end when negative); the whole text when there
    are fewer (occurrences may overlap, as ``StringUtils.ordinalIndexOf``)."""
    if count == 0 or delimiter == "":
        return ""
    if count > 0:
        index = -1
        for _ in range(count):
            index = s.find(delimiter, index + 1)
            if index < 0:
                return s
        return s[:index]
    index = len(s)
    for _ in range(-count):  # StringUtils.lastOrdinalIndexOf
        index = s.rfind(delimiter, 0, index - 1 + len(delimiter)) if index > 0 else -1
        if index < 0:
            return s
    return s[index + len(delimiter):]


_NORMALIZATION_FORMS = ("NFC", "NFD", "NFKC", "NFKD")


def _check_form(args: list) -> None:
    if len(args) > 1 and isinstance(args[1], str) and args[1] not in _NORMALIZATION_FORMS:
        raise ValueError(f"the normalization form must be one of {', '.join(_NORMALIZATION_FORMS)} "
                         f"(Normalizer.Form.valueOf), got {args[1]!r}")


@scalar_function("normalize", arity=(1, 2), literal_args=(1,), check=_check_form)
def _normalize(ctx: Context, args: list[Value]) -> Value:
    """``Normalizer.normalize`` (NFC by default), with this Python's Unicode tables."""
    import unicodedata

    form = to_string(args[1], ctx).value if len(args) > 1 else "NFC"
    if form not in _NORMALIZATION_FORMS:
        raise IngestionError(f"{ctx.where}: IllegalArgumentException: No enum constant Normalizer.Form.{form}")
    return per_row(ctx, lambda s: unicodedata.normalize(form, s), pa.string(), _text(ctx, args[0]))


@scalar_function("remove", arity=2)
def _remove(ctx: Context, args: list[Value]) -> Value:
    text = _text(ctx, args[0])
    search = to_string(args[1], ctx)
    if isinstance(search, Const):
        return text if search.value == "" else pc.replace_substring(text, pattern=search.value, replacement="")
    return per_row(ctx, lambda s, find: s if find == "" else s.replace(find, ""), pa.string(), text, search)


@scalar_function("octetLength", arity=1)
def _octet_length(ctx: Context, args: list[Value]) -> Value:
    # getBytes(UTF_8).length: a lone surrogate is one byte ('?'), not its marker's three (java_utf8)
    return pc.binary_length(java_utf8(_text(ctx, args[0]))).cast(pa.int32())


@scalar_function("bitLength", arity=1)
def _bit_length(ctx: Context, args: list[Value]) -> Value:
    return pc.multiply(pc.binary_length(java_utf8(_text(ctx, args[0]))).cast(pa.int32()), 8)


@scalar_function("charLength", "characterLength", arity=1)
def _char_length(ctx: Context, args: list[Value]) -> Value:
    """Code points (``codePointCount``), unlike ``length``."""
    return pc.utf8_length(_text(ctx, args[0])).cast(pa.int32())


@scalar_function("isValidASCII", arity=1)
def _is_valid_ascii(ctx: Context, args: list[Value]) -> Value:
    return pc.string_is_ascii(_text(ctx, args[0]))


def _upper_char(ch: str) -> str:
    """``Character.toUpperCase(char)``: the simple mapping (a character whose upper case is several, as 'ß', is
    kept; a character outside the BMP is two chars Java leaves as they are)."""
    if ord(ch) > 0xFFFF:
        return ch
    upper = ch.upper()
    return upper if len(upper) == 1 else ch


def _lower_char(ch: str) -> str:
    if ord(ch) > 0xFFFF:
        return ch
    if ch == "\u0130":  # the simple lower case of 'İ' is 'i' (the full one adds a combining dot)
        return "i"
    lower = ch.lower()
    return lower if len(lower) == 1 else ch


@_string_function("initcap", arity=1, kinds="s", out_type=pa.string())
def _initcap(s: str) -> str:
    """Upper-cases the first character after Java white space, lower-cases the others."""
    out, capitalize = [], True
    for ch in s:
        if _java_whitespace(ch):
            out.append(ch)
            capitalize = True
        else:
            out.append(_upper_char(ch) if capitalize else _lower_char(ch))
            capitalize = False
    return "".join(out)


def _same_ignoring_case(a: str, b: str) -> bool:
    """``String.regionMatches(true, ...)`` on one character each."""
    if a == b:
        return True
    ua, ub = _upper_char(a), _upper_char(b)
    return ua == ub or _lower_char(ua) == _lower_char(ub)


def _starts_ci(s: str, prefix: str) -> bool:
    return len(prefix) <= len(s) and all(_same_ignoring_case(p, q) for p, q in zip(s, prefix))


_string_function("startsWithCaseInsensitive", arity=2, kinds="ss", out_type=pa.bool_())(_starts_ci)
_string_function("endsWithCaseInsensitive", arity=2, kinds="ss", out_type=pa.bool_())(
    lambda s, suffix: _starts_ci(s[::-1], suffix[::-1]))


@_string_function("translate", arity=3, kinds="sss", out_type=pa.string())
def _translate(s: str, source: str, target: str) -> str:
    """Each UTF-16 unit found in ``source`` becomes the unit at the same index of ``target``, or is dropped
    when ``target`` is shorter."""
    if s == "" or source == "":
        return s
    source_units, target_units = _units(source), _units(target)
    out = []
    for unit in _units(s):
        index = source_units.index(unit) if unit in source_units else -1
        if index < 0:
            out.append(unit)
        elif index < len(target_units):
            out.append(target_units[index])
    return _from_utf16(b"".join(u.to_bytes(2, "little") for u in out))


@_string_function("overlay", arity=(3, 4), kinds="ssii", out_type=pa.string())
def _overlay(s: str, replacement: str, start: int, length: int | None = None) -> str:
    """Replaces ``length`` UTF-16 units (the replacement's length by default) from 1-based ``start``."""
    units = _utf16(s)
    n = len(units) // 2
    if length is None:
        length = len(_utf16(replacement)) // 2
    begin = max(0, min(_wrap_int(start - 1), n))
    end = min(_wrap_int(begin + max(0, length)), n)
    if end < 0:
        raise JavaThrows(f"StringIndexOutOfBoundsException: begin {end}, end {n}, length {n}")
    return _from_utf16(units[:2 * begin] + _utf16(replacement) + units[2 * end:])  # a cut pair meets again


@_string_function("trim", arity=3, kinds="sss", out_type=pa.string())
def _trim_characters(end: str, characters: str, s: str) -> str:
    """``trim(BOTH|LEADING|TRAILING, characters, s)``: UTF-16 units found in ``characters`` removed from that
    end (any other first argument trims nothing)."""
    units, chars = _units(s), set(_units(characters))
    begin, stop = 0, len(units)
    if end in ("BOTH", "LEADING"):
        while begin < stop and units[begin] in chars:
            begin += 1
    if end in ("BOTH", "TRAILING"):
        while begin < stop and units[stop - 1] in chars:
            stop -= 1
    return s if (begin, stop) == (0, len(units)) else _from_utf16(_utf16(s)[2 * begin:2 * stop])


def _affixes(s: str, max_length: int, prefix: bool, extra: str | None = None) -> list[str]:
    """``prefixes`` / ``suffixes``: the first / last 1..min(maxlength, length) UTF-16 units, with ``extra``
    before a prefix / after a suffix."""
    units = _utf16(s)
    n = len(units) // 2
    if min(max_length, n) < 0:
        raise JavaThrows("NegativeArraySizeException")
    out = []
    for size in range(1, min(max_length, n) + 1):
        part = _from_utf16(units[:2 * size] if prefix else units[2 * (n - size):])
        out.append(part if extra is None else (extra + part if prefix else part + extra))
    return out


_string_function("prefixes", arity=2, kinds="si", out_type=pa.list_(pa.string()))(
    lambda s, n: _affixes(s, n, True))
_string_function("suffixes", arity=2, kinds="si", out_type=pa.list_(pa.string()))(
    lambda s, n: _affixes(s, n, False))


def _affixes_with(prefix: bool):
    def impl(ctx: Context, args: list[Value]) -> Value:
        """``nullableParameters``: a null prefix / suffix means none; a null text or length is Java's
        ``NullPointerException`` (the row fails)."""
        text = _text(ctx, args[0])
        size = broadcast(to_int(args[1], ctx), ctx.num_rows, pa.int32())
        extra = to_string(args[2], ctx)
        ctx.fail(text.is_null() if text.null_count else np.zeros(len(text), np.bool_), "NullPointerException", text)
        ctx.fail(size.is_null() if size.null_count else np.zeros(len(size), np.bool_), "NullPointerException", size)
        if isinstance(extra, Const):
            return per_row(ctx, lambda s, n: _affixes(s, n, prefix, extra.value), pa.list_(pa.string()), text, size)
        out, failed = [], []
        for s, n, e in zip(text.to_pylist(), size.to_pylist(), extra.to_pylist()):
            try:
                out.append(None if s is None or n is None else _affixes(s, n, prefix, e))
                failed.append(False)
            except JavaThrows:
                out.append(None)
                failed.append(True)
        ctx.fail(np.array(failed, np.bool_), "NegativeArraySizeException", size)
        return pa.array(out, pa.list_(pa.string()))

    return impl


scalar_function("prefixesWithPrefix", arity=3, nullable=True)(_affixes_with(True))
scalar_function("suffixesWithSuffix", arity=3, nullable=True)(_affixes_with(False))


# --- soundex / difference (commons-codec's US English Soundex), isJson (Jackson's reader) ---------------------
# ``soundex`` keeps the letters (``Character.isLetter``), upper-cases them (``ß`` is ``SS``) and maps A..Z; a
# letter outside A..Z (``É``) is commons-codec's ``IllegalArgumentException``: the row fails. ``soundex('')`` is
# ``0000``; a text without letters gives ``''``, on which ``difference`` fails. ``isJson`` is true when Jackson
# reads a JSON value from the start of the text (what follows it is ignored, but a root-level number must end
# at white space; ``NaN``, single quotes and comments are not JSON). Checked against Pinot's own build
# (tests/fixtures/functions/strings_extra.jsonl).

_MAPPING = "01230120022455012623010202"


def soundex(text: str) -> str:
    if text == "":
        return "0000"
    letters = "".join(c for c in text if c.isalpha() and ord(c) < 0x10000).upper()
    if not letters:
        return ""

    def code(c: str) -> str:
        index = ord(c) - ord("A")
        if not 0 <= index < len(_MAPPING):
            raise JavaThrows(f"IllegalArgumentException: The character is not mapped: {c}")
        return _MAPPING[index]

    out = [letters[0]]
    last = code(letters[0])
    for c in letters[1:]:
        if len(out) == 4:
            break
        if c in "HW":
            continue
        digit = code(c)
        if digit != "0" and digit != last:
            out.append(digit)
        last = digit
    return "".join(out).ljust(4, "0")


def difference(a: str, b: str) -> int:
    x, y = soundex(a), soundex(b)
    if len(x) < 4 or len(y) < 4:
        raise JavaThrows("StringIndexOutOfBoundsException: a text without letters has no Soundex code")
    return sum(1 for i in range(4) if x[i] == y[i])


def _no_constant(name: str):
    raise ValueError(name)


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def is_json(text: str) -> bool:
    stripped = text.lstrip(" \t\r\n")
    if not stripped:
        return True  # Jackson reads no value (a missing node), no exception
    if not within_jackson_limits(stripped):
        return False
    try:
        value, end = _DECODER.raw_decode(stripped)
    except ValueError:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        # Jackson wants white space after a root-level number (so no leading zeros: '01')
        return end == len(stripped) or stripped[end] in " \t\r\n"
    return True


@scalar_function("soundex", arity=1, nullable=True)
def _soundex(ctx: Context, args: list[Value]) -> Value:
    # (nullable, so a literal comes as a Const, not broadcast by the evaluator: per_row needs a column)
    return per_row(ctx, soundex, pa.string(), broadcast(to_string(args[0], ctx), ctx.num_rows, pa.string()))


@scalar_function("difference", arity=2)
def _difference(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, difference, pa.int32(), to_string(args[0], ctx), to_string(args[1], ctx))


@scalar_function("isJson", arity=1)
def _is_json(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, is_json, pa.bool_(), to_string(args[0], ctx))
