"""The root of every error this package raises: ``PinotSinkError``.

On the ground floor so that every layer can derive from it (``type_mapping``, the segment builder and reader,
the controller client, the job, the entry points): ``except PinotSinkError`` catches anything this package
raises on purpose, and nothing else. Each error keeps the other base its callers rely on (``ValueError`` for
bad input, ``RuntimeError`` for a failed write), so existing ``except ValueError`` clauses still hold.
"""
from __future__ import annotations


class PinotSinkError(Exception):
    """Raised on purpose by pinot_sink or type_mapping; the message says what to change, in a user's words."""
