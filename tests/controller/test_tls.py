"""TLS: verification on by default, a CA bundle option, and no retry of a failed handshake."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from fake_controller import FakeController
from pinot_sink.controller import ControllerClient, ControllerTLSError, RetryPolicy


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    return str(cert), str(key)


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
