"""What the servers hold, read from the external view, where the lineage protocol must wait on it: before a
replacement ends (``await_loaded``), and around a revert on an upsert or dedup table (``await_loaded_before_revert``,
``reload_after_revert``, at the end of this module).

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
from typing import Callable, Iterable

from type_mapping.table_config import primary_key_settings

from .client import ControllerClient, offline_raw_name
from .errors import ConsistentPushError, ControllerError

log = logging.getLogger(__name__)

RESETS_PER_SEGMENT = 2
# Between reads of the external view, doubling: a commit's segments load in well under a second on a quiet
# cluster, and the end then comes at most MAX_POLL_S after they are served (Pinot's own wait checks every 1 s, reading
# ZooKeeper's cache; ours is a REST read of the whole view, megabytes for a table of tens of thousands of segments)
FIRST_POLL_S, MAX_POLL_S = 0.25, 2.0
# An ERROR this long after its reset is a new failure even if no read saw the segment out of ERROR: a download
# that fails again at once goes ERROR -> OFFLINE -> ERROR between two reads (a reset still queued on a busy server
# is no risk: Pinot refuses a reset while a message for the segment is pending, and the end takes over).
STALE_ERROR_S = 30.0


# The least the end gets once the watch has used the deadline (it and the end share one: a server down, the
# write failed after retry.max-elapsed before the watch, not twice that): the end's own work, segments served.
END_AFTER_WAIT_S = 30.0


def await_loaded(client: ControllerClient, table: str, segments: Iterable[str], deadline_s: float) -> float:
    """Return once every one of ``segments`` is ONLINE on a server, or the deadline passes, or
    the external view cannot be read: the seconds spent, which the end's deadline then lacks. Reset a segment a
    server holds in ERROR; raise ``ConsistentPushError`` (``reverted=False``: the caller reverts) for one still
    in ERROR after ``RESETS_PER_SEGMENT`` resets."""
    started = time.monotonic()
    _watch(client, table, segments, deadline_s)
    return time.monotonic() - started


def _watch(client: ControllerClient, table: str, segments: Iterable[str], deadline_s: float) -> None:
    resets: dict[str, int] = {}
    # A reset is a message to the server: the external view shows ERROR a while longer, then OFFLINE as it loads
    # the segment. An ERROR seen after the segment left ERROR, or ``STALE_ERROR_S`` after the reset, is a new
    # failure (segment -> when its reset was sent).
    reset_pending: dict[str, float] = {}
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
        now = time.monotonic()  # those seen out of ERROR since their reset, or long in it, get counted again
        reset_pending = {name: at for name, at in reset_pending.items() if name in failed and now - at < STALE_ERROR_S}
        for name in sorted(failed - reset_pending.keys()):
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
            reset_pending[name] = time.monotonic()
            try:  # each server holding it in ERROR: a replica whose server is down would fail the whole reset
                for server in servers:
                    client.reset_segment(table, name, server)
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


# --- around a revert on an upsert or dedup table --------------------------------------------------------------


def _keyed_entry_segments(client: ControllerClient, raw: str, lineage_id: str | None) -> set[str] | None:
    """The segments (``segmentsTo``) of lineage entry ``lineage_id`` on an upsert or dedup table; None when the
    table has no keys (nothing to wait for or reload)."""
    if not primary_key_settings(client.get_table_config(raw)).keyed:
        return None
    entry = client.get_lineage(raw).get(lineage_id) or {} if lineage_id else {}
    return set(entry.get("segmentsTo") or [])


def await_loaded_before_revert(client: ControllerClient, table: str, lineage_id: str | None, *,
                               wait_s: float = 120.0) -> set[str]:
    """Before a revert on an upsert or dedup table, wait until every server the ideal state assigns one of the
    entry's segments has loaded it (the external view names that server for it), up to ``wait_s``. A server
    still loading a segment when the revert removes it loads it all the same (Helix sends the drop only once
    the load is done): the segment takes over its keys, leaves a moment later, and the keys vanish with it.
    The external view does not list a segment being loaded (and follows the servers with a lag), so after the
    revert nothing shows that one is still to come, and a reload asked then resolves the keys to it again (a
    REALTIME recover right after a killed write under load: 24 to 273 of 300 keys hidden, the reload having
    found the reverted segments on the server). Once each is loaded, the wait after the revert
    (``reload_after_revert``) sees it leave. Returns the segments not seen loaded (for ``reload_after_revert``
    to say so). Never raises: the revert goes ahead either way."""
    raw = offline_raw_name(table, client.table_type)
    try:
        segments = _keyed_entry_segments(client, raw, lineage_id)
        if not segments:
            return set()
        loading = _until_empty(lambda: _loading(client, raw, segments), wait_s)
        if loading:
            log.warning("table %s: after %.0f s the servers had not loaded %d segment(s) of lineage entry %s (e.g. "
                        "%s); reverting it anyway", raw, wait_s, len(loading), lineage_id, sorted(loading)[0])
        return loading
    except Exception as exc:  # noqa: BLE001 - the revert goes ahead; the reload after it says what it can
        log.warning("table %s: could not see whether the servers had loaded the segments of lineage entry %s before "
                    "reverting it (%s)", raw, lineage_id, exc)
        return set()


def _until_empty(read: Callable[[], set[str]], wait_s: float) -> set[str]:
    """``read()`` again every 0.5 s until it answers nothing or ``wait_s`` has passed; its last answer."""
    deadline = time.monotonic() + wait_s
    left = read()
    while left and time.monotonic() < deadline:
        time.sleep(0.5)
        left = read()
    return left


def _loading(client: ControllerClient, raw: str, segments: set[str]) -> set[str]:
    """Those of ``segments`` in the ideal state that a server it names does not yet report in the external view
    in the state asked (ONLINE), or in ERROR: its transition is still to come or under way."""
    ideal = client.get_ideal_state(raw)
    view = client.external_view(raw)

    def settled(name: str) -> bool:
        served = view.get(name) or {}
        return all(served.get(server) in (state, "ERROR") for server, state in (ideal[name] or {}).items())
    return {name for name in segments & set(ideal) if not settled(name)}


def reload_after_revert(client: ControllerClient, table: str, lineage_id: str | None, *,
                        wait_s: float = 120.0, not_loaded: Iterable[str] = ()) -> bool:
    """After a revert on an upsert or dedup table, reload its segments; True when asked. A server resolves a key
    as segments come and go: the reverted segments, once loaded, had marked the key's rows in the other
    segments invalid, and when they leave Pinot drops the key without looking at those rows again, so the
    broker shows nothing for it (found on a real cluster: a failed write's keys vanished) until the segments
    are loaded afresh. The reload is asked once the servers no longer hold the reverted segments (a reload
    while one is still there resolves its keys to it again, and they vanish when it goes: 49 of 300 keys on a
    real cluster), waiting up to ``wait_s``: gone from the ideal state and the external view, which lists
    them until the servers have dropped them, provided they were loaded before the revert
    (``await_loaded_before_revert``: a segment still loading is in neither). Never raises: the revert is
    done; a failure says what to run."""
    raw = offline_raw_name(table, client.table_type)
    try:
        reverted = _keyed_entry_segments(client, raw, lineage_id)
        if reverted is None:
            return False
        held = _until_empty(lambda: _held(client, raw, reverted), wait_s)
        client.reload_segments(raw)
        unseen = set(not_loaded) - held  # never seen loaded: one loaded after this reload hides its keys again
        if unseen and not held:
            log.warning("table %s: the reload was asked, but %d reverted segment(s) (e.g. %s) were never seen loaded "
                        "before the revert: if a server loaded one after it, keys it took over may stay hidden: "
                        "run POST %s/segments/%s/reload?type=%s once more", raw, len(unseen), sorted(unseen)[0],
                        client.url, raw, client.table_type)
            return True
        if held:  # the reload may resolve their keys to them again: say so, and how to finish, not silence
            log.warning("table %s: after %.0f s the servers still held %d reverted segment(s) (e.g. %s); the "
                        "reload was asked anyway, and keys those segments had taken over may stay hidden until "
                        "they are gone: once `GET %s/tables/%s/externalview` no longer lists them, run POST "
                        "%s/segments/%s/reload?type=%s", raw, wait_s, len(held), sorted(held)[0], client.url, raw,
                        client.url, raw, client.table_type)
            return True
    except Exception as exc:  # noqa: BLE001 - the revert stands; say how to finish by hand
        log.warning("table %s: after the revert, its upsert/dedup keys resolve again only once its segments are "
                    "reloaded, and that failed (%s): POST %s/segments/%s/reload?type=%s", raw, exc, client.url, raw,
                    client.table_type)
        return False
    log.warning("table %s: upsert/dedup table: its segments are being reloaded, so the keys the reverted segments "
                "had taken over show their other rows again (seconds; until then the broker omits them)", raw)
    return True


def _held(client: ControllerClient, raw: str, reverted: set[str]) -> set[str]:
    """Those of ``reverted`` still in the ideal state or the external view (the view read last: a segment
    leaves the ideal state first)."""
    if not reverted:
        return set()
    in_ideal = reverted & set(client.get_ideal_state(raw))
    return in_ideal | (reverted & set(client.external_view(raw)))
