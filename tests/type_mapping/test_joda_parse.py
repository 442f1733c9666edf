"""type_mapping/joda_parse.py, Joda's parse of a pattern, on Pinot's own answers (fromDateTime in UTC, taken from
tests/fixtures/functions/round8_joda_parse.jsonl, which the function replay checks whole): the cases that show
each of Joda's rules, here where a failure names the rule."""
from __future__ import annotations

import pytest

from type_mapping.joda_parse import JodaParseError, parse_millis


@pytest.mark.parametrize("text, pattern, millis", [
    ("+0100", "x", -59_011_200_000_000),  # a week-year alone: the Monday of its first week
    ("2024-05-3", "xxxx-ww-e", 1_706_659_200_000),
    ("2020-53-7", "xxxx-ww-e", 1_609_632_000_000),
    ("Mon 2024-01-02", "EEE yyyy-MM-dd", 1_704_067_200_000),  # a day name moves the date within its week
    ("Fri", "EEE", 978_048_000_000),  # no year: 2000, then the fields set twice in Joda's order
    ("02-29", "MM-dd", 951_782_400_000),  # ... 2000-02-29
    ("10:30", "HH:mm", 37_800_000),  # only times: 1970
    ("0", "C", -62_167_219_200_000),
    ("2024-03-15 10", "yyyy-MM-dd w", 1_710_460_800_000),
    ("1203", "dMM", 952_819_200_000),  # greedy: d takes two digits
    ("112", "Md", 973_123_200_000),
    ("05.6", "ss.SSS", 5600),
    ("2024t01", "yyyy'T'MM", 1_704_067_200_000),  # a literal ignores case
    ("2024 sep", "yyyy MMMM", 1_725_148_800_000),
    ("2024-01-02 pm 05", "yyyy-MM-dd a hh", 1_704_214_800_000),
    ("2024-01-02 PDT", "yyyy-MM-dd z", 1_704_182_400_000),  # Joda's default names: Los Angeles' rule
    ("2024-01-02 America/New_York", "yyyy-MM-dd ZZZ", 1_704_171_600_000),
    ("AD 2024", "G yyyy", 1_704_067_200_000),
])
def test_pinots_answers(text, pattern, millis):
    assert parse_millis(text, pattern, "UTC") == millis


@pytest.mark.parametrize("text, pattern", [
    ("2021-53-1", "xxxx-ww-e"),  # 2021 has 52 weeks
    ("20", "C"),  # C takes its letter count of digits
    ("930", "Hmm"),  # H takes 93
    ("05.678", "ss.S"),
    ("05.6789", "ss.SSS"),
    ("2024 Sept", "yyyy MMM"),
    ("2024-01-02 Fr", "yyyy-MM-dd E"),
    ("2024-01-02 CET", "yyyy-MM-dd z"),
])
def test_what_pinot_fails(text, pattern):
    with pytest.raises(JodaParseError):
        parse_millis(text, pattern, "UTC")


def test_a_zone_given_applies_where_the_text_has_none():
    assert parse_millis("02-29", "MM-dd", "America/New_York") == 951_800_400_000
