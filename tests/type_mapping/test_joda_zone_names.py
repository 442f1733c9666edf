"""Zone names in a date pattern (``z``, ``zzzz``) as Joda 2.14.1 prints them in Pinot's JVM: the JVM's English
names of the zone's Joda id, standard or daylight by Joda's ``isStandardOffset``, not the tz database's
abbreviation of the instant (``LMT``). The table tests/fixtures/java/joda_zone_names.jsonl is Joda's own output
(``java -cp joda-time-2.14.1.jar tools/pinot_functions/JodaZoneNames.java --sample``): every zone id of Joda's
database and a few offsets, at six instants (1686, 1938, 1970, winter and summer 2024, 2036)."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from type_mapping.joda_format import print_pattern
from type_mapping.joda_zones import joda_zone

TABLE = Path(__file__).resolve().parents[1] / "fixtures" / "java" / "joda_zone_names.jsonl"
_LINES = [json.loads(line) for line in TABLE.read_text().splitlines()]
INSTANTS = _LINES[0]["instants"]
ROWS = _LINES[1:]


def _printed(zone_id: str, pattern: str, instants: list[int]) -> list[str]:
    zone = joda_zone(zone_id)
    arr = pa.array(instants, pa.int64()).cast(pa.timestamp("ms")).cast(pa.timestamp("ms", tz=zone))
    return print_pattern(arr, pattern, zone, zone_id).to_pylist()


@pytest.mark.parametrize("pattern", ["z", "zzzz"])
def test_every_zone_is_named_as_joda_names_it(pattern):
    wrong = {}
    for row in ROWS:
        got = _printed(row["id"], pattern, INSTANTS)
        if got != row[pattern]:
            wrong[row["id"]] = [(t, g, w) for t, g, w in zip(INSTANTS, got, row[pattern]) if g != w]
    assert not wrong, f"{len(wrong)} of {len(ROWS)} zones differ from Joda: {dict(list(wrong.items())[:5])}"


# Joda's answers (DateTimeFormat.forPattern("z|zzzz").withZone(...).print(t), joda-time 2.14.1, JDK 17): a
# local time beyond the long range is printed in UTC, so named UTC; local mean time (Dublin's -00:25:21 in
# 1600) is standard time; Dublin's summer is daylight time (tzdata's negative winter saving, which Joda's
# compiler turns into a lower standard offset).
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


@pytest.mark.parametrize("zone_id, instant, expected", [
    ("America/New_York", LONG_MIN, "UTC|Coordinated Universal Time"),
    ("America/New_York", LONG_MAX, "EDT|Eastern Daylight Time"),
    ("CET", LONG_MIN, "CET|Central European Time"),
    ("CET", LONG_MAX, "UTC|Coordinated Universal Time"),
    ("Asia/Kathmandu", LONG_MAX - 86_400_000 * 3, "NPT|Nepal Time"),
    ("-05:00", LONG_MIN, "UTC|Coordinated Universal Time"),
    ("-05:00", 253402300800000, "-05:00|-05:00"),
    ("Etc/GMT+5", LONG_MAX, "-05:00|-05:00"),
    ("Europe/Dublin", LONG_MIN, "UTC|Coordinated Universal Time"),
    ("Europe/Dublin", LONG_MIN + 3_600_000, "GMT|Greenwich Mean Time"),
    ("Europe/Dublin", LONG_MAX - 86_400_000 * 3, "IST|Irish Standard Time"),
    ("Europe/Dublin", -62135596800001, "GMT|Greenwich Mean Time"),
])
def test_zone_names_at_the_ends_of_the_long_range(zone_id, instant, expected):
    assert _printed(zone_id, "z|zzzz", [instant]) == [expected]


def test_a_null_instant_prints_null():
    assert _printed("Europe/Paris", "zzzz", [None, 0]) == [None, "Central European Standard Time"]


def test_a_day_name_and_a_zone_name_beyond_arrows_range_in_one_pattern():
    # Joda: print(Long.MIN_VALUE) with "EEE z zzzz" in UTC is "Sat UTC Coordinated Universal Time" (its wrapped
    # weekday, tools/pinot_functions round7_weekday_long_min); in Kathmandu, +05:45 from Long.MIN_VALUE, "NPT"
    assert _printed("UTC", "EEE z zzzz", [LONG_MIN]) == ["Sat UTC Coordinated Universal Time"]
    assert _printed("Asia/Kathmandu", "EEEE z", [LONG_MIN, 0]) == ["Saturday NPT", "Thursday NPT"]
