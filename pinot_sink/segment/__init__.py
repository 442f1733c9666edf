"""Native Pinot segments: build them from stored-type Arrow columns, and read them back.

Exports are loaded lazily so that importing one part (say the reader on a driver) does not pull in
the other.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "build_segment": "builder",
    "BuildOptions": "builder",
    "BuiltSegment": "builder",
    "read_segment": "read.reader",
    "open_segment": "read.reader",
    "SegmentContents": "read.reader",
    "SegmentReader": "read.reader",
    "SegmentFormatError": "read.reader",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
