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
"""
from __future__ import annotations

import json
import logging
from dataclasses import asdict
from typing import Any

from pinot_sink.controller import redact_text

from .job import WriteJob
from .reports import PublishedSegment, WriteResult
from .store import list_files, read_text, table_uri, write_text

log = logging.getLogger("pinot_sink")

MANIFEST_DIR = "_manifests"
FORMAT_VERSION = 1
COMMITTED, PUBLISHING, ABORTED, WITHDRAWN, UNKNOWN = "committed", "publishing", "aborted", "withdrawn", "unknown"
# A committed write whose every segment a later write replaced: still a committed write (what it replaced stays
# replaced), only no longer live.
SUPERSEDED = "superseded"
WAS_COMMITTED = (COMMITTED, SUPERSEDED)


def _table_manifest_uri(job: WriteJob, run_folder: str) -> str:
    return f"{table_uri(job.output_uri, job.table)}/{MANIFEST_DIR}/{run_folder}.json"


def manifest_uris(job: WriteJob, run_folder: str) -> list[str]:
    uris = []
    if job.output_uri:
        uris.append(_table_manifest_uri(job, run_folder))
    if job.options.manifest_path:
        uris.append(job.options.manifest_path)
    return uris


def _common(job: WriteJob) -> dict[str, Any]:
    return {"format_version": FORMAT_VERSION, "table": job.table, "mode": "overwrite" if job.overwrite else "append",
            "run_tag": job.run_tag, "push_mode": job.options.delivery.push_mode if job.client_config else None,
            "controller": job.client_config.url if job.client_config else None, "output_uri": job.output_uri,
            "options": job.logged_options, "started_at": job.started_at}


def write_committed(job: WriteJob, result: WriteResult, run_folder: str) -> None:
    document = {**_common(job), "status": COMMITTED, **asdict(result)}
    _write(job, run_folder, document)
    if result.replaced and job.output_uri:
        mark_superseded(job, result, run_folder)


def mark_superseded(job: WriteJob, result: WriteResult, run_folder: str) -> None:
    """The table's earlier manifests whose segments this write replaced say so: ``superseded_by`` lists
    each later run and the segments it took out, and ``status`` becomes ``superseded`` once none of the
    write's segments is left in the table (an orchestrator reading an old manifest is not misled)."""
    replaced = set(result.replaced)
    try:
        documents = manifests_of_table(table_uri(job.output_uri, job.table), job.storage_options)
    except Exception as exc:  # noqa: BLE001 - bookkeeping after a committed write must not fail it
        log.error("pinot_sink: could not read the job manifests of table %s: %s", job.table, redact_text(str(exc)))
        return
    for uri, document in documents.items():
        if uri.rsplit("/", 1)[-1] == f"{run_folder}.json":  # this write's own
            continue
        if not isinstance(document, dict) or document.get("status") not in WAS_COMMITTED:
            continue  # (an unreadable one is logged by manifests_of_table)
        names = {segment["name"] for segment in document.get("segments") or []}
        gone = sorted(names & replaced)
        if not gone:
            continue
        entries = document.setdefault("superseded_by", [])
        entries.append({"run_tag": result.run_tag, "write_id": result.write_id, "mode": result.mode,
                        "segments": gone})
        removed = {name for entry in entries for name in entry["segments"]}
        if names <= removed:
            document["status"] = SUPERSEDED
        try:
            write_text(uri, redact_text(json.dumps(document, indent=2, sort_keys=True)), job.storage_options)
        except Exception as exc:  # noqa: BLE001 - as above
            log.error("pinot_sink: could not mark the job manifest %s superseded: %s", redact_text(uri), exc)


def write_publishing(job: WriteJob, write_id: str | None, run_folder: str, names: list[str],
                     replaced: list[str], *, lineage_id: str | None = None) -> None:
    """The intent, written before anything moves: what this run will publish and what it will replace."""
    document = {**_common(job), "status": PUBLISHING, "write_id": write_id, "segments": [],
                "pending": sorted(names), "replacing": sorted(replaced), "lineage_id": lineage_id}
    _write(job, run_folder, document)


def write_aborted(job: WriteJob, write_id: str | None, run_folder: str, left: list[str],
                  names: list[str] = ()) -> None:
    """``left``: what abort could not remove (kept on purpose, or failed); ``names``: the run's segments."""
    document = {**_common(job), "status": ABORTED, "write_id": write_id, "segments": [], "replaced": [],
                "left_behind": left, "pending": sorted(set(names) - set(left))}
    _write(job, run_folder, document)


def write_withdrawn(job: WriteJob, run_folder: str, names: list[str]) -> None:
    """An embedded run that found a rival is taking its files out again and has deleted nothing: written
    before it deletes them, so that an abort after a failed delete removes them too (``was_withdrawn``)."""
    document = {**_common(job), "status": WITHDRAWN, "segments": [], "replaced": [], "withdrawn": names,
                "pending": sorted(names)}
    _write(job, run_folder, document)


