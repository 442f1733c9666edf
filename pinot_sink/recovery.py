"""What interrupted writes leave behind, found and settled (``pinot-sink recover``, and each write for its own
write id).

Three kinds, all recognised as this package's by the names it gives (``naming.name_tags``) and the folders
it owns (``_staging/``, ``_manifests/``):

* a **lineage entry** left IN_PROGRESS (the driver died between start and end, or a revert failed): its new
  segments are hidden, so the table reads as before; settling reverts it (``forceRevert``), except for a
  commit that timed out waiting for ``endReplaceSegments`` (its manifest says ``unknown``: the write told
  its user it MAY HAVE BEEN COMMITTED), which is resumed: ended again when every new segment is uploaded.
* a **staging folder** ``<output-uri>/<table>/_staging/<write tag>_<run tag>/``. Never deleted on the
  strength of a missing manifest: in push mode tar a driver killed after ``endReplaceSegments`` leaves the
  write committed, its rows live, and these staged tarballs the only copies for ``output-uri``. With a
  controller, its record decides (``_controller_verdict``): committed -> the publish is finished first
  (``_finish_committed``), then the folder goes; not committed -> it goes. Without one, it goes only when
  the run's manifest says it ended or that it was an embedded write; otherwise it is left, and said.
* an **unfinished publish**: a manifest that stayed ``publishing``, ``withdrawn`` or ``unknown``. Embedded,
  the manifest is the record: if every new file is in place the write reached its last step (deleting what
  it replaces), so settling finishes it; otherwise nothing it replaces was deleted yet, so settling takes its
  files out. With a controller, its record decides: committed (the lineage entry COMPLETED, or gone with
  the run's segments live) -> the publish is finished: every live segment of the run gets its tarball in
  ``output-uri`` (the staged copy whose CRC is the controller's, else downloaded from the controller) and
  the manifest says ``committed`` with what the entry replaced; IN_PROGRESS -> reverted first; otherwise its
  tarballs copied into ``output-uri`` (push modes uri / metadata) go.

A running write's entry, staging and ``publishing`` manifest look the same as a dead one's. What tells them
apart is time and the record: a leftover whose run has a manifest saying it ended (committed, aborted,
unknown) is dead; any other is taken for a running write's while it changed less than ``min_age`` ago
(``pinot-sink recover --min-age``), and left.
"""
from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from pinot_sink.controller import ConsistentPush, ControllerClient, redact_text
from pinot_sink.segment.format import tarball_name
from pinot_sink.storage.files import (copy_to_deep_store, last_changed, list_folders, publish_into_directory,
                                      read_text, remove_tree, staged_tarballs, write_text)
from pinot_sink.storage.layout import (STAGING_DIR, child_uri, manifest_uri, run_folder_of_manifest, segment_uri,
                                       table_uri, uri_to_fs)
from pinot_sink.storage.manifests import (ABORTED, COMMITTED, PUBLISHING, SUPERSEDED, UNKNOWN, WAS_COMMITTED,
                                          WITHDRAWN, TableManifests, WriteRecord, mark_superseded,
                                          read_table_manifests, rewrite_status)
from pinot_sink.storage.tarballs import tarball_crc
from pinot_sink.storage.stores import DirectoryStore, SegmentStore
from pinot_sink.storage.staging import OWNER_FILE, owner_running, private_stage_roots

