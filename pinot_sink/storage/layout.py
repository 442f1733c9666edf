"""Where every file of a table lives, and the one rule for turning names into URIs and URIs into paths.

A root (``output-uri``, a deep store, a private staging root) holds, per table:

    <root>/<rawTable>/<segmentName>.tar.gz                          the table's tarballs (Pinot's deep-store
                                                                    layout: s3://bucket/pinot/events/events_0.tar.gz)
    <root>/<rawTable>/_staging/<write tag>_<run tag>/p<partition>_a<task attempt>/<segmentName>.tar.gz
                                                                    one run's staged tarballs, a folder per
                                                                    task attempt (``staging_uri``, ``attempt_uri``)
    <root>/<rawTable>/_manifests/<write tag>_<run tag>.json         one run's record (``manifest_uri``)

One folder per task attempt, so two attempts of one partition (a retry, a speculative copy, a straggler still
running after the job) never write the same file. Listings of the table see tarballs only (so not
``_staging`` or ``_manifests``), as Pinot's batch jobs skip non-tarballs, and skip hidden files (``.``).

One quoting rule, the one Java's ``java.net.URI`` and so Pinot's ``PinotFS`` implementations follow:

* the *file or object* is named by the segment name verbatim (``a b%é.tar.gz`` on disk, in S3, in memory),
  as the segment builder names its output, so a listing gives names back without decoding;
* its *URI* (what the controller is sent as ``DOWNLOAD_URI``, what a manifest records) percent-encodes the
  table and segment names as UTF-8 (``.../a%20b%25%C3%A9.tar.gz``): a URI cannot hold a space, a bare ``%``
  or, in an HTTP header, non-ASCII; Pinot decodes it (``URI.getPath()``) to the same key;
* ``fsspec`` is given the decoded path (``uri_to_fs``), since it takes paths literally.

(Pinot's own standalone job names its files ``URLEncoder.encode(name)``, which turns a space into ``+`` and
lets ``a b`` and ``a+b`` collide; we do not copy that.) The root is a URI: a bare local path becomes a
``file://`` URI with its characters escaped; in a URI given as such, ``%XX`` escapes are meaningful and
characters a URI cannot hold are escaped. ``file://`` always works; ``s3://``, ``gs://``, ``hdfs://`` need
the matching fsspec package (``s3fs``, ``gcsfs``, ``pyarrow``'s HDFS) on every executor.
"""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import quote, unquote, urlsplit

from type_mapping.errors import PinotSinkError, redact_text
from pinot_sink.segment.format import TARBALL_EXTENSION as TARBALL_SUFFIX

STAGING_DIR = "_staging"
MANIFEST_DIR = "_manifests"
# A failed task attempt's error note, one line, in its run's staging folder (``reports.record_task_error``):
# only an abort that knows the run reads it; never a tarball, so it holds back no sweep of an ended root.
TASK_ERROR_SUFFIX = ".task-error"

_TARBALL_SUFFIXES = (TARBALL_SUFFIX, ".tgz", ".tar")  # accepted when reading a name back from a path
FILESYSTEM_PACKAGES = {"s3": "s3fs", "s3a": "s3fs", "gs": "gcsfs", "gcs": "gcsfs", "hdfs": "pyarrow",
                       "abfs": "adlfs", "az": "adlfs"}
_ESCAPE = re.compile(r"(%[0-9A-Fa-f]{2})")
_PATH_SAFE = "/:@!$&'()*+,;=~"  # RFC 3986 pchar and "/": left as they are in a root URI's path