def write_unknown(job: WriteJob, write_id: str | None, run_folder: str, lineage_id: str | None,
                  names: list[str], message: str, *, replacing: list[str] = ()) -> None:
    """The commit's outcome could not be learned: the write may or may not be in the table. ``pending`` are
    its segments (live if the lineage entry is COMPLETED); ``pinot-sink push`` skips them, and an abort keeps
    this record instead of writing ``aborted`` over it."""
    document = {**_common(job), "status": UNKNOWN, "write_id": write_id, "lineage_id": lineage_id,
                "segments": [], "replaced": [], "pending": sorted(names), "replacing": sorted(replacing),
                "error": message}
    _write(job, run_folder, document)


def recorded_status(job: WriteJob, run_folder: str) -> str | None:
    """The status this run's manifest records (None: no manifest, or none readable): the table's, else the
    ``manifest.path`` file (the only record without an output-uri), if it is this run's and not an earlier
    write's kept at the same path."""
    for uri in manifest_uris(job, run_folder):
        try:
            text = read_text(uri, job.storage_options)
            document = None if text is None else json.loads(text)
        except Exception as exc:  # noqa: BLE001 - unreadable: callers take the safe side for their case
            log.error("pinot_sink: could not read the job manifest of %s: %s", run_folder, exc)
            continue
        if isinstance(document, dict) and document.get("run_folder", run_folder) == run_folder:
            return document.get("status")
    return None


def was_withdrawn(job: WriteJob, run_folder: str) -> bool:
    # unreadable: abort keeps the files (rows doubled, never lost)
    return recorded_status(job, run_folder) == "withdrawn"


def _write(job: WriteJob, run_folder: str, document: dict) -> None:
    # Credentials in output-uri (scheme://user:secret@host) must not reach a file others read.
    document = {**document, "run_folder": run_folder}  # which run a manifest.path file is the record of
    text = redact_text(json.dumps(document, indent=2, sort_keys=True))
    for uri in manifest_uris(job, run_folder):
        try:
            write_text(uri, text, job.storage_options)
        except Exception as exc:  # noqa: BLE001 - the write is done (or undone); a manifest must not change
            # that: an error raised from the commit would make Spark abort a write that already committed.
            log.error("pinot_sink: could not write the job manifest to %s: %s", uri, exc)


def manifests_of_table(table_folder_uri: str, storage_options: dict | None = None,
                       unreadable: list[str] | None = None) -> dict[str, dict]:
    """``{manifest uri: document}`` of ``<table folder>/_manifests/``. Unreadable ones (truncated, corrupted)
    are logged and left out, their URIs appended to ``unreadable``: a caller deciding what is committed must
    not take a record it cannot read for no record."""
    folder = f"{table_folder_uri.rstrip('/')}/{MANIFEST_DIR}"
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


def not_live(documents) -> set[str]:
    """Segment names the manifests say are not live: a write's that is not committed (``pending``), or one a
    committed write replaced (a controller keeps replaced segments, hidden; their tarballs stay in the folder).
    A name a committed write published and none replaced is live, whatever else says."""
    documents = list(documents)
    committed = [d for d in documents if d.get("status") in WAS_COMMITTED]
    published = {s.get("name") for d in committed for s in d.get("segments") or []}
    replaced = {n for d in committed for n in d.get("replaced") or []}
    pending = {n for d in documents if d.get("status") not in WAS_COMMITTED for n in d.get("pending") or []}
    return replaced | (pending - published)


def rewrite_status(uri: str, document: dict, status: str, storage_options: dict | None = None, **extra) -> None:
    """Record a recovery's settlement of a manifest (``status`` and what was done) in place."""
    updated = {**document, "status": status, **extra}
    if status == COMMITTED:  # a publish found complete: what it published and replaced, by name
        names = updated.pop("pending", None) or []
        updated["segments"] = updated.get("segments") or [{"name": n} for n in names]
        updated["replaced"] = updated.get("replaced") or updated.get("replacing") or []
    write_text(uri, redact_text(json.dumps(updated, indent=2, sort_keys=True)), storage_options)


def read_result(text: str) -> WriteResult:
    """A committed write's ``WriteResult`` from its manifest; raises ValueError for an aborted one."""
    document = json.loads(text)
    if document.get("status") not in WAS_COMMITTED:
        raise ValueError(f"the write to {document.get('table')} was {document.get('status')}")
    fields = {name: document[name] for name in WriteResult.__dataclass_fields__ if name in document}
    fields["segments"] = tuple(PublishedSegment(**segment) for segment in document["segments"])
    fields["replaced"] = tuple(document["replaced"])
    fields["deferred_indexes"] = tuple(document.get("deferred_indexes", ()))
    return WriteResult(**fields)
