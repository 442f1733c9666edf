import json
import re
from pathlib import Path

import pytest

from pinot_sink.options import OPTIONS, OptionError, WriteOptions, parse_size, redact_options


def parse(**extra):
    return WriteOptions.parse({"table-name": "events", **extra})


def test_defaults_make_production_sized_segments():
    opts = parse()
    assert opts.buffer.max_rows == 1_000_000 and opts.buffer.max_bytes == 128 * 1024**2
    assert opts.naming.kind == "simple" and opts.delivery.push_mode == "tar" and opts.embedded


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
    assert opts.naming.kind == "normalizedDate" and opts.buffer.max_rows == 2_000_000


@pytest.mark.parametrize("typo,suggestion", [
    ("sink.buffer-flush.max-row", "sink.buffer-flush.max-rows"),
    ("segment.name.postfx", "segment.name.postfix"),
    ("table_nme", "table-name"),
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
    with pytest.raises(OptionError, match="OFFLINE or REALTIME"):
        parse(**{"table-type": "HYBRID"})
    assert parse(**{"table-type": "realtime"}).table_type == "REALTIME"
    with pytest.raises(OptionError, match="option 'upsert.dedup-batch': 'first' is not one of latest"):
        parse(**{"upsert.dedup-batch": "first"})
    assert parse(**{"upsert.dedup-batch": "Latest"}).dedup_batch == "latest"
    assert parse().dedup_batch is None
    with pytest.raises(OptionError, match="needs 'segment.name'"):
        parse(**{"segment-name.type": "fixed"})
    with pytest.raises(OptionError, match="output-uri"):
        parse(url="http://c:9000", **{"push-mode": "uri"})
    with pytest.raises(OptionError, match="go together"):
        parse(url="http://c:9000", **{"auth.username": "u"})
    with pytest.raises(OptionError, match="only one"):
        parse(url="http://c:9000", **{"auth.token": "t", "auth.header-token": "Basic x"})
    with pytest.raises(OptionError, match="'auth.token' only applies with a controller"):
        parse(**{"auth.token": "t"})
    with pytest.raises(OptionError, match="convert"):
        parse(**{"convert.on-overflow": "wrap"})


def test_secrets_redacted():
    opts = parse(url="http://c:9000", **{"auth.username": "bob", "auth.password": "hunter2",
                                         "header.X-Api-Key": "k3y"})
    assert "hunter2" not in repr(opts) and "k3y" not in repr(opts)
    assert opts.client.headers == {"x-api-key": "k3y"}
    assert redact_options({"auth.token": "abc", "url": "u"}) == {"auth.token": "<redacted>", "url": "u"}


def test_url_credentials_become_basic_auth_and_never_print():
    opts = parse(url="http://alice:s3cr3t@controller:9000")
    assert opts.client.url == "http://controller:9000" and opts.client.auth.user == "alice"
    assert "s3cr3t" not in repr(opts) and "s3cr3t" not in str(opts.client)
    assert "s3cr3t" not in str(redact_options({"url": "http://alice:s3cr3t@controller:9000"}))


@pytest.mark.parametrize("url", ["ftp://controller:9000", "controller:9000", "http://", "file:///tmp/x"])
def test_url_must_be_http_with_a_host(url):
    with pytest.raises(OptionError, match="option 'url'"):
        parse(url=url)


@pytest.mark.parametrize("name", ["../escape", "a/b", "a\\b", "tab\tname", "..", "new\nline"])
def test_table_name_rejects_path_separators_and_control_characters(name):
    with pytest.raises(OptionError, match="option 'table-name'"):
        parse(**{"table-name": name})


@pytest.mark.parametrize("option", ["segment.name.postfix", "segment.name.prefix", "write.id"])
def test_name_parts_reject_control_characters(option):
    with pytest.raises(OptionError, match=f"option '{option}'"):
        parse(**{option: "b\nx"})


def test_conversion_errors_name_the_option():
    with pytest.raises(OptionError, match="option 'convert.on-fraction': 'round' is not one of error"):
        parse(**{"convert.on-fraction": "round"})


def test_json_options_inline_and_path(tmp_path):
    schema = {"schemaName": "events", "dimensionFieldSpecs": [{"name": "a", "dataType": "INT"}]}
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    assert parse(schema=str(path)).schema.schema_json == schema
    assert parse(schema=json.dumps(schema)).schema.schema_json == schema
    with pytest.raises(OptionError, match="schema"):
        parse(schema=str(tmp_path / "missing.json"))


def test_creation_time_and_durations():
    assert parse(**{"creation-time": "1700000000000"}).creation_time_ms == 1_700_000_000_000
    assert parse(**{"creation-time": "2024-01-01T00:00:00Z"}).creation_time_ms == 1_704_067_200_000
    opts = parse(url="http://c:9000", **{"timeout.connect": "500ms", "timeout.read": "2m",
                                         "retry.max-attempts": "3"})
    assert (opts.client.connect_timeout, opts.client.read_timeout, opts.client.retry.max_attempts) == (0.5, 120.0, 3)


def test_a_creation_time_in_epoch_seconds_or_micros_is_an_error_not_1970():
    """creation-time=1700000000 (epoch seconds) was written as 1970-01-20: seconds, micros and nanos of
    1971..2100 are refused naming the option and what to give; small numbers (tests' fixed 0 or 1) stay."""
    for number, unit, fix in (("1700000000", "seconds", "x1000"), ("1700000000000000", "microseconds", "/1000"),
                              ("1700000000000000000", "nanoseconds", "/1000000")):
        with pytest.raises(OptionError, match=rf"^option 'creation-time': {number} looks like epoch {unit} .* "
                                              rf"give milliseconds \({fix}\) or ISO-8601"):
            parse(**{"creation-time": number})
    for millis in ("0", "1", "31535999", "4102444800", "1700000000000"):
        assert parse(**{"creation-time": millis}).creation_time_ms == int(millis)


def test_controller_defaults_come_from_the_client_config():
    from pinot_sink.controller import ClientConfig, RetryPolicy

    opts = parse(url="http://c:9000")
    assert opts.client.connect_timeout == ClientConfig.connect_timeout  # the dataclass default, one home
    assert opts.client.read_timeout == ClientConfig.read_timeout
    assert opts.client.retry == RetryPolicy()


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


@pytest.mark.parametrize("pinot_name,value,ours,expected", [
    ("table", "events", "table_name", "events"),
    ("tableName", "events", "table_name", "events"),
    ("pushParallelism", "8", "delivery.push_parallelism", 8),
    ("jobType", "SegmentCreationAndMetadataPush", "delivery.push_mode", "metadata"),
    ("segmentNameGeneratorSpec.type", "normalizedDate", "naming.kind", "normalizedDate"),
    ("segmentNameGeneratorSpec.configs.segment.name.postfix", "nightly", "naming.postfix", "nightly"),
    ("outputDirURI", "s3://bucket/pinot", "delivery.output_uri", "s3://bucket/pinot"),
])
def test_pinot_option_names_are_aliases(pinot_name, value, ours, expected):
    options = {"table-name": "events"} if pinot_name not in ("table", "tableName") else {}
    options["url"] = "http://c:9000"  # the upload's options need a controller
    opts = WriteOptions.parse({**options, pinot_name: value, "push-mode": "tar"} if pinot_name != "jobType"
                              else {**options, pinot_name: value, "output-uri": "/tmp/x"})
    target = opts
    for part in ours.split("."):
        target = getattr(target, part)
    assert target == expected


def test_pinot_push_options_translate_their_values():
    opts = WriteOptions.parse({"table": "events", "controllerURI": "http://c:9000", "pushAttempts": "3",
                               "pushRetryIntervalMillis": "250", "authToken": "Basic YWRtaW46eA=="})
    assert opts.client.retry.max_attempts == 3 and opts.client.retry.initial_backoff_s == 0.25
    assert opts.client.auth is not None and "YWRtaW46eA" not in repr(opts.client)


@pytest.mark.parametrize("pinot_name,hint", [
    ("invertedIndexColumns", "indexes come from the table config"),
    ("timeColumnName", "segmentsConfig.timeColumnName"),
    ("segmentNameFormat", "segment-name.type"),
    ("inputDirURI", "the DataFrame is the input"),
])
def test_pinot_option_names_without_counterpart_say_what_to_do(pinot_name, hint):
    with pytest.raises(OptionError, match=hint) as error:
        parse(**{pinot_name: "x"})
    assert pinot_name.lower() in str(error.value)


def test_an_alias_and_its_option_together_are_an_error():
    with pytest.raises(OptionError, match="given twice"):
        WriteOptions.parse({"table-name": "a", "table": "b"})


def test_storage_options_nest_and_stay_secret():
    opts = parse(**{"storage.key": "AKIA", "storage.secret": "s3cr3t", "storage.anon": "false",
                    "storage.client_kwargs.endpoint_url": "http://minio:9000"})
    assert opts.delivery.storage_options == {"key": "AKIA", "secret": "s3cr3t", "anon": False,
                                             "client_kwargs": {"endpoint_url": "http://minio:9000"}}
    assert "s3cr3t" not in repr(opts)
    assert redact_options({"storage.secret": "s3cr3t"}) == {"storage.secret": "<redacted>"}


def test_a_misspelt_storage_option_is_an_error_not_passed_to_fsspec(tmp_path):
    """fsspec takes a key its file system does not know silently: one close to a key it knows is refused on the
    driver, naming the option and the one meant; keys far from any (s3fs's for botocore) still pass."""
    with pytest.raises(OptionError, match=r"^option 'storage.auto_mkdirs' is not one LocalFileSystem \(file://\) "
                                          r"takes: did you mean 'storage.auto_mkdir'\?$"):
        parse(**{"output-uri": str(tmp_path), "storage.auto_mkdirs": "true"})
    assert parse(**{"output-uri": str(tmp_path), "storage.auto_mkdir": "true",
                    "storage.key": "k"}).delivery.storage_options == {"auto_mkdir": True, "key": "k"}


def test_client_certificate_options(tmp_path):
    cert, key = tmp_path / "client.pem", tmp_path / "client.key"
    cert.write_text("cert"), key.write_text("key")
    opts = parse(url="https://c:9443", **{"tls.client-cert": str(cert), "tls.client-key": str(key)})
    assert opts.client.cert == (str(cert), str(key))
    assert parse(url="https://c:9443", **{"tls.client-cert": str(cert)}).client.cert == str(cert)
    with pytest.raises(OptionError, match="'tls.client-cert': no such file"):
        parse(url="https://c:9443", **{"tls.client-cert": str(tmp_path / "missing.pem")})
    with pytest.raises(OptionError, match="'tls.client-key' needs 'tls.client-cert'"):
        parse(url="https://c:9443", **{"tls.client-key": str(key)})


def test_a_save_path_and_another_output_uri_is_an_error_not_one_dropped():
    """``.save("/data/a")`` beside ``.option("output-uri", "/data/b")`` wrote to b and dropped a, silently."""
    base = {"table-name": "t", "schema": '{"schemaName": "t"}'}
    with pytest.raises(OptionError, match=r"option 'output-uri' '/data/b' and the save path '/data/a' differ"):
        WriteOptions.parse({**base, "path": "/data/a", "output-uri": "/data/b"})
    assert WriteOptions.parse({**base, "path": "/data/a", "output-uri": "/data/a"}).delivery.output_uri == "/data/a"
    assert WriteOptions.parse({**base, "path": "/data/a"}).delivery.output_uri == "/data/a"


@pytest.mark.parametrize("option, value", [("push-mode", "metadata"), ("push-mode", "uri"), ("push-parallelism", "8"),
                                           ("push.batch-size", "10"), ("push.segment-uri-prefix", "s3://"),
                                           ("commit.zk-record-limit", "4194304")])
def test_upload_options_without_a_controller_are_an_error_not_ignored(option, value):
    """Without 'url' nothing is uploaded: a push mode, upload parallelism or ZooKeeper limit was ignored without a
    word, as the auth and TLS options are not."""
    base = {"table-name": "t", "schema": '{"schemaName": "t"}', "output-uri": "/data/a"}
    with pytest.raises(OptionError, match=rf"option '{option}' only applies with a controller: set 'url', or drop it"):
        WriteOptions.parse({**base, option: value})
    assert WriteOptions.parse({**base, "push-mode": "tar"}).embedded
    assert WriteOptions.parse({**base, "url": "http://c:9000", option: value}).delivery.output_uri == "/data/a"


def test_one_option_given_twice_in_two_cases_is_an_error_not_one_dropped():
    """``pinot_sink.write(df, "t", **{"Table-Name": "u"})`` or two spellings of one option in one dict: option
    names ignore case, and the last spelling won without a word."""
    from pinot_sink.spark_write import WriteCheckError, _checked_job

    base = {"schema": '{"schemaName": "t"}'}
    with pytest.raises(OptionError, match=r"option 'sink.buffer-flush.max-rows' is given twice with different values "
                                          r"\(as 'sink.buffer-flush.max-rows' and 'SINK.BUFFER-FLUSH.MAX-ROWS'"):
        WriteOptions.parse({**base, "table-name": "t", "sink.buffer-flush.max-rows": "5",
                            "SINK.BUFFER-FLUSH.MAX-ROWS": "10"})
    assert WriteOptions.parse({**base, "Table-Name": "t", "table-name": "t"}).table_name == "t"
    for key in ("table-name", "Table-Name"):
        with pytest.raises(WriteCheckError, match=r"option 'table-name' names another table, 'u'"):
            _checked_job(None, "t", "append", {**base, key: "u"})  # refused before the DataFrame is looked at


@pytest.mark.parametrize("options, message", [
    ({"overwrite.straddling": "include"}, "option 'overwrite.straddling' only applies with 'overwrite.time-range'"),
    ({"table.time-column": "ts"}, "option 'table.time-column' only applies with 'table.create'=if-missing"),
    ({"table.create": "never", "table.sorted-column": "country"},
     "option 'table.sorted-column' only applies with 'table.create'=if-missing"),
])
def test_an_option_without_the_one_it_serves_is_an_error_not_ignored(options, message):
    """Options that only shape an overwrite window or a table the write creates did nothing without it."""
    base = {"table-name": "t", "schema": '{"schemaName": "t"}'}
    with pytest.raises(OptionError, match=re.escape(message)):
        WriteOptions.parse({**base, **options})
    assert WriteOptions.parse({**base, "overwrite.straddling": "include", "overwrite.time-range": "2024-03-01/2024-03-02",
                               "table.create": "if-missing", "table.time-column": "ts"}).window.include_straddling
