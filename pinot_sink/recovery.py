"""What interrupted writes leave behind, found and settled (``pinot-sink recover``, and each write for its own
write id).

Three kinds, all recognised as this package's by the names it gives (``naming.name_tags``) and the folders
it owns (``_staging/``, ``_manifests/``):

* a **lineage entry** left IN_PROGRESS (the driver died between start and end, or a revert failed): its new
  segments are hidden, so the table reads as before; settling reverts it (``forceRevert``).
* a **staging folder** ``<output-uri>/<table>/_staging/<write tag>_<run tag>/``: never published from;
  settling deletes it.
* an **unfinished publish**: a manifest that stayed ``publishing``, ``withdrawn`` or ``unknown``. Embedded,
  the manifest is the record: if every new file is in place the write reached its last step (deleting what
  it replaces), so settling finishes it; otherwise nothing it replaces was deleted yet, so settling takes its
  files out. With a controller, the lineage entry is the record: COMPLETED -> committed; IN_PROGRESS ->
  reverted; absent with its segments live (the retention removed a COMPLETED entry) -> committed; REVERTED or
  absent otherwise -> its tarballs copied into ``output-uri`` (push modes uri / metadata) go.

A running write's entry, staging and ``publishing`` manifest look the same as a dead one's. What tells them
apart is time and the record: a leftover whose run has a manifest saying it ended (committed, aborted,
unknown) is dead; any other is taken for a running write's while it changed less than ``min_age`` ago
(``pinot-sink recover --min-age``), and left.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from pinot_sink.controller import ConsistentPush, ControllerClient, redact_text
from pinot_sink.storage.files import last_changed, list_folders, remove_tree
from pinot_sink.storage.layout import STAGING_DIR, child_uri, run_folder_of_manifest, table_uri
from pinot_sink.storage.manifests import (ABORTED, COMMITTED, PUBLISHING, SUPERSEDED, UNKNOWN, WITHDRAWN,
                                          manifests_of_table, rewrite_status)
from pinot_sink.storage.stores import DirectoryStore, SegmentStore

from .job import WriteJob
from .write_run import WriteRun
from .naming import name_tags

log = logging.getLogger("pinot_sink")

UNFINISHED = (PUBLISHING, WITHDRAWN, UNKNOWN)
# A run whose manifest says one of these has ended: nothing of it belongs to a running write. (``withdrawn`` is
# written before a run deletes its files again, ``publishing`` before it moves any: both may still be running.)
ENDED = (COMMITTED, SUPERSEDED, ABORTED, UNKNOWN)


@dataclass
class Leftover:
    kind: str  # "lineage entry" | "staging folder" | "unfinished publish"
    ident: str  # the entry id, the folder name, the manifest's URI
    detail: str
    run_folder: str | None  # <write tag>_<run tag> of the run that left it, when known
    settle: Callable[[], str] = field(repr=False, default=lambda: "nothing to do")
    changed_at: float | None = None  # when it last changed (epoch seconds), when the store or entry says
    ended: bool = False  # its run's manifest says the run ended: it cannot belong to a running write

    def describe(self) -> str:
        return f"{self.kind} {redact_text(self.ident)}: {self.detail}"

    def may_be_running(self, min_age_s: float, now: float | None = None) -> str | None:
        """Why this may be a running write's (None: it is not): it changed less than ``min_age_s`` ago, or
        its age is unknown, and no record says its run ended."""
        if self.ended or min_age_s <= 0:
            return None
        if self.changed_at is None:
            return "its age is unknown"
        age = (time.time() if now is None else now) - self.changed_at
        return f"it changed {_age(age)} ago" if age < min_age_s else None


def _age(seconds: float) -> str:
    seconds = max(0.0, seconds)
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min" if seconds < 7200 else \
        f"{seconds / 3600:.1f} h"


def find_leftovers(table: str, *, client: ControllerClient | None = None, output_uri: str | None = None,
                   storage_options: Mapping[str, Any] | None = None,
                   write_tag: str | None = None) -> list[Leftover]:
    """This package's leftovers in ``table`` (of one write, with ``write_tag``). Nothing is changed: each
    ``Leftover.settle()`` does its part and says what it did."""
    found: list[Leftover] = []
    folder = table_uri(output_uri, table) if output_uri else None
    unreadable: list[str] = []
    documents = manifests_of_table(folder, storage_options, unreadable=unreadable) if folder else {}
    ended = {run_folder_of_manifest(uri) for uri, d in documents.items() if d.get("status") in ENDED}
    entries = client.get_lineage(table) if client is not None else {}
    for entry_id, entry in sorted(entries.items()):
        runs = _runs(entry.get("segmentsTo") or [])
        if entry.get("state") != "IN_PROGRESS" or runs is None or not _of_write(runs, write_tag):
            continue
        stamp = entry.get("timestamp")
        found.append(Leftover(
            "lineage entry", entry_id,
            f"IN_PROGRESS: {len(entry.get('segmentsTo') or [])} new segment(s), hidden; would replace "
            f"{len(entry.get('segmentsFrom') or [])}; revert it", _single(runs),
            settle=lambda entry_id=entry_id: _revert(client, table, entry_id),
            changed_at=stamp / 1000 if isinstance(stamp, (int, float)) and stamp > 0 else None,
            ended=runs <= ended))
    found += _private_staging_roots(table, write_tag)
    if not folder:
        return found
    staging = child_uri(folder, STAGING_DIR)
    for name in list_folders(staging, storage_options):
        if write_tag is None or name.startswith(f"{write_tag}_"):
            uri = child_uri(staging, name)
            found.append(Leftover("staging folder", uri, "staged tarballs never published; delete it", name,
                                  settle=lambda uri=uri: "deleted" if remove_tree(uri, storage_options)
                                  else "COULD NOT DELETE IT",
                                  changed_at=last_changed(uri, storage_options), ended=name in ended))
    for uri in unreadable:
        run = run_folder_of_manifest(uri)
        if write_tag is None or run.startswith(f"{write_tag}_"):
            found.append(Leftover("unreadable write record", uri, "truncated or corrupted: what its write published "
                                  "is unknown; restore it, or remove it once you have checked the table", run,
                                  settle=lambda: "COULD NOT SETTLE IT: left as it is, for a person to check",
                                  ended=True))
    for uri, document in documents.items():
        run = run_folder_of_manifest(uri)
        if document.get("status") not in UNFINISHED or (write_tag is not None and not run.startswith(f"{write_tag}_")):
            continue
        pending = document.get("pending") or []
        found.append(Leftover(
            "unfinished publish", uri,
            f"{document.get('status')} ({'embedded' if not document.get('controller') else 'controller'}): "
            f"{len(pending)} segment(s) not known to be committed", run,
            settle=lambda uri=uri, document=document: _settle_publish(
                table, uri, document, DirectoryStore(table, output_uri, storage_options),
                client, storage_options),
            changed_at=last_changed(uri, storage_options), ended=run in ended))
    return found


def _private_staging_roots(table: str, write_tag: str | None) -> list[Leftover]:
    """The private staging roots (``storage.staging.private_stage_root``: a write with a controller and no
    output-uri stages in the driver's temp folder) of ``table`` on this machine, which an interrupted write
    (a Ctrl-C during its commit, a killed driver) leaves with its tarballs. Only those whose name is exactly
    the root's (``mkdtemp``'s 8-character suffix) and which hold nothing but ``<table>/``."""
    import os
    import re
    import tempfile

    prefix = f"pinot-sink-staging-{table[:64]}-"
    found: list[Leftover] = []
    try:
        names = sorted(os.listdir(tempfile.gettempdir()))
    except OSError:
        return found
    for name in names:
        root = os.path.join(tempfile.gettempdir(), name)
        if not name.startswith(prefix) or not re.fullmatch(r"[a-z0-9_]{8}", name[len(prefix):]) \
                or not os.path.isdir(root) or set(os.listdir(root)) - {table}:
            continue
        runs = list_folders(os.path.join(root, table, STAGING_DIR))
        if write_tag is not None and not any(run.startswith(f"{write_tag}_") for run in runs):
            continue
        found.append(Leftover(
            "staging folder", root, f"a write's private staging folder on this machine ({len(runs)} run(s), "
            f"tarballs never published); delete it", runs[0] if len(runs) == 1 else None,
            settle=lambda root=root: "deleted" if remove_tree(root) else "COULD NOT DELETE IT",
            changed_at=last_changed(root)))
    return found


def _runs(names: list[str]) -> set[str] | None:
    """The run folders (``<write tag>_<run tag>``) of ``names``; None when one of them is not this package's."""
    tags = [name_tags(n) for n in names]
    if not tags or any(t is None for t in tags):
        return None
    return {f"{w}_{r}" for w, r in tags}


