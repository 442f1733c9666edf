"""Consistent push: replace a table's segments atomically with Pinot's segment-lineage protocol.

list (``excludeReplacedSegments``) -> start replacement -> upload every new segment -> end replacement;
on any failure, revert with ``forceRevert`` (the new segments are deleted, routing stays on the old ones).
Queries see all old segments or all new ones, never a mix.

The outcome of each step is the controller's record, never the answer alone: after a start, end or revert
whose answer is lost or unclear (a timeout, a reset, a 5xx, a 200 that did nothing), and after every end,
the entry is read back (``GET /segments/{t}/lineage``, retried until the client's deadline). COMPLETED is
done; IN_PROGRESS is ended once more, then reverted; if the record cannot be read,
``CommitOutcomeUnknownError`` says the replacement MAY have completed and names the entry.

Usable in one process::

    with ConsistentPush(client, "events", segments_to=names) as push:
        push.upload(tar_paths)            # end on success, revert on an exception

The Spark data source uses the first form in its driver's commit (``pinot_sink.commit``): tasks only stage
tarballs, and the driver starts, uploads and ends (or reverts) in one place. The object also pickles as its
client config, table, lineage id and segment lists, and ``ConsistentPush.resume(config, table, lineage_id)``
rebuilds it in another process from the entry's id (no caller in this package does so today).
"""
from __future__ import annotations

import logging
import os
from dataclasses import replace
from typing import Any, Iterable, Mapping

from .client import ControllerClient, offline_raw_name
from .config import ClientConfig
from .errors import (CommitOutcomeUnknownError, ConsistentPushError, ControllerError, ControllerRequestError,
                     RetriesExhaustedError)
from .push import PushResult, push_segments
from .retry import RetryPolicy
from .server_load import END_AFTER_WAIT_S, await_loaded, await_loaded_before_revert, reload_after_revert

log = logging.getLogger(__name__)

NEW, STARTED, FINISHED, REVERTED = "NEW", "STARTED", "FINISHED", "REVERTED"
IN_PROGRESS, COMPLETED = "IN_PROGRESS", "COMPLETED"  # Pinot's LineageEntryState (and REVERTED)
READ_BACK_ATTEMPTS = 10_000  # bounded by the deadline, not by a count
# endReplaceSegments answers once every new segment is ONLINE in the external view (Pinot waits up to 10 minutes
# per attempt, EXTERNAL_VIEW_ONLINE_SEGMENTS_MAX_WAIT_MS): servers load segments at a rate, so the end of a big
# commit may take longer than the client's usual read timeout. Its deadline grows with the new segments
# (15 ms each: 20k segments get the controller's 10 minutes and a margin, 50k 12.5 minutes).
END_SECONDS_PER_SEGMENT = 0.015


def end_deadline_s(new_segments: int, config: ClientConfig) -> tuple[float, float]:
    """(read timeout, deadline with retries) of an endReplaceSegments for ``new_segments`` new segments: the
    client's own, or more when the segments need it."""
    needed = END_SECONDS_PER_SEGMENT * new_segments
    return max(config.read_timeout, needed), max(config.retry.max_elapsed_s, needed)


