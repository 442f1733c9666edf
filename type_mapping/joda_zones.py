"""Time zones as Pinot's JVM resolves them: ``java.util.TimeZone.getTimeZone`` ids then Joda's
``DateTimeZone.forTimeZone`` (``java_time_zone``), Joda's own ids (``joda_zone``, ``pinot_zone_key``), and instants
to and from local time in a zone (``to_local`` / ``from_local``: Arrow's tz tables inside their range, the zone's
rule beyond). Split from datetime_formats.py, whose docstring tells how Pinot names a format's zone.
"""
from __future__ import annotations

import datetime as _dt
import functools
import logging
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .errors import PinotSinkError
from .joda_calendar import MILLIS_PER_DAY

log = logging.getLogger(__name__)


# --- time zones ------------------------------------------------------------------------------------

# Joda's DateTimeZone.getConvertedId: the old three-letter ids java.util.TimeZone still knows.
_JODA_OLD_IDS = {
    "GMT": "UTC", "WET": "WET", "CET": "CET", "MET": "CET", "ECT": "CET", "EET": "EET",
    "MIT": "Pacific/Apia", "HST": "Pacific/Honolulu", "AST": "America/Anchorage", "PST": "America/Los_Angeles",
    "MST": "America/Denver", "PNT": "America/Phoenix", "CST": "America/Chicago", "EST": "America/New_York",
    "IET": "America/Indiana/Indianapolis", "PRT": "America/Puerto_Rico", "CNT": "America/St_Johns",
    "AGT": "America/Argentina/Buenos_Aires", "BET": "America/Sao_Paulo", "ART": "Africa/Cairo",
    "CAT": "Africa/Harare", "EAT": "Africa/Addis_Ababa", "NET": "Asia/Yerevan", "PLT": "Asia/Karachi",
    "IST": "Asia/Kolkata", "BST": "Asia/Dhaka", "VST": "Asia/Ho_Chi_Minh", "CTT": "Asia/Shanghai",
    "JST": "Asia/Tokyo", "ACT": "Australia/Darwin", "AET": "Australia/Sydney", "SST": "Pacific/Guadalcanal",
    "NST": "Pacific/Auckland",
}
# java.util.TimeZone custom ids: GMT, a sign, hours (1-2 digits) and optional minutes ("GMT+7", "GMT-0730").
_CUSTOM_ID = re.compile(r"GMT([+-])(\d{1,2})(?::(\d{2})|(\d{2}))?")


@functools.lru_cache(maxsize=256)
def java_time_zone(zone: str) -> str:
    """The zone Pinot uses for ``zone`` (``TimeZone.getTimeZone`` then Joda's ``forTimeZone``), as a name
    Arrow and ``zoneinfo`` take: ``UTC``, a region id, or a fixed ``+hh:mm`` offset."""
    if zone in ("UTC", "GMT", "UTC0", "Etc/UTC", "Etc/GMT", "Zulu", "Universal"):
        return "UTC"
    if zone in _JODA_OLD_IDS:
        return _JODA_OLD_IDS[zone]
    custom = _CUSTOM_ID.fullmatch(zone)
    if custom:
        sign, hours, minutes = custom.group(1), int(custom.group(2)), int(custom.group(3) or custom.group(4) or 0)
        if hours <= 23 and minutes <= 59:
            return "UTC" if hours == minutes == 0 else f"{sign}{hours:02d}:{minutes:02d}"
    else:
        try:
            from zoneinfo import ZoneInfo

            ZoneInfo(zone)
            return zone
        except (ValueError, OSError, LookupError):
            pass
    log.warning("time zone %r is not a Java time zone id; Pinot (TimeZone.getTimeZone) takes it as UTC", zone)
    return "UTC"


class ZoneError(PinotSinkError, ValueError):
    """A zone id Joda (or Pinot's TimeZoneKey) rejects: ``IllegalArgumentException`` in Pinot."""


