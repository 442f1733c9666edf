"""Ask Pinot itself what its scalar functions give: build, with Pinot's own builder (pinot-verify), a segment
whose transforms call the functions of one family (tools/pinot_functions/families.py) on random and extreme
inputs, and keep what Pinot's reader returns as tests/fixtures/functions/<family>.jsonl, the one table format that
tests/ingestion/test_function_expectations.py replays.

    python tools/pinot_functions/expectations.py FAMILY [FAMILY...]     # needs ~/pinot-verify (not the tests)

A differential sweep (new random rows, outside the committed tables): ``--seed S`` draws the rows from another
seed, ``--repeat N`` draws N batches of rows, ``--out DIR`` writes the tables there; replay them with
``PINOT_SINK_FUNCTION_FIXTURES=DIR pytest tests/ingestion/test_function_expectations.py``.

Each table: a header line (Pinot commit, schema, table config with continueOnError, the input Arrow types, the
columns compared as JSON), then one line per row: the input row, Pinot's stored values of the output columns
(those a transform fills) and the ones its null vector marks. A transform that throws on a row leaves its
column null there (continueOnError), as a null input does; a family of cases (``_cases_family``) has
``isNotNull(<expression>)`` beside each case to tell the two apart.

A family spec: ``inputs`` (column -> Arrow type name), ``outputs`` (column -> (Pinot type, single value)),
``transforms`` (column -> expression; one whose column is not an output nor a schema input is a helper the
others read), ``rows`` (rng -> rows); optional ``schema_inputs`` (inputs that are schema columns too),
``json_columns``, ``row_id`` (False: no row_id column), ``seed``.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from families import FAMILIES  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
VERIFY = Path(os.environ.get("PINOT_VERIFY_HOME", Path.home() / "pinot-verify"))
COMMIT = "210c2951e720b72cbcb87224ff5e46237e098acd"


def _configs(family: str, spec: dict) -> tuple[dict, dict]:
    fields = [{"name": "row_id", "dataType": "INT"}] if spec.get("row_id", True) else []
    for column, (pinot_type, single) in {**spec.get("schema_inputs", {}), **spec["outputs"]}.items():
        field = {"name": column, "dataType": pinot_type}
        if not single:
            field["singleValueField"] = False
        fields.append(field)
    schema = {"schemaName": f"fn_{family}", "dimensionFieldSpecs": fields}
    table_config = {
        "tableName": f"fn_{family}", "tableType": "OFFLINE", "segmentsConfig": {"replication": "1"},
        "tableIndexConfig": {"loadMode": "MMAP", "nullHandlingEnabled": True}, "tenants": {}, "metadata": {},
        "ingestionConfig": {
            "continueOnError": True,
            "transformConfigs": [{"columnName": c, "transformFunction": e} for c, e in spec["transforms"].items()],
        },
    }
    return schema, table_config


def run_pinot(schema: dict, table_config: dict, rows: list[dict], keep: Path | None = None,
              timeout: float | None = None) -> list[dict]:
    """Pinot's build of ``rows``; returns the dump's row records by docId (and keeps the segment as
    ``keep/<name>_0.tar.gz``, packed reproducibly, when asked)."""
    name = table_config["tableName"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "schema.json").write_text(json.dumps(schema))
        (tmp / "table_config.json").write_text(json.dumps(table_config))
        (tmp / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        built = subprocess.run([str(VERIFY / "pinot-segment-build"), "--schema", str(tmp / "schema.json"),
                                "--table-config", str(tmp / "table_config.json"), "--input", str(tmp / "rows.jsonl"),
                                "--out", str(tmp / "out"), "--segment-name", f"{name}_0",
                                "--creation-time", "1700000000000"], capture_output=True, text=True,
                               timeout=timeout)  # (TimeoutExpired to the caller; the wrapper execs the JVM)
        if built.returncode:
            shown = [line for line in built.stderr.splitlines() if "WARN" not in line and " at " not in line]
            raise SystemExit("pinot-segment-build failed:\n" + "\n".join(shown)[:3000])
        dump = subprocess.run([str(VERIFY / "pinot-segment-dump"), str(tmp / "out" / f"{name}_0")], check=True,
                              capture_output=True, text=True).stdout
        if keep is not None:
            subprocess.run(["tar", "--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner",
                            "-czf", str(keep / f"{name}_0.tar.gz"), "-C", str(tmp / "out"), f"{name}_0"], check=True)
    # (split on newlines only: a text may hold U+2028, which splitlines() would cut at; Jackson leaves it raw)
    docs = [json.loads(line) for line in dump.split("\n") if line.strip()]
    return sorted((d for d in docs if d.get("kind") == "row"), key=lambda d: d["docId"])


def build(family: str, seed: str | None = None, repeat: int = 1, out_dir: Path | None = None) -> Path:
    spec = FAMILIES[family]
    base = spec.get("seed", f"pinot-functions-{family}")
    rng = random.Random(base if seed is None else f"{base}-{seed}")
    rows = [row for _ in range(repeat) for row in spec["rows"](rng)]
    if spec.get("row_id", True):
        for i, row in enumerate(rows):
            row["row_id"] = i
    schema, table_config = _configs(family, spec)
    docs = run_pinot(schema, table_config, rows)
    assert len(docs) == len(rows), (len(docs), len(rows))
    out = (out_dir or ROOT / "tests" / "fixtures" / "functions") / f"{family}.jsonl"
    header = {"pinot_commit": COMMIT, "made_by": "tools/pinot_functions/expectations.py", "schema": schema,
              "table_config": table_config, "input_types": spec["inputs"],
              # columns compared as JSON values: a map read from JSON rows is a HashMap in Pinot, whose key
              # order is Java's hash order (docs/ingestion.md, deliberate differences)
              "json_columns": spec.get("json_columns", [])}
    lines = [json.dumps(header)]
    for row, doc in zip(rows, docs):
        values = {c: doc["values"][c] for c in spec["outputs"]}
        nulls = sorted(set(doc.get("nulls") or []) & set(spec["outputs"]))
        lines.append(json.dumps({"row": {k: v for k, v in row.items() if k != "row_id"}, "values": values,
                                 "nulls": nulls}, ensure_ascii=False))
    out.write_text("\n".join(lines) + "\n")
    return out


def main(build_family, families, description: str) -> None:
    """The command line of a table maker: the families named (default: all), or a sweep's fresh draws."""
    import argparse
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("families", nargs="*")
    parser.add_argument("--seed", help="draw the rows from this seed (a sweep), not the committed one")
    parser.add_argument("--repeat", type=int, default=1, help="batches of rows to draw")
    parser.add_argument("--out", type=Path, help="folder for the tables (default: the committed fixtures)")
    args = parser.parse_args()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    for name in args.families or sorted(families):
        print(build_family(name, args.seed, args.repeat, args.out), flush=True)


if __name__ == "__main__":
    main(build, FAMILIES, __doc__.split("\n\n")[0])