class ConsistentPush:
    """One replacement of ``segments_from`` (default: every live segment, listed at ``start``) by
    ``segments_to`` (names must not exist yet: give each run fresh names, e.g. with a run timestamp).

    ``force_cleanup`` (default on, as in Pinot's own batch jobs) lets the controller revert an IN_PROGRESS
    entry left by a crashed earlier run that overlaps this one, instead of refusing to start; it also
    makes a concurrent replacement of the same segments lose (last writer wins)."""

    def __init__(
        self,
        client: ControllerClient | ClientConfig,
        table: str,
        segments_to: Iterable[str],
        *,
        segments_from: Iterable[str] | None = None,
        lineage_id: str | None = None,
        custom_map: Mapping[str, str] | None = None,
        force_cleanup: bool = True,
    ) -> None:
        if isinstance(client, ControllerClient):
            self.client_config, self._client = client.config, client
        else:
            self.client_config, self._client = client, None
        self.table = offline_raw_name(table, self.client_config.table_type)
        self.segments_to = list(segments_to)
        if len(set(self.segments_to)) != len(self.segments_to):
            raise ValueError(f"duplicate names in segments_to for table {self.table!r}")
        self.segments_from = None if segments_from is None else list(segments_from)
        self.lineage_id = lineage_id
        self.state = STARTED if lineage_id else NEW
        self.custom_map = dict(custom_map) if custom_map else None
        self.force_cleanup = force_cleanup
        self.end_sent = False  # from then on the entry may be COMPLETED whatever the answers said
        self.end_unclear = False  # an end got no clear answer: it may still be applied, late

    @classmethod
    def resume(
        cls, client: ControllerClient | ClientConfig, table: str, lineage_id: str,
        segments_to: Iterable[str] = (),
    ) -> "ConsistentPush":
        """Pick up a replacement started elsewhere (e.g. on the Spark driver) by its lineage entry id."""
        return cls(client, table, segments_to, lineage_id=lineage_id)

    def __repr__(self) -> str:
        return (f"ConsistentPush(table={self.table!r}, lineage_id={self.lineage_id!r}, state={self.state}, "
                f"segments_to={len(self.segments_to)}, url={self.client_config.url!r})")

    @property
    def client(self) -> ControllerClient:
        if self._client is None:
            self._client = ControllerClient.from_config(self.client_config)
        return self._client

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_client"] = None  # a session does not travel; rebuilt from the config on use
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # --- protocol steps ----------------------------------------------------------------------------

    def start(self) -> str:
        """List the live segments (unless given) and open the lineage entry; returns its id."""
        if self.state != NEW:
            raise ConsistentPushError(f"replacement already {self.state.lower()}", reverted=False, table=self.table)
        try:
            if self.segments_from is None:
                self.segments_from = self.client.list_segments(self.table, exclude_replaced=True)
        except ControllerError as error:
            raise ConsistentPushError(f"cannot list the current segments: {error}", reverted=False,
                                      table=self.table) from error
        clash = sorted(set(self.segments_from) & set(self.segments_to))
        if clash:
            raise ConsistentPushError(
                f"new segment names already exist in the table: {clash[:5]} (new names must be fresh)",
                reverted=False, table=self.table, segment=clash[0],
            )
        try:
            self.lineage_id = self.client.start_replace(
                self.table, self.segments_from, self.segments_to, custom_map=self.custom_map,
                force_cleanup=self.force_cleanup,
            )
        except ControllerError as error:
            if isinstance(error, ControllerRequestError):  # refused before anything was done
                raise ConsistentPushError(f"cannot start the replacement (nothing changed): {error}",
                                          reverted=False, table=self.table) from error
            self.lineage_id = self._started_entry(error)  # the call may have been applied: look
        self.state = STARTED
        log.info("table %s: replacing %d segments by %d (lineage entry %s)", self.table,
                 len(self.segments_from), len(self.segments_to), self.lineage_id)
        return self.lineage_id

    def _started_entry(self, error: ControllerError) -> str:
        """After an unclear answer to the start: the IN_PROGRESS entry with exactly these segments, if the
        controller made it; else the start failed and nothing changed."""
        try:
            entries = self.read_lineage()
        except ControllerError as unread:
            raise ConsistentPushError(
                f"cannot start the replacement, and could not learn whether the controller opened a lineage entry "
                f"({unread}); if it did, the entry is IN_PROGRESS and its new segments stay hidden (nothing is "
                f"committed): `pinot-sink recover` reverts it: {error}", reverted=False, table=self.table) from error
        for entry_id, entry in entries.items():
            if (entry.get("state") == IN_PROGRESS
                    and sorted(entry.get("segmentsFrom") or []) == sorted(self.segments_from)
                    and sorted(entry.get("segmentsTo") or []) == sorted(self.segments_to)):
                log.warning("table %s: the start's answer was unclear (%s), but the controller opened lineage "
                            "entry %s: carrying on with it", self.table, error, entry_id)
                return entry_id
        raise ConsistentPushError(f"cannot start the replacement (nothing changed): {error}", reverted=False,
                                  table=self.table) from error

    def read_lineage(self) -> dict[str, dict]:
        """The table's lineage entries as the controller records them, retried until the client's deadline
        (``retry.max-elapsed``) rather than for its usual number of attempts: an outage that outlasted the
        call itself may end in time to learn what the call did."""
        policy = self.client_config.retry
        patient = RetryPolicy(max_attempts=READ_BACK_ATTEMPTS, max_elapsed_s=policy.max_elapsed_s,
                              initial_backoff_s=policy.initial_backoff_s, max_backoff_s=policy.max_backoff_s,
                              jitter=policy.jitter)
        # One attempt per try, so that an unreadable answer (a 200 with an error body) is retried like an outage.
        def once(_remaining: float) -> dict[str, dict]:
            try:
                return self.client.get_lineage(self.table, retry=RetryPolicy.none())
            except RetriesExhaustedError as error:  # one attempt made: the retrying is ours
                raise error.last_error from None

        return patient.call(once, describe=f"get segment lineage {self.table}")

    def recorded_state(self, after: BaseException | None = None) -> str | None:
        """This entry's state in the controller's record (IN_PROGRESS, COMPLETED, REVERTED; None: no such
        entry, as when a forceCleanup deleted it). ``CommitOutcomeUnknownError`` when it cannot be read and
        an end was sent (the replacement may have completed); else the read's ``ControllerError``."""
        try:
            entry = self.read_lineage().get(self.lineage_id)
        except ControllerError as unread:
            if not self.end_sent:
                raise
            raise CommitOutcomeUnknownError(
                f"lineage entry {self.lineage_id} MAY HAVE COMPLETED: the answer to its last step was "
                f"{'lost or unclear (' + str(after) + ')' if after is not None else 'unclear'}, and its state "
                f"could not be read back: {unread}", lineage_id=self.lineage_id, table=self.table) from unread
        return None if entry is None else str(entry.get("state"))

    def upload(self, tar_paths: Iterable[str | os.PathLike], **push_options) -> list[PushResult]:
        """Upload new segments (any of ``push_segments``' options); the first failure raises."""
        self._require_started("upload")
        return push_segments(self.client, self.table, tar_paths, **push_options)

    def finish(self, segments_to: Iterable[str] | None = None) -> None:
        """End the replacement: the new segments become visible, the old ones hidden, atomically.
        ``segments_to`` narrows the declared new segments to those actually uploaded. Done when the
        controller's record says COMPLETED (see the module doc); raises otherwise."""
        self._require_started("finish")
        new = list(self.segments_to if segments_to is None else segments_to)
        # Before the end, which waits for every new segment to be served: one a server failed to load is loaded
        # anew, or the write fails naming it, rather than waiting out the end's deadline (server_load.py).
        waited_s = await_loaded(self.client, self.table, new, end_deadline_s(len(new), self.client_config)[1])
        self.end_sent = True
        client = self._end_client(len(new), waited_s)
        for attempt in (1, 2):
            answer: ControllerError | None = None
            try:
                client.end_replace(self.table, self.lineage_id, segments_to=None if segments_to is None else new)
            except ControllerError as error:
                answer = error
                self.end_unclear |= error.retryable or isinstance(error, RetriesExhaustedError)
            state = self.recorded_state(answer)
            if state == COMPLETED:
                self.state = FINISHED
                if answer is not None or attempt > 1:
                    log.warning("table %s: the end of %s got %s, but the controller records it COMPLETED",
                                self.table, self.lineage_id, answer or "an answer that did nothing at first")
                log.info("table %s: replacement %s completed", self.table, self.lineage_id)
                return
            if state == IN_PROGRESS and (answer is None or answer.retryable) and attempt == 1:
                log.warning("table %s: the end of %s was answered (%s) but not applied; ending it again",
                            self.table, self.lineage_id, answer or "200")
                continue
            break
        if state != IN_PROGRESS:  # reverted (or cleaned up) by someone else: the new segments are gone
            self.state = REVERTED
        raise ConsistentPushError(
            f"the controller did not complete lineage entry {self.lineage_id} (it records it "
            f"{state or 'as gone'})" + (f": {answer}" if answer is not None else ": the end was answered 200 "
                                        "but not applied"), reverted=state != IN_PROGRESS, table=self.table)

    def _end_client(self, new_segments: int, waited_s: float = 0.0) -> ControllerClient:
        read_s, elapsed_s = end_deadline_s(new_segments, self.client_config)
        if waited_s >= 1.0:  # the wait for the servers (await_loaded) spent part of the end's deadline
            elapsed_s = max(elapsed_s - waited_s, min(elapsed_s, END_AFTER_WAIT_S))
        if (read_s, elapsed_s) == (self.client_config.read_timeout, self.client_config.retry.max_elapsed_s):
            return self.client
        log.info("table %s: ending a replacement of %d new segments may wait for servers to load them: deadline "
                 "%.0fs", self.table, new_segments, elapsed_s)
        config = replace(self.client_config, read_timeout=read_s,
                         retry=replace(self.client_config.retry, max_elapsed_s=elapsed_s))
        return ControllerClient.from_config(config)

    def revert(self) -> None:
        """Roll back: new segments deleted, routing on the old ones. Safe to call more than once. Done when
        the controller's record says REVERTED (or has no such entry); raises otherwise."""
        if self.state in (NEW, REVERTED):
            return
        not_loaded = await_loaded_before_revert(self.client, self.table, self.lineage_id)
        for attempt in (1, 2):
            answer: ControllerError | None = None
            try:
                self.client.revert_replace(self.table, self.lineage_id, force=True)
            except ControllerError as error:
                answer = error
            # Read back after a 200 too: a 200 with an error body did nothing, and a withdrawal that says
            # "reverted" while its entry stays COMPLETED leaves two runs' rows live.
            try:
                state = self.recorded_state(answer)
            except ControllerError as unread:
                if answer is not None:
                    raise
                log.warning("table %s: the revert of %s was answered 200; its state could not be read back (%s)",
                            self.table, self.lineage_id, unread)
                break
            if state in (REVERTED, None):
                if answer is not None:
                    log.warning("table %s: the revert of %s got %s, but the controller records it reverted",
                                self.table, self.lineage_id, answer)
                break
            if attempt == 1 and (answer is None or answer.retryable):
                log.warning("table %s: the revert of %s was answered (%s) but not applied; reverting it again",
                            self.table, self.lineage_id, answer or "200")
                continue
            raise ConsistentPushError(f"the revert of lineage entry {self.lineage_id} failed, the controller records "
                                      f"it {state}: {answer or 'the revert was answered 200 but not applied'}",
                                      reverted=False, table=self.table) from answer
        self.state = REVERTED
        log.warning("table %s: replacement %s reverted", self.table, self.lineage_id)
        reload_after_revert(self.client, self.table, self.lineage_id, not_loaded=not_loaded)

    def _require_started(self, step: str) -> None:
        if self.state != STARTED or not self.lineage_id:
            raise ConsistentPushError(f"cannot {step}: replacement is {self.state.lower()}", reverted=False,
                                      table=self.table)

    # --- one-call and context-manager forms ---------------------------------------------------------

    def run(self, tar_paths: Iterable[str | os.PathLike], **push_options) -> list[PushResult]:
        """start -> upload all -> finish; reverts and raises ``ConsistentPushError`` on any failure."""
        with self:
            return self.upload(tar_paths, **push_options)

    def __enter__(self) -> "ConsistentPush":
        if self.state == NEW:
            self.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if self.state != STARTED:  # finished or reverted inside the block: nothing left to decide
            return False
        if exc is not None and not isinstance(exc, Exception):  # KeyboardInterrupt & co: undo, re-raise as is
            self._revert_quietly()
            return False
        if exc is None:
            try:
                self.finish()
                return False
            except CommitOutcomeUnknownError:
                raise  # neither finished nor revertable from here: the caller says what that means
            except ControllerError as error:
                exc = error
                if self.state == REVERTED:  # someone else reverted it: nothing of it is visible
                    raise ConsistentPushError(f"consistent push failed (reverted): {exc}", reverted=True,
                                              table=self.table) from exc
        reverted = self._revert_quietly()
        if not reverted and self.end_unclear:
            # A REVERTED entry cannot be ended; one left IN_PROGRESS can, by an end still in flight (a timed-out
            # request the controller applies late): "nothing is committed" would be a guess.
            raise CommitOutcomeUnknownError(
                f"lineage entry {self.lineage_id} MAY STILL COMPLETE: an end got no clear answer ({exc}) and may be "
                f"applied late, and the revert failed", lineage_id=self.lineage_id, table=self.table) from exc
        segment = getattr(exc, "segment", None)
        outcome = "reverted" if reverted else f"REVERT FAILED, lineage entry {self.lineage_id} left in progress"
        raise ConsistentPushError(
            f"consistent push failed ({outcome}): {exc}", reverted=reverted, table=self.table, segment=segment,
        ) from exc

    def _revert_quietly(self) -> bool:
        try:
            self.revert()
            return True
        except CommitOutcomeUnknownError:
            raise
        except ControllerError as error:
            log.error("table %s: revert of lineage entry %s failed: %s", self.table, self.lineage_id, error)
            return False
