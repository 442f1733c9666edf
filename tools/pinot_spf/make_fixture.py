"""Ask Pinot's SegmentProcessorFramework (CONCAT) to merge the inputs of ``tests/compaction/spf_cases.py`` and keep
its answers in ``tests/fixtures/compaction/spf/`` (see the README there):

    bash tools/pinot_spf/build.sh                          # ~/pinot-spf/pinot-spf-concat, beside ~/pinot-verify
    .venv/bin/python tools/pinot_spf/make_fixture.py       # ~1 CPU-minute (a JVM per build and per run)

1. The four input segments are built by Pinot's own builder (``~/pinot-verify/pinot-segment-build``) and kept as
   tarballs (``inputs/``; ``inputs_sdf/`` the same rows with a text time column; ``inputs_gained/`` the last two
   written after the schema gained three columns).
2. Per case (table config), our compaction runs first on a folder of those tarballs (a fixed clock and write id,
   ``spf_cases.fixed_run``) to learn its segment-name postfix; then ``pinot-spf-concat`` runs on the same input
   folders, in the same order, with the same creation time, ``--bucket 1d`` (our default bucket) and that postfix
   (so both name segments alike), and its output files are kept (``<case>/<segment>/``, ``<case>/segments.json``).
3. Names and row counts only (``segments.json``): ``split_200``, the unsorted case with ``--max-records 200`` (how
   Pinot splits by record count), ``partitioned_12`` (12 Modulo partitions of ``id``: the order Pinot numbers
   them in) and ``filtered`` (a filterConfig added to the table config after the inputs were built).
It prints, per case and file, whether our bytes are Pinot's.
"""
from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.compaction import spf_cases as sc  # noqa: E402
from pinot_sink.segment.read.tar_source import extract_all

VERIFY = Path(os.environ.get("PINOT_VERIFY_HOME", Path.home() / "pinot-verify"))
SPF = Path(os.environ.get("PINOT_SPF_HOME", Path.home() / "pinot-spf"))


def tar_segment(folder: Path, target: Path) -> None:
    """A deterministic tarball of an untarred segment (directory entries first, names sorted, mtime 0)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for path in [folder] + sorted(folder.rglob("*")):
            info = archive.gettarinfo(str(path), arcname=str(path.relative_to(folder.parent)))
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if path.is_file():
                with open(path, "rb") as handle:
                    archive.addfile(info, handle)
            else:
                archive.addfile(info)
    with open(target, "wb") as out, gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as zipped:
        zipped.write(raw.getvalue())


def spf(config: dict, inputs: list[Path], out: Path, work: Path, *extra: str) -> list[dict]:
    (work / "config.json").write_text(json.dumps(config))
    result = subprocess.run([str(SPF / "pinot-spf-concat"), "--schema", str(work / "schema.json"), "--table-config",
                             str(work / "config.json"), "--out", str(out), "--creation-time", str(sc.CREATION_MS),
                             *extra, *map(str, inputs)], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"pinot-spf-concat failed ({result.returncode}):\n{result.stdout}\n{result.stderr[-4000:]}")
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def main() -> None:
    fixture = sc.fixture_dir()
    for old in fixture.glob("*"):  # all but the README
        if old.is_dir():
            shutil.rmtree(old)
    with tempfile.TemporaryDirectory(prefix="pinot-spf-fixture-") as tmp:
        work = Path(tmp)
        (work / "input_config.json").write_text(json.dumps(sc.INPUT_CONFIG))
        for folder, (schema, indexes) in sc.INPUT_SETS.items():
            (fixture / folder).mkdir(parents=True)
            (work / f"schema-{folder}.json").write_text(json.dumps(schema))
            for index in indexes:
                name = sc.INPUTS[index]
                rows = work / f"{folder}-{name}.jsonl"
                rows.write_text("".join(json.dumps(r) + "\n" for r in sc.input_rows(index, schema)))
                subprocess.run([str(VERIFY / "pinot-segment-build"), "--schema", str(work / f"schema-{folder}.json"),
                                "--table-config", str(work / "input_config.json"), "--input", str(rows),
                                "--out", str(work / folder), "--segment-name", name,
                                "--creation-time", str(sc.CREATION_MS - 86_400_000)], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                tar_segment(work / folder / name, fixture / folder / f"{name}.tar.gz")
        for case, config in sc.CASES.items():
            sources, schema = sc.inputs_of(case)
            (work / "schema.json").write_text(json.dumps(schema))
            root = work / f"ours-{case}"
            (root / sc.TABLE).mkdir(parents=True)
            for folder, name in sources:
                shutil.copy(fixture / folder / f"{name}.tar.gz", root / sc.TABLE)
            report = sc.compact_folder(root, config, schema)
            [group] = report.groups
            assert not group.error, group.error
            postfix = {"_".join(n.split("_")[3:-1]) for n in group.new}
            assert len(postfix) == 1, group.new
            made = spf(config, [work / f / n for f, n in sources], work / f"spf-{case}", work, "--bucket", "1d",
                       "--segment-name-postfix", postfix.pop())
            (fixture / case).mkdir()
            (fixture / case / "segments.json").write_text(json.dumps(made, indent=1) + "\n")
            for entry in made:
                target = fixture / case / entry["segment"]
                shutil.copytree(work / f"spf-{case}" / entry["segment"], target)
                ours = work / f"ours-{case}-x"
                with tarfile.open(root / sc.TABLE / f"{entry['segment']}.tar.gz") as archive:
                    extract_all(archive, ours)
                files = sorted(p.name for p in (target / "v3").iterdir())
                assert files == sorted(p.name for p in (ours / entry["segment"] / "v3").iterdir()), files
                same = {f: (ours / entry["segment"] / "v3" / f).read_bytes() == (target / "v3" / f).read_bytes()
                        for f in files}
                print(f"{case}: {entry['segment']} ({entry['rows']} rows): "
                      + ", ".join(f"{f} {'same' if s else 'DIFFERS'}" for f, s in same.items()))
            print(f"{case}: ours {sorted(group.new)} / Pinot {[e['segment'] for e in made]}")
        for case, config, extra in (("split_200", sc.CASES["unsorted"], ("--max-records", str(sc.SPLIT_RECORDS))),
                                    ("partitioned_12", sc.PARTITIONS_12, ()), ("filtered", sc.FILTERED, ())):
            (fixture / case).mkdir()
            (work / "schema.json").write_text(json.dumps(sc.SCHEMA))
            made = spf(config, [work / "inputs" / n for n in sc.INPUTS], work / f"spf-{case}", work, "--bucket", "1d",
                       *extra)
            (fixture / case / "segments.json").write_text(json.dumps(made, indent=1) + "\n")
            print(f"{case}:", [(e["segment"], e["rows"]) for e in made])


if __name__ == "__main__":
    main()
