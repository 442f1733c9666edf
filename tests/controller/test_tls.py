"""TLS: verification on by default, a CA bundle option, and no retry of a failed handshake."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from fake_controller import FakeController
from pinot_sink.controller import ControllerClient, ControllerTLSError, RetryPolicy


def self_signed(folder, name: str, *subject: str) -> tuple[str, str]:
    """A self-signed certificate (its own CA) and its key, made by openssl."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", *subject,
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return str(cert), str(key)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    return self_signed(tmp_path_factory.mktemp("tls"), "server", "-subj", "/CN=127.0.0.1",
                       "-addext", "subjectAltName=IP:127.0.0.1")


@pytest.fixture
def tls_controller(certificate):
    controller = FakeController(tls=certificate).start()
    controller.add_simple_table("events")
    yield controller
    controller.stop()


def test_untrusted_certificate_fails_at_once(tls_controller):
    client = ControllerClient(tls_controller.url, retry=RetryPolicy(max_attempts=5, initial_backoff_s=0.01))
    with pytest.raises(ControllerTLSError, match="CERTIFICATE_VERIFY_FAILED|certificate verify failed") as info:
        client.get_schema("events")
    assert info.value.table == "events" and not info.value.retryable
    assert tls_controller.received == []  # the handshake failed: no HTTP request was made


def test_ca_bundle_makes_it_trusted(tls_controller, certificate):
    client = ControllerClient(tls_controller.url, verify=certificate[0])
    assert client.url.startswith("https://")
    assert client.get_schema("events")["schemaName"] == "events"


def test_verification_can_be_switched_off(tls_controller):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # urllib3's InsecureRequestWarning is the point here
        assert ControllerClient(tls_controller.url, verify=False).list_segments("events") == []


@pytest.fixture(scope="module")
def client_certificate(tmp_path_factory):
    """A self-signed client certificate (its own CA) and its key, as separate files and as one PEM."""
    folder = tmp_path_factory.mktemp("mtls")
    cert, key = self_signed(folder, "client", "-subj", "/CN=pinot-sink-test")
    combined = folder / "client-combined.pem"
    combined.write_bytes(open(cert, "rb").read() + open(key, "rb").read())
    return cert, key, str(combined)


@pytest.fixture
def mtls_controller(certificate, client_certificate):
    controller = FakeController(tls=certificate, client_ca=client_certificate[0]).start()
    controller.add_simple_table("events")
    yield controller
    controller.stop()


def test_mutual_tls_with_a_client_certificate(mtls_controller, certificate, client_certificate):
    cert, key, combined = client_certificate
    client = ControllerClient(mtls_controller.url, verify=certificate[0], cert=(cert, key))
    assert client.get_schema("events")["schemaName"] == "events"
    assert client.config.cert == (cert, key)
    one_file = ControllerClient(mtls_controller.url, verify=certificate[0], cert=combined)
    assert one_file.list_segments("events") == []
    import pickle

    assert pickle.loads(pickle.dumps(client)).list_segments("events") == []  # an executor's copy too


def test_mutual_tls_without_a_client_certificate_is_refused(mtls_controller, certificate):
    from pinot_sink.controller import ControllerError

    client = ControllerClient(mtls_controller.url, verify=certificate[0],
                              retry=RetryPolicy(max_attempts=2, initial_backoff_s=0.01, max_elapsed_s=5))
    with pytest.raises(ControllerError, match="TLS|SSL|reset|closed|aborted"):
        client.get_schema("events")
    assert mtls_controller.received == []  # no request got through the handshake


def test_cli_flags_reach_the_client_certificate(mtls_controller, certificate, client_certificate):
    import argparse

    from pinot_sink.controller.cli_args import add_controller_arguments, client_from_args

    parser = argparse.ArgumentParser()
    add_controller_arguments(parser)
    cert, key, _ = client_certificate
    args = parser.parse_args(["--url", mtls_controller.url, "--table", "events", "--ca-bundle", certificate[0],
                              "--client-cert", cert, "--client-key", key])
    assert client_from_args(args).list_segments("events") == []
    args = parser.parse_args(["--url", mtls_controller.url, "--table", "events", "--client-cert", "/nope.pem"])
    with pytest.raises(SystemExit, match="^--client-cert: no file at /nope.pem"):
        client_from_args(args)
