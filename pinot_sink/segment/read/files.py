"""The files of one segment, wherever they are: a folder on disk, or a tarball's members held in memory.

``SegmentReader`` asks only this for bytes, so an untarred folder and a tarball are read by the same code,
and a tarball is never written out to be read back (``tar_source.load_tarball`` fills a ``SegmentFiles``
straight from the decompressed stream). A member is either a buffer (in memory) or a path on disk (a
folder's files, and a tarball's members past the in-memory budget); a path is memory-mapped when viewed.

Views are zero-copy: a decoder that keeps bytes beyond the read copies them (decoders.py), so no Arrow
array points into a file mapping that ``close`` unmaps.
"""
from __future__ import annotations

import mmap
import os
import shutil
from typing import Iterator


class SegmentFiles:
    """Relative name (``/``-separated, from the segment's folder) -> buffer or local path."""

    def __init__(self, where: str, members: dict[str, memoryview | bytes | str] | None = None,
                 temp_dir: str | None = None):
        self.where = where  # for messages: the folder or tarball path
        self._members: dict[str, memoryview | bytes | str] = dict(members or {})
        self._temp_dir = temp_dir  # a tarball's spilled members, removed by close()
        self._maps: list[tuple[object, mmap.mmap]] = []

    @classmethod
    def of_folder(cls, folder: str) -> "SegmentFiles":
        members: dict[str, memoryview | bytes | str] = {}
        for root, _, names in os.walk(folder):
            for name in names:
                path = os.path.join(root, name)
                members[os.path.relpath(path, folder).replace(os.sep, "/")] = path
        return cls(folder, members)

    def names(self) -> Iterator[str]:
        return iter(self._members)

    def isfile(self, name: str) -> bool:
        return name in self._members

    def isdir(self, name: str) -> bool:
        prefix = name.rstrip("/") + "/"
        return any(n.startswith(prefix) for n in self._members)

    def size(self, name: str) -> int:
        member = self._members[name]
        return os.path.getsize(member) if isinstance(member, str) else memoryview(member).nbytes

    def path(self, name: str) -> str:
        """Where a message may say the file is."""
        member = self._members.get(name)
        return member if isinstance(member, str) else f"{self.where}:{name}"

    def read(self, name: str) -> bytes:
        """The whole file as bytes (small files: metadata, index maps)."""
        member = self._members[name]
        if isinstance(member, str):
            with open(member, "rb") as f:
                return f.read()
        return bytes(member)

    def view(self, name: str) -> memoryview:
        """The file's bytes without a copy: an in-memory member as it is, a file on disk memory-mapped."""
        member = self._members[name]
        if not isinstance(member, str):
            return memoryview(member).cast("B") if not isinstance(member, bytes) else memoryview(member)
        handle = open(member, "rb")
        if os.fstat(handle.fileno()).st_size == 0:
            handle.close()
            return memoryview(b"")
        mapping = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        self._maps.append((handle, mapping))
        return memoryview(mapping)

    def chunks(self, name: str, size: int = 1 << 20) -> Iterator[bytes | memoryview]:
        member = self._members[name]
        if not isinstance(member, str):
            yield member
            return
        with open(member, "rb") as f:
            while chunk := f.read(size):
                yield chunk

    def close(self) -> None:
        for handle, mapping in self._maps:
            try:
                mapping.close()
            except BufferError:  # a view is still held somewhere: the mapping goes when it does
                pass
            handle.close()
        self._maps = []
        self._members = {}
        if self._temp_dir is not None:
            shutil.rmtree(self._temp_dir, ignore_errors=True)
            self._temp_dir = None