from .job import WriteJob
from .write_run import WriteRun
from .naming import name_tags, segment_replaces

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
                   write_tag: str | None = None, manifests: TableManifests | None = None) -> list[Leftover]:
    """This package's leftovers in ``table`` (of one write, with ``write_tag``). Nothing is changed: each
    ``Leftover.settle()`` does its part and says what it did. ``manifests``: the table folder's, read already."""
    found: list[Leftover] = []
    folder = table_uri(output_uri, table) if output_uri else None
    if manifests is None and folder:
        manifests = read_table_manifests(folder, storage_options)
    documents = dict(manifests.documents) if manifests is not None else {}
    unreadable = list(manifests.unreadable) if manifests is not None else []
    ended = {run_folder_of_manifest(uri) for uri, d in documents.items() if d.get("status") in ENDED}
    records = {run_folder_of_manifest(uri): d for uri, d in documents.items()}
    entries = client.get_lineage(table) if client is not None else {}
    for entry_id, entry in sorted(entries.items()):
        runs = _runs(entry.get("segmentsTo") or [])
        if entry.get("state") != "IN_PROGRESS" or runs is None or not _of_write(runs, write_tag):
            continue
        stamp = entry.get("timestamp")
        timed_out = (records.get(_single(runs)) or {}).get("status") == UNKNOWN
        found.append(Leftover(
            "lineage entry", entry_id,
            f"IN_PROGRESS: {len(entry.get('segmentsTo') or [])} new segment(s), hidden; would replace "
            f"{len(entry.get('segmentsFrom') or [])}; " + ("its commit timed out: end it if every new segment "
                                                           "is uploaded, else revert it" if timed_out else
                                                           "revert it"), _single(runs),
            settle=lambda entry_id=entry_id, entry=entry, timed_out=timed_out: (
                _resume(client, table, entry_id, entry) if timed_out else _revert(client, table, entry_id)),
            changed_at=stamp / 1000 if isinstance(stamp, (int, float)) and stamp > 0 else None,
            ended=runs <= ended))
    found += _private_staging_roots(table, write_tag)
    if not folder:
        return found
    staging = child_uri(folder, STAGING_DIR)
    for name in list_folders(staging, storage_options):
        if write_tag is None or name.startswith(f"{write_tag}_"):
            uri = child_uri(staging, name)
            found.append(Leftover(
                "staging folder", uri, "staged tarballs: published from (finished) if the controller's record "
                "says its write committed, else deleted" if client is not None else
                "staged tarballs: deleted if the run's record says it ended or never used a controller", name,
                settle=lambda uri=uri, name=name: _settle_staging(
                    table, name, uri, records.get(name), client, output_uri, storage_options,
                    others=list(records.values()), unreadable=bool(unreadable)),
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
                client, storage_options, output_uri),
            changed_at=last_changed(uri, storage_options), ended=run in ended))
    return found


def _private_staging_roots(table: str, write_tag: str | None) -> list[Leftover]:
    """The private staging roots (``storage.staging.private_stage_root``: a write with a controller and no
    output-uri stages in the driver's temp folder) of ``table`` on this machine, which an interrupted write
    (a Ctrl-C during its commit, a killed driver) leaves with its tarballs. Only those whose name is exactly
    the root's (``mkdtemp``'s 8-character suffix) and which hold nothing but ``<table>/``."""
    found: list[Leftover] = []
    for root in private_stage_roots(table):
        if set(os.listdir(root)) - {table, OWNER_FILE} or owner_running(root):
            continue  # not one of ours, or a running write's (its driver is alive)
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


def _resume(client: ControllerClient, table: str, entry_id: str, entry: dict) -> str:
    """An entry whose commit timed out waiting for ``endReplaceSegments`` (its manifest says ``unknown``: the
    write told its user it MAY HAVE BEEN COMMITTED): ended again when every new segment is uploaded, as the
    commit would have on a longer wait; reverted when one is missing, or when once ended it would stay beside
    a run that committed at the same time (the commit's rival rule, read from names: another run of its
    write, or, for an overwrite, another overwrite; on the safe side, a window overwrite of other days too)."""
    new = list(entry.get("segmentsTo") or [])
    uploaded = set(client.list_segments(table, exclude_replaced=False))
    if not set(new) <= uploaded:
        return _revert(client, table, entry_id) + f" ({len(set(new) - uploaded)} of its new segment(s) never uploaded)"
    push = ConsistentPush.resume(client, table, entry_id, new)
    push.finish()  # done when the record says COMPLETED
    live = set(client.list_segments(table, exclude_replaced=True))
    tags = name_tags(new[0]) if new else None
    overwrite = bool(new) and segment_replaces(new[0]) is not None
    rivals = sorted(n for n in live - set(new) if (t := name_tags(n)) is not None and tags is not None
                    and (t[0] == tags[0] or (overwrite and segment_replaces(n) is not None)))
    if rivals and set(new) & live:
        push.revert()
        return (f"ended, then reverted: another run committed at the same time ({', '.join(rivals[:3])}); the table "
                f"holds its rows, not this one's")
    return "resumed: ended, COMPLETED (its commit timed out waiting for endReplaceSegments)"


def _settle_publish(table: str, uri: str, document: dict, folder: SegmentStore, client: ControllerClient | None,
                    storage_options, output_uri: str) -> str:
    document = _read_again(uri, document, storage_options)  # a staging folder's settling may have finished it
    if document.get("status") in WAS_COMMITTED:
        return "committed: finished with its staging folder"
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
    run = run_folder_of_manifest(uri)
    staged = staged_tarballs(_staging_of(output_uri, table, run), storage_options)
    verdict, entry_id, entry = _controller_verdict(client, table, run, pending | set(staged),
                                                   document.get("lineage_id"), staged, storage_options)
    if verdict == COMMITTED:
        return _finish_committed(table, run, client, output_uri, storage_options, staged, entry_id, entry, document)
    if verdict == "IN_PROGRESS":
        return "left as it is: its lineage entry is IN_PROGRESS; revert that entry first"
    return _roll_back(uri, document, folder, present, storage_options)