def _of_write(runs: set[str], write_tag: str | None) -> bool:
    return write_tag is None or all(r.startswith(f"{write_tag}_") for r in runs)


def _single(runs: set[str]) -> str | None:
    return next(iter(runs)) if len(runs) == 1 else None


def _revert(client: ControllerClient, table: str, entry_id: str) -> str:
    ConsistentPush.resume(client, table, entry_id).revert()  # done when the record says so, not on a 200
    return "reverted"


def _settle_publish(table: str, uri: str, document: dict, folder: SegmentStore, client: ControllerClient | None,
                    storage_options) -> str:
    pending = set(document.get("pending") or [])
    present = folder.list() & pending
    if not document.get("controller"):  # embedded: the manifest is the record
        if document.get("status") == PUBLISHING and present == pending:
            left = folder.delete(document.get("replacing") or [])
            if left:
                return f"COULD NOT FINISH IT: {len(left)} replaced file(s) could not be deleted: {', '.join(left)}"
            rewrite_status(uri, document, COMMITTED, storage_options, recovered="finished: every new file was in "
                           "place; the files it replaces were deleted")
            return f"finished ({len(present)} file(s) in place, {len(document.get('replacing') or [])} replaced)"
        return _roll_back(uri, document, folder, present, storage_options)
    if client is None:
        return "left as it is: give --url to read the controller's record of it"
    state = _entry_state(client, table, document, pending)
    if state == "COMPLETED":
        rewrite_status(uri, document, COMMITTED, storage_options, recovered="its lineage entry is COMPLETED")
        return "committed (its lineage entry is COMPLETED): nothing to undo"
    if state == "IN_PROGRESS":
        return "left as it is: its lineage entry is IN_PROGRESS; revert that entry first"
    if state is None and pending & set(client.list_segments(table, exclude_replaced=True)):
        # No entry: the controller's retention removes a COMPLETED one once its segmentsFrom are gone (an
        # append's, at once); its segments live on, served from these tarballs in uri / metadata push.
        rewrite_status(uri, document, COMMITTED, storage_options,
                       recovered="its lineage entry is gone and its segments are live")
        return "committed (no lineage entry left, its segments are live): nothing to undo"
    return _roll_back(uri, document, folder, present, storage_options)


