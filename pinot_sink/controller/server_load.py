"""Before a replacement ends: every new segment loaded by the servers, and the ones a server failed to load, loaded anew.

Pinot's endReplaceSegments waits for every new segment to be ONLINE in the external view (10 minutes an attempt,
five attempts: ``waitForSegmentsBecomeOnline``), and nothing asks a server to try a failed segment again. A server
holds a segment it could not load in ERROR: its download met a controller restart (seen on a real cluster: the
segments uploaded just before the restart), or the deep store failed a moment. The end then waited past the
client's deadline and the write was reverted, although every upload had succeeded once the controller was back.

So the client watches the external view before it sends the end. A segment that no server serves and one
holds in ERROR is reset (``POST
/segments/{t}_{TYPE}/{segment}/reset``: Pinot disables and enables it, and the server loads it anew), up to
``RESETS_PER_SEGMENT`` times. A segment that is still in ERROR after that fails the write at once, naming the
segment and the server; the write does not wait out the end's deadline. The watch waits for every new segment to
be ONLINE, which the end waits for anyway, up to the end's own deadline. An external view it cannot read, or a
deadline that passes with segments still loading, hands over to the end as before.
"""
from __future__ import annotations

import logging
import time
from typing import Iterable

from .client import ControllerClient
from .errors import ConsistentPushError, ControllerError

log = logging.getLogger(__name__)

RESETS_PER_SEGMENT = 2
FIRST_POLL_S, MAX_POLL_S = 0.25, 5.0  # between reads of the external view: doubling, the largest a big table's


def await_loaded(client: ControllerClient, table: str, segments: Iterable[str], deadline_s: float) -> None:
    """Return once every one of ``segments`` is ONLINE on a server, or the deadline passes, or
    the external view cannot be read. Reset a segment a server holds in ERROR; raise ``ConsistentPushError``
    (``reverted=False``: the caller reverts) for one still in ERROR after ``RESETS_PER_SEGMENT`` resets."""
    resets: dict[str, int] = {}
    # A reset is a message to the server: the external view shows ERROR a while longer, then OFFLINE as it loads
    # the segment. Only an ERROR seen after the segment left ERROR is a new failure (state, not time, decides).
    reset_pending: set[str] = set()
    ends_at = time.monotonic() + deadline_s
    pause = FIRST_POLL_S
    try:
        # Only segments in the ideal state get loaded: one never uploaded (an entry left by a crash, ended by
        # recover) is the end's to refuse at once, not a segment to wait for.
        waiting = set(segments) & set(client.get_ideal_state(table))
    except ControllerError as error:
        log.warning("table %s: cannot read the ideal state to see the new segments loaded (%s); the end waits for "
                    "them itself", table, error)
        return
    while waiting:
        try:
            view = client.external_view(table)
        except ControllerError as error:
            log.warning("table %s: cannot read the external view to see the new segments loaded (%s); the end "
                        "waits for them itself", table, error)
            return
        waiting = {name for name in waiting if not _online(view.get(name))}
        failed = {name for name in waiting if "ERROR" in (view.get(name) or {}).values()}
        reset_pending &= failed  # those seen out of ERROR since their reset get counted again
        for name in sorted(failed - reset_pending):
            servers = sorted(server for server, state in view[name].items() if state == "ERROR")
            if resets.get(name, 0) >= RESETS_PER_SEGMENT:
                raise ConsistentPushError(
                    f"segment {name}: server {', '.join(servers)} could not load it (ERROR in the external view, "
                    f"still after {RESETS_PER_SEGMENT} resets): the server's log says why (a download from the "
                    f"deep store, a full disk, a segment it cannot read)", reverted=False, table=table, segment=name)
            resets[name] = resets.get(name, 0) + 1
            log.warning("table %s: server %s could not load new segment %s (ERROR in the external view); asking "
                        "it to load it again (reset %d of %d)", table, ", ".join(servers), name, resets[name],
                        RESETS_PER_SEGMENT)
            reset_pending.add(name)
            try:
                client.reset_segment(table, name)
            except ControllerError as error:
                log.warning("table %s: the reset of segment %s failed (%s); the end waits for it itself", table,
                            name, error)
                return
        if not waiting:
            return
        if time.monotonic() + pause > ends_at:
            log.info("table %s: %d new segment(s) still loading (e.g. %s); the end waits for them", table,
                     len(waiting), min(waiting))
            return
        time.sleep(pause)
        pause = min(pause * 2, MAX_POLL_S)


def _online(states: dict[str, str] | None) -> bool:
    """Served: ONLINE (or CONSUMING) on at least one server, all Pinot's end asks (``getOnlineSegmentsFromExternalView``;
    a replica in ERROR beside an ONLINE one is the validation manager's to repair)."""
    return any(state in ("ONLINE", "CONSUMING") for state in (states or {}).values())