# Files of the system's tz database that are no zone of Joda's compiled database.
_NOT_JODA_ZONES = ("Factory", "localtime", "posixrules", "posix/", "right/", "SystemV/")
_JODA_OFFSET = re.compile(r"([+-])(\d\d)(?::?(\d\d)(?::?(\d\d)(?:\.?(\d{3}))?)?)?")


# Ids that Joda's own tz database (2.14, tzdata 2024b+) makes links to a region, where an older system tz
# database still has the fixed-rule zone (EST: -05:00 always; America/Panama: its local mean time before 1908).
_JODA_LINKS = {"EST": "America/Panama", "MST": "America/Phoenix", "HST": "Pacific/Honolulu",
               "EST5EDT": "America/New_York", "CST6CDT": "America/Chicago", "MST7MDT": "America/Denver",
               "PST8PDT": "America/Los_Angeles",
               # (and the European ones, the same release: CET's offset at year 0 is Brussels' mean time, +00:17:30)
               "CET": "Europe/Brussels", "MET": "Europe/Brussels", "EET": "Europe/Athens", "WET": "Europe/Lisbon"}


@functools.lru_cache(maxsize=1)
def _tz_database_ids() -> frozenset[str]:
    from zoneinfo import available_timezones

    return frozenset(z for z in available_timezones() if not z.startswith(_NOT_JODA_ZONES))


@functools.lru_cache(maxsize=512)
def joda_zone(zone: str) -> str:
    """``DateTimeZone.forID(zone)`` (the zone of Pinot's calendar functions, ``toDateTime``, ``fromDateTime``...),
    as a name Arrow and ``zoneinfo`` take (``UTC``, a region id or ``+hh:mm``); ``ZoneError`` where Joda throws.

    Joda's rules: ``UTC``; an id of the tz database, case-sensitive (``EST``, ``Etc/GMT+1``, ``Z``-less); ``Z``
    is UTC; ``UTC``/``GMT`` followed by an offset, or an offset alone: a sign, two-digit hours, then optional
    minutes, seconds and millis, colons optional (``UTC+01:00``, ``+0130``, ``+01``; not ``GMT+1``, ``+1``).
    So ``'utc'``, ``'PST'`` and ``''`` are rejected."""
    if not isinstance(zone, str):
        raise ZoneError(f"The datetime zone id {zone!r} is not recognised")
    if zone in ("UTC", "Z", "UT"):
        return "UTC"
    if zone in _JODA_LINKS:
        return _JODA_LINKS[zone]
    if zone in _tz_database_ids():
        return "UTC" if zone in ("Etc/UTC", "Etc/UCT", "UCT", "Universal", "Zulu", "Etc/Universal", "Etc/Zulu") else zone
    text = zone[3:] if zone[:4] in ("UTC+", "UTC-", "GMT+", "GMT-") else zone
    match = _JODA_OFFSET.fullmatch(text)
    if match is None or int(match.group(2)) > 23 or int(match.group(3) or 0) > 59 or int(match.group(4) or 0) > 59:
        raise ZoneError(f"The datetime zone id {zone!r} is not recognised")
    sign, hours, minutes = match.group(1), int(match.group(2)), int(match.group(3) or 0)
    if int(match.group(4) or 0) or int(match.group(5) or 0):
        raise ZoneError(f"the zone offset {zone!r} has seconds: Joda accepts it, this package does not (Arrow's "
                        f"fixed offsets are whole minutes)")
    return "UTC" if hours == minutes == 0 else f"{sign}{hours:02d}:{minutes:02d}"


