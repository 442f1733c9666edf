"""Pinot dateTime formats and granularities, and vectorised conversion of instants into them.

A Pinot ``DATE_TIME`` field has a ``format`` (``DateTimeFormatSpec``) in one of two spellings:

* colon: ``size:UNIT:EPOCH``, ``size:UNIT:TIMESTAMP``, ``size:UNIT:SIMPLE_DATE_FORMAT:pattern[ tz(Zone)]``
* pipe:  ``EPOCH[|UNIT[|size]]``, ``TIMESTAMP``, ``SIMPLE_DATE_FORMAT[|pattern[|Zone]]``

and a ``granularity`` ``size:UNIT`` or ``UNIT[|size]``. Conversion follows ``fromMillisToFormat``:
EPOCH is ``TimeUnit.convert(millis) / size`` with Java's integer division (truncation toward zero,
which differs from flooring only before 1970), TIMESTAMP is epoch millis, SIMPLE_DATE_FORMAT prints a
Joda pattern in the format's zone (UTC unless given) with an English locale.

Java patterns are compiled into a list of Arrow string pieces (year, zero-padded month, literal, ...)
joined element-wise, so printing is vectorised; pattern letters without a vectorised meaning raise.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

MILLIS_PER_UNIT: dict[str, int] = {
    "NANOSECONDS": 0,  # finer than a millisecond: see SUB_MILLIS_PER_MILLI
    "MICROSECONDS": 0,
    "MILLISECONDS": 1,
    "SECONDS": 1_000,
    "MINUTES": 60_000,
    "HOURS": 3_600_000,
    "DAYS": 86_400_000,
}
SUB_MILLIS_PER_MILLI = {"NANOSECONDS": 1_000_000, "MICROSECONDS": 1_000}
MILLIS_PER_DAY = 86_400_000
# Milliseconds in one unit, fractional below a millisecond: segment start/end times in any unit -> millis.
UNIT_MILLIS: dict[str, float] = {**MILLIS_PER_UNIT, "NANOSECONDS": 1e-6, "MICROSECONDS": 1e-3}
# TimeUtils.VALID_MIN_TIME_MILLIS / VALID_MAX_TIME_MILLIS: Pinot only takes segment times in 1971..2071 (UTC).
VALID_MIN_TIME_MS = 31_536_000_000
VALID_MAX_TIME_MS = 3_187_296_000_000


class DateTimeFormatError(ValueError):
    """A dateTime format, granularity or pattern this package cannot handle."""


@dataclass(frozen=True)
class DateTimeFormat:
    """A parsed Pinot dateTime format."""

    kind: str  # "EPOCH", "TIMESTAMP" or "SIMPLE_DATE_FORMAT"
    unit: str = "MILLISECONDS"
    size: int = 1
    pattern: str | None = None  # SIMPLE_DATE_FORMAT only; None means ISO dateTimeNoMillis
    time_zone: str = "UTC"

    @property
    def is_epoch(self) -> bool:
        return self.kind == "EPOCH"

    @property
    def is_string(self) -> bool:
        return self.kind == "SIMPLE_DATE_FORMAT"

    def to_pipe(self) -> str:
        if self.kind == "EPOCH":
            return f"EPOCH|{self.unit}|{self.size}"
        if self.kind == "TIMESTAMP":
            return "TIMESTAMP"
        parts = ["SIMPLE_DATE_FORMAT", self.pattern or ""]
        if self.time_zone != "UTC":
            parts.append(self.time_zone)
        return "|".join(parts)


_TZ_SUFFIX = re.compile(r"^(.+)( tz *\((.+)\)) *$")


def parse_format(text: str) -> DateTimeFormat:
    """Parse a Pinot dateTime ``format`` string (both spellings)."""
    if not text:
        raise DateTimeFormatError("a dateTime field needs a format")
    if text[0].isdigit():
        tokens = text.split(":", 3)
        if len(tokens) < 3:
            raise DateTimeFormatError(f"invalid dateTime format {text!r}: expected 'size:UNIT:FORMAT[:pattern]'")
        size_text, unit, kind = tokens[0], tokens[1], tokens[2]
        if kind == "EPOCH":
            return DateTimeFormat("EPOCH", _unit(unit, text), _size(size_text, text))
        if kind == "TIMESTAMP":
            return DateTimeFormat("TIMESTAMP")
        if kind == "SIMPLE_DATE_FORMAT":
            pattern = tokens[3] if len(tokens) > 3 else None
            zone = "UTC"
            match = _TZ_SUFFIX.match(pattern) if pattern else None
            if match:
                pattern, zone = match.group(1), match.group(3).strip()
            return _sdf(pattern, zone, text)
        raise DateTimeFormatError(f"invalid time format {kind!r} in dateTime format {text!r}")
    tokens = text.split("|", 2)
    kind = tokens[0]
    if kind == "EPOCH":
        unit = _unit(tokens[1], text) if len(tokens) > 1 else "MILLISECONDS"
        size = _size(tokens[2], text) if len(tokens) > 2 else 1
        return DateTimeFormat("EPOCH", unit, size)
    if kind == "TIMESTAMP":
        return DateTimeFormat("TIMESTAMP")
    if kind == "SIMPLE_DATE_FORMAT":
        pattern = tokens[1] if len(tokens) > 1 else None
        zone = tokens[2].strip() if len(tokens) > 2 else "UTC"
        return _sdf(pattern, zone, text)
    raise DateTimeFormatError(f"invalid time format {kind!r} in dateTime format {text!r}")


def _sdf(pattern: str | None, zone: str, text: str) -> DateTimeFormat:
    fmt = DateTimeFormat("SIMPLE_DATE_FORMAT", pattern=pattern or None, time_zone=zone or "UTC")
    if fmt.pattern:
        compile_pattern(fmt.pattern)  # fail at planning time, not in a task
    return fmt


def _unit(unit: str, text: str) -> str:
    if unit not in MILLIS_PER_UNIT:
        raise DateTimeFormatError(
            f"time unit {unit!r} in dateTime format {text!r} is not supported "
            f"(supported: {', '.join(MILLIS_PER_UNIT)})"
        )
    return unit


def _size(size_text: str, text: str) -> int:
    try:
        size = int(size_text)
    except ValueError:
        raise DateTimeFormatError(f"invalid size {size_text!r} in dateTime format {text!r}") from None
    if size <= 0:
        raise DateTimeFormatError(f"invalid size {size} in dateTime format {text!r}: must be positive")
    return size


def parse_granularity(text: str) -> tuple[int, str]:
    """``size:UNIT`` or ``UNIT[|size]`` -> (size, unit)."""
    if not text:
        raise DateTimeFormatError("a dateTime field needs a granularity")
    if text[0].isdigit():
        size_text, _, unit = text.partition(":")
    else:
        unit, _, size_text = text.partition("|")
        size_text = size_text or "1"
    if unit not in MILLIS_PER_UNIT:
        raise DateTimeFormatError(f"invalid time unit {unit!r} in granularity {text!r}")
    try:
        size = int(size_text)
    except ValueError:
        raise DateTimeFormatError(f"invalid size {size_text!r} in granularity {text!r}") from None
    if size <= 0:
        raise DateTimeFormatError(f"invalid size {size} in granularity {text!r}: must be positive")
    return size, unit


# --- millis -> format ------------------------------------------------------------------------------


def millis_to_format(millis: pa.Array, fmt: DateTimeFormat) -> pa.Array:
    """Epoch millis (int64, nulls kept) -> the format's values: int64 for EPOCH/TIMESTAMP, else string."""
    millis = millis.cast(pa.int64())
    if fmt.kind == "TIMESTAMP":
        return millis
    if fmt.kind == "EPOCH":
        return _millis_to_epoch(millis, fmt)
    instants = millis.cast(pa.timestamp("ms", tz="UTC"))
    if fmt.pattern is None:  # ISODateTimeFormat.dateTimeNoMillis in UTC
        return print_pattern(instants, "yyyy-MM-dd'T'HH:mm:ss'Z'", "UTC")
    return print_pattern(instants, fmt.pattern, fmt.time_zone)