def _roll_back(uri: str, document: dict, folder: SegmentStore, present: set[str], storage_options) -> str:
    left = folder.delete(present)
    rewrite_status(uri, document, ABORTED, storage_options, left_behind=left,
                   recovered=f"rolled back: {len(present) - len(left)} file(s) of it deleted")
    return (f"rolled back ({len(present) - len(left)} file(s) deleted)" if not left else
            f"COULD NOT ROLL BACK: {len(left)} file(s) could not be deleted: {', '.join(left)}")


def _entry_state(client: ControllerClient, table: str, document: dict, pending: set[str]) -> str | None:
    """The state of the publish's lineage entry: by its id when the manifest has one, else the entry whose
    new segments are the publish's (fresh run-tagged names: no other entry has them)."""
    entries = client.get_lineage(table)
    if document.get("lineage_id") in entries:
        return entries[document["lineage_id"]].get("state")
    for entry in entries.values():
        if pending and pending & set(entry.get("segmentsTo") or []):
            return entry.get("state")
    return None


def settle_own_leftovers(job: WriteJob, run: WriteRun) -> None:
    """A write's clean-up of its own write id (a given ``write.id``, a replayed micro-batch): the staging
    folders of its earlier runs whose commit or abort ended (their manifest says so). A run without such a
    manifest may still be running; it, and lineage entries, are left to ``pinot-sink recover``, which is run
    when nothing is. (Files an earlier run left in the table are live segments of this write: the commit
    replaces them.)"""
    if not job.output_uri or not run.rerun:
        return
    try:
        for leftover in find_leftovers(job.table, output_uri=job.output_uri, storage_options=job.storage_options,
                                       write_tag=run.write_tag):
            if leftover.kind == "staging folder" and leftover.run_folder != run.folder and leftover.ended:
                log.info("pinot_sink: %s: an earlier run of this write: %s", leftover.describe(), leftover.settle())
    except Exception as exc:  # noqa: BLE001 - clean-up of an earlier run must never fail this one
        log.warning("pinot_sink: could not clean up earlier runs of this write in %s: %s", job.table, exc)
