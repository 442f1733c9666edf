"""A table's writes and their undo: which job run put which segments in, whether they are live, replaced or
reverted, and the revert of a committed write (``pinot-sink history``, ``pinot-sink undo``).

The record is the controller's: every segment this writer names carries its write and run tags
(``naming.name_tags``), and each commit is one lineage entry (new segments in, replaced ones out). Pinot's
default lineage manager does not keep the ``customMap`` a commit sends, so write ids, notes and byte counts come
from the runs' manifests when an ``output-uri`` is given; rows come from the segments' ZK metadata.

Undo is Pinot's ``revertReplaceSegments`` on the write's COMPLETED entry (apache/pinot#18282): routing goes back
to the segments it replaced, its own are deleted. ``forceRevert`` is only for IN_PROGRESS entries, never sent
here. It is refused, with the reason, when Pinot would refuse it or it would not restore the table: the entry is
gone (Pinot's retention drops a completed entry once its replaced segments are deleted, an append's at its next
run), a later write replaced this one's segments (undo that one first), or retention already deleted segments it
replaced (their rows cannot come back).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Mapping

from pinot_sink.controller import ControllerClient
from pinot_sink.controller.consistent_push import COMPLETED, IN_PROGRESS
from pinot_sink.controller.server_load import await_loaded_before_revert, reload_after_revert
from pinot_sink.naming import name_tags, run_replaces, write_tag
from pinot_sink.storage.files import read_text
from pinot_sink.storage.layout import table_uri
from pinot_sink.storage.manifests import ABORTED, WAS_COMMITTED, manifests_of_table, rewrite_status
from pinot_sink.storage.stores import DirectoryStore
from type_mapping.errors import PinotSinkError

LIVE, PARTLY, REPLACED, REVERTED, HIDDEN = "live", "partly replaced", "replaced", "reverted", "in progress"
EMPTY_WRITE = "(no rows)"  # the write tag shown for an entry that added no segment (its run tag: the entry id)


class UndoRefused(PinotSinkError, RuntimeError):
    """The write cannot be undone; the message says why and what would make it possible."""


@dataclass
class WriteRun:
    """One run of a write as the table records it."""

    write_tag: str
    run_tag: str
    segments: list[str] = field(default_factory=list)  # every segment of this run the table or lineage knows
    live: int = 0
    rows: int = 0
    bytes: int = 0
    lineage_id: str | None = None
    lineage_state: str | None = None
    replaced: list[str] = field(default_factory=list)  # what its entry took out
    replaced_by: str | None = None  # the run whose entry took this one's segments out (the last of them)
    replaced_by_runs: list[str] = field(default_factory=list)  # every such run, in entry order (a compaction's
    # groups each commit a run: a write over several days is replaced by several)
    write_id: str | None = None  # from its manifest
    note: str = ""
    manifest: str | None = None
    entry_ms: int | None = None  # an empty overwrite's entry time (its run tag is the entry id)

    @property
    def run_folder(self) -> str:
        return f"{self.write_tag}_{self.run_tag}"

    @property
    def mode(self) -> str:
        if self.write_tag == EMPTY_WRITE:
            return "overwrite"
        return {"table": "overwrite", "window": "window overwrite", "compact": "compaction"}.get(
            run_replaces(self.run_tag) or "", "append")

    @property
    def started_ms(self) -> int | None:
        if self.write_tag == EMPTY_WRITE:
            return self.entry_ms
        try:
            return int(self.run_tag[1:], 36)
        except ValueError:
            return None

    @property
    def status(self) -> str:
        if self.lineage_state == "REVERTED":
            return REVERTED
        if self.lineage_state == IN_PROGRESS:
            return HIDDEN
        if not self.segments and self.lineage_state == COMPLETED:
            return LIVE  # an overwrite with no rows: what it took out stays out
        if self.live == len(self.segments) and self.segments:
            return LIVE
        return PARTLY if self.live else REPLACED


def table_history(client: ControllerClient, table: str, *, output_uri: str | None = None,
                  storage_options: Mapping | None = None) -> list[WriteRun]:
    """Every run of this writer the table (and its manifests, with ``output_uri``) knows, oldest first."""
    lineage = client.get_lineage(table)
    everything = set(client.list_segments(table, exclude_replaced=False))
    live = set(client.list_segments(table, exclude_replaced=True))
    zk = client.segment_zk_metadata(table) if everything else {}
    runs: dict[str, WriteRun] = {}

    def run_of(name: str) -> WriteRun | None:
        tags = name_tags(name)
        if tags is None:
            return None
        key = f"{tags[0]}_{tags[1]}"
        if key not in runs:
            runs[key] = WriteRun(*tags)
        return runs[key]

    for name in sorted(everything):
        run = run_of(name)
        if run is None:
            continue
        run.segments.append(name)
        meta = zk.get(name, {})
        run.rows += _int(meta.get("segment.total.docs"))
        run.bytes += max(0, _int(meta.get("segment.size.in.bytes")))
        run.live += name in live
    for entry_id, entry in sorted(lineage.items(), key=lambda kv: kv[1].get("timestamp") or 0):
        to = list(entry.get("segmentsTo") or [])
        run = next((r for r in map(run_of, to) if r is not None), None)
        if run is None and not to and any(name_tags(n) for n in entry.get("segmentsFrom") or []):
            # an overwrite with no rows: an entry that only took this writer's segments out, named by nothing
            # but its id (which undo takes)
            run = runs.setdefault(entry_id, WriteRun(EMPTY_WRITE, entry_id, entry_ms=entry.get("timestamp")))
        if run is None:
            continue
        run.lineage_id, run.lineage_state = entry_id, entry.get("state")
        run.replaced = list(entry.get("segmentsFrom") or [])
        for name in to:  # a reverted entry's segments are deleted: still this run's
            if name not in run.segments:
                run.segments.append(name)
        if entry.get("state") == COMPLETED:
            for name in run.replaced:
                earlier = run_of(name)
                if earlier is not None and earlier is not run:
                    earlier.replaced_by = run.run_tag
                    if run.run_tag not in earlier.replaced_by_runs:
                        earlier.replaced_by_runs.append(run.run_tag)
    if output_uri:
        _add_manifests(runs, table, output_uri, storage_options)
    return sorted(runs.values(), key=lambda r: (r.started_ms or 0, r.run_folder))


def _add_manifests(runs: dict[str, WriteRun], table: str, output_uri: str, storage_options) -> None:
    for uri, document in manifests_of_table(table_uri(output_uri, table), dict(storage_options or {})).items():
        folder = document.get("run_folder") or ""
        run = runs.get(folder)
        if run is None:
            tags = folder.split("_", 1)
            if len(tags) != 2:
                continue
            run = runs[folder] = WriteRun(*tags)
            run.segments = [s.get("name") for s in document.get("segments") or [] if s.get("name")]
        run.manifest = uri
        run.write_id = document.get("write_id") or run.write_id
        run.note = document.get("note") or run.note
        segments = document.get("segments") or []
        if not run.bytes:
            run.bytes = sum(int(s.get("tar_bytes") or 0) for s in segments)
        if not run.rows:
            run.rows = sum(int(s.get("rows") or 0) for s in segments)
        if document.get("undone") and run.lineage_state is None:
            run.lineage_state = "REVERTED"


def _int(text) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        return 0


def runs_of_write(history: list[WriteRun], write: str) -> list[WriteRun]:
    """The runs of ``write``: a write id, its write tag (``w`` + 10 hex digits) or one run's tag."""
    is_tag = write.startswith("w") and len(write) == 11 and all(c in "0123456789abcdef" for c in write[1:])
    tag = write if is_tag else write_tag(write)
    return [r for r in history if r.write_tag == tag or r.run_tag == write or r.write_id == write
            or (r.write_tag == EMPTY_WRITE and r.lineage_id == write)]


