"""The job manifest: one JSON file per write, for orchestrators (Airflow, Dagster) and for people.

``<output-uri>/<table>/_manifests/<write tag>_<run tag>.json`` (when there is an output-uri) and the
``manifest.path`` option's location: what was written (segments, rows, bytes, CRCs, time ranges, where the
tarballs are), what was replaced, the lineage entry, the push mode, the options (secrets redacted) and the
timings; or, for a failed write, that it was aborted and what abort could not remove. ``WriteResult``
round-trips through it, which is how ``pinot_sink.write`` hands a result back from Spark's commit process.

It is also the write's record of intent. ``status`` goes ``publishing`` (written before any file moves
into the table folder or the deep store: the names it will publish and replace) -> ``committed``, or
``aborted`` / ``withdrawn`` / ``unknown`` (the outcome could not be learned). Every status but ``committed``
lists the run's segments that are not committed as ``pending``: ``pinot-sink push`` skips them (and the
ones a committed write ``replaced``), and
``pinot_sink.recovery`` finishes or rolls back a write that stopped at ``publishing``.

A run's records are written through its ``WriteRecord`` (where they go, what each version says in common),
which the job floor makes from the write; the on-disk format is ``FORMAT_VERSION`` 1.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from type_mapping.errors import redact_text

from .files import list_files, read_text, write_text
from .layout import manifests_uri

log = logging.getLogger("pinot_sink")

FORMAT_VERSION = 1
COMMITTED, PUBLISHING, ABORTED, WITHDRAWN, UNKNOWN = "committed", "publishing", "aborted", "withdrawn", "unknown"
# A committed write whose every segment a later write replaced: still a committed write (what it replaced stays
# replaced), only no longer live.
SUPERSEDED = "superseded"
WAS_COMMITTED = (COMMITTED, SUPERSEDED)


@dataclass(frozen=True)
class WriteRecord:
    """One run's manifests: where they go and what every version of them says in common."""

    table: str
    run_folder: str  # <write tag>_<run tag>
    uris: tuple[str, ...]  # the table's <output-uri>/<table>/_manifests/<run folder>.json, the manifest.path file
    table_folder: str | None  # <output-uri>/<table>, whose _manifests/ holds the table's other records
    common: Mapping[str, Any]  # format_version, table, mode, run_tag, push_mode, controller, options, ...
    storage_options: Mapping[str, Any] | None = field(default=None, repr=False)


def common_fields(*, table: str, overwrite: bool, run_tag: str, push_mode: str | None, controller: str | None,
                  output_uri: str | None, options: Mapping[str, str], started_at: float) -> dict[str, Any]:
    """What every version of a run's manifest says, whatever its status."""
    return {"format_version": FORMAT_VERSION, "table": table, "mode": "overwrite" if overwrite else "append",
            "run_tag": run_tag, "push_mode": push_mode, "controller": controller, "output_uri": output_uri,
            "options": options, "started_at": started_at}


def write_committed(record: WriteRecord, result: Mapping[str, Any]) -> None:
    """``result``: the ``WriteResult``'s fields (``dataclasses.asdict``)."""
    document = {**record.common, "status": COMMITTED, **result}
    _write(record, document)
    if result["replaced"] and record.table_folder:
        mark_superseded(record, result)


def mark_superseded(record: WriteRecord, result: Mapping[str, Any]) -> None:
    """The table's earlier manifests whose segments this write replaced say so: ``superseded_by`` lists
    each later run and the segments it took out, and ``status`` becomes ``superseded`` once none of the
    write's segments is left in the table (an orchestrator reading an old manifest is not misled)."""
    replaced = set(result["replaced"])
    try:
        documents = manifests_of_table(record.table_folder, record.storage_options)
    except Exception as exc:  # noqa: BLE001 - bookkeeping after a committed write must not fail it
        log.error("pinot_sink: could not read the job manifests of table %s: %s", record.table,
                  redact_text(str(exc)))
        return
    for uri, document in documents.items():
        if uri.rsplit("/", 1)[-1] == f"{record.run_folder}.json":  # this write's own
            continue
        if not isinstance(document, dict) or document.get("status") not in WAS_COMMITTED:
            continue  # (an unreadable one is logged by manifests_of_table)
        names = {segment["name"] for segment in document.get("segments") or []}
        gone = sorted(names & replaced)
        if not gone:
            continue
        entries = document.setdefault("superseded_by", [])
        entries.append({"run_tag": result["run_tag"], "write_id": result["write_id"], "mode": result["mode"],
                        "segments": gone})
        removed = {name for entry in entries for name in entry["segments"]}
        if names <= removed:
            document["status"] = SUPERSEDED
        try:
            write_text(uri, redact_text(json.dumps(document, indent=2, sort_keys=True)), record.storage_options)
        except Exception as exc:  # noqa: BLE001 - as above
            log.error("pinot_sink: could not mark the job manifest %s superseded: %s", redact_text(uri), exc)