class StorageError(PinotSinkError):
    """A deep store or ``output-uri`` could not be named, listed, read or written. ``retryable``: an I/O
    failure that may pass (the controller's push wraps it in its retried ``DeepStoreError``); a bad URI or name
    is not. The message is redacted (a URI may carry ``key:secret@``)."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(redact_text(message))
        self.retryable = retryable


def normalise_uri(uri: str) -> str:
    """A root as a URI without a trailing slash: a bare local path becomes ``file://`` (servers need a
    scheme); in a URI, characters a URI cannot hold are escaped and existing ``%XX`` escapes kept."""
    uri = (uri or "").strip()
    if not uri:
        raise StorageError("deep store URI is empty")
    if "://" not in uri:
        return Path(uri).resolve().as_uri().rstrip("/")
    parts = urlsplit(uri)
    path = "".join(p if _ESCAPE.fullmatch(p) else quote(p, safe=_PATH_SAFE) for p in _ESCAPE.split(parts.path))
    return f"{parts.scheme}://{parts.netloc}{path}".rstrip("/") + (f"?{parts.query}" if parts.query else "")


def _component(name: str, what: str) -> str:
    if not name or name in (".", "..") or "/" in name or "\\" in name:
        raise StorageError(f"{what} {name!r} cannot be a file name in the deep store "
                             "(empty, '.', '..', or holding a path separator)")
    return quote(name, safe="")


def child_uri(folder_uri: str, name: str, *, what: str = "folder name") -> str:
    """``<folder>/<name>`` with ``name`` as one percent-encoded path component (staging folders too)."""
    return f"{folder_uri.rstrip('/')}/{_component(name, what)}"


def tarball_uri(folder_uri: str, segment_name: str) -> str:
    """``<folder>/<segmentName>.tar.gz``, the name percent-encoded: any folder (a table's, a staging one)."""
    _component(segment_name, "segment name")  # the name itself must be a file name, not only name + suffix
    return child_uri(folder_uri, segment_name + TARBALL_SUFFIX, what="segment name")


def table_uri(root: str, raw_table: str) -> str:
    """``<root>/<rawTable>``, the table's directory."""
    return child_uri(normalise_uri(root), raw_table, what="table name")


def segment_uri(root: str, raw_table: str, segment_name: str) -> str:
    """``<root>/<rawTable>/<segmentName>.tar.gz`` as a URI (names percent-encoded, UTF-8)."""
    return tarball_uri(table_uri(root, raw_table), segment_name)


def staging_uri(root: str, raw_table: str, run_folder: str) -> str:
    """``<root>/<rawTable>/_staging/<run folder>``: one run's staged tarballs."""
    return child_uri(child_uri(table_uri(root, raw_table), STAGING_DIR), run_folder)


def attempt_folder(partition_id: int, task_attempt: int) -> str:
    return f"p{partition_id}_a{task_attempt}"


def attempt_uri(staging: str, partition_id: int, task_attempt: int) -> str:
    """One task attempt's folder in a run's staging folder."""
    return f"{staging}/{attempt_folder(partition_id, task_attempt)}"


def manifests_uri(table_folder: str) -> str:
    """``<table folder>/_manifests``."""
    return f"{table_folder.rstrip('/')}/{MANIFEST_DIR}"


def manifest_uri(root: str, raw_table: str, run_folder: str) -> str:
    """``<root>/<rawTable>/_manifests/<run folder>.json`` (the run folder as it is: it is always a plain
    ``<write tag>_<run tag>``)."""
    return f"{manifests_uri(table_uri(root, raw_table))}/{run_folder}.json"


def run_folder_of_manifest(uri: str) -> str:
    """``.../_manifests/<run folder>.json`` -> ``<run folder>``."""
    return os.path.basename(uri)[: -len(".json")]


def local_path(uri: str) -> str | None:
    """The local path behind a ``file://`` URI (None for remote stores)."""
    if uri.startswith("file://"):
        return unquote(urlsplit(uri).path)
    return None


def segment_name_from_uri(uri: str) -> str:
    """The inverse of ``segment_uri``: ``.../a%20b.tar.gz`` -> ``a b``."""
    return segment_name_from_path(unquote(urlsplit(uri).path) if "://" in uri else uri)


def segment_name_from_path(path: str | os.PathLike) -> str:
    """``.../<segmentName>.tar.gz`` (a local path or an fsspec listing entry, not decoded) -> ``<segmentName>``."""
    name = os.path.basename(os.fspath(path).rstrip("/"))
    for suffix in _TARBALL_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


# Taken by every fsspec file system (AbstractFileSystem's **storage_options: the instance and listings caches).
_FSSPEC_COMMON_OPTIONS = ("skip_instance_cache", "use_listings_cache", "listings_expiry_time", "max_paths",
                          "asynchronous", "loop")


def misspelt_storage_option(uri: str, options: Mapping[str, Any] | None, *, named: str = "storage option ",
                            prefix: str = "") -> str | None:
    """Why a storage option is a typo for ``uri``'s fsspec file system, or None. fsspec passes a key no
    ``__init__`` names on silently (``anonn=true``: an anonymous read became a signed one): a key close to one the
    file system's class takes (its ``__init__``s' parameters, and fsspec's common ones) is refused; other unknown
    keys pass, as a subclass's ``**kwargs`` may take them (s3fs hands its own to botocore). The one home of this
    rule for the write's ``storage.*`` options and the read's."""
    if not options or "::" in uri:  # chained URLs: the options belong to several file systems
        return None
    return _misspelt_key(urlsplit(uri).scheme if "://" in uri else "", tuple(options), named, prefix)


@functools.lru_cache(maxsize=256)  # uri_to_fs checks every file a write touches, with the same few keys
def _misspelt_key(scheme: str, keys: tuple[str, ...], named: str, prefix: str) -> str | None:
    import difflib

    import fsspec

    try:
        cls = fsspec.get_filesystem_class(scheme or "file")
    except (ImportError, ValueError):  # not installed / unknown: uri_to_fs says so
        return None
    known = _options_taken(cls)
    for key in keys:
        close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.8) if key not in known else None
        if close:
            return (f"{named}{prefix + key!r} is not one {cls.__name__} ({scheme or 'file'}://) takes: "
                    f"did you mean {prefix + close[0]!r}?")
    return None


@functools.lru_cache(maxsize=None)
def _options_taken(cls: type) -> frozenset[str]:
    import inspect

    known = set(_FSSPEC_COMMON_OPTIONS)
    for klass in cls.__mro__:
        if "__init__" in vars(klass):
            known.update(name for name, p in inspect.signature(klass.__init__).parameters.items()
                         if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
    return frozenset(known)


def uri_to_fs(uri: str, options: Mapping[str, Any] | None = None):
    """``(fsspec filesystem, path)`` for a deep-store URI; the only place a URI is decoded for fsspec."""
    import fsspec

    misspelt = misspelt_storage_option(uri, options)
    if misspelt:
        raise StorageError(misspelt)
    parts = urlsplit(uri)
    if not parts.scheme or "://" not in uri:
        target = uri  # a plain local path
    elif parts.scheme == "file":
        target = unquote(parts.path)
    else:
        target = f"{parts.scheme}://{parts.netloc}{unquote(parts.path)}" + (f"?{parts.query}" if parts.query else "")
    try:
        return fsspec.core.url_to_fs(target, **dict(options or {}))
    except ImportError as exc:
        scheme = parts.scheme
        package = FILESYSTEM_PACKAGES.get(scheme, "the fsspec implementation for this scheme")
        raise StorageError(f"cannot write to {scheme}:// URIs: install {package} ({exc})") from None
    except ValueError as exc:
        raise StorageError(f"unsupported deep store URI {uri!r}: {exc}") from None