@dataclass(frozen=True)
class Undone:
    run: WriteRun
    restored: list[str]  # the segments live again
    removed: list[str]  # this run's segments, deleted by the controller
    live_again: WriteRun | None  # an earlier run of the same write that is live again (a rerun undone)


def undo_write(client: ControllerClient, table: str, write: str, *, output_uri: str | None = None,
               storage_options: Mapping | None = None, dry_run: bool = False) -> Undone:
    """Revert the latest committed run of ``write`` (see the module doc); raises ``UndoRefused`` with the
    reason when that is not possible. With ``output_uri`` its manifest is marked undone, so a later
    ``pinot-sink push`` of the folder does not publish it again."""
    history = table_history(client, table, output_uri=output_uri, storage_options=storage_options)
    runs = runs_of_write(history, write)
    if not runs:
        raise UndoRefused(f"table {table}: no write {write!r} (pinot-sink history --table {table} lists them)")
    current = [r for r in runs if r.status != REVERTED]
    if not current:
        state = ", ".join(f"run {r.run_tag} {r.status}" for r in runs)
        raise UndoRefused(f"table {table}: write {write} has nothing live to undo ({state}): already undone")
    run = current[-1]
    _refuse_if_not_revertible(client, table, run, history)
    restored = list(run.replaced)
    if dry_run:
        return Undone(run, restored, list(run.segments), None)
    not_loaded = await_loaded_before_revert(client, table, run.lineage_id)
    client.revert_replace(table, run.lineage_id, force=False)
    entry = client.get_lineage(table).get(run.lineage_id) or {}
    if entry.get("state") != "REVERTED":
        raise UndoRefused(f"table {table}: the controller answered the revert of lineage entry {run.lineage_id}, "
                          f"but records it {entry.get('state') or 'as gone'}: nothing may have changed")
    reload_after_revert(client, table, run.lineage_id, not_loaded=not_loaded)
    if run.manifest:
        _mark_undone(run, storage_options)
    earlier = [r for r in runs if r is not run and r.replaced_by == run.run_tag]
    return Undone(run, restored, list(run.segments), earlier[-1] if earlier else None)