def write_publishing(record: WriteRecord, write_id: str | None, names: list[str], replaced: list[str], *,
                     lineage_id: str | None = None) -> None:
    """The intent, written before anything moves: what this run will publish and what it will replace."""
    document = {**record.common, "status": PUBLISHING, "write_id": write_id, "segments": [],
                "pending": sorted(names), "replacing": sorted(replaced), "lineage_id": lineage_id}
    _write(record, document)


def write_aborted(record: WriteRecord, write_id: str | None, left: list[str], names: list[str] = ()) -> None:
    """``left``: what abort could not remove (kept on purpose, or failed); ``names``: the run's segments."""
    document = {**record.common, "status": ABORTED, "write_id": write_id, "segments": [], "replaced": [],
                "left_behind": left, "pending": sorted(set(names) - set(left))}
    _write(record, document)


def write_withdrawn(record: WriteRecord, names: list[str]) -> None:
    """An embedded run that found a rival is taking its files out again and has deleted nothing: written
    before it deletes them, so that an abort after a failed delete removes them too (``was_withdrawn``)."""
    document = {**record.common, "status": WITHDRAWN, "segments": [], "replaced": [], "withdrawn": names,
                "pending": sorted(names)}
    _write(record, document)


def write_unknown(record: WriteRecord, write_id: str | None, lineage_id: str | None, names: list[str],
                  message: str, *, replacing: list[str] = ()) -> None:
    """The commit's outcome could not be learned: the write may or may not be in the table. ``pending`` are
    its segments (live if the lineage entry is COMPLETED); ``pinot-sink push`` skips them, and an abort keeps
    this record instead of writing ``aborted`` over it."""
    document = {**record.common, "status": UNKNOWN, "write_id": write_id, "lineage_id": lineage_id,
                "segments": [], "replaced": [], "pending": sorted(names), "replacing": sorted(replacing),
                "error": message}
    _keep_driver_note(record, document)
    _write(record, document)


def took_unknown_outcome(record: WriteRecord) -> bool:
    """For the abort that follows a commit: did that commit end with an unknown outcome? The manifest says so,
    or, when the manifest could not be written (the storage was down with the controller), the note the commit
    left on this machine does: Spark runs commit and abort in separate Python processes of the driver, and
    without it the abort would record ``aborted`` for a write that may be in the table. The note is taken
    here (read and removed); a manifest that still lacks ``unknown`` is written again from it."""
    path = _driver_note_path(record)
    try:
        note = json.loads(path.read_text())
    except FileNotFoundError:
        note = None
    except Exception as exc:  # noqa: BLE001 - an unreadable note still says the commit's outcome is unknown
        log.error("pinot_sink: could not read the commit's note %s: %s", path, exc)
        note = {}
    if note is None:
        return recorded_status(record) == UNKNOWN
    if recorded_status(record) != UNKNOWN and note:
        _write(record, note)
    path.unlink(missing_ok=True)
    return True


def _driver_note_path(record: WriteRecord) -> Path:
    key = hashlib.sha256(json.dumps([record.table, record.run_folder, list(record.uris)]).encode()).hexdigest()[:32]
    return Path(tempfile.gettempdir()) / "pinot_sink-outcomes" / f"{key}.json"


def _keep_driver_note(record: WriteRecord, document: dict) -> None:
    path = _driver_note_path(record)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(redact_text(json.dumps({**document, "run_folder": record.run_folder})))
        temporary.replace(path)
    except Exception as exc:  # noqa: BLE001 - the manifest is the main record; this note backs it up
        log.error("pinot_sink: could not keep the commit's note %s: %s", path, exc)


def recorded_status(record: WriteRecord) -> str | None:
    """The status this run's manifest records (None: no manifest, or none readable): the table's, else the
    ``manifest.path`` file (the only record without an output-uri), if it is this run's and not an earlier
    write's kept at the same path."""
    run_folder = record.run_folder
    for uri in record.uris:
        try:
            text = read_text(uri, record.storage_options)
            document = None if text is None else json.loads(text)
        except Exception as exc:  # noqa: BLE001 - unreadable: callers take the safe side for their case
            log.error("pinot_sink: could not read the job manifest of %s: %s", run_folder, exc)
            continue
        if isinstance(document, dict) and document.get("run_folder", run_folder) == run_folder:
            return document.get("status")
    return None


def was_withdrawn(record: WriteRecord) -> bool:
    # unreadable: abort keeps the files (rows doubled, never lost)
    return recorded_status(record) == WITHDRAWN


def _write(record: WriteRecord, document: dict) -> None:
    # Credentials in output-uri (scheme://user:secret@host) must not reach a file others read.
    document = {**document, "run_folder": record.run_folder}  # which run a manifest.path file is the record of
    text = redact_text(json.dumps(document, indent=2, sort_keys=True))
    for uri in record.uris:
        try:
            write_text(uri, text, record.storage_options)
        except Exception as exc:  # noqa: BLE001 - the write is done (or undone); a manifest must not change
            # that: an error raised from the commit would make Spark abort a write that already committed.
            log.error("pinot_sink: could not write the job manifest to %s: %s", uri, exc)


