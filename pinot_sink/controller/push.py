"""Push modes and parallel pushing.

* ``tar``: the tarball goes to the controller as the multipart body, streamed from disk.
* ``uri``: the tarball is copied to ``<deep_store_uri>/<rawTable>/<segment>.tar.gz`` first (``pinot_sink.storage``
  owns that layout and its quoting), then the controller is told that URI (``UPLOAD_TYPE: URI``) and
  downloads it itself. Pinot refuses ``file:`` URIs in this mode (a controller cannot read an executor's
  disk).
* ``metadata``: the tarball is copied to the deep store, and only ``metadata.properties`` and
  ``creation.meta`` travel to the controller (``UPLOAD_TYPE: METADATA`` with ``DOWNLOAD_URI``); with
  ``copy_to_deep_store`` the controller copies the tarball into its own deep store.

For ``uri`` and ``metadata``, ``segment_uri_prefix`` / ``segment_uri_suffix`` rewrite the URI the controller
is sent, as Pinot's job spec (``PushJobSpec.segmentUriPrefix`` / ``segmentUriSuffix``,
``SegmentPushUtils.generateSegmentTarURI``) does: when either is set, the URI sent is
``prefix + <raw (still percent-encoded) path of the tarball's URI> + suffix``, e.g. a tarball written to
``s3a://bucket/pinot/events/x.tar.gz`` with prefix ``s3://bucket`` is announced as
``s3://bucket/pinot/events/x.tar.gz``.

Every mode is at-least-once safe: a retry re-sends the same bytes under the same name, which the
controller treats as a refresh with an identical CRC, i.e. a no-op.
"""
from __future__ import annotations

import io
import logging
import os
import tarfile
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from urllib.parse import urlsplit

from ..segment.properties import as_text, parse_properties
from .auth import redact_text
from .client import ControllerClient, offline_raw_name
from .errors import (ControllerError, ControllerRequestError, ControllerUnavailableError, DeepStoreError,
                     RetriesExhaustedError)
from ..storage.files import copy_to_deep_store as copy_tarball
from ..storage.layout import StorageError, segment_name_from_path, segment_uri
from ..storage.tarballs import metadata_files

log = logging.getLogger(__name__)

PUSH_MODES = ("tar", "uri", "metadata")  # the one list of push modes (options and the CLI read it here)


@dataclass(frozen=True)
class PushResult:
    segment: str
    tar_path: str
    push_mode: str
    tar_bytes: int
    seconds: float
    download_uri: str | None = None  # the URI the controller was sent (uri / metadata)
    message: str = ""
    error: ControllerError | None = None
    stored_uri: str | None = None  # where the tarball was copied (uri / metadata): segment_uri(...)
    skipped: bool = False  # not tried: an earlier upload found the controller unreachable

    @property
    def ok(self) -> bool:
        return self.error is None

    def __repr__(self) -> str:  # a deep-store URI may carry credentials (s3://key:secret@bucket)
        return redact_text(
            f"PushResult(segment={self.segment!r}, push_mode={self.push_mode!r}, tar_bytes={self.tar_bytes}, "
            f"seconds={self.seconds:.3f}, download_uri={self.download_uri!r}, stored_uri={self.stored_uri!r}, "
            f"message={self.message!r}, error={self.error!r})")


def metadata_tarball(tar_path: str | os.PathLike) -> tuple[str, bytes]:
    """``(segment name, <metadata.properties + creation.meta as top-level files, gzipped tar>)``."""
    name, found = metadata_parts(tar_path)
    return name, _small_tarball(found.items())


def metadata_parts(tar_path: str | os.PathLike) -> tuple[str, dict[str, bytes]]:
    """``(segment name, {"metadata.properties": ..., "creation.meta": ...})`` of a segment tarball."""
    found = metadata_files(tar_path)
    missing = [name for name in ("metadata.properties", "creation.meta") if name not in found]
    if missing:
        raise ControllerRequestError(
            f"{os.fspath(tar_path)} is not a segment tarball: no {' or '.join(missing)}",
            segment=segment_name_from_path(tar_path), operation="metadata push",
        )
    properties = parse_properties(found["metadata.properties"])
    name = as_text(properties.get("segment.name")) or segment_name_from_path(tar_path)
    return name, {base: found[base] for base in ("metadata.properties", "creation.meta")}