def _refuse_if_not_revertible(client: ControllerClient, table: str, run: WriteRun, history: list[WriteRun]) -> None:
    what = f"table {table}: write {run.write_id or run.write_tag} (run {run.run_tag}) cannot be undone"
    if run.lineage_state == IN_PROGRESS:
        raise UndoRefused(f"{what}: its commit never finished (lineage entry {run.lineage_id} is IN_PROGRESS, its "
                          f"segments hidden); `pinot-sink recover --table {table} --apply` settles it")
    # Before the entry's absence: retention drops an append's entry at its next run while a later write (a
    # compaction) still holds its segments out, and deleting those (not live) would take no row out.
    later = [r for r in history if r is not run and r.lineage_state in (IN_PROGRESS, COMPLETED)
             and set(r.replaced) & set(run.segments)]
    if later:
        names = ", ".join(f"{r.write_id or r.write_tag} (run {r.run_tag}, lineage entry {r.lineage_id})" for r in later)
        raise UndoRefused(f"{what}: a later write replaced its segments: {names}; undo "
                          f"{'that write' if len(later) == 1 else 'those writes'} first")
    if run.lineage_id is None:
        raise UndoRefused(
            f"{what}: the table keeps no lineage entry for it (Pinot's retention drops a completed entry once the "
            f"segments it replaced are deleted, an append's at its next run; a fixed segment name is refreshed in "
            f"place without one), so there is nothing to revert. Its {len(run.segments)} segment(s) can be "
            f"deleted by name (DELETE /segments/{table}?segments=...), which takes its rows out but brings back "
            f"nothing it replaced")
    if run.replaced:
        present = set(client.list_segments(table, exclude_replaced=False))
        missing = [name for name in run.replaced if name not in present]
        if missing:
            raise UndoRefused(
                f"{what}: {len(missing)} of the {len(run.replaced)} segment(s) it replaced were deleted by retention "
                f"(the table config's replacedSegmentsRetentionPeriod; e.g. {missing[0]}): their rows cannot come "
                f"back, and Pinot refuses the revert")
    superseded = _rerun_since(run, history)
    if superseded:
        name, owner, rerun = superseded[0]
        raise UndoRefused(
            f"{what}: it would bring back {len(superseded)} segment(s) of write {owner.write_id or owner.write_tag} "
            f"run {owner.run_tag} (e.g. {name}) beside that write's later run {rerun.run_tag}, a rerun made while "
            f"this write held them out, so that write's rows would count twice; undo run {rerun.run_tag} first")


def _rerun_since(run: WriteRun, history: list[WriteRun]) -> list[tuple[str, WriteRun, WriteRun]]:
    """The segments ``run`` replaced whose write was rerun since, with the owning run and its latest rerun: a
    rerun replaces its write's live segments, and these were held out by ``run`` then, so reverting ``run``
    would put them beside the rerun's. A compaction's runs of one write tag are its groups, not reruns."""
    owners = {name: r for r in history for name in r.segments}
    found = []
    for name in run.replaced:
        owner = owners.get(name)
        if owner is None or owner is run or run_replaces(owner.run_tag) == "compact":
            continue
        later = [r for r in history if r is not run and r is not owner and r.write_tag == owner.write_tag
                 and (r.started_ms or 0) > (owner.started_ms or 0) and r.status != REVERTED
                 and r.lineage_state != IN_PROGRESS]
        if later:
            found.append((name, owner, later[-1]))
    return found