def manifests_of_table(table_folder_uri: str, storage_options: dict | None = None,
                       unreadable: list[str] | None = None) -> dict[str, dict]:
    """``{manifest uri: document}`` of ``<table folder>/_manifests/``. Unreadable ones (truncated, corrupted)
    are logged and left out, their URIs appended to ``unreadable``: a caller deciding what is committed must
    not take a record it cannot read for no record."""
    folder = manifests_uri(table_folder_uri)
    found = {}
    for uri in list_files(folder, ".json", storage_options):
        try:
            found[uri] = json.loads(read_text(uri, storage_options) or "null")
        except Exception as exc:  # noqa: BLE001 - one broken file must not hide the others
            log.error("pinot_sink: could not read the job manifest %s: %s", redact_text(uri), exc)
            found[uri] = None
    if unreadable is not None:
        unreadable.extend(uri for uri, document in found.items() if not isinstance(document, dict))
    return {uri: document for uri, document in found.items() if isinstance(document, dict)}


@dataclass(frozen=True)
class TableManifests:
    """One reading of a table's manifests (``read_table_manifests``), for a caller that consults them twice in
    a row: a compaction checks them for unfinished publishes, then plans from them (2000 manifests read and
    parsed ~0.1 CPU-s a time)."""

    documents: Mapping[str, dict]  # manifests_of_table's
    unreadable: tuple[str, ...]


def read_table_manifests(table_folder_uri: str, storage_options: dict | None = None) -> TableManifests:
    unreadable: list[str] = []
    documents = manifests_of_table(table_folder_uri, storage_options, unreadable=unreadable)
    return TableManifests(documents, tuple(unreadable))


def publishing(document: dict) -> bool:
    """Whether a record says the folder may show part of a run: publishing (or stopped while publishing) files
    it names, or with an unknown outcome where it replaces others (whether those are live is the controller's to
    say). A publishing record that names nothing to publish and nothing to replace (a folder's compaction
    records its run so before it builds) leaves the folder exactly as committed: readers go on."""
    status = document.get("status")
    if status == PUBLISHING:
        return bool(document.get("pending") or document.get("replacing"))
    return status == UNKNOWN and bool(document.get("replacing"))


def not_live(documents) -> set[str]:
    """Segment names the manifests say are not live: a write's that is not committed (``pending``), or one a
    committed write replaced (a controller keeps replaced segments, hidden; their tarballs stay in the folder).
    A name a committed write published and none replaced is live, whatever else says."""
    documents = list(documents)
    committed = [d for d in documents if d.get("status") in WAS_COMMITTED]
    published = {s.get("name") for d in committed for s in d.get("segments") or []}
    replaced = {n for d in committed for n in d.get("replaced") or []}
    # ... and what a later write took out through a segment no manifest here has (a controller's compaction
    # merged them, then a window overwrite replaced the merged one: ``commit``'s lineage walk marks them),
    # while that write stands (an undone one's manifest is no longer committed: the segments are back)
    standing = {d.get("run_tag") for d in committed}
    replaced |= {n for d in committed for entry in d.get("superseded_by") or []
                 if isinstance(entry, dict) and entry.get("run_tag") in standing for n in entry.get("segments") or []}
    pending = {n for d in documents if d.get("status") not in WAS_COMMITTED for n in d.get("pending") or []}
    return replaced | (pending - published)


def recorded_segments(documents) -> dict[str, dict]:
    """``{segment name: its entry}`` from the committed writes' manifests: rows, ``tar_bytes``, CRC and time
    range in epoch millis, for what reads a folder without opening its tarballs. A segment a recovery finished
    (its entry has only a name) or one copied in by hand has none, and so has a name that more than one
    committed write published (a ``fixed`` name written again): manifests' names carry no order, and an
    earlier tarball of the same size would lend the one now in the folder its time range."""
    entries = [s for d in documents if d.get("status") in WAS_COMMITTED
               for s in d.get("segments") or [] if isinstance(s, dict) and s.get("name")]
    times = Counter(s["name"] for s in entries)
    return {s["name"]: s for s in entries if s.get("rows") is not None and times[s["name"]] == 1}


def rewrite_status(uri: str, document: dict, status: str, storage_options: dict | None = None, **extra) -> None:
    """Record a recovery's settlement of a manifest (``status`` and what was done) in place."""
    updated = {**document, "status": status, **extra}
    if status == COMMITTED:  # a publish found complete: what it published and replaced, by name
        names = updated.pop("pending", None) or []
        updated["segments"] = updated.get("segments") or [{"name": n} for n in names]
        updated["replaced"] = updated.get("replaced") or updated.get("replacing") or []
    write_text(uri, redact_text(json.dumps(updated, indent=2, sort_keys=True)), storage_options)
