"""Many segments cheaply, for commits at scale: one real task builds one tiny segment, and its metadata is
cloned under N fresh names (each clone a small tarball of the segment folder's ``metadata.properties`` and
``creation.meta``, with its own ``segment.name`` and without the per-column keys). Enough for a metadata-mode commit, whose controller reads
only those two files; the commit path itself (``commit_job``: budget, lineage, batches, end) is the real one."""
from __future__ import annotations

import dataclasses
import gzip
import re
import tarfile
from pathlib import Path

from pinot_sink.reports import TaskReport
from pinot_sink.storage.layout import local_path
from pinot_sink.storage.tarballs import metadata_files


def cloned_report(report: TaskReport, count: int, per_partition: int = 1000) -> TaskReport:
    """``report`` (one task's, with one segment) turned into one with ``count`` segments named as that task's
    would be (``<prefix>_<partition>_<sequence>``), staged beside the original."""
    original = report.segments[0]
    source = local_path(original.staged_uri)
    files = metadata_files(source)
    prefix = original.name.rsplit("_", 2)[0]
    folder = Path(source).parent
    # the segment-level keys only (name, table, docs, time range): the per-column ones cost the controller's
    # parse of 50k files and tell it nothing a metadata push needs
    properties = "".join(line for line in files["metadata.properties"].decode("utf-8").splitlines(keepends=True)
                         if not line.startswith("column."))
    segments = []
    for i in range(count):
        partition, sequence = divmod(i, per_partition)
        name = f"{prefix}_{partition}_{sequence}"
        text = re.sub(r"(?m)^segment\.name = .*$", f"segment.name = {name}", properties)
        path = folder / f"{name}.tar.gz"
        data = gzip.compress(_tar([(f"{name}/v3", None), (f"{name}/v3/metadata.properties", text.encode("utf-8")),
                                   (f"{name}/v3/creation.meta", files["creation.meta"])]), 1, mtime=0)
        path.write_bytes(data)
        segments.append(dataclasses.replace(original, name=name, staged_uri=path.as_uri(), partition_id=partition,
                                            sequence_id=sequence, tar_bytes=len(data)))
    return dataclasses.replace(report, segments=segments)


def _tar(entries) -> bytes:
    """A ustar archive of (name, bytes) files and (name, None) folders, written directly (tarfile's writer
    costs ten times more, which 50k segments feel)."""
    out = []
    for name, data in entries:
        info = tarfile.TarInfo(name)
        if data is None:
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            out.append(info.tobuf(tarfile.USTAR_FORMAT))
            continue
        info.size, info.mode = len(data), 0o644
        out += [info.tobuf(tarfile.USTAR_FORMAT), data, b"\0" * (-len(data) % 512)]
    return b"".join(out) + b"\0" * 1024