def _read_again(uri: str, document: dict, storage_options) -> dict:
    try:
        again = json.loads(read_text(uri, storage_options) or "null")
    except ValueError:
        again = None
    return again if isinstance(again, dict) else document


def _staging_of(output_uri: str, table: str, run: str) -> str:
    return child_uri(child_uri(table_uri(output_uri, table), STAGING_DIR), run)


def _settle_staging(table: str, run: str, uri: str, record: dict | None, client: ControllerClient | None,
                    output_uri: str, storage_options, *, others: list[dict], unreadable: bool) -> str:
    """A run's staging folder: deleted only once nothing committed depends on it (see the module doc)."""
    if client is not None:
        staged = staged_tarballs(uri, storage_options)
        record = _read_again(manifest_uri(output_uri, table, run), record or {}, storage_options) or None
        names = set(staged) | set((record or {}).get("pending") or [])
        verdict, entry_id, entry = _controller_verdict(client, table, run, names, (record or {}).get("lineage_id"),
                                                       staged, storage_options)
        if verdict == "IN_PROGRESS":
            return "left as it is: its lineage entry is IN_PROGRESS; revert that entry first"
        done = ""
        if verdict == COMMITTED:
            done = _finish_committed(table, run, client, output_uri, storage_options, staged, entry_id, entry, record)
            if done.startswith("COULD NOT"):
                return done + "; the staging folder is kept"
            done += "; "
        return done + ("deleted" if remove_tree(uri, storage_options) else "COULD NOT DELETE IT")
    status = (record or {}).get("status")
    if record is not None and (status in (COMMITTED, SUPERSEDED, ABORTED) or not record.get("controller")):
        # Ended (a committed write's copies are in place before its record says so), or embedded: an embedded
        # publish says `publishing` before any file moves, and its unfinished publish is settled from that.
        return "deleted" if remove_tree(uri, storage_options) else "COULD NOT DELETE IT"
    if record is None and not unreadable and others and not any(d.get("controller") for d in others):
        # No record of this run, and every write into this folder was embedded: it never began to publish.
        return "deleted" if remove_tree(uri, storage_options) else "COULD NOT DELETE IT"
    why = (f"its record says `{status}` with a controller" if record is not None else
           "no record says how its write was committed (a push-mode tar write killed after its lineage entry "
           "completed leaves exactly this, its rows live and these the only copies)")
    return (f"COULD NOT SETTLE IT without the controller: {why}; give --url (if its write had no controller, "
            f"nothing of it was published: delete the folder)")


def _controller_verdict(client: ControllerClient, table: str, run: str, names: set[str], lineage_id: str | None,
                        staged: dict[str, list[str]], storage_options) -> tuple[str, str | None, dict | None]:
    """Whether the run committed, by the controller's record: (COMMITTED | "IN_PROGRESS" | "not committed",
    its lineage entry's id and entry, when it has one). Its entry: the one ``lineage_id`` names, else those
    whose new segments are the run's (fresh run-tagged names: no other entry has them); COMPLETED wins.
    Without an entry (the retention removed a COMPLETED one; a fixed name's refresh has none), the run
    committed if one of its segments is live with the CRC of its staged copy (a fixed name may be an earlier
    write's segment: the CRC tells)."""
    entries = client.get_lineage(table)
    mine = {i: e for i, e in entries.items() if i == lineage_id or _runs(e.get("segmentsTo") or []) == {run}
            or names & set(e.get("segmentsTo") or [])}
    for state in ("COMPLETED", "IN_PROGRESS"):
        for entry_id, entry in sorted(mine.items()):
            if entry.get("state") == state:
                return (COMMITTED if state == "COMPLETED" else state), entry_id, entry
    live = set(client.list_segments(table, exclude_replaced=True)) & names
    if live and not mine:
        crcs = client.segment_crcs(table)
        if any(name not in staged or _staged_copy(staged[name], crcs.get(name), storage_options) for name in live):
            return COMMITTED, None, None
    return "not committed", None, None


def _staged_copy(uris: list[str], crc: int | None, storage_options) -> str | None:
    """The staged copy whose CRC is ``crc`` (two attempts of one partition may have staged different bytes)."""
    for uri in uris:
        fs, path = uri_to_fs(uri, storage_options)
        with fs.open(path, "rb") as handle:
            if crc is not None and tarball_crc(handle) == crc:
                return uri
    return None


