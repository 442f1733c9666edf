"""String functions (StringFunctions, string/StringFunctions), with Java's String semantics.

Java strings count UTF-16 code units: ``length`` and ``substr`` indexes differ from code points only for
characters outside the Basic Multilingual Plane (emoji); a batch holding such characters is done per
distinct value with UTF-16 arithmetic, any other batch with Arrow's kernels. ``trim`` removes the
characters up to U+0020 (``String.trim``), not Unicode white space.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..values import Const, Context, IngestionError, Value, broadcast, to_int, to_string
from .registry import scalar_function

_JAVA_TRIM = "".join(chr(i) for i in range(0x21))
_REGEX_SPACE = " \t\n\x0b\f\r"  # Java's \s (ltrim / rtrim strip ^\s+ / \s+$)
_ASTRAL = r"[\x{10000}-\x{10FFFF}]"


def _text(ctx: Context, value: Value) -> pa.Array:
    return broadcast(to_string(value, ctx), ctx.num_rows, pa.string())


def _has_astral(text: pa.Array) -> bool:
    return bool(pc.any(pc.match_substring_regex(text, _ASTRAL)).as_py())


def _per_value(text: pa.Array, fn: Callable[[str], object], out_type: pa.DataType) -> pa.Array:
    encoded = pc.dictionary_encode(text)
    return pa.array([fn(s) for s in encoded.dictionary.to_pylist()], out_type).take(encoded.indices)


def _utf16(s: str) -> bytes:
    return s.encode("utf-16-le", "surrogatepass")


def _from_utf16(b: bytes) -> str:
    """A Java substring may cut a surrogate pair; Pinot stores such a lone surrogate as '?' (UTF-8 encoder)."""
    return b.decode("utf-16-le", "surrogatepass").encode("utf-8", "replace").decode("utf-8")


@scalar_function("lower", arity=1)
def _lower(ctx: Context, args: list[Value]) -> Value:
    return pc.utf8_lower(_text(ctx, args[0]))


@scalar_function("upper", arity=1)
def _upper(ctx: Context, args: list[Value]) -> Value:
    return pc.utf8_upper(_text(ctx, args[0]))


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
    return _per_value(text, lambda s: None if s is None else _java_substring(s, begin, end), pa.string())


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
    return pc.utf8_reverse(_text(ctx, args[0]))


def _pad(left: bool):
    def impl(ctx: Context, args: list[Value]) -> Value:
        text = _text(ctx, args[0])
        size = to_int(args[1], ctx).value
        pad = to_string(args[2], ctx).value or " "  # StringUtils: empty pad is a space
        if len(pad) == 1 and not _has_astral(text) and len(_utf16(pad)) == 2:
            return (pc.utf8_lpad if left else pc.utf8_rpad)(text, width=max(size, 0), padding=pad)

        def one(s: str | None) -> str | None:
            if s is None:
                return None
            missing = size - len(_utf16(s)) // 2
            if missing <= 0:
                return s
            filler = (pad * (missing // len(pad) + 1))[:missing]
            return filler + s if left else s + filler

        return _per_value(text, one, pa.string())

    return impl


scalar_function("lpad", arity=3, literal_args=(1, 2))(_pad(True))
scalar_function("rpad", arity=3, literal_args=(1, 2))(_pad(False))


def _split_whole(s: str, delimiter: str | None) -> list[str]:
    """``StringUtils.splitByWholeSeparator``: runs of the separator are one, no empty tokens."""
    if delimiter is None or delimiter == "":
        return s.split()
    return [part for part in s.split(delimiter) if part]


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
        fields = s.split()
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
    return _per_value(text, lambda s: None if s is None else _split_part(s, delimiter, index), pa.string())


def drop_empty_strings(lists: pa.Array) -> pa.Array:
    """Remove empty strings from each list of a list<string> array (vectorised)."""
    flat = pc.list_flatten(lists)
    keep = pc.not_equal(pc.utf8_length(flat), 0)
    parents = pc.list_parent_indices(lists)
    counts = np.bincount(parents.filter(keep).to_numpy(zero_copy_only=False), minlength=len(lists))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    values = flat.filter(keep)
    mask = lists.is_null()
    return pa.ListArray.from_arrays(pa.array(offsets), values, mask=mask if lists.null_count else None)


@scalar_function("split", "stringToArray", arity=2, literal_args=(1,))
def _split(ctx: Context, args: list[Value]) -> Value:
    text = _text(ctx, args[0])
    delimiter = to_string(args[1], ctx).value
    if not delimiter:
        return _per_value(text, lambda s: None if s is None else s.split(), pa.list_(pa.string()))
    return drop_empty_strings(pc.split_pattern(text, pattern=delimiter))


@scalar_function("startsWith", arity=2, literal_args=(1,))
def _starts_with(ctx: Context, args: list[Value]) -> Value:
    return pc.starts_with(_text(ctx, args[0]), pattern=to_string(args[1], ctx).value)


@scalar_function("endsWith", arity=2, literal_args=(1,))
def _ends_with(ctx: Context, args: list[Value]) -> Value:
    return pc.ends_with(_text(ctx, args[0]), pattern=to_string(args[1], ctx).value)


@scalar_function("contains", arity=2, literal_args=(1,))
def _contains(ctx: Context, args: list[Value]) -> Value:
    return pc.match_substring(_text(ctx, args[0]), pattern=to_string(args[1], ctx).value)
