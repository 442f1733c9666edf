"""Staging: where a write's tasks put their tarballs before the driver's commit publishes them.

With an ``output-uri``, a run stages under ``<output-uri>/<table>/_staging/<run folder>/`` (layout in
``pinot_sink.storage.layout``), one folder per task attempt. Without one (a controller write in local mode),
under a private root of the driver's machine (``private_stage_root``). A task attempt builds straight into
its folder when that is local, else in its own temporary folder, then copies the tarball there
(``AttemptStage``).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Mapping

from .files import copy_to_deep_store
from .layout import local_path, tarball_uri


def private_stage_root(table: str) -> str:
    """A fresh staging root on the driver's machine when there is no output-uri: ``mkdtemp`` makes it 0700,
    never at an existing path (a planted directory or symlink makes it pick another name), so no other user
    can read, replace or redirect the staged tarballs. Made on the driver, because only tasks on the
    driver's machine may stage there, and they run as the driver's user; the job removes it after the commit
    or abort."""
    root = tempfile.mkdtemp(prefix=f"pinot-sink-staging-{table[:64]}-")
    with open(os.path.join(root, OWNER_FILE), "w", encoding="ascii") as owner:
        owner.write(process_identity(os.getpid()))
    return root


# Who made a private staging root: `pinot-sink recover` on the same machine must never take a running write's
# folder for a dead one's (two writes of one table, or a test suite's workers, share the temp folder).
OWNER_FILE = ".pinot-sink-owner"


def process_identity(pid: int) -> str:
    """``<pid> <start>``: the start time (``/proc/<pid>/stat``'s 22nd field, clock ticks since boot) tells
    a reused pid from the process that wrote it; empty where there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            start = stat.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        start = ""
    return f"{pid} {start}".strip()


def owner_running(root: str) -> bool:
    """Whether the process that made the private staging root ``root`` still runs (then its folder is a
    running write's, whatever its age). A root without a readable owner is not known to be running."""
    try:
        with open(os.path.join(root, OWNER_FILE), encoding="ascii") as owner:
            recorded = owner.read().split()
        pid = int(recorded[0])
    except (OSError, ValueError, IndexError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    return len(recorded) < 2 or process_identity(pid) == " ".join(recorded)


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
