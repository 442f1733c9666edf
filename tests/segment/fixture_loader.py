"""Load a ``shared/fixtures/pinot-built/<case>`` folder as builder input (reusable by other tests).

The rows are the values Pinot's own reader returned (``dump-rows.jsonl`` "values": already
normalised, ``-Infinity`` / ``Infinity`` as strings, BYTES as hex, BIG_DECIMAL as text) and the null
masks come from its "nulls" lists, so a correct builder reproduces Pinot's bytes from them.
"""
from __future__ import annotations


import json
import tarfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from type_mapping.pinot_schema import PinotSchema
from type_mapping.stored import PinotColumns, arrow_type_for

CREATION_TIME_MS = 1700000000000
CASES = ("all_types_dict", "all_types_dict_v1", "all_types_nulls", "raw_codecs", "events_indexes",
         "events_partitioned")


@dataclass
class PinotBuiltCase:
    name: str
    folder: Path
    schema: PinotSchema
    schema_json: dict
    table_config: dict
    columns: PinotColumns

    @property
    def segment_name(self) -> str:
        return f"{self.name}_0"

    @property
    def tarball(self) -> Path:
        return self.folder / f"{self.segment_name}.tar.gz"

    def pinot_files(self) -> dict[str, bytes]:
        """Pinot's segment files, keyed by path relative to the segment directory (``v3/index_map``...)."""
        out: dict[str, bytes] = {}
        with tarfile.open(self.tarball) as tar:
            for member in tar.getmembers():
                if member.isfile():
                    relative = member.name.split("/", 1)[1]
                    out[relative] = tar.extractfile(member).read()
        return out


def _stored(value, stored_type: str):
    if stored_type in ("FLOAT", "DOUBLE") and isinstance(value, str):
        return float(value)  # "-Infinity" / "Infinity"
    if stored_type == "BYTES":
        return bytes.fromhex(value)
    return value


def load_case(folder: Path) -> PinotBuiltCase:
    folder = Path(folder)
    schema_json = json.loads((folder / "schema.json").read_text())
    schema = PinotSchema.from_json(schema_json)
    table_config = json.loads((folder / "table_config.json").read_text())
    rows = [json.loads(line) for line in (folder / "dump-rows.jsonl").read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r.get("kind", "row") == "row"]
    rows.sort(key=lambda r: r["docId"])
    arrays, masks = {}, {}
    for spec in schema:
        stored = spec.stored_type
        if spec.single_value:
            data = [_stored(r["values"][spec.name], stored) for r in rows]
        else:
            data = [[_stored(v, stored) for v in r["values"][spec.name]] for r in rows]
        arrays[spec.name] = pa.array(data, type=arrow_type_for(spec))
        masks[spec.name] = np.array([spec.name in (r.get("nulls") or []) for r in rows], dtype=np.bool_)
    return PinotBuiltCase(folder.name, folder, schema, schema_json, table_config,
                          PinotColumns(pa.table(arrays), masks))


def read_tarball(path: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            if member.isfile():
                out[member.name.split("/", 1)[1]] = tar.extractfile(member).read()
    return out


def parse_index_map(data: bytes) -> dict[tuple[str, str], tuple[int, int]]:
    """(column, index id) -> (start offset, size) from ``index_map`` bytes."""
    from pinot_sink.segment.properties import parse_properties

    props = parse_properties(data)
    entries: dict[tuple[str, str], list[int]] = {}
    for key, value in props.items():
        rest, field = key.rsplit(".", 1)
        column, index_id = rest.rsplit(".", 1)
        entries.setdefault((column, index_id), [0, 0])[0 if field == "startOffset" else 1] = int(value)
    return {k: (v[0], v[1]) for k, v in entries.items()}


def psf_payloads(files: dict[str, bytes]) -> dict[tuple[str, str], bytes]:
    """Per (column, index id) payload (without the magic marker) of a v3 segment's files."""
    psf = files["v3/columns.psf"]
    return {key: psf[start + 8 : start + size] for key, (start, size) in parse_index_map(files["v3/index_map"]).items()}


def tar_members(path: Path) -> list[tarfile.TarInfo]:
    with tarfile.open(path) as tar:
        return tar.getmembers()




