"""The ``...MV`` date/time functions (DateTimeFunctions): the single-value function applied to each element of
a multi-value argument, and ``timezoneHour`` / ``timezoneMinute``.

Pinot loops the single-value function over the ``long[]`` / ``String[]``: here the elements of the whole batch
are evaluated at once by the single-value implementation, and an element it fails on fails its row (Java's
loop throws). The array argument is converted as every array parameter is (``array.to_array``: a null element
of a ``long[]`` fails the row). Pinot stores a ``String[]`` result (``toDateTimeMV``, ``toIso8601MV``) in a
multi-value column; a primitive ``int[]`` / ``long[]`` result reaches a multi-value column only through another
function (``arrayToString(yearMV(t), ',')``): stored directly it is Pinot's ``ClassCastException`` (issue 23,
cause 2, applied where results are stored).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.joda_zones import ZoneError, joda_zone, to_local

from ..expression import canonicalize
from ..values import (Const, Context, IngestionError, Value, broadcast, first_elements, is_list, null_mask,
                      to_long, to_string)
from .array_functions import to_array
from .registry import REGISTRY, scalar_function
from .rowwise import JavaThrows, per_row


def _zone(ctx: Context, value: Value) -> str:
    if not isinstance(value, Const):  # every argument a literal: the evaluator made the first one a column
        value = Const(value[0].as_py(), "STRING")
    text = to_string(value, ctx).value
    try:
        return joda_zone(text)
    except ZoneError as exc:
        raise IngestionError(f"{ctx.where}: {exc} (IllegalArgumentException in Joda's DateTimeZone.forID)") from None


def _offsets(ctx: Context, args: list[Value]) -> tuple[np.ndarray, np.ndarray]:
    zone = _zone(ctx, args[0])
    if len(args) == 1:
        millis = np.zeros(ctx.num_rows, np.int64)
        mask = np.zeros(ctx.num_rows, np.bool_)
    else:
        array = broadcast(to_long(args[1], ctx), ctx.num_rows, pa.int64())
        mask = null_mask(array)
        millis = pc.fill_null(array, 0).to_numpy(zero_copy_only=False)
    # Joda's getOffset never overflows: before 1716 every zone is at its first offset (its local mean time),
    # and far ahead its last rule repeats with the Gregorian calendar's 400-year cycle (dates and weekdays
    # alike): such instants are read at one of the same offset inside the zone tables' reach
    late = millis >= _LATE + _CYCLE
    proxies = np.where(millis < _FIRST_INSTANT, _FIRST_INSTANT, millis)
    if late.any():
        proxies[late] = _LATE + (millis[late] - _LATE) % _CYCLE
    return to_local(proxies, zone) - proxies, mask


_FIRST_INSTANT = -8_000_000_000_000  # 1716
_CYCLE = 146_097 * 86_400_000  # 400 Gregorian years
_LATE = 7_258_118_400_000  # 2200-01-01


@scalar_function("timezoneHour", arity=(1, 2), literal_args=(0,))
def _timezone_hour(ctx: Context, args: list[Value]) -> Value:
    offset, mask = _offsets(ctx, args)
    hours = np.fix(offset / 3_600_000).astype(np.int32)  # TimeUnit.toHours: truncated
    return pa.array(hours, pa.int32(), mask=mask if mask.any() else None)


@scalar_function("timezoneMinute", arity=(1, 2), literal_args=(0,))
def _timezone_minute(ctx: Context, args: list[Value]) -> Value:
    offset, mask = _offsets(ctx, args)
    minutes = np.fix(offset / 60_000).astype(np.int64)
    return pa.array(np.fmod(minutes, 60).astype(np.int32), pa.int32(), mask=mask if mask.any() else None)


def _per_element(sv_name: str, arity: int, position: int, kind: str):
    """The MV form of ``sv_name``: its argument ``position`` is a ``kind`` array, each element run through the
    single-value implementation (the other arguments repeated per element)."""
    sv = REGISTRY[canonicalize(sv_name)][arity]

    def impl(ctx: Context, args: list[Value]) -> Value:
        lists = to_array(args[position], kind, ctx)
        args = list(args)
        for i, a in enumerate(args):  # a multi-value where the function takes one value: FunctionInvoker
            if i != position and is_list(a):
                # converts it before the call, elements or not: an empty one, or text that is no number for a long
                # parameter (the only kind these take besides their literal patterns, units and zones), fails the
                # row; the elements' calls then take its first element (values.first_elements)
                first = first_elements(a, ctx)
                if i not in sv.literal_args:
                    to_long(first, ctx)
                args[i] = first
        flat = pc.list_flatten(lists)
        parents = pc.list_parent_indices(lists)
        element_ctx = Context(len(flat), 0, continue_on_error=True, instant_ms=ctx.instant_ms)
        element_ctx.where = ctx.where
        element_args: list[Value] = []
        for i, a in enumerate(args):
            if i == position:
                element_args.append(flat)
            elif isinstance(a, Const):
                element_args.append(a)
            else:
                element_args.append(a.take(parents))
        if len(flat) == 0:
            values = pa.array([], _element_type(sv_name))
        else:
            try:
                values = broadcast(sv.impl(element_ctx, element_args), len(flat))
            except IngestionError as exc:
                # a failure of the whole call (an invalid pattern, zone or unit) is each element's: a row whose
                # array is empty never calls the function and gives an empty array, as in Java's loop
                values = pa.nulls(len(flat), _element_type(sv_name))
                element_ctx.fail(np.ones(len(flat), np.bool_), str(exc))
        if element_ctx.errors is not None:
            failed = np.bincount(parents.to_numpy(zero_copy_only=False)[element_ctx.errors],
                                 minlength=len(lists)) > 0
            ctx.fail(failed, f"{sv_name} fails on an element", lists)
        # offsets of the flattened elements: a null row (or one whose conversion failed, null with its offsets
        # still spanning its elements) holds none of them
        lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False)
        offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32))
        return pa.ListArray.from_arrays(offsets, values, mask=lists.is_null() if lists.null_count else None)

    return impl


_ELEMENT_TYPES = {"toDateTime": pa.string(), "toIso8601": pa.string(), "toTimestamp": pa.timestamp("ms")}


def _element_type(sv_name: str) -> pa.DataType:
    if sv_name in _ELEMENT_TYPES:
        return _ELEMENT_TYPES[sv_name]
    return pa.int32() if sv_name[0].islower() and not sv_name.startswith(("toEpoch", "fromEpoch", "round",
                                                                          "fromDateTime", "fromIso", "fromTimestamp",
                                                                          "timestamp", "dateTrunc")) else pa.int64()


def _primitive(sv_name: str) -> bool:
    """Pinot's MV form returns a primitive array (``int[]`` / ``long[]``) unless its elements are text or
    ``Timestamp`` objects."""
    return _element_type(sv_name) in (pa.int32(), pa.int64())


def _mv(names, sv: str, arity: int, position: int, kind: str, literal_args: tuple[int, ...] = ()) -> None:
    names = (names,) if isinstance(names, str) else tuple(names)
    scalar_function(*names, arity=arity, literal_args=literal_args, primitive_array=_primitive(sv))(
        _per_element(sv, arity, position, kind))


def _register() -> None:
    calendar = {"year": ["yearMV"], "yearOfWeek": ["yearOfWeekMV", "yowMV"], "quarter": ["quarterMV"],
                "month": ["monthMV", "monthOfYearMV"], "week": ["weekMV", "weekOfYearMV"],
                "dayOfYear": ["dayOfYearMV", "doyMV"], "dayOfMonth": ["dayOfMonthMV", "dayMV"],
                "dayOfWeek": ["dayOfWeekMV", "dowMV"], "hour": ["hourMV"], "minute": ["minuteMV"],
                "second": ["secondMV"], "millisecond": ["millisecondMV"]}
    for sv, names in calendar.items():
        _mv(names, sv, 1, 0, "Long")
        _mv(names, sv, 2, 0, "Long", literal_args=(1,))
    for unit in ("Seconds", "Minutes", "Hours", "Days"):
        for sv, arity in ((f"toEpoch{unit}", 1), (f"toEpoch{unit}Rounded", 2), (f"toEpoch{unit}Bucket", 2),
                          (f"fromEpoch{unit}", 1), (f"fromEpoch{unit}Bucket", 2)):
            _mv(f"{sv}MV", sv, arity, 0, "Long")
    _mv("roundMV", "round", 2, 0, "Long")
    for arity in (2, 3):
        _mv("toDateTimeMV", "toDateTime", arity, 0, "Long", literal_args=(1, 2))
        _mv("fromDateTimeMV", "fromDateTime", arity, 0, "String", literal_args=(1, 2))
    _mv("toIso8601MV", "toIso8601", 1, 0, "Long")
    _mv("fromIso8601MV", "fromIso8601", 1, 0, "String")
    _mv("toTimestampMV", "toTimestamp", 1, 0, "Long")
    _mv("fromTimestampMV", "fromTimestamp", 1, 0, "Timestamp")
    for arity in (2, 3, 4, 5):
        _mv("dateTruncMV", "dateTrunc", arity, 1, "Long", literal_args=(0, 2, 3, 4))
    _mv(("timestampAddMV", "dateAddMV"), "timestampAdd", 3, 2, "Long", literal_args=(0,))
    _mv(("timestampDiffMV", "dateDiffMV"), "timestampDiff", 3, 1, "Long", literal_args=(0,))
    _mv(("timestampDiffMVReverse", "dateDiffMVReverse"), "timestampDiff", 3, 2, "Long", literal_args=(0,))
    _mv("timezoneHourMV", "timezoneHour", 2, 1, "Long", literal_args=(0,))
    _mv("timezoneMinuteMV", "timezoneMinute", 2, 1, "Long", literal_args=(0,))
    _mv("agoMV", "ago", 1, 0, "String")

_register()


def _zone_offset_at_epoch(zone: str) -> int:
    try:
        resolved = joda_zone(zone)
    except ZoneError as exc:
        raise JavaThrows(f"IllegalArgumentException: {exc}") from None
    return int(to_local(np.zeros(1, np.int64), resolved)[0])


def _zones_mv(per_offset):
    def impl(ctx: Context, args: list[Value]) -> Value:
        zones = to_array(args[0], "String", ctx)
        return per_row(ctx, lambda names: [per_offset(_zone_offset_at_epoch(z)) for z in names],
                       pa.list_(pa.int32()), zones)

    return impl


# timezoneHourMV(String[] zones) / timezoneMinuteMV(String[] zones): each zone's offset at the epoch
scalar_function("timezoneHourMV", arity=1, primitive_array=True)(_zones_mv(lambda offset: int(offset / 3_600_000)))
scalar_function("timezoneMinuteMV", arity=1, primitive_array=True)(_zones_mv(lambda offset: int(int(offset / 60_000) % 60 if offset >= 0
                                                                          else -(int(-offset / 60_000) % 60))))
