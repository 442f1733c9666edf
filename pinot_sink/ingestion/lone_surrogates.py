"""Half of a surrogate pair inside the pipeline: a Java String's lone surrogate, which Arrow's UTF-8 text cannot hold.

Java strings are UTF-16; Pinot's functions (``substr``, ``left``, ``lpad`` / ``rpad``, ``prefixes``, ``chr``...) can
cut an emoji into two lone surrogates, and Java sees the pair again wherever a high surrogate (0xD800..0xDBFF) ends
up right before a low one (0xDC00..0xDFFF): ``concat(left(s, 1), substr(s, 1))`` is the emoji again. Here each
lone surrogate met in a batch is a *marker*: a BMP character (one UTF-16 unit, as the surrogate is, so Java's
lengths and indexes stay right under Arrow's kernels) that stands for one unit, given out in the order units are
met from a pool: the noncharacters U+FDD1..U+FDEF, U+FFFE, U+FFFF (Unicode keeps them for a program's internal
use), then the private use area U+E000..U+F8FF, 6,433 in all, more than the 2,048 units. So:

* a marker remembers its unit: ``codepoint`` / ``ascii``, ``String.compareTo`` orders (``strcmp``, sorted
  arrays) and UTF-16 arithmetic (functions/string_functions.py's ``_utf16``) read the unit (``java_chars``), and
  ``StringBuilder.reverse`` is done on the units;
* every function's result goes through ``LoneSurrogates.rejoin`` (``evaluate._call``, the one place all results
  pass), which makes a high marker followed by a low one the character they form, as Java's String would read
  it: concatenation, padding, replacement, joined arrays alike. It costs one attribute test per call until the
  batch made both a high and a low marker;
* encoding to UTF-8 (``getBytes``: ``toUtf8``, the hashes) gives '?' for it, as Java's encoder does, and a
  stored text holding one fails the build as Pinot's statistics pass does ("Unpaired surrogate at index N",
  ``pipeline.py``).

A user's text never collides with a marker: the markers are per batch (a ``scope`` the pipeline opens around
each batch), and the first time a batch needs one, the pool characters its input columns (nested ones too) and
the expressions' literals hold are taken out of the pool for that batch. Left to chance: a pool character a
function makes inside the batch from numbers or bytes (``chr(57344)``, ``fromUtf8``, a JSON escape), which reads
as the marker it equals if the batch gave that one out, and a regular expression naming surrogates
(``[\\uDC00-\\uDFFF]``, ``\\p{Cs}``), which does not match a marker. Should the pool run out (an input using
thousands of its characters), a unit gets U+FDD0, the unknown half: it never rejoins, reads as the unit 0xFDD0,
and still fails the build when stored (docs/ingestion.md, "Mirrors").
"""
from __future__ import annotations

import contextlib
import re
import threading
from typing import Any, Callable, Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from javalib import jsonpath

UNKNOWN_HALF = "\ufdd0"  # a lone surrogate whose unit is not known: the fallback once the pool is used up
_POOL = "".join(map(chr, [*range(0xFDD1, 0xFDF0), 0xFFFE, 0xFFFF, *range(0xE000, 0xF900)]))
_POOL_RE2 = r"[\x{FDD0}-\x{FDEF}\x{FFFE}\x{FFFF}\x{E000}-\x{F8FF}]"  # any pool character, or U+FDD0 (Arrow)
_POOL_PY = re.compile("[\ufdd0-\ufdef\ufffe\uffff\ue000-\uf8ff]")
MAY_HOLD_ONE = _POOL_PY  # a text without a match holds no marker (a quick test before a per-value look-up)
_LONE_PY = re.compile("[\ud800-\udfff]")  # (in a str decoded with surrogatepass, only the unpaired ones)


def _char_class(chars: Iterable[str], re2: bool) -> str:
    """A regular expression character class of ``chars`` (as ranges), for Arrow's RE2 or Python's re."""
    points = sorted(map(ord, chars))
    ranges: list[list[int]] = []
    for p in points:
        if ranges and ranges[-1][1] == p - 1:
            ranges[-1][1] = p
        else:
            ranges.append([p, p])
    show = (lambda p: f"\\x{{{p:X}}}") if re2 else chr
    return "[" + "".join(show(a) if a == b else f"{show(a)}-{show(b)}" for a, b in ranges) + "]"


