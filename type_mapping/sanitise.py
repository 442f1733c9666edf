"""Pinot's sanitisation of text and bytes (``SanitizationTransformerUtils``), the stage after a column's values
are converted: STRING cut at the first NUL, then STRING / JSON / BYTES held to ``maxLength`` by the column's
``maxLengthExceedStrategy`` (or an error, ``convert.on-oversize-string``)."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .compat import ConversionError
from .conversion_context import ConversionContext, np_mask
from .java_text import java_substring
from .stored import offsets_and_data


def _length_strategy(ctx: ConversionContext) -> str:
    spec = ctx.spec
    if spec.max_length_exceed_strategy:  # the table owner chose: honour it
        return spec.max_length_exceed_strategy.upper()
    if spec.data_type == "STRING" and ctx.options.on_oversize_string == "error":
        return "ERROR"
    return spec.effective_max_length_strategy


def sanitise_text(values: pa.Array, ctx: ConversionContext) -> pa.Array:
    spec = ctx.spec
    strategy = _length_strategy(ctx)
    if spec.data_type != "STRING" and strategy == "NO_ACTION":
        return values  # Pinot sanitises JSON only when a strategy is set
    # Pre-checks on the raw buffers, a few ms per million values: no zero byte means no NUL, and no value
    # of more than maxLength UTF-8 bytes means none of more than maxLength UTF-16 code units (a character
    # takes at least as many UTF-8 bytes as code units). Only a column failing one is scanned per value.
    offsets, data = offsets_and_data(values)
    if data.size and int(data.min()) == 0:
        has_nul = pc.match_substring(values, "\x00")
        if pc.any(has_nul).as_py():
            if strategy == "ERROR":
                ctx.fail(has_nul, "contains a NUL character, which Pinot cuts strings at", values,
                         "remove it, or set maxLengthExceedStrategy in the Pinot schema")
            values = pc.replace_substring_regex(values, "(?s)\x00.*$", "")
            offsets, data = offsets_and_data(values)
    if strategy == "NO_ACTION" or len(values) == 0 or int(np.diff(offsets).max()) <= spec.max_length:
        return values
    # Java's String.length(): UTF-16 code units, so a character beyond U+FFFF counts twice.
    astral = pc.count_substring_regex(values, _ASTRAL)
    too_long = pc.greater(pc.add(pc.utf8_length(values), astral), spec.max_length)
    if not pc.any(too_long).as_py():
        return values
    if strategy == "ERROR":
        ctx.fail(too_long, f"is longer than the column's maxLength {spec.max_length}", values,
                 "raise maxLength in the Pinot schema, or set option 'convert.on-oversize-string'=pinot to truncate "
                 "as Pinot would")
    if strategy == "TRIM_LENGTH":
        trimmed = pc.if_else(too_long, pc.utf8_slice_codeunits(values, 0, spec.max_length), values)
        tricky = pc.and_(too_long, pc.greater(astral, 0))
        if not pc.any(tricky).as_py():
            return trimmed
        # rows with characters beyond U+FFFF: Java's substring, per value (rare)
        texts = trimmed.to_pylist()
        cut = np.zeros(len(values), dtype=np.bool_)
        for index in np.flatnonzero(np_mask(tricky)):
            text = values[int(index)].as_py()
            cut[index] = _cuts_a_pair(text, spec.max_length)
            texts[index] = java_substring(text, spec.max_length)
        # Pinot's substring then leaves half a surrogate pair, on which its builder's statistics pass fails (a
        # mirror, docs/ingestion.md: with continueOnError too, or a corrupt segment)
        ctx.fail(cut, f"is cut at maxLength {spec.max_length} inside a surrogate pair (an emoji cut in half), "
                      f"on which Pinot's build fails (IllegalArgumentException: Unpaired surrogate at index "
                      f"{spec.max_length - 1})", values,
                 "raise maxLength in the Pinot schema, or cut the text where a character begins")
        return pa.array(texts, pa.string())
    if strategy == "SUBSTITUTE_DEFAULT_VALUE":
        return pc.if_else(too_long, pa.scalar(str(spec.default_null_value), pa.string()), values)
    raise ConversionError(f"column {spec.name!r}: unknown maxLengthExceedStrategy {strategy}")


_ASTRAL = r"[\x{10000}-\x{10FFFF}]"


def _cuts_a_pair(text: str, units: int) -> bool:
    """Whether Java's ``text.substring(0, units)`` ends between the two halves of a surrogate pair."""
    used = 0
    for ch in text:
        width = 2 if ord(ch) > 0xFFFF else 1
        if used + width > units:
            return used < units
        used += width
    return False


def sanitise_bytes(values: pa.Array, ctx: ConversionContext) -> pa.Array:
    spec = ctx.spec
    strategy = _length_strategy(ctx)
    if strategy == "NO_ACTION":
        return values
    too_long = pc.greater(pc.binary_length(values), spec.max_length)
    if not pc.any(too_long).as_py():
        return values
    if strategy == "ERROR":
        ctx.fail(too_long, f"is longer than the column's maxLength {spec.max_length} bytes", values)
    if strategy == "TRIM_LENGTH":
        return pc.if_else(too_long, pc.binary_slice(values, 0, spec.max_length), values)
    if strategy == "SUBSTITUTE_DEFAULT_VALUE":
        return pc.if_else(too_long, pa.scalar(spec.default_null_value, pa.binary()), values)
    raise ConversionError(f"column {spec.name!r}: unknown maxLengthExceedStrategy {strategy}")
