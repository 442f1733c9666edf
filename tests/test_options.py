import json
from pathlib import Path

import pytest

from pinot_sink.options import OPTIONS, OptionError, WriteOptions, parse_size, redact_options


def parse(**extra):
    return WriteOptions.parse({"table-name": "events", **extra})


def test_defaults_are_the_seeds():
    opts = parse()
    assert opts.max_rows == 1000 and opts.max_bytes == 5 * 1024**2
    assert opts.segment_name_type == "simple" and opts.push_mode == "tar" and opts.embedded


@pytest.mark.parametrize("text,expected", [("5mb", 5 << 20), ("512kb", 512 << 10), ("1gb", 1 << 30),
                                           ("100b", 100), ("2048", 2048), ("1.5MB", 3 << 19), (" 32 mb ", 32 << 20)])
def test_sizes(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["5xb", "mb", "-1mb", "0", "five"])
def test_bad_sizes(text):
    with pytest.raises(OptionError, match="sink.buffer-flush.max-size"):
        parse(**{"sink.buffer-flush.max-size": text})


def test_case_insensitive_keys_and_values():
    opts = WriteOptions.parse({"TABLE-NAME": "t", "Segment-Name.Type": "NORMALIZEDDATE",
                               "sink.buffer-flush.max-rows": "2_000_000"})
    assert opts.segment_name_type == "normalizedDate" and opts.max_rows == 2_000_000


@pytest.mark.parametrize("typo,suggestion", [
    ("sink.buffer-flush.max-row", "sink.buffer-flush.max-rows"),
    ("segment.name.postfx", "segment.name.postfix"),
    ("tablename", "table-name"),
    ("push_mode", "push-mode"),
])
def test_unknown_options_suggest(typo, suggestion):
    with pytest.raises(OptionError, match=f"did you mean '{suggestion}'"):
        parse(**{typo: "1"})


def test_required_and_conflicts():
    with pytest.raises(OptionError, match="table-name"):
        WriteOptions.parse({})
    with pytest.raises(OptionError, match="without the type suffix"):
        WriteOptions.parse({"table-name": "events_OFFLINE"})
    with pytest.raises(OptionError, match="only OFFLINE"):
        parse(**{"table-type": "REALTIME"})
    with pytest.raises(OptionError, match="needs 'segment.name'"):
        parse(**{"segment-name.type": "fixed"})
    with pytest.raises(OptionError, match="output-uri"):
        parse(url="http://c:9000", **{"push-mode": "uri"})
    with pytest.raises(OptionError, match="go together"):
        parse(**{"auth.username": "u"})
    with pytest.raises(OptionError, match="only one"):
        parse(**{"auth.token": "t", "auth.header-token": "Basic x"})
    with pytest.raises(OptionError, match="convert"):
        parse(**{"convert.on-overflow": "wrap"})


def test_secrets_redacted():
    opts = parse(**{"auth.username": "bob", "auth.password": "hunter2", "header.X-Api-Key": "k3y"})
    assert "hunter2" not in repr(opts) and "k3y" not in repr(opts) and "bob" in repr(opts)
    assert opts.headers == {"x-api-key": "k3y"}
    assert redact_options({"auth.token": "abc", "url": "u"}) == {"auth.token": "<redacted>", "url": "u"}


def test_json_options_inline_and_path(tmp_path):
    schema = {"schemaName": "events", "dimensionFieldSpecs": [{"name": "a", "dataType": "INT"}]}
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    assert parse(schema=str(path)).schema_json == schema
    assert parse(schema=json.dumps(schema)).schema_json == schema
    with pytest.raises(OptionError, match="schema"):
        parse(schema=str(tmp_path / "missing.json"))


def test_creation_time_and_durations():
    assert parse(**{"creation-time": "1700000000000"}).creation_time_ms == 1_700_000_000_000
    assert parse(**{"creation-time": "2024-01-01T00:00:00Z"}).creation_time_ms == 1_704_067_200_000
    opts = parse(**{"timeout.connect": "500ms", "timeout.read": "2m", "retry.max-attempts": "3"})
    assert (opts.connect_timeout_s, opts.read_timeout_s, opts.retry_max_attempts) == (0.5, 120.0, 3)


def test_every_documented_option_parses():
    docs = (Path(__file__).resolve().parents[1] / "docs" / "options.md").read_text(encoding="utf-8")
    for name in OPTIONS:
        assert f"`{name}`" in docs, f"option {name} is not documented in docs/options.md"


def test_secret_options_are_hidden_by_sparks_default_redaction_pattern():
    """Spark prints data source options in plan strings unless their key matches spark.redaction.regex."""
    import re

    from pinot_sink.options import SECRET_OPTIONS

    spark_default = re.compile(r"(?i)secret|password|token|access[.]?key|credential")
    assert SECRET_OPTIONS and all(spark_default.search(key) for key in SECRET_OPTIONS)
