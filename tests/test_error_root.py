"""One root for every error this package raises on purpose: ``type_mapping.errors.PinotSinkError``, on the
ground floor, so ``except PinotSinkError`` catches all of them; each keeps the base its callers rely on. The
Java library ports below it (javalib) throw what Java throws, under their own root ``JavaException``: their
callers decide what a throw means (a row function's failure, an IngestionError)."""
from __future__ import annotations

import importlib
import inspect

from test_import_graph import import_graph
from javalib.exceptions import JavaException
from type_mapping.errors import PinotSinkError


def _error_classes() -> dict[str, type]:
    found = {}
    for module_name in sorted(m for m in import_graph() if not m.endswith("__main__")):
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == module_name
                    and not name.startswith("_")):  # private control-flow signals never leave their module
                found[f"{module_name}.{name}"] = value
    return found


def test_every_error_derives_from_pinot_sink_error():
    classes = _error_classes()
    assert len(classes) >= 36, sorted(classes)
    outside = sorted(name for name, cls in classes.items()
                     if not issubclass(cls, JavaException if name.startswith("javalib.") else PinotSinkError))
    assert not outside, f"errors outside the PinotSinkError root (javalib's: JavaException): {outside}"
    ports = sorted(name for name in classes if name.startswith("javalib."))
    assert "javalib.jsonpath.JsonPathError" in ports and not any(issubclass(classes[n], PinotSinkError) for n in ports)


def test_errors_keep_the_bases_callers_rely_on():
    from pinot_sink.commit import CommitError
    from pinot_sink.controller import ControllerConfigError, ControllerError
    from pinot_sink.options import OptionError
    from pinot_sink.partition_writer import PinotWriteError
    from type_mapping.reconcile import PlanError

    assert issubclass(OptionError, ValueError) and issubclass(PlanError, ValueError)
    assert issubclass(ControllerConfigError, ValueError) and not issubclass(ControllerError, ValueError)
    assert issubclass(PinotWriteError, RuntimeError) and issubclass(CommitError, RuntimeError)
    from javalib.jsonpath import JsonPathError
    from pinot_sink.ingestion.functions.rowwise import JavaThrows

    assert issubclass(JsonPathError, ValueError)  # a function's check reports a bad literal path as a ValueError
    assert issubclass(JavaThrows, PinotSinkError) and issubclass(JavaThrows, JavaException)  # per_row catches both
    import pinot_sink

    assert pinot_sink.PinotSinkError is PinotSinkError
