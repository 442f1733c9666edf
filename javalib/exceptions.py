"""What a ported Java library throws.

``JavaException`` is the root of every exception a port here raises where its Java library throws; the message
is Java's (``"TopologyException: side location conflict ..."``, ``"IllegalArgumentException: ..."``). The
ports know nothing of Pinot: the caller decides what a throw means (pinot_sink's row functions fail the row,
as Pinot does, through their ``JavaThrows``, which is a ``JavaException`` too, and report it as a
``PinotSinkError``).
"""
from __future__ import annotations


class JavaException(Exception):
    """Raised by a port where its Java library throws; the message is Java's exception."""
