"""NgramFunctions: ``uniqueNgrams`` / ``generateUniqueNgrams`` (one length, or a range of them) and their ``MV``
forms, over UTF-16 units as Java's ``substring`` cuts them, first-seen order (``ObjectLinkedOpenHashSet``), once
per distinct value; checked against Pinot's own build (tests/fixtures/functions/strings_extra.jsonl,
round3_ngram_lengths.jsonl).
"""
from __future__ import annotations

import pyarrow as pa

from ..values import Context, Value, to_int, to_string
from .array_functions import to_array
from .registry import scalar_function
from .rowwise import JavaThrows, per_row
from .string_functions import _from_utf16, _utf16


def _utf16_substrings(text: str, lengths) -> list[str]:
    """The distinct substrings of the given UTF-16 lengths, in order (``ObjectLinkedOpenHashSet``), as Java's
    ``substring`` cuts them (a cut surrogate pair stored as ``?``, as the string functions do)."""
    units = _utf16(text)
    size = len(units) // 2
    seen: dict[str, None] = {}
    for n in lengths:
        if n < 0:
            raise JavaThrows(f"StringIndexOutOfBoundsException: begin 0, end {n}, length {size}")
        for i in range(0, size - n + 1):
            seen.setdefault(_from_utf16(units[2 * i:2 * (i + n)]), None)
    return list(seen)


def _int32(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


def _gram_lengths(size: int, low: int, high: int) -> list[int]:
    """The lengths ``for (n = low; n <= high && n <= size; n++)`` cuts grams of: a negative one whose inner
    loop runs (``i <= size - n`` in int arithmetic, which wraps for n near Integer.MIN_VALUE) cuts with a
    negative end, which throws; without walking the 2^31 lengths below it."""
    top = min(high, size)
    if low < 0:
        first = max(low, size - 2**31 + 1)  # below it size - n wraps negative: no grams
        if first < 0 and first <= top:
            _utf16_substrings("", [first])  # Java's StringIndexOutOfBoundsException
        low = 1
    return [n for n in range(max(low, 1), top + 1)]


def unique_ngrams(text: str, length: int) -> list[str]:
    size = len(text.encode("utf-16-le", "surrogatepass")) // 2
    if length == 0 or length > size or _int32(size - length + 1) <= 0:  # (the loop's bound wraps)
        return []
    return _utf16_substrings(text, [length])


def unique_ngrams_range(text: str, low: int, high: int) -> list[str]:
    size = len(text.encode("utf-16-le", "surrogatepass")) // 2
    return _utf16_substrings(text, _gram_lengths(size, low, high))


def unique_ngrams_mv(texts: tuple, low: int, high: int | None = None) -> list[str]:
    single = high is None
    if (single and low <= 0) or not texts:
        return []
    out: dict[str, None] = {}
    for text in texts:
        if text is None:
            continue
        size = len(text.encode("utf-16-le", "surrogatepass")) // 2
        if low > size:
            continue
        lengths = [low] if single else _gram_lengths(size, low, high)
        for gram in _utf16_substrings(text, lengths):
            out.setdefault(gram, None)
    return list(out)


@scalar_function("uniqueNgrams", "generateUniqueNgrams", arity=2)
def _unique_ngrams(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, unique_ngrams, pa.list_(pa.string()), to_string(args[0], ctx), to_int(args[1], ctx))


@scalar_function("uniqueNgrams", "generateUniqueNgrams", arity=3)
def _unique_ngrams_range(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, unique_ngrams_range, pa.list_(pa.string()), to_string(args[0], ctx), to_int(args[1], ctx),
                   to_int(args[2], ctx))


@scalar_function("uniqueNgramsMV", "generateUniqueNgramsMV", arity=(2, 3))
def _unique_ngrams_mv(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, unique_ngrams_mv, pa.list_(pa.string()), to_array(args[0], "String", ctx),
                   *(to_int(a, ctx) for a in args[1:]))