def _mark_undone(run: WriteRun, storage_options) -> None:
    """The manifest: no longer committed (its segments are not live: ``pending``), and why."""
    document = json.loads(read_text(run.manifest, dict(storage_options or {})) or "{}")
    rewrite_status(run.manifest, document, ABORTED, dict(storage_options or {}), pending=list(run.segments),
                   undone={"lineage_id": run.lineage_id, "at_ms": int(time.time() * 1000),
                           "restored": list(run.replaced)})


# --- embedded mode: the output folder and its manifests are the record ------------------------------------


def folder_history(output_uri: str, table: str, storage_options: Mapping | None = None) -> list[WriteRun]:
    """The committed (or undone) runs the manifests of ``<output_uri>/<table>/`` record, oldest first; live
    means its tarballs are in the folder."""
    options = dict(storage_options or {})
    present = DirectoryStore(table, output_uri, options).list()
    runs: list[WriteRun] = []
    for uri, document in manifests_of_table(table_uri(output_uri, table), options).items():
        undone = bool(document.get("undone"))
        if document.get("status") not in WAS_COMMITTED and not undone:
            continue  # never committed: not a write of the table's history
        tags = (document.get("run_folder") or "").split("_", 1)
        if len(tags) != 2:
            continue
        run = WriteRun(*tags, manifest=uri, write_id=document.get("write_id"), note=document.get("note") or "")
        segments = document.get("segments") or []
        run.segments = [s.get("name") for s in segments if s.get("name")]
        run.rows = sum(int(s.get("rows") or 0) for s in segments)
        run.bytes = sum(int(s.get("tar_bytes") or 0) for s in segments)
        run.replaced = list(document.get("replaced") or [])
        run.live = 0 if undone else sum(name in present for name in run.segments)
        run.lineage_state = "REVERTED" if undone else COMPLETED
        later = [entry.get("run_tag") for entry in document.get("superseded_by") or [] if isinstance(entry, dict)]
        run.replaced_by = later[-1] if later else None
        run.replaced_by_runs = list(dict.fromkeys(t for t in later if t))
        runs.append(run)
    return sorted(runs, key=lambda r: (r.started_ms or 0, r.run_folder))


def undo_folder_write(output_uri: str, table: str, write: str, *, storage_options: Mapping | None = None,
                      dry_run: bool = False) -> Undone:
    """Embedded undo: an append's tarballs are deleted from the folder and its manifest marked undone. A write
    that replaced anything cannot be undone here: embedded mode deleted the files it replaced as it committed."""
    options = dict(storage_options or {})
    history = folder_history(output_uri, table, options)
    runs = runs_of_write(history, write)
    if not runs:
        raise UndoRefused(f"table {table}: no committed write {write!r} in {output_uri} (pinot-sink history "
                          f"--table {table} --output-uri ... lists them)")
    current = [r for r in runs if r.status != REVERTED]
    if not current:
        raise UndoRefused(f"table {table}: write {write} has nothing live to undo: already undone")
    run = current[-1]
    what = f"table {table}: write {run.write_id or run.write_tag} (run {run.run_tag}) cannot be undone"
    if run.replaced:
        raise UndoRefused(f"{what}: without a controller its commit deleted the {len(run.replaced)} file(s) it "
                          f"replaced, so nothing can bring them back (with a controller, Pinot's retention keeps "
                          f"them for a while and undo reverts the lineage entry)")
    if run.live < len(run.segments):
        later = [r for r in history if set(r.replaced) & set(run.segments)]
        by = ", ".join(f"{r.write_id or r.write_tag} (run {r.run_tag})" for r in later) or "a later write"
        raise UndoRefused(f"{what}: {len(run.segments) - run.live} of its {len(run.segments)} file(s) are no longer "
                          f"in the folder: {by} replaced them")
    if not dry_run:
        left = DirectoryStore(table, output_uri, options).delete(run.segments)
        if left:
            raise UndoRefused(f"{what} completely: {len(left)} file(s) could not be deleted: {', '.join(left[:5])}")
        _mark_undone(run, options)
    return Undone(run, [], list(run.segments), None)