def _finish_committed(table: str, run: str, client: ControllerClient, output_uri: str, storage_options,
                      staged: dict[str, list[str]], entry_id: str | None, entry: dict | None,
                      document: dict | None) -> str:
    """Finish the publish of a committed run, as its commit would have: every live segment of it gets its
    tarball in ``<output-uri>/<table>/`` (the staged copy with the controller's CRC, else the controller's own,
    downloaded), then its manifest says ``committed``, with what its entry replaced (so that `pinot-sink push`
    skips those tarballs)."""
    document = document or {}
    names = set(entry.get("segmentsTo") or []) if entry else \
        {n for n in client.list_segments(table, exclude_replaced=True) if _runs([n]) == {run}} | \
        set(document.get("pending") or [])
    live = set(client.list_segments(table, exclude_replaced=True)) & names
    folder = DirectoryStore(table, output_uri, storage_options)
    missing = sorted(live - folder.list())
    crcs = client.segment_crcs(table) if missing else {}
    moved = downloaded = 0
    failed = []
    for name in missing:
        copy = _staged_copy(staged.get(name) or [], crcs.get(name), storage_options)
        try:
            if copy is not None:
                publish_into_directory(output_uri, table, {name: copy}, storage_options)
                moved += 1
            else:
                with tempfile.TemporaryDirectory(prefix="pinot-sink-recover-") as scratch:
                    local = client.download_segment(table, name, os.path.join(scratch, tarball_name(name)))
                    copy_to_deep_store(local, segment_uri(output_uri, table, name), options=storage_options,
                                       segment=name, table=table)
                downloaded += 1
        except Exception as exc:  # noqa: BLE001 - say which; the others are still put in place
            failed.append(f"{name} ({exc})")
    if failed:
        return (f"COULD NOT FINISH ITS PUBLISH: committed, but {len(failed)} of its live segment(s) have no tarball "
                f"in {redact_text(output_uri)}: {'; '.join(failed[:5])}")
    replaced = sorted(entry.get("segmentsFrom") or []) if entry else sorted(document.get("replacing") or [])
    if document.get("status") in WAS_COMMITTED:  # its commit got that far: its own record stays
        return f"committed: its manifest says so{'; ' + str(moved) + ' tarball(s) put back' if moved else ''}"
    _record_committed(table, run, output_uri, storage_options, {"controller": client.url, **document}, sorted(names),
                      replaced, entry_id, crcs)
    where = "its lineage entry is COMPLETED" if entry_id else "no lineage entry left, its segments are live"
    kept = (f"{moved} staged tarball(s) moved and {downloaded} downloaded into the table's folder" if missing else
            "its tarballs were in the table's folder")
    return f"committed ({where}): publish finished, {kept}; it replaced {len(replaced)}"


def _record_committed(table: str, run: str, output_uri: str, storage_options, document: dict, names: list[str],
                      replaced: list[str], entry_id: str | None, crcs: dict[str, int]) -> None:
    """The run's manifest as its commit would have left it (what it published, what it replaced), and the
    earlier writes it replaced marked so."""
    folder = table_uri(output_uri, table)
    uri = manifest_uri(output_uri, table, run)
    run_tag = run.split("_", 1)[-1]
    updated = {"table": table, "run_tag": run_tag, "mode": "overwrite" if run_tag[:1] in ("o", "t") else "append",
               "write_id": None, **document, "run_folder": run, "status": COMMITTED,
               "lineage_id": entry_id or document.get("lineage_id"),
               "segments": [{"name": n, "uri": segment_uri(output_uri, table, n), **({"crc": crcs[n]} if n in crcs
                                                                                   else {})} for n in names],
               "replaced": replaced, "recovered": "finished by `pinot-sink recover` from the controller's record"}
    updated.pop("pending", None)
    write_text(uri, redact_text(json.dumps(updated, indent=2, sort_keys=True)), storage_options)
    if replaced:
        mark_superseded(WriteRecord(table, run, (uri,), folder, {}, storage_options), updated)


def _roll_back(uri: str, document: dict, folder: SegmentStore, present: set[str], storage_options) -> str:
    left = folder.delete(present)
    rewrite_status(uri, document, ABORTED, storage_options, left_behind=left,
                   recovered=f"rolled back: {len(present) - len(left)} file(s) of it deleted")
    return (f"rolled back ({len(present) - len(left)} file(s) deleted)" if not left else
            f"COULD NOT ROLL BACK: {len(left)} file(s) could not be deleted: {', '.join(left)}")


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
