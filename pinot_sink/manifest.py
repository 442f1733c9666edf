"""The job manifest: one JSON file per write, for orchestrators (Airflow, Dagster) and for people.

``<output-uri>/<table>/_manifests/<write tag>_<run tag>.json`` (when there is an output-uri) and the
``manifest.path`` option's location: what was written (segments, rows, bytes, CRCs, time ranges, where the
tarballs are), what was replaced, the lineage entry, the push mode, the options (secrets redacted) and the
timings; or, for a failed write, that it was aborted and what abort could not remove. ``WriteResult``
round-trips through it, which is how ``pinot_sink.write`` hands a result back from Spark's commit process.
"""
from __future__ import annotations

import json
import logging
from dataclasses import asdict
from typing import Any

from pinot_sink.controller import redact_text

from .job import WriteJob
from .reports import PublishedSegment, WriteResult
from .store import read_text, table_uri, write_text

log = logging.getLogger("pinot_sink")

MANIFEST_DIR = "_manifests"
FORMAT_VERSION = 1


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
    document = {**_common(job), "status": "committed", **asdict(result)}
    _write(job, run_folder, document)


def write_aborted(job: WriteJob, write_id: str | None, run_folder: str, left: list[str]) -> None:
    document = {**_common(job), "status": "aborted", "write_id": write_id, "segments": [], "replaced": [],
                "left_behind": left}
    _write(job, run_folder, document)


def write_withdrawn(job: WriteJob, run_folder: str, names: list[str]) -> None:
    """An embedded run that found a rival is taking its files out again and has deleted nothing: written
    before it deletes them, so that an abort after a failed delete removes them too (``was_withdrawn``)."""
    document = {**_common(job), "status": "withdrawn", "segments": [], "replaced": [], "withdrawn": names}
    _write(job, run_folder, document)


def was_withdrawn(job: WriteJob, run_folder: str) -> bool:
    if not job.output_uri:
        return False
    try:
        text = read_text(_table_manifest_uri(job, run_folder), job.storage_options)
        return text is not None and json.loads(text).get("status") == "withdrawn"
    except Exception as exc:  # noqa: BLE001 - unreadable: abort keeps the files (rows doubled, never lost)
        log.error("pinot_sink: could not read the job manifest of %s: %s", run_folder, exc)
        return False


def _write(job: WriteJob, run_folder: str, document: dict) -> None:
    # Credentials in output-uri (scheme://user:secret@host) must not reach a file others read.
    text = redact_text(json.dumps(document, indent=2, sort_keys=True))
    for uri in manifest_uris(job, run_folder):
        try:
            write_text(uri, text, job.storage_options)
        except Exception as exc:  # noqa: BLE001 - the write is done (or undone); a manifest must not change
            # that: an error raised from the commit would make Spark abort a write that already committed.
            log.error("pinot_sink: could not write the job manifest to %s: %s", uri, exc)


def read_result(text: str) -> WriteResult:
    """A committed write's ``WriteResult`` from its manifest; raises ValueError for an aborted one."""
    document = json.loads(text)
    if document.get("status") != "committed":
        raise ValueError(f"the write to {document.get('table')} was {document.get('status')}")
    fields = {name: document[name] for name in WriteResult.__dataclass_fields__ if name in document}
    fields["segments"] = tuple(PublishedSegment(**segment) for segment in document["segments"])
    fields["replaced"] = tuple(document["replaced"])
    fields["deferred_indexes"] = tuple(document.get("deferred_indexes", ()))
    return WriteResult(**fields)
