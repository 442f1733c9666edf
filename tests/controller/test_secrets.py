"""No secret in logs, error messages or reprs, for every auth style."""
from __future__ import annotations

import base64
import logging
import pickle

import pytest

from pinot_sink.controller import push_segment
from pinot_sink.controller import (
    Auth,
    ConsistentPush,
    ControllerClient,
    ControllerError,
    RetryPolicy,
)
from pinot_sink.options import redact_options
from segment_factory import make_segment

SECRET = "S3cr3t-p4ss"
POLICY = RetryPolicy(max_attempts=2, max_elapsed_s=5, initial_backoff_s=0.01, max_backoff_s=0.01)


def styles(url: str):
    host = url.split("://", 1)[1]
    return {
        "basic": dict(url=url, auth=Auth.basic("admin", SECRET)),
        "bearer": dict(url=url, auth=Auth.bearer(SECRET)),
        "header": dict(url=url, auth=Auth.header(f"Token {SECRET}")),
        "url": dict(url=f"http://admin:{SECRET}@{host}"),
        "extra-header": dict(url=url, headers={"X-Api-Key": SECRET}),
    }


def leaks(text: str) -> bool:
    encoded = base64.b64encode(f"admin:{SECRET}".encode()).decode()
    return SECRET in text or encoded in text or encoded.rstrip("=") in text


@pytest.mark.parametrize("style", ["basic", "bearer", "header", "url", "extra-header"])
def test_no_secret_in_logs_errors_or_reprs(fake_controller, tmp_path, caplog, style):
    args = styles(fake_controller.url)[style]
    url = args.pop("url")
    fake_controller.require_auth("something-else")
    messages = []
    with caplog.at_level(logging.DEBUG):  # every logger, urllib3 included
        client = ControllerClient(url, retry=POLICY, **args)
        for call in (
            lambda: push_segment(client, "events", make_segment(tmp_path, "events_0")),  # 401
            lambda: client.list_segments("events"),
        ):
            with pytest.raises(ControllerError) as info:
                call()
            messages += [str(info.value), repr(info.value), repr(info.value.__dict__)]
        fake_controller.require_auth()
        fake_controller.fail_next(5, 503)
        with pytest.raises(ControllerError) as info:  # retried, then exhausted: warnings are logged
            client.get_schema("events")
        messages += [str(info.value), repr(info.value)]
        push = ConsistentPush(client, "events", segments_to=["x"])
        messages += [repr(client), str(client), repr(client.config), repr(push), str(client.config.auth)]
        assert pickle.loads(pickle.dumps(client)).config == client.config
    assert caplog.records, "expected retry warnings and debug lines to check"
    assert not leaks(caplog.text)
    for message in messages:
        assert not leaks(message), message
    assert fake_controller.received[0].header("Authorization") or style == "extra-header"


def test_redact_options_for_spark_option_dumps():
    options = {
        "controller": f"http://admin:{SECRET}@host:9000",
        "password": SECRET,
        "auth-token": SECRET,
        "authorization": f"Bearer {SECRET}",
        "header.X-Api-Key": SECRET,
        "table": "events",
    }
    safe = redact_options(options)
    assert not any(leaks(str(v)) for v in safe.values())
    assert safe["table"] == "events" and safe["controller"].endswith("@host:9000")


def test_auth_repr_and_equality():
    basic = Auth.basic("admin", SECRET)
    assert repr(basic) == "Auth.basic(user='admin', password=<redacted>)"
    assert repr(Auth.bearer(SECRET)) == "Auth.bearer(<redacted>)"
    assert basic == pickle.loads(pickle.dumps(basic))
    with pytest.raises(ValueError):
        Auth.bearer("")


def test_url_credentials_never_reach_logs_errors_or_reprs(fake_controller, tmp_path, caplog):
    """Userinfo in a URL (``http://admin:pw@host``) through every failure path: refused connection, 401,
    retries, a trickled answer cut by the deadline, a refused URL, a deep-store URI with credentials."""
    import socket

    from pinot_sink.controller import ControllerConfigError, validate_controller_url
    from pinot_sink.storage.files import copy_to_deep_store
    from pinot_sink.storage.layout import StorageError

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    host = fake_controller.url.split("://", 1)[1]
    texts = []

    def failing(call):
        with pytest.raises((ControllerError, StorageError)) as info:
            call()
        texts.extend([str(info.value), repr(info.value), repr(info.value.__dict__)])

    with caplog.at_level(logging.DEBUG):
        refused = ControllerClient(f"http://admin:{SECRET}@127.0.0.1:{closed_port}", retry=POLICY)
        failing(lambda: refused.list_segments("events"))
        client = ControllerClient(f"http://admin:{SECRET}@{host}/", retry=POLICY, read_timeout=0.5)
        fake_controller.require_auth("Basic nope")
        failing(lambda: client.get_schema("events"))
        fake_controller.require_auth()
        fake_controller.trickle_next(5, interval=0.2)
        failing(lambda: client.get_table_config("events"))
        failing(lambda: validate_controller_url(f"ftp://admin:{SECRET}@{host}"))
        failing(lambda: ControllerClient(f"admin:{SECRET}@{host}"))
        failing(lambda: copy_to_deep_store(make_segment(tmp_path, "events_0"),
                                           f"nosuchfs://admin:{SECRET}@bucket/events/events_0.tar.gz"))
        texts += [repr(client), repr(client.config), repr(refused.config), str(client.config.auth)]
    assert isinstance(ControllerConfigError("x"), ValueError)
    assert caplog.records and "retrying" in caplog.text  # the retry warnings were there to check
    assert not leaks(caplog.text)
    for text in texts:
        assert not leaks(text), text
    assert all(r.header("Authorization") for r in fake_controller.received)


def test_push_results_do_not_show_deep_store_credentials():
    from pinot_sink.controller import PushResult

    result = PushResult("s_0", "/tmp/s_0.tar.gz", "uri", 10, 0.1, download_uri=f"s3://key:{SECRET}@bucket/t/s_0.tar.gz",
                        stored_uri=f"s3://key:{SECRET}@bucket/t/s_0.tar.gz")
    assert not leaks(repr(result)) and "s3://<redacted>@bucket/t/s_0.tar.gz" in repr(result)