class LoneSurrogates:
    """The markers of one batch (``scope``), or of a thread outside any batch."""

    def __init__(self, taken: Callable[[], Iterable[str]] | None = None) -> None:
        self._taken_source = taken  # the pool characters the batch's own text uses, worked out when first needed
        self._taken: set[str] | None = None
        self._next = 0
        self.markers: dict[int, str] = {}  # unit -> marker
        self.units: dict[str, int] = {}  # marker -> unit
        self.unknown = False  # UNKNOWN_HALF given out
        self.made = False  # any marker given out: only then do the checks below look at text
        self.pairs = False  # a high and a low marker given out: only then can a result need rejoining
        self._stale = False
        self._to_units: dict[int, str] = {}
        self._any_re2 = self._pair_re2 = ""
        self._any_py = self._pair_py = None

    # -- making markers ---------------------------------------------------------------------------------

    def marker(self, unit: int) -> str:
        """The marker of the lone surrogate ``unit`` (0xD800..0xDFFF) in this batch."""
        found = self.markers.get(unit)
        if found is not None:
            return found
        if self._taken is None:
            self._taken = set(self._taken_source()) if self._taken_source is not None else set()
        while self._next < len(_POOL) and _POOL[self._next] in self._taken:
            self._next += 1
        if self._next == len(_POOL):
            self.unknown = True
            found = UNKNOWN_HALF
        else:
            found = _POOL[self._next]
            self._next += 1
            self.markers[unit] = found
            self.units[found] = unit
        self._changed()
        return found

    def _changed(self) -> None:
        if not self.made:
            IN_USE[0] += 1
        self.made = True
        self._stale = True
        self.pairs = self.pairs or (any(u < 0xDC00 for u in self.units.values())
                                    and any(u >= 0xDC00 for u in self.units.values()))

    def _fresh(self) -> None:
        """The patterns and the translation table of the markers given out so far (built when read)."""
        if not self._stale:
            return
        self._stale = False
        shown = [*self.units, *([UNKNOWN_HALF] if self.unknown else [])]
        self._any_re2 = _char_class(shown, True)
        self._any_py = re.compile(_char_class(shown, False))
        self._to_units = {ord(m): chr(u) for m, u in self.units.items()}
        if self.pairs:
            high = [m for m, u in self.units.items() if u < 0xDC00]
            low = [m for m, u in self.units.items() if u >= 0xDC00]
            self._pair_re2 = _char_class(high, True) + _char_class(low, True)
            self._pair_py = re.compile(_char_class(high, False) + _char_class(low, False))

    def from_utf16(self, data: bytes) -> str:
        """UTF-16LE units as pipeline text: pairs are characters, a lone surrogate its marker."""
        try:
            return data.decode("utf-16-le")
        except UnicodeDecodeError:
            text = data.decode("utf-16-le", "surrogatepass")
            return _LONE_PY.sub(lambda m: self.marker(ord(m.group())), text)

    def from_java(self, text: str) -> str:
        """A Python str that may hold lone surrogates (an expression's literal, ``'\\ude00x'``) as pipeline
        text: each one its marker (two that form a pair, their character)."""
        if _LONE_PY.search(text) is None:
            return text
        return self.from_utf16(text.encode("utf-16-le", "surrogatepass"))

    # -- reading them ------------------------------------------------------------------------------------

    def java_chars(self, text: str) -> str:
        """``text`` with each marker the lone surrogate it stands for (a Python str holds one): Java's chars."""
        if not self.units:
            return text
        self._fresh()
        return text.translate(self._to_units) if self._any_py.search(text) else text  # (translate is slow)

    def is_marker(self, char: str) -> bool:
        return char in self.units or (self.unknown and char == UNKNOWN_HALF)

    def first_index(self, text: str) -> int | None:
        """The UTF-16 index of the first lone surrogate of ``text``, or None."""
        if not self.made:
            return None
        self._fresh()
        found = self._any_py.search(text)
        if found is None:
            return None
        return len(text[:found.start()].encode("utf-16-le", "surrogatepass")) // 2

    def rows_holding(self, array: pa.Array) -> np.ndarray | None:
        """Rows of a text (or multi-value text) column holding a lone surrogate, or None when none does."""
        if not self.made:
            return None
        self._fresh()
        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks()
        if pa.types.is_list(array.type) or pa.types.is_large_list(array.type):
            flat = pc.list_flatten(array)
            if not _is_text(flat.type):
                return None
            hits = pc.fill_null(pc.match_substring_regex(flat, self._any_re2), False).to_numpy(zero_copy_only=False)
            if not hits.any():
                return None
            parents = pc.list_parent_indices(array).to_numpy(zero_copy_only=False)
            return np.bincount(parents[hits], minlength=len(array)) > 0
        if not _is_text(array.type):
            return None
        hits = pc.fill_null(pc.match_substring_regex(array, self._any_re2), False).to_numpy(zero_copy_only=False)
        return hits if hits.any() else None

    def replaced(self, text: pa.Array, replacement: str) -> pa.Array:
        """A text column with every lone surrogate replaced (Java's encoders write '?' for one)."""
        if not self.made:
            return text
        self._fresh()
        return pc.replace_substring_regex(text, self._any_re2, replacement)

    # -- rejoining ---------------------------------------------------------------------------------------

    def rejoin(self, value: Any) -> Any:
        """A function's result with each high marker that is followed by a low one made the character the two
        units form (Java's String has the pair again): a text column, a column of lists of texts, or a str."""
        if not self.pairs:
            return value
        self._fresh()
        if isinstance(value, str):
            return self._pair_py.sub(self._joined, value)
        if isinstance(value, pa.Array):
            if _is_text(value.type):
                return self._rejoin_text(value)
            if isinstance(value.type, (pa.ListType, pa.LargeListType)) and _is_text(value.type.value_type):
                values = self._rejoin_text(value.values)
                if values is value.values:
                    return value
                return type(value).from_arrays(value.offsets, values,
                                               mask=value.is_null() if value.null_count else None)
        return value

    def _joined(self, match: re.Match) -> str:
        high, low = self.units[match.group()[0]], self.units[match.group()[1]]
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))

    def _rejoin_text(self, text: pa.Array) -> pa.Array:
        hits = pc.match_substring_regex(text, self._pair_re2)
        if not pc.any(hits).as_py():
            return text
        mask = pc.fill_null(hits, False)
        joined = [self._pair_py.sub(self._joined, s) for s in text.filter(mask).to_pylist()]
        return pc.replace_with_mask(text, mask, pa.array(joined, text.type))


