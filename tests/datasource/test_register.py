"""Registration and the JVM 'pinot' name conflict."""
from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

import pinot_sink


class _Provider:
    def __init__(self, short_name, class_name):
        self._short, self._class = short_name, class_name

    def shortName(self):
        return self._short

    def getClass(self):
        return SimpleNamespace(getName=lambda: self._class)


def fake_jvm(providers):
    """Enough of py4j's view of the JVM for jvm_pinot_provider: ServiceLoader over DataSourceRegister."""
    def iterator():
        items = iter(providers)
        state = {"next": next(items, None)}

        def has_next():
            return state["next"] is not None

        def next_():
            current, state["next"] = state["next"], next(items, None)
            if isinstance(current, Exception):
                raise current
            return current
        return SimpleNamespace(hasNext=has_next, next=next_)

    java = SimpleNamespace(
        lang=SimpleNamespace(Thread=SimpleNamespace(currentThread=lambda: SimpleNamespace(
            getContextClassLoader=lambda: "loader")), Class=SimpleNamespace(forName=lambda *a: "DataSourceRegister")),
        util=SimpleNamespace(ServiceLoader=SimpleNamespace(load=lambda cls, loader: SimpleNamespace(
            iterator=iterator))),
    )
    return SimpleNamespace(_jvm=SimpleNamespace(java=java))


def test_detects_a_jvm_source_named_pinot():
    spark = fake_jvm([_Provider("parquet", "x.Parquet"), RuntimeError("broken jar"),
                      _Provider("Pinot", "org.apache.pinot.connector.spark.v3.datasource.PinotDataSource")])
    assert pinot_sink.jvm_pinot_provider(spark) == "org.apache.pinot.connector.spark.v3.datasource.PinotDataSource"
    assert pinot_sink.jvm_pinot_provider(fake_jvm([_Provider("csv", "x.Csv")])) is None
    assert pinot_sink.jvm_pinot_provider(SimpleNamespace()) is None  # no JVM access (Spark Connect)


@pytest.mark.spark
def test_register_on_the_real_session(spark, monkeypatch, caplog):
    monkeypatch.setattr(spark, "_pinot_sink_registered", None, raising=False)  # this test's own registrations
    assert pinot_sink.register(spark) is True  # nothing named 'pinot' on this classpath
    monkeypatch.setattr(pinot_sink, "jvm_pinot_provider", lambda s: "org.example.PinotSource")
    registered = []
    monkeypatch.setattr(type(spark.dataSource), "register", lambda self, source: registered.append(source))
    assert pinot_sink.register(spark) is True and registered == []  # once per session: Spark warns of each
    spark._pinot_sink_registered = None
    with caplog.at_level(logging.WARNING, logger="pinot_sink"):
        assert pinot_sink.register(spark) is False
    assert "format('pinot_sink')" in caplog.text and "org.example.PinotSource" in caplog.text
