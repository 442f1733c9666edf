"""One root for every error this package raises on purpose: ``type_mapping.errors.PinotSinkError``, on the
ground floor, so ``except PinotSinkError`` catches all of them; each keeps the base its callers rely on."""
from __future__ import annotations

import importlib
import inspect

from test_import_graph import import_graph
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
    outside = sorted(name for name, cls in classes.items() if not issubclass(cls, PinotSinkError))
    assert not outside, f"errors outside the PinotSinkError root: {outside}"


def test_errors_keep_the_bases_callers_rely_on():
    from pinot_sink.commit import CommitError
    from pinot_sink.controller import ControllerConfigError, ControllerError
    from pinot_sink.options import OptionError
    from pinot_sink.partition_writer import PinotWriteError
    from type_mapping.reconcile import PlanError

    assert issubclass(OptionError, ValueError) and issubclass(PlanError, ValueError)
    assert issubclass(ControllerConfigError, ValueError) and not issubclass(ControllerError, ValueError)
    assert issubclass(PinotWriteError, RuntimeError) and issubclass(CommitError, RuntimeError)
    import pinot_sink

    assert pinot_sink.PinotSinkError is PinotSinkError
