"""Consistent push: replace a table's segments atomically with Pinot's segment-lineage protocol.

list (``excludeReplacedSegments``) -> start replacement -> upload every new segment -> end replacement;
on any failure, revert with ``forceRevert`` (the new segments are deleted, routing stays on the old ones).
Queries see all old segments or all new ones, never a mix.

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
from typing import Any, Iterable, Mapping

from .client import ControllerClient, offline_raw_name
from .config import ClientConfig
from .errors import ConsistentPushError, ControllerError
from .push import PushResult, push_segments

log = logging.getLogger(__name__)

NEW, STARTED, FINISHED, REVERTED = "NEW", "STARTED", "FINISHED", "REVERTED"


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
        self.table = offline_raw_name(table)
        self.segments_to = list(segments_to)
        if len(set(self.segments_to)) != len(self.segments_to):
            raise ValueError(f"duplicate names in segments_to for table {self.table!r}")
        self.segments_from = None if segments_from is None else list(segments_from)
        self.lineage_id = lineage_id
        self.state = STARTED if lineage_id else NEW
        self.custom_map = dict(custom_map) if custom_map else None
        self.force_cleanup = force_cleanup

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
            raise ConsistentPushError(f"cannot start the replacement (nothing changed): {error}", reverted=False,
                                      table=self.table) from error
        self.state = STARTED
        log.info("table %s: replacing %d segments by %d (lineage entry %s)", self.table,
                 len(self.segments_from), len(self.segments_to), self.lineage_id)
        return self.lineage_id

    def upload(self, tar_paths: Iterable[str | os.PathLike], **push_options) -> list[PushResult]:
        """Upload new segments (any of ``push_segments``' options); the first failure raises."""
        self._require_started("upload")
        return push_segments(self.client, self.table, tar_paths, **push_options)

    def finish(self, segments_to: Iterable[str] | None = None) -> None:
        """End the replacement: the new segments become visible, the old ones hidden, atomically.
        ``segments_to`` narrows the declared new segments to those actually uploaded."""
        self._require_started("finish")
        self.client.end_replace(self.table, self.lineage_id, segments_to=segments_to)
        self.state = FINISHED
        log.info("table %s: replacement %s completed", self.table, self.lineage_id)

    def revert(self) -> None:
        """Roll back: new segments deleted, routing on the old ones. Safe to call more than once."""
        if self.state in (NEW, REVERTED):
            return
        self.client.revert_replace(self.table, self.lineage_id, force=True)
        self.state = REVERTED
        log.warning("table %s: replacement %s reverted", self.table, self.lineage_id)

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
            except ControllerError as error:
                exc = error
        reverted = self._revert_quietly()
        segment = getattr(exc, "segment", None)
        outcome = "reverted" if reverted else f"REVERT FAILED, lineage entry {self.lineage_id} left in progress"
        raise ConsistentPushError(
            f"consistent push failed ({outcome}): {exc}", reverted=reverted, table=self.table, segment=segment,
        ) from exc

    def _revert_quietly(self) -> bool:
        try:
            self.revert()
            return True
        except ControllerError as error:
            log.error("table %s: revert of lineage entry %s failed: %s", self.table, self.lineage_id, error)
            return False
