"""docs/ingestion.md's function list is generated from the registry: the committed doc must be what the
generator writes now (run tools/pinot_functions/function_docs.py after changing the registry)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("function_docs", ROOT / "tools" / "pinot_functions" / "function_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_function_list_is_the_generated_one():
    generator = _generator()
    doc = (ROOT / "docs" / "ingestion.md").read_text()
    assert generator.render(doc) == doc, "run: python tools/pinot_functions/function_docs.py"


def test_every_registered_function_is_in_the_doc():
    from pinot_sink.ingestion.functions import REGISTRY

    listed = _generator().generate()
    assert all(overloads for overloads in REGISTRY.values())
    assert "`timestampAdd`" in listed and "`urlDomain`" in listed and "`toUuid`" in listed


def test_every_refused_name_has_its_reason():
    """A Pinot name neither evaluated nor refused with a reason was listed as "(missing)" (and / or / not were,
    though the evaluator plans them itself): the list must say the truth for every name."""
    listed = _generator().generate()
    assert "(missing)" not in listed
    assert "| `and` |" in listed and "| `or` |" in listed and "| `not` |" in listed