def _small_tarball(files: Iterable[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.USTAR_FORMAT) as out:
        for name, data in files:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            out.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def controller_download_uri(stored_uri: str, prefix: str | None = None, suffix: str | None = None) -> str:
    """The URI announced to the controller for a tarball at ``stored_uri`` (Pinot's
    ``generateSegmentTarURI``): unchanged without prefix and suffix, else ``prefix + raw path + suffix``."""
    if not prefix and not suffix:
        return stored_uri
    return f"{prefix or ''}{urlsplit(stored_uri).path}{suffix or ''}"


def _copy(tar_path, stored_uri: str, options, segment: str, table: str) -> int:
    """The deep-store copy of a uri / metadata push, its failure as the controller's retried error."""
    try:
        return copy_tarball(tar_path, stored_uri, options=options, segment=segment, table=table)
    except StorageError as exc:
        raise DeepStoreError(str(exc), segment=segment, table=table, retryable=exc.retryable,
                             operation="deep store copy") from None


def push_segment(
    client: ControllerClient,
    table: str,
    tar_path: str | os.PathLike,
    *,
    push_mode: str = "tar",
    deep_store_uri: str | None = None,
    copy_to_deep_store: bool = False,
    parallel_push_protection: bool = False,
    deep_store_options: Mapping[str, Any] | None = None,
    segment_uri_prefix: str | None = None,
    segment_uri_suffix: str | None = None,
    on_retry=None,
) -> PushResult:
    """Upload one segment tarball in ``push_mode``; raises ``ControllerError`` naming the segment.
    ``on_retry()`` runs before each retry of the upload request (``push_segments`` lowers its concurrency)."""
    started = time.monotonic()
    raw = offline_raw_name(table)
    mode = (push_mode or "tar").lower()
    segment = segment_name_from_path(tar_path)
    if mode not in PUSH_MODES:
        raise ControllerRequestError(f"unknown push mode {push_mode!r} (one of {', '.join(PUSH_MODES)})",
                                     table=raw, segment=segment)
    if not os.path.isfile(tar_path):
        raise ControllerRequestError(f"no segment tarball at {os.fspath(tar_path)}", table=raw, segment=segment)
    size = os.path.getsize(tar_path)
    download_uri = stored_uri = None

    if mode == "tar":
        message = client.post_segment_file(
            raw, segment, tar_path, upload_type="SEGMENT", parallel_push_protection=parallel_push_protection,
            on_retry=on_retry)
    else:
        segment, metadata, stored_uri, download_uri = _into_deep_store(
            client, raw, tar_path, mode, deep_store_uri, deep_store_options, segment_uri_prefix, segment_uri_suffix)
        if mode == "uri":
            message = client.post_segment_uri(raw, segment, download_uri,
                                              parallel_push_protection=parallel_push_protection, on_retry=on_retry)
        else:
            message = client.post_segment_file(
                raw, segment, _small_tarball(metadata.items()), upload_type="METADATA", download_uri=download_uri,
                copy_to_deep_store=copy_to_deep_store, parallel_push_protection=parallel_push_protection,
                on_retry=on_retry,
            )
    elapsed = time.monotonic() - started
    log.info("pushed segment %s of table %s (%s, %d bytes) in %.2fs", segment, raw, mode, size, elapsed)
    return PushResult(segment, os.fspath(tar_path), mode, size, elapsed, download_uri, message, stored_uri=stored_uri)


def _into_deep_store(client: ControllerClient, raw: str, tar_path, mode: str, deep_store_uri: str | None,
                     deep_store_options, prefix: str | None, suffix: str | None
                     ) -> tuple[str, dict[str, bytes] | None, str, str]:
    """uri / metadata push: the tarball copied to the deep store; returns (segment, its metadata files in
    metadata mode, the stored URI, the URI the controller is sent)."""
    segment = segment_name_from_path(tar_path)
    if not deep_store_uri:
        raise ControllerRequestError(f"push mode {mode!r} needs a deep store URI", table=raw, segment=segment)
    metadata = None
    if mode == "metadata":
        segment, metadata = metadata_parts(tar_path)
    try:
        stored_uri = segment_uri(deep_store_uri, raw, segment)
    except StorageError as exc:  # a name or URI the deep store cannot take: not retried
        raise DeepStoreError(str(exc), segment=segment, table=raw, operation="deep store copy") from None
    download_uri = controller_download_uri(stored_uri, prefix, suffix)
    if mode == "uri" and download_uri.lower().startswith("file:"):
        raise ControllerRequestError(
            "push mode 'uri' cannot use a file:// deep store (the controller rejects file: download URIs); "
            "use 'metadata' or 'tar', a shared filesystem URI, or push.segment-uri-prefix",
            table=raw, segment=segment)
    client.config.retry.call(
        lambda _remaining: _copy(tar_path, stored_uri, deep_store_options, segment, raw),
        describe=f"deep store copy {segment}",
    )
    return segment, metadata, stored_uri, download_uri


class PushConcurrency:
    """How many uploads may be in flight: starts at ``parallel``, halves each time an upload has to be retried
    (Pinot answers concurrent ideal-state updates that keep losing their version check with a 500, and a
    stressed controller with 5xx or timeouts: fewer writers at once is what helps, apache/pinot#6146), and
    grows back by one after ``parallel`` uploads in a row that needed no retry."""

    def __init__(self, parallel: int) -> None:
        self.ceiling = self.limit = max(1, parallel)
        self.in_flight = 0
        self.lowered = 0  # how many times a retry lowered the limit
        self.smallest = self.limit
        self._clean = 0
        self._cond = threading.Condition()

    def acquire(self) -> None:
        with self._cond:
            while self.in_flight >= self.limit:
                self._cond.wait()
            self.in_flight += 1

    def release(self, clean: bool) -> None:
        with self._cond:
            self.in_flight -= 1
            if clean:
                self._clean += 1
                if self._clean >= self.ceiling and self.limit < self.ceiling:
                    self.limit += 1
                    self._clean = 0
            self._cond.notify_all()

    def retried(self) -> None:
        """An upload is about to be retried: halve the limit (in-flight uploads finish; no new one starts
        until fewer than the new limit are in flight)."""
        with self._cond:
            self._clean = 0
            if self.limit > 1:
                self.limit = max(1, self.limit // 2)
                self.lowered += 1
                self.smallest = min(self.smallest, self.limit)
                log.warning("an upload had to be retried (ideal-state update conflict or an overloaded controller): "
                            "push concurrency lowered to %d", self.limit)


def push_segments(
    client: ControllerClient,
    table: str,
    tar_paths: Iterable[str | os.PathLike],
    *,
    push_mode: str = "tar",
    deep_store_uri: str | None = None,
    parallel: int = 4,
    copy_to_deep_store: bool = False,
    parallel_push_protection: bool = False,
    deep_store_options: Mapping[str, Any] | None = None,
    segment_uri_prefix: str | None = None,
    segment_uri_suffix: str | None = None,
    raise_on_error: bool = True,
    on_result: Callable[[PushResult], None] | None = None,
    batch_size: int = 0,
    concurrency: PushConcurrency | None = None,
) -> list[PushResult]:
    """Push many tarballs with at most ``parallel`` uploads in flight (fewer after retried uploads:
    ``PushConcurrency``); results in input order. In metadata mode with ``batch_size`` > 1 the metadata goes
    in batches of that many segments through ``/segments/batchUpload`` (``push_metadata_batches``).

    With ``raise_on_error`` the first failure stops new uploads (those in flight finish) and is raised;
    otherwise every path is tried and failures come back as results with ``error`` set, unless the
    controller gave no answer at all: then the rest come back ``skipped`` instead of failing one by one.
    ``on_result`` is called from worker threads as each push ends (progress display)."""
    paths = list(tar_paths)
    if parallel < 1:
        raise ValueError("parallel must be at least 1")
    raw = offline_raw_name(table)
    gate = concurrency or PushConcurrency(parallel)
    if (push_mode or "").lower() == "metadata" and batch_size > 1 and len(paths) > 1:
        pushed = push_metadata_batches(
            client, raw, paths, batch_size=batch_size, deep_store_uri=deep_store_uri, parallel=parallel,
            copy_to_deep_store=copy_to_deep_store, parallel_push_protection=parallel_push_protection,
            deep_store_options=deep_store_options, segment_uri_prefix=segment_uri_prefix,
            segment_uri_suffix=segment_uri_suffix, raise_on_error=raise_on_error, on_result=on_result,
            concurrency=gate)
        if pushed is not None:
            return pushed
        log.warning("table %s: the controller has no /segments/batchUpload (Pinot before 1.2): pushing the "
                    "metadata one segment at a time", raw)
    if parallel > client.config.pool_size:
        log.warning("parallel=%d exceeds the client's connection pool (%d): extra connections are opened and "
                    "dropped each time; build the client with pool_size>=%d", parallel, client.config.pool_size,
                    parallel)
    stop = threading.Event()

    unreachable: list[ControllerError] = []

    def one(path) -> PushResult:
        if stop.is_set():
            if raise_on_error or not unreachable:
                raise _Skipped()
            result = PushResult(segment_name_from_path(path), os.fspath(path), push_mode, _size(path), 0.0,
                                error=ControllerUnavailableError(
                                    f"not tried: the controller could not be reached ({unreachable[0]})"),
                                skipped=True)
            if on_result is not None:
                on_result(result)
            return result
        retried = []
        gate.acquire()
        if stop.is_set() and raise_on_error:  # failed while this one waited for a slot
            gate.release(clean=True)
            raise _Skipped()
        started = time.monotonic()
        try:
            result = push_segment(
                client, raw, path, push_mode=push_mode, deep_store_uri=deep_store_uri,
                copy_to_deep_store=copy_to_deep_store, parallel_push_protection=parallel_push_protection,
                deep_store_options=deep_store_options, segment_uri_prefix=segment_uri_prefix,
                segment_uri_suffix=segment_uri_suffix, on_retry=lambda: _note_retry(gate, retried),
            )
        except ControllerError as error:
            if raise_on_error:
                stop.set()
                raise
            if _controller_unreachable(error):  # every later upload would fail the same way, slowly
                unreachable.append(error)
                stop.set()
            result = PushResult(segment_name_from_path(path), os.fspath(path), push_mode,
                                _size(path), time.monotonic() - started, error=error)
        finally:
            gate.release(clean=not retried)
        if on_result is not None:
            on_result(result)
        return result

    if parallel == 1 or len(paths) <= 1:
        return [one(p) for p in paths]
    with ThreadPoolExecutor(max_workers=min(parallel, len(paths)), thread_name_prefix="pinot-push") as pool:
        futures = [pool.submit(one, p) for p in paths]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        first_error = next((f.exception() for f in futures if f.done() and f.exception()
                            and not isinstance(f.exception(), _Skipped)), None)
        if first_error is not None:
            for future in futures:
                future.cancel()
            wait(futures)
            raise first_error
        return [f.result() for f in futures]


def _note_retry(gate: PushConcurrency, retried: list) -> None:
    retried.append(True)
    gate.retried()
    return None  # on_retry: nothing resolved, retry the call itself


METADATA_LIST = "all_segments_metadata"  # SegmentUploadConstants.ALL_SEGMENTS_METADATA_FILENAME


def metadata_batch_tarball(items: Iterable[tuple[str, Mapping[str, bytes], str]]) -> bytes:
    """The one part of a ``/segments/batchUpload`` request (Pinot's ``SegmentPushUtils``): a gzipped tar of a
    folder holding ``<segment>.metadata.properties`` and ``<segment>.creation.meta`` for each segment and
    ``all_segments_metadata``, whose lines alternate segment name and download URI. ``items`` are
    (segment, its metadata files from ``metadata_parts``, download URI)."""
    folder = "allSegmentsMetadataDir-batch"
    buffer = io.BytesIO()
    lines = []
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.USTAR_FORMAT, compresslevel=6) as out:
        def add(name: str, data: bytes) -> None:
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size, info.mode = len(data), 0o644
            out.addfile(info, io.BytesIO(data))

        for segment, metadata, download_uri in items:
            for base, data in metadata.items():
                add(f"{segment}.{base}", data)
            lines += [segment, download_uri]
        add(METADATA_LIST, ("\n".join(lines) + "\n").encode("utf-8"))
    return buffer.getvalue()


def push_metadata_batches(
    client: ControllerClient, table: str, paths: list, *, batch_size: int, deep_store_uri: str | None,
    parallel: int = 4, copy_to_deep_store: bool = False, parallel_push_protection: bool = False,
    deep_store_options: Mapping[str, Any] | None = None, segment_uri_prefix: str | None = None,
    segment_uri_suffix: str | None = None, raise_on_error: bool = True,
    on_result: Callable[[PushResult], None] | None = None, concurrency: PushConcurrency | None = None,
) -> list[PushResult] | None:
    """Metadata push in batches: each batch's tarballs are copied to the deep store (``parallel`` at once),
    then one ``/segments/batchUpload`` request announces them all; the controller adds the whole batch to
    the ideal state in one update, so ``ceil(N / batch_size)`` requests replace N. Batches go one at a time
    (a batch is already one ideal-state update; several at once would only race each other). Returns None
    when the controller has no such endpoint (404 / 405 on the first batch: nothing was announced)."""
    raw = offline_raw_name(table)
    gate = concurrency or PushConcurrency(1)
    results: list[PushResult] = []
    for first in range(0, len(paths), batch_size):
        batch = paths[first:first + batch_size]
        started = time.monotonic()

        def copy(path):
            return _into_deep_store(client, raw, path, "metadata", deep_store_uri, deep_store_options,
                                    segment_uri_prefix, segment_uri_suffix)

        with ThreadPoolExecutor(max_workers=max(1, min(parallel, len(batch))), thread_name_prefix="pinot-copy") as pool:
            staged = list(pool.map(copy, batch))
        uber = metadata_batch_tarball((segment, metadata, uri) for segment, metadata, _stored, uri in staged)
        retried: list = []
        gate.acquire()
        error: ControllerError | None = None
        message = ""
        try:
            message = client.post_segments_batch(
                raw, uber, first_segment=staged[0][0], copy_to_deep_store=copy_to_deep_store,
                parallel_push_protection=parallel_push_protection, on_retry=lambda: _note_retry(gate, retried))
        except ControllerError as failure:
            if first == 0 and failure.status in (404, 405):
                return None
            if raise_on_error:
                raise
            error = failure
        finally:
            gate.release(clean=not retried)
        elapsed = time.monotonic() - started
        log.info("pushed the metadata of %d segment(s) of table %s in one batch in %.2fs", len(batch), raw, elapsed)
        for path, (segment, _metadata, stored, uri) in zip(batch, staged):
            result = PushResult(segment, os.fspath(path), "metadata", _size(path), elapsed / len(batch), uri,
                                message, error=error, stored_uri=stored)
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


def _controller_unreachable(error: ControllerError) -> bool:
    """No HTTP answer at all (refused, unresolvable, timed out) after the retries: the controller, not the
    segment, is the problem."""
    last = getattr(error, "last_error", error)
    return isinstance(error, (ControllerUnavailableError, RetriesExhaustedError)) and last.status is None


class _Skipped(Exception):
    """A queued push not started because an earlier one failed."""


def _size(path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