@functools.lru_cache(maxsize=512)
def pinot_zone_key(zone: str) -> str:
    """``TimeZoneKey.getTimeZoneKey(zone)`` then Joda (what ``dateTrunc`` with a zone uses): only the ids of
    Pinot's zone index, case-insensitive, with its normalisations (``utc``/``z``/``gmt0``... are UTC, ``UTC+1``
    is ``+01:00``, ``Etc/GMT+1`` is ``-01:00``); ``EST``, ``PST`` and ``''`` are rejected (not in the index)."""
    from .pinot_zone_index import ZONE_INDEX_IDS

    if not isinstance(zone, str) or not zone:
        raise ZoneError("Zone id is an empty string")
    by_lower = _zone_index_by_lower(ZONE_INDEX_IDS)
    found = by_lower.get(zone.lower()) or by_lower.get(_normalize_zone_key(zone))
    if found is None:
        raise ZoneError(f"Timezone {zone} not supported")
    return joda_zone(found)


@functools.lru_cache(maxsize=1)
def _zone_index_by_lower(ids: frozenset[str]) -> dict[str, str]:
    table = {i.lower(): i for i in ids}
    table["utc"] = "UTC"
    return table


_UTC_NAMES = {"utc", "z", "ut", "uct", "gmt", "gmt0", "greenwich", "universal", "zulu"}


def _normalize_zone_key(original: str) -> str:
    """``TimeZoneKey.normalizeZoneId``: UTC's names, ``UTC``/``GMT``/``UT`` prefixes, ``+H``/``+HH`` hours."""
    zone = original.lower()
    etc = zone.startswith("etc/")
    if etc:
        zone = zone[4:]
    if zone in _UTC_NAMES:
        return "utc"
    etc_gmt = False
    if len(zone) > 3 and zone.startswith(("utc", "gmt")):
        etc_gmt = etc and zone.startswith("gmt")
        zone = zone[3:]
    elif len(zone) > 2 and zone.startswith("ut"):
        zone = zone[2:]
    if zone in ("+00:00", "-00:00"):
        return "utc"
    if len(zone) == 6 and zone[3] == ":":
        return zone
    if len(zone) not in (2, 3) or zone[0] not in "+-":
        return original
    sign = ("+" if zone[0] == "-" else "-") if etc_gmt else zone[0]
    tens, ones = ("0", zone[1]) if len(zone) == 2 else (zone[1], zone[2])
    if not (tens.isdigit() and ones.isdigit() and tens.isascii() and ones.isascii()):
        return original
    return "utc" if tens == ones == "0" else f"{sign}{tens}{ones}:00"


def zone_info(zone: str) -> _dt.tzinfo:
    if zone == "UTC":
        return _dt.timezone.utc
    if zone[0] in "+-":
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        offset = _dt.timedelta(hours=hours, minutes=minutes)
        return _dt.timezone(-offset if zone[0] == "-" else offset)
    from zoneinfo import ZoneInfo

    return ZoneInfo(zone)


# --- time zones: Arrow's tables, then the zone's rule ----------------------------------------------

# Arrow's time zone conversions know a zone's transitions only up to 2037 (its compiled tzdata tables);
# Joda keeps applying the zone's DST rule, and so does Python's zoneinfo. Instants from 2037-12-01 on go
# through zoneinfo, in a year of the same 400-year Gregorian cycle between 2400 and 2800 when they lie
# beyond Python's year 9999 (the rule and the calendar repeat exactly every 400 years).
ARROW_ZONE_LIMIT_MS = 2_143_238_400_000
FIXED_ZONE = re.compile(r"^(UTC|GMT|Z|[+-]\d{2}:?\d{2})$")
CYCLE_MS = 146_097 * MILLIS_PER_DAY  # 400 Gregorian years
_YEAR_2400_MS = 13_569_465_600_000


def past_arrow_tables(millis: np.ndarray, zone: str) -> np.ndarray | None:
    if FIXED_ZONE.match(zone):
        return None
    late = millis >= ARROW_ZONE_LIMIT_MS
    return late if late.any() else None


