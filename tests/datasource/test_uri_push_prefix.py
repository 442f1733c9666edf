"""``push-mode=uri`` is judged by the URI the controller is sent: a local ``output-uri`` served over HTTP
(``push.segment-uri-prefix``) is fine; the controller refuses ``file:`` (recorded from a real one)."""
from __future__ import annotations

import pytest

from pinot_sink.options import OptionError

from .test_commit import job, table  # noqa: F401 (fixture)


def test_a_local_output_uri_served_over_http_may_be_pushed_by_uri(tmp_path, table):
    the_job = job(url=table.url, out=tmp_path, **{"push-mode": "uri", "push.segment-uri-prefix": "http://127.0.0.1:9"})
    assert the_job is not None


@pytest.mark.parametrize("prefix", [None, "file://"])
def test_a_file_uri_the_controller_would_be_sent_fails_before_any_task(tmp_path, table, prefix):
    options = {"push-mode": "uri", **({"push.segment-uri-prefix": prefix} if prefix else {})}
    with pytest.raises(OptionError, match="'push-mode'=uri needs an 'output-uri' the controller can download from"):
        job(url=table.url, out=tmp_path, **options)
