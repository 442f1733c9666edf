"""Staging: where a write's tasks put their tarballs before the driver's commit publishes them.

With an ``output-uri``, a run stages under ``<output-uri>/<table>/_staging/<run folder>/`` (layout in
``pinot_sink.storage.layout``), one folder per task attempt. Without one (a controller write in local mode),
under a private root of the driver's machine (``private_stage_root``). A task attempt builds straight into
its folder when that is local, else in its own temporary folder, then copies the tarball there
(``AttemptStage``).
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Mapping

from .files import copy_to_deep_store
from .layout import TASK_ERROR_SUFFIX, local_path, tarball_uri


def private_stage_root(table: str) -> str:
    """A fresh staging root on the driver's machine when there is no output-uri: ``mkdtemp`` makes it 0700,
    never at an existing path (a planted directory or symlink makes it pick another name), so no other user
    can read, replace or redirect the staged tarballs. Made on the driver, because only tasks on the
    driver's machine may stage there, and they run as the driver's user; the job removes it after the commit
    or abort. Empty roots of the table that ended writes left are swept first (``sweep_empty_roots``)."""
    sweep_empty_roots(table)
    root = tempfile.mkdtemp(prefix=_root_prefix(table))
    with open(os.path.join(root, OWNER_FILE), "w", encoding="ascii") as owner:
        owner.write("".join(process_identity(pid) + "\n" for pid in owner_pids()))
    return root


def _root_prefix(table: str) -> str:
    return f"pinot-sink-staging-{table[:64]}-"


def private_stage_roots(table: str) -> list[str]:
    """The private staging roots of ``table`` in this machine's temp folder: folders named exactly as
    ``private_stage_root`` names them (``mkdtemp``'s 8-character suffix), whoever's they are."""
    folder = tempfile.gettempdir()
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [os.path.join(folder, name) for name in names
            if _is_root_name(name, table) and os.path.isdir(os.path.join(folder, name))]


# A root younger than this is never swept: between ``mkdtemp`` and its owner file a root has no owner yet.
SWEEP_AFTER_SECONDS = 600


def sweep_empty_roots(table: str) -> None:
    """Remove ``table``'s private staging roots that hold no file (only folders and the owner file), whose
    owner no longer runs, unchanged for ``SWEEP_AFTER_SECONDS``. A streaming query keeps its root for its
    micro-batches and has no end hook to remove it, so each one left an empty root behind; a root with a
    staged tarball is an interrupted write's, left for ``pinot-sink recover``, which says what it deletes."""
    for root in private_stage_roots(table):
        try:
            if time.time() - os.stat(root).st_mtime < SWEEP_AFTER_SECONDS or owner_running(root):
                continue
            remove_empty_root(root, table)
        except OSError:  # another user's root, or another process swept it first
            continue


def remove_empty_root(root: str | None, table: str) -> None:
    """Remove ``root`` if it is a private staging root of ``table`` (by its name) that holds no file but
    its owner file and failed tasks' error notes: a staged tarball in it is some write's, which only its
    commit, abort or ``pinot-sink recover`` may delete. A note alone is what a streaming micro-batch whose
    every task failed leaves (its committing writer cannot find the tasks' root to read it)."""
    if root is None or not _is_root_name(os.path.basename(root), table):
        return
    try:
        if any(not (f == OWNER_FILE and folder == root) and not f.endswith(TASK_ERROR_SUFFIX)
               for folder, _, files in os.walk(root) for f in files):
            return
        shutil.rmtree(root)
    except OSError:  # gone already, or not ours
        pass


def _is_root_name(name: str, table: str) -> bool:
    prefix = _root_prefix(table)
    return name.startswith(prefix) and re.fullmatch(r"[a-z0-9_]{8}", name[len(prefix):]) is not None


# Who made a private staging root: `pinot-sink recover` on the same machine must never take a running write's
# folder for a dead one's (two writes of one table, or a test suite's workers, share the temp folder).
OWNER_FILE = ".pinot-sink-owner"


def owner_pids() -> list[int]:
    """The processes whose life is the write's: this one, and the Spark driver's JVM when this is one of its
    Python workers (``df.write.format("pinot")`` prepares the write in a planning worker, which Spark stops
    after a minute idle while the write's tasks still run; the JVM lives until the driver ends)."""
    pids = [os.getpid()]
    pid = os.getppid()
    for _ in range(8):  # worker -> daemon -> JVM, at most a few steps up
        stat = _proc_stat(pid) if pid > 1 else None
        if stat is None:
            break
        if stat[0] == "java":
            pids.append(pid)
            break
        pid = int(stat[1][1])  # ppid
    return pids


def _proc_stat(pid: int) -> tuple[str, list[str]] | None:
    """``/proc/<pid>/stat``: the command name and the fields after it (state first); None without /proc."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            head, tail = stat.read().rsplit(")", 1)
    except (OSError, ValueError):
        return None
    return head.split("(", 1)[1], tail.split()


def process_identity(pid: int) -> str:
    """``<pid> <start>``: the start time (``/proc/<pid>/stat``'s 22nd field, clock ticks since boot) tells
    a reused pid from the process that wrote it; empty where there is no /proc."""
    stat = _proc_stat(pid)
    start = stat[1][19] if stat is not None and len(stat[1]) > 19 else ""
    return f"{pid} {start}".strip()


def _alive(recorded: list[str]) -> bool:
    try:
        pid = int(recorded[0])
    except (ValueError, IndexError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    return len(recorded) < 2 or process_identity(pid) == " ".join(recorded)


def owner_running(root: str) -> bool:
    """Whether a process that made the private staging root ``root`` (one line each: ``owner_pids``) still
    runs: then its folder may be a running write's, whatever its age. A root without a readable owner is not
    known to be running."""
    try:
        with open(os.path.join(root, OWNER_FILE), encoding="ascii") as owner:
            lines = owner.read().splitlines()
    except OSError:
        return False
    return any(_alive(line.split()) for line in lines if line.strip())


class AttemptStage:
    """A task attempt's staging folder ``stage_uri``: built in it when it is local, else built in
    ``work_dir`` and copied there (the local tarball is removed either way)."""

    def __init__(self, stage_uri: str, work_dir: Path, *, table: str,
                 storage_options: Mapping[str, Any] | None = None) -> None:
        self.stage_uri, self._table, self._storage_options = stage_uri, table, storage_options
        self._local = local_path(stage_uri)
        self.build_dir = Path(self._local) if self._local is not None else work_dir

    def stage(self, built) -> str:
        """The staged URI of the built segment (``built.name``, ``built.tar_path``)."""
        if self._local is not None:
            return Path(built.tar_path).resolve().as_uri()
        staged = tarball_uri(self.stage_uri, built.name)
        try:
            copy_to_deep_store(built.tar_path, staged, options=self._storage_options, segment=built.name,
                               table=self._table)
        finally:
            os.unlink(built.tar_path)
        return staged
