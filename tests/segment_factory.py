"""Minimal valid segment tarballs for controller tests (no dependency on the segment builder).

Layout as Pinot packs a v3 segment (SEGMENT_FORMAT.md 1.5, 1.6): ``<name>/`` first, then ``<name>/v3/``
with ``metadata.properties``, ``creation.meta`` (CRC, creation time, data CRC; big-endian longs),
``index_map`` and ``columns.psf``. The CRC is Adler-32 over the sorted v3 files other than creation.meta,
as Pinot computes it, so the same arguments give the same bytes and the same CRC.
"""
from __future__ import annotations

import io
import random
import struct
import tarfile
import zlib
from pathlib import Path

from pinot_sink.segment.properties import PropertiesWriter

DAY_MS = 86_400_000
BASE_MS = 1_700_000_000_000


def segment_files(
    name: str,
    *,
    table: str = "events",
    rows: int = 10,
    time_column: str | None = "ts",
    start_time: int | None = BASE_MS,
    end_time: int | None = BASE_MS + DAY_MS,
    time_unit: str = "MILLISECONDS",
    payload_bytes: int = 256,
    seed: int = 0,
    creation_time_ms: int = BASE_MS,
    extra_properties: dict | None = None,
) -> dict[str, bytes]:
    """The v3 files of one segment, by path relative to the segment directory."""
    payload = random.Random(f"{name}:{seed}").randbytes(payload_bytes)
    marker = struct.pack(">Q", 0xDEADBEEFDEAFBEAD)  # the v3 index marker
    columns_psf = marker + payload
    index_map = (f"value.forward_index.startOffset = 0\nvalue.forward_index.size = {len(columns_psf)}\n").encode()
    props = PropertiesWriter()
    props.put("segment.padding.character", "\u0000")
    props.put("segment.name", name)
    props.put("segment.table.name", table)
    props.put_list("segment.metric.column.names", ["value"])
    if time_column:
        props.put_list("segment.datetime.column.names", [time_column])
        props.put("segment.time.column.name", time_column)
    props.put("segment.total.docs", rows)
    if start_time is not None and end_time is not None:
        props.put("segment.start.time", start_time)
        props.put("segment.end.time", end_time)
        props.put("segment.time.unit", time_unit)
    for key, value in (extra_properties or {}).items():
        props.put_list(key, value) if isinstance(value, (list, tuple)) else props.put(key, value)
    props.put("column.value.columnType", "METRIC")
    props.put("column.value.dataType", "LONG")
    props.put("column.value.cardinality", rows)
    props.put("column.value.totalDocs", rows)
    props.put("column.value.hasDictionary", False)
    props.put("segment.index.version", "v3")
    metadata = props.render()
    files = {"v3/columns.psf": columns_psf, "v3/index_map": index_map, "v3/metadata.properties": metadata}
    crc = 1
    for path in sorted(files):
        crc = zlib.adler32(files[path], crc)
    data_crc = zlib.adler32(payload)
    files["v3/creation.meta"] = struct.pack(">qqq", crc, creation_time_ms, data_crc)
    return files


def tar_segment(name: str, files: dict[str, bytes]) -> bytes:
    """Gzipped tar with the directory entries first, as Pinot's TarCompressionUtils writes them."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.USTAR_FORMAT) as archive:
        directories = [name] + sorted({f"{name}/{p.rsplit('/', 1)[0]}" for p in files if "/" in p})
        for directory in directories:
            info = tarfile.TarInfo(directory)
            info.type = tarfile.DIRTYPE
            info.mode = 0o755
            archive.addfile(info)
        for path in sorted(files):
            info = tarfile.TarInfo(f"{name}/{path}")
            info.size = len(files[path])
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(files[path]))
    return buffer.getvalue()


def make_segment(out_dir: str | Path, name: str, **kwargs) -> Path:
    """Write ``out_dir/<name>.tar.gz``; keyword arguments as ``segment_files``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.tar.gz"
    path.write_bytes(tar_segment(name, segment_files(name, **kwargs)))
    return path


def segment_crc(path: str | Path) -> int:
    """The CRC stored in a tarball's creation.meta."""
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            if member.name.endswith("creation.meta"):
                return struct.unpack(">q", archive.extractfile(member).read()[:8])[0]
    raise ValueError(f"no creation.meta in {path}")