def _millis_to_epoch(millis: pa.Array, fmt: DateTimeFormat) -> pa.Array:
    values = pc.fill_null(millis, 0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    sub = SUB_MILLIS_PER_MILLI.get(fmt.unit)
    in_unit = values * sub if sub is not None else _java_div(values, MILLIS_PER_UNIT[fmt.unit])
    out = _java_div(in_unit, fmt.size)
    mask = millis.is_null().to_numpy(zero_copy_only=False) if millis.null_count else None
    return pa.array(out, type=pa.int64(), mask=mask)


def _java_div(values: np.ndarray, divisor: int) -> np.ndarray:
    """Java's long division: the quotient truncated toward zero."""
    if divisor == 1:
        return values
    quotient = np.abs(values) // divisor
    return np.where(values < 0, -quotient, quotient)


def days_to_format(days: pa.Array, fmt: DateTimeFormat) -> pa.Array:
    """Days since epoch (a DATE) -> the format, as midnight UTC of that day."""
    millis = pc.multiply(days.cast(pa.int64()), pa.scalar(MILLIS_PER_DAY, pa.int64()))
    return millis_to_format(millis, fmt)


# --- Joda / SimpleDateFormat patterns, vectorised --------------------------------------------------

_SUPPORTED_LETTERS = "GyYMdHkKhmsSaEDZz"


@dataclass(frozen=True)
class _Token:
    letter: str  # "" for literal text
    count: int = 0
    text: str = ""


def compile_pattern(pattern: str) -> list[_Token]:
    """Split a Java date pattern into letter runs and literals; raise on letters not supported."""
    tokens: list[_Token] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "'":
            end = i + 1
            literal = []
            while True:
                if end >= len(pattern):
                    raise DateTimeFormatError(f"unterminated quote in date pattern {pattern!r}")
                if pattern[end] == "'":
                    if end + 1 < len(pattern) and pattern[end + 1] == "'":
                        literal.append("'")
                        end += 2
                        continue
                    break
                literal.append(pattern[end])
                end += 1
            tokens.append(_Token("", text="".join(literal) if end > i + 1 else "'"))
            i = end + 1
        elif ch.isascii() and ch.isalpha():
            if ch not in _SUPPORTED_LETTERS:
                raise DateTimeFormatError(
                    f"date pattern letter {ch!r} in {pattern!r} is not supported "
                    f"(supported: {' '.join(_SUPPORTED_LETTERS)})"
                )
            run = i
            while run < len(pattern) and pattern[run] == ch:
                run += 1
            tokens.append(_Token(ch, run - i))
            i = run
        else:
            tokens.append(_Token("", text=ch))
            i += 1
    return tokens


def _padded(values: pa.Array, width: int) -> pa.Array:
    text = values.cast(pa.string())
    return pc.utf8_lpad(text, width=width, padding="0") if width > 1 else text


def print_pattern(instants: pa.Array, pattern: str, time_zone: str = "UTC") -> pa.Array:
    """Format timestamps with a Java date pattern in a time zone, as Joda would (English locale)."""
    try:
        local = instants.cast(pa.timestamp("ms", tz=time_zone))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise DateTimeFormatError(f"unknown time zone {time_zone!r} in a date pattern") from exc
    pieces: list[pa.Array | str] = []
    for token in compile_pattern(pattern):
        pieces.append(token.text if not token.letter else _piece(local, token))
    if not pieces:
        return pa.array([""] * len(instants), pa.string(), mask=instants.is_null())
    arrays = [p if isinstance(p, (pa.Array, pa.ChunkedArray)) else pa.scalar(p, pa.string()) for p in pieces]
    return pc.binary_join_element_wise(*arrays, pa.scalar("", pa.string()))


def _piece(local: pa.Array, token: _Token) -> pa.Array:
    letter, n = token.letter, token.count
    if letter in "yY":
        year = pc.year(local)
        if n == 2:
            return _padded(pc.subtract(year, pc.multiply(pc.divide(year, 100), 100)), 2)
        return _padded(year, n)
    if letter == "M":
        if n >= 4:
            return pc.strftime(local, format="%B", locale="C")
        if n == 3:
            return pc.strftime(local, format="%b", locale="C")
        return _padded(pc.month(local), n)
    if letter == "d":
        return _padded(pc.day(local), n)
    if letter == "D":
        return _padded(pc.day_of_year(local), n)
    if letter == "H":
        return _padded(pc.hour(local), n)
    if letter == "k":  # 1-24
        hour = pc.hour(local)
        return _padded(pc.if_else(pc.equal(hour, 0), 24, hour), n)
    if letter == "K":  # 0-11
        return _padded(pc.subtract(pc.hour(local), pc.multiply(pc.divide(pc.hour(local), 12), 12)), n)
    if letter == "h":  # 1-12
        half = pc.subtract(pc.hour(local), pc.multiply(pc.divide(pc.hour(local), 12), 12))
        return _padded(pc.if_else(pc.equal(half, 0), 12, half), n)
    if letter == "m":
        return _padded(pc.minute(local), n)
    if letter == "s":
        return _padded(pc.second(local), n)
    if letter == "S":  # fraction of second: the first n digits of the millis (then zeros)
        millis = _padded(pc.millisecond(local), 3)
        return pc.utf8_rpad(pc.utf8_slice_codeunits(millis, 0, n), width=n, padding="0")
    if letter == "a":
        return pc.if_else(pc.less(pc.hour(local), 12), "AM", "PM")
    if letter == "E":
        return pc.strftime(local, format="%A" if n >= 4 else "%a", locale="C")
    if letter == "G":
        return pc.if_else(pc.greater(pc.year(local), 0), "AD", "BC")
    if letter == "Z":
        offset = pc.strftime(local, format="%z", locale="C")  # +hhmm
        if n == 1:
            return offset
        return pc.binary_join_element_wise(
            pc.utf8_slice_codeunits(offset, 0, 3), pc.utf8_slice_codeunits(offset, 3, 5), ":"
        )
    if letter == "z":
        return pc.strftime(local, format="%Z", locale="C")
    raise DateTimeFormatError(f"date pattern letter {letter!r} is not supported")  # pragma: no cover


def java_timestamp_string(millis: pa.Array) -> pa.Array:
    """``java.sql.Timestamp.toString`` in UTC: ``yyyy-MM-dd HH:mm:ss.f`` (fraction without trailing zeros)."""
    instants = millis.cast(pa.int64()).cast(pa.timestamp("ms", tz="UTC"))
    base = print_pattern(instants, "yyyy-MM-dd HH:mm:ss", "UTC")
    fraction = pc.replace_substring_regex(_padded(pc.millisecond(instants), 3), r"(\d)0+$", r"\1")
    return pc.binary_join_element_wise(base, fraction, ".")
