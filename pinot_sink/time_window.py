"""Time-window backfills (issue 13): which segments a window replaces, and which rows belong to it.

One home for the window rules:

* ``parse_time_range``: ``overwrite.time-range`` / ``--replace-time-range`` text -> ``TimeWindow`` (start
  inclusive, end exclusive, epoch millis) or ``DYNAMIC``. Each end is epoch millis, an ISO date
  (``2024-03-01``: midnight) or an ISO datetime; UTC unless it carries an offset (``+01:00``, ``Z``) or a
  zone in brackets (``2024-03-01T00:00[Europe/Paris]``).
* ``classify``: one segment against one window, by Pinot's rule for selecting segments by time
  (``PinotHelixResourceManager.isSegmentWithinTimeStamps``, behind ``GET /segments/{t}/select``): with the
  segment's ``[start, end]`` in millis (its min and max time value, both inclusive) and the window
  ``[s, e)``, *inside* when ``s <= start and end < e``, *outside* when ``end < s or start >= e``, else
  *straddling*. A segment without a time range (start and end both -1) is selected by every window; one
  with start > end by none.
* ``select_replaced``: what a window replace takes out. Inside segments; straddling ones and ones without
  a time range are an error listing them (Pinot cannot split a segment), unless ``include_straddling``,
  which replaces exactly what Pinot's select returns with ``excludeOverlapping=false``.
* ``plan_window``: the checks of a write's window options against the table, made once on the driver.
* Buckets (``sink.time-bucket``, dynamic mode): a row's bucket is ``floor(millis / bucket)``, in UTC.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any, Iterable, Mapping

import numpy as np

from type_mapping.datetime_formats import VALID_MIN_TIME_MS
from type_mapping.errors import PinotSinkError
from type_mapping.table_config import TableConfig

from pinot_sink.storage.tarballs import NO_TIME_MS

from .replacing import replacing_for

DYNAMIC = "dynamic"
BUCKET_MS = {"day": 86_400_000, "hour": 3_600_000}

INSIDE, OUTSIDE, STRADDLING, NO_TIME, INVALID = "inside", "outside", "straddling", "no time range", "invalid"

_ZONE = re.compile(r"^(.*)\[([^\]]+)\]$")
_LIST_AT_MOST = 20


class TimeWindowError(PinotSinkError, ValueError):
    """A window that cannot be parsed or applied; the message says why (callers add the option's name)."""


class StraddlingSegmentsError(TimeWindowError):
    """Segments that a window replace can neither keep nor replace without dropping rows outside it."""


@dataclass(frozen=True)
class TimeWindow:
    """``[start_ms, end_ms)`` in epoch millis."""

    start_ms: int
    end_ms: int

    def __str__(self) -> str:
        return f"{format_ms(self.start_ms)}/{format_ms(self.end_ms)}"


def format_ms(millis: int) -> str:
    """``2024-03-01T00:00:00Z`` (with ``.123`` when there are millis): how errors show an instant."""
    moment = datetime.fromtimestamp(millis / 1000, tz=timezone.utc)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    return f"{text}{f'.{millis % 1000:03d}' if millis % 1000 else ''}Z"


def parse_instant(text: str) -> int:
    """Epoch millis, an ISO date or an ISO datetime (UTC unless an offset or ``[Zone/Id]`` is given)."""
    stripped = text.strip()
    if re.fullmatch(r"-?\d+", stripped):
        return int(stripped)
    zone = None
    bracket = _ZONE.match(stripped)
    if bracket:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        stripped = bracket.group(1).strip()
        try:
            zone = ZoneInfo(bracket.group(2).strip())
        except (ZoneInfoNotFoundError, ValueError):
            raise TimeWindowError(f"unknown time zone {bracket.group(2)!r} in {text!r}") from None
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", stripped):
            moment = datetime.combine(date.fromisoformat(stripped), datetime.min.time())
        else:
            moment = datetime.fromisoformat(stripped.replace("z", "Z"))
    except ValueError:
        raise TimeWindowError(
            f"{text!r} is neither epoch millis, an ISO date (2024-03-01) nor an ISO datetime "
            f"(2024-03-01T06:00:00Z, 2024-03-01T06:00+01:00, 2024-03-01T06:00[Europe/Paris])"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone or timezone.utc)
    elif zone is not None:
        raise TimeWindowError(f"{text!r} gives both an offset and a zone")
    return int(moment.timestamp() * 1000)


def parse_time_range(text: str, *, dynamic: bool = True) -> TimeWindow | str:
    """``START/END`` -> ``TimeWindow``; ``dynamic`` -> ``DYNAMIC`` (with ``dynamic``: an overwrite's; a read's or
    a compaction's range is a window only)."""
    stripped = str(text).strip()
    if dynamic and stripped.lower() == DYNAMIC:
        return DYNAMIC
    parts = re.split(r"/(?![^\[]*\])", stripped)  # not the '/' of a zone id in brackets
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise TimeWindowError(f"{text!r} is not START/END (example: 2024-03-01/2024-03-08, end exclusive)"
                              + (" nor 'dynamic'" if dynamic else ""))
    window = TimeWindow(parse_instant(parts[0]), parse_instant(parts[1]))
    if window.start_ms >= window.end_ms:
        raise TimeWindowError(f"{text!r}: the start must be before the end (the end is exclusive)")
    refuse_epoch_seconds(window, parts, text)
    return window


def refuse_epoch_seconds(window: TimeWindow, ends: Iterable[Any], given: Any) -> None:
    """Epoch seconds given as the millis asked land in January 1970, where Pinot keeps no segment (its time
    check refuses times before 1971): a read, a compaction or a replace would match nothing, silently."""
    numbers = all((isinstance(e, int) and not isinstance(e, bool)) or str(e).strip().lstrip("-").isdigit()
                  for e in ends)
    if numbers and window.end_ms <= VALID_MIN_TIME_MS:
        iso = [datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
               for ms in (window.start_ms, window.end_ms)]
        raise TimeWindowError(f"{given!r} is epoch millis before 1971 ({iso[0]}..{iso[1]}), where Pinot keeps no "
                              "segment time: were they epoch seconds? give milliseconds (x1000) or ISO dates")


# --- Pinot's selection rule ----------------------------------------------------------------------------


def classify(start_ms: int | None, end_ms: int | None, window: TimeWindow) -> str:
    """One segment (its time range in millis; None or -1 when it has none) against one window."""
    start = NO_TIME_MS if start_ms is None else int(start_ms)
    end = NO_TIME_MS if end_ms is None else int(end_ms)
    if start == NO_TIME_MS and end == NO_TIME_MS:
        return NO_TIME
    if start > end:
        return INVALID
    if window.start_ms <= start and end < window.end_ms:
        return INSIDE
    if end < window.start_ms or start >= window.end_ms:
        return OUTSIDE
    return STRADDLING


def pinot_selects(start_ms: int | None, end_ms: int | None, window: TimeWindow, *,
                  exclude_overlapping: bool) -> bool:
    """Whether Pinot's ``GET /segments/{t}/select`` returns the segment for this window."""
    verdict = classify(start_ms, end_ms, window)
    return verdict in (INSIDE, NO_TIME) or (verdict == STRADDLING and not exclude_overlapping)


def merge_windows(windows: Iterable[TimeWindow]) -> list[TimeWindow]:
    """Sorted, with touching or overlapping windows joined (two adjacent days are one two-day window)."""
    merged: list[TimeWindow] = []
    for window in sorted(windows, key=lambda w: w.start_ms):
        if merged and window.start_ms <= merged[-1].end_ms:
            merged[-1] = TimeWindow(merged[-1].start_ms, max(merged[-1].end_ms, window.end_ms))
        else:
            merged.append(window)
    return merged


def classify_in(start_ms: int | None, end_ms: int | None, windows: list[TimeWindow]) -> str:
    """Against several (merged) windows: inside one, straddling one, or outside all."""
    verdicts = {classify(start_ms, end_ms, w) for w in windows}
    for verdict in (NO_TIME, INVALID, INSIDE, STRADDLING):
        if verdict in verdicts:
            return verdict
    return OUTSIDE


def select_replaced(time_ranges: Mapping[str, tuple[int | None, int | None]], windows: Iterable[TimeWindow], *,
                    include_straddling: bool, straddling_hint: str = "overwrite.straddling=include") -> set[str]:
    """The segments (name -> (start ms, end ms)) a replace of ``windows`` takes out; see the module doc."""
    merged = merge_windows(windows)
    if not merged:
        return set()
    verdicts = {name: classify_in(start, end, merged) for name, (start, end) in time_ranges.items()}
    doubtful = sorted(n for n, v in verdicts.items() if v in (STRADDLING, NO_TIME))
    if doubtful and not include_straddling:
        shown = ", ".join(f"{n} [{_describe_range(*time_ranges[n])}]" for n in doubtful[:_LIST_AT_MOST])
        more = f" and {len(doubtful) - _LIST_AT_MOST} more" if len(doubtful) > _LIST_AT_MOST else ""
        raise StraddlingSegmentsError(
            f"{len(doubtful)} segment(s) straddle the edge of {describe_windows(merged)} or have no time range, "
            f"and Pinot cannot split a segment: {shown}{more}. Widen the window to cover them, rewrite them "
            f"first with `pinot-sink compact` (the segments it merges come out one segment per day, or per hour "
            f"with --bucket hour; --min-segment-size above theirs takes big ones; every row kept: "
            f"docs/compaction.md), or set {straddling_hint} to replace them whole (their rows outside the "
            f"window are dropped)"
        )
    return {n for n, v in verdicts.items() if v == INSIDE or (include_straddling and v in (STRADDLING, NO_TIME))}


def _describe_range(start: int | None, end: int | None) -> str:
    if start in (None, NO_TIME_MS) and end in (None, NO_TIME_MS):
        return "no time range"
    return f"{format_ms(int(start))} .. {format_ms(int(end))}"


def describe_windows(windows: list[TimeWindow]) -> str:
    shown = ", ".join(str(w) for w in windows[:5])
    return f"window {shown}" if len(windows) == 1 else f"windows {shown}{' ...' if len(windows) > 5 else ''}"


# --- buckets ---------------------------------------------------------------------------------------------


def bucket_keys(millis: np.ndarray, bucket_ms: int) -> np.ndarray:
    """The bucket of each instant: ``floor(millis / bucket_ms)`` (UTC days or hours)."""
    return np.floor_divide(np.asarray(millis, dtype=np.int64), bucket_ms)


def windows_of_buckets(keys: Iterable[int], bucket_ms: int) -> list[TimeWindow]:
    """One window per bucket present, merged where they touch."""
    return merge_windows(TimeWindow(int(k) * bucket_ms, (int(k) + 1) * bucket_ms) for k in set(keys))


def rows_outside(millis: np.ndarray, window: TimeWindow) -> tuple[int, int | None]:
    """How many instants fall outside the window, and the first of them (in row order)."""
    mask = (millis < window.start_ms) | (millis >= window.end_ms)
    count = int(np.count_nonzero(mask))
    return count, (int(millis[int(np.argmax(mask))]) if count else None)


# --- a write's plan --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WindowPlan:
    """What a write's window options mean for this table; made on the driver, used by tasks and commit."""

    time_column: str
    window: TimeWindow | None = None  # overwrite.time-range=START/END
    dynamic_bucket_ms: int | None = None  # overwrite.time-range=dynamic: the buckets whose segments go
    cut_bucket_ms: int | None = None  # sink.time-bucket: tasks cut segments on these boundaries
    include_straddling: bool = False

    @property
    def replaces_by_time(self) -> bool:
        return self.window is not None or self.dynamic_bucket_ms is not None


def plan_window(time_range: TimeWindow | str | None, time_bucket: str | None, include_straddling: bool, *,
                table_config: TableConfig, schema: Any, overwrite: bool, streaming: bool,
                naming_kind: str) -> WindowPlan | None:
    """Check the window options against the table and the write mode; None when none is set.

    Raises ``TimeWindowError`` whose message starts with the option at fault."""
    if time_range is None and time_bucket is None:
        return None
    table = table_config.table_name
    if time_range is not None:
        if table_config.push_type.upper() == "REFRESH":
            raise TimeWindowError(
                f"option 'overwrite.time-range': table {table} is a REFRESH table (segmentIngestionType "
                f"REFRESH), whose every push replaces the whole table; use mode('overwrite') without the option")
        if streaming:
            raise TimeWindowError("option 'overwrite.time-range' is for batch writes; a streaming query appends")
        if not overwrite:
            raise TimeWindowError("option 'overwrite.time-range' replaces segments: it needs mode('overwrite')")
        if not replacing_for(naming_kind).lineage:
            raise TimeWindowError("option 'overwrite.time-range' cannot be used with segment-name.type=fixed "
                                  "(a fixed name is replaced by a refresh of that one segment)")
    option = "overwrite.time-range" if time_range is not None else "sink.time-bucket"
    time_column = table_config.time_column
    if time_column is None:
        raise TimeWindowError(f"option {option!r}: table {table} has no time column (segmentsConfig."
                              f"timeColumnName), so its segments have no time range")
    if schema is not None and time_column not in schema:
        raise TimeWindowError(f"option {option!r}: the time column {time_column!r} is not in the Pinot schema")
    cut_ms = BUCKET_MS[time_bucket] if time_bucket else None
    dynamic_ms = None
    if time_range == DYNAMIC:
        frequency = (table_config.push_frequency or "").upper()
        if frequency in ("DAILY", "HOURLY"):
            dynamic_ms = BUCKET_MS["day" if frequency == "DAILY" else "hour"]
        elif cut_ms is not None:
            dynamic_ms = cut_ms
        elif naming_kind == "normalizedDate":
            dynamic_ms = BUCKET_MS["day"]
        else:
            raise TimeWindowError(
                "option 'overwrite.time-range'=dynamic replaces each day or hour present in the data, but table "
                f"{table} names no push frequency (DAILY or HOURLY in batchIngestionConfig."
                "segmentIngestionFrequency): set segment-name.type=normalizedDate (days) or sink.time-bucket")
    return WindowPlan(time_column=time_column, window=time_range if isinstance(time_range, TimeWindow) else None,
                      dynamic_bucket_ms=dynamic_ms, cut_bucket_ms=cut_ms, include_straddling=include_straddling)
