"""The root of every error this package raises: ``PinotSinkError``.

On the ground floor so that every layer can derive from it (``type_mapping``, the segment builder and reader,
the controller client, the job, the entry points): ``except PinotSinkError`` catches anything this package
raises on purpose, and nothing else. Each error keeps the other base its callers rely on (``ValueError`` for
bad input, ``RuntimeError`` for a failed write), so existing ``except ValueError`` clauses still hold.
"""
from __future__ import annotations

import re

REDACTED = "<redacted>"
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@'\"]*@")


def redact_text(text: str) -> str:
    """``text`` with the user-info part of every URL in it (``http://user:pw@host``, ``s3://key:secret@bucket``)
    redacted: here, beside the errors' root, so that every floor (the deep store's files and manifests, the
    controller's errors) keeps credentials out of what it prints with the one rule."""
    return _URL_USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", text) if "@" in text else text


class PinotSinkError(Exception):
    """Raised on purpose by pinot_sink or type_mapping; the message says what to change, in a user's words."""