def _rule_offsets_ms(millis: np.ndarray, zone: str, wall_clock: bool) -> np.ndarray:
    """The zone's UTC offset, by zoneinfo, at each instant (or, ``wall_clock``, at each local time: before a
    gap the offset before it, in an overlap the earlier one: ``fold=0``). Once per distinct value."""
    import datetime as _dt
    from zoneinfo import ZoneInfo

    tz = ZoneInfo(zone)
    distinct, inverse = np.unique(millis, return_inverse=True)
    cycles = np.maximum((distinct - _YEAR_2400_MS) // CYCLE_MS, 0)
    shifted = distinct - cycles * CYCLE_MS
    epoch = _dt.datetime(1970, 1, 1)
    offsets = np.empty(len(distinct), dtype=np.int64)
    for i, value in enumerate(shifted.tolist()):
        when = epoch + _dt.timedelta(milliseconds=value)
        if wall_clock:
            offset = when.replace(tzinfo=tz, fold=0).utcoffset()
        else:
            offset = when.replace(tzinfo=_dt.timezone.utc).astimezone(tz).utcoffset()
        offsets[i] = int(offset.total_seconds() * 1000)
    return offsets[inverse]


class ZoneOverflow(PinotSinkError, ArithmeticError):
    """Joda's ``convertUTCToLocal``: an instant whose local time is beyond the long range."""


def to_local(millis: np.ndarray, zone: str, keep_ends: bool = True) -> np.ndarray:
    """Wall-clock millis in ``zone`` of UTC instants (Joda's ``DateTimeZone.convertUTCToLocal``); ``keep_ends``
    False for printing, where Joda's formatter applies the offset to Long.MIN_VALUE / MAX_VALUE too
    (toDateTime(Long.MIN_VALUE, '... Z', 'CET') is Brussels' +0017)."""
    if zone == "UTC":
        return millis
    instants = pa.array(millis, pa.timestamp("ms")).cast(pa.timestamp("ms", tz=zone))
    local = pc.local_timestamp(instants).cast(pa.int64()).to_numpy(zero_copy_only=False).copy()
    late = past_arrow_tables(millis, zone)
    if late is not None:
        local[late] = millis[late] + _rule_offsets_ms(millis[late], zone, wall_clock=False)
    # Joda keeps Long.MIN_VALUE and Long.MAX_VALUE as they are in every zone (seen in Pinot: hour(Long.MAX_VALUE,
    # 'America/New_York') is the UTC hour); any other instant whose local time leaves the long range throws
    ends = (millis == np.iinfo(np.int64).min) | (millis == np.iinfo(np.int64).max)
    if keep_ends and ends.any():
        local[ends] = millis[ends]
    offset = local - millis
    if ((millis ^ local) < 0).any() and (((millis ^ local) < 0) & ((millis ^ offset) >= 0)).any():
        raise ZoneOverflow("Adding time zone offset caused overflow")
    return local


def from_local(local: np.ndarray, zone: str, original: np.ndarray | None = None) -> np.ndarray:
    """UTC instants of wall-clock millis in ``zone``: in a DST gap the time moves forward by the gap (the
    offset before the transition, Joda's non-strict rule), in an overlap the earlier instant. With
    ``original`` (the instants a rounding started from: Joda's ``convertLocalToUTC(local, false, original)``,
    which ``roundFloor`` in a zone calls), an overlap keeps the original's offset when it is one of the two."""
    if zone == "UTC":
        return local
    if original is not None:
        offset = to_local(original, zone) - original
        kept = local - offset
        same = (to_local(kept, zone) - kept) == offset
        if same.all():
            return kept
        return np.where(same, kept, from_local(local, zone))
    naive = pa.array(local, pa.timestamp("ms"))
    earliest = pc.assume_timezone(naive, timezone=zone, ambiguous="earliest", nonexistent="earliest")
    shown = pc.local_timestamp(earliest).cast(pa.int64()).to_numpy(zero_copy_only=False)
    instant = earliest.cast(pa.int64()).to_numpy(zero_copy_only=False)
    utc = local - (shown - instant)  # local minus the offset in force just before
    late = past_arrow_tables(local, zone)
    if late is not None:
        utc[late] = local[late] - _rule_offsets_ms(local[late], zone, wall_clock=True)
    return utc