# How many batches (or threads outside one) hold markers right now: while none does, the per-value helpers
# (functions/string_functions.py's UTF-16 arithmetic) need not look for one
IN_USE = [0]


def _is_text(arrow_type: pa.DataType) -> bool:
    return pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type)


_LOCAL = threading.local()


def current() -> LoneSurrogates:
    """The markers in use on this thread: the running batch's, else the thread's own."""
    state = getattr(_LOCAL, "state", None)
    if state is None:
        state = _LOCAL.state = LoneSurrogates()
    return state


# The ported JsonPath compares texts as Java's chars: there too a marker reads as the unit it stands for.
jsonpath.read_text_with(lambda text: current().java_chars(text))


@contextlib.contextmanager
def scope(taken: Callable[[], Iterable[str]] | None = None):
    """Fresh markers for one batch; ``taken``: the pool characters the batch's own text holds (asked for only
    when the batch first needs a marker, see ``pool_characters``)."""
    before = getattr(_LOCAL, "state", None)
    _LOCAL.state = state = LoneSurrogates(taken)
    try:
        yield state
    finally:
        _LOCAL.state = before
        if state.made:
            IN_USE[0] -= 1


def pool_characters(arrays: Iterable[pa.Array | pa.ChunkedArray], literals: Iterable[str] = ()) -> set[str]:
    """The characters of the marker pool (and U+FDD0) that the texts of ``arrays`` (lists, structs and maps
    looked into) and ``literals`` hold."""
    found: set[str] = set()
    for text in literals:
        found.update(_POOL_PY.findall(text))
    for array in arrays:
        for leaf in _text_leaves(array):
            hits = pc.fill_null(pc.match_substring_regex(leaf, _POOL_RE2), False)
            if pc.any(hits).as_py():
                for s in leaf.filter(hits).to_pylist():
                    found.update(_POOL_PY.findall(s))
    return found


def _text_leaves(array) -> Iterable[pa.Array]:
    if isinstance(array, pa.ChunkedArray):
        for chunk in array.chunks:
            yield from _text_leaves(chunk)
        return
    t = array.type
    if _is_text(t):
        yield array
    elif isinstance(t, pa.MapType):
        yield from _text_leaves(array.keys)
        yield from _text_leaves(array.items)
    elif isinstance(t, (pa.ListType, pa.LargeListType, pa.FixedSizeListType)):
        yield from _text_leaves(array.flatten())
    elif isinstance(t, pa.StructType):
        for i in range(t.num_fields):
            yield from _text_leaves(array.field(i))
    elif isinstance(t, pa.DictionaryType):
        yield from _text_leaves(array.dictionary)
