"""What Pinot's builder does with a text cut inside a surrogate pair (an emoji cut in half by ``rpad``, ``substr``,
``prefixes``...) stored into a column: each expression in its own build (one such row corrupts the whole
segment), with continueOnError off (does the build fail, and with which "Unpaired surrogate at index N") and on
(does the build fail, or how many rows the segment counts and whether Pinot's own reader finds it
inconsistent; where the build without it is good, the values Pinot stored: halves that met again are the pair,
which the pipeline's markers must rejoin as Java does, pinot_sink/ingestion/lone_surrogates.py). A case runs on
ROWS unless it names its own rows. Kept as
tests/fixtures/functions/surrogates.json, replayed by tests/ingestion/test_cut_surrogates.py. With
continueOnError Pinot's build either fails in its index pass (a value of the skipped row missing from a
dictionary) or writes a segment whose row count leaves the row out while its forward index holds it (its reader's
checks then report errors): this writer fails the build in both modes.

    python tools/pinot_functions/surrogates.py      # needs ~/pinot-verify (not the tests)
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from expectations import COMMIT, ROOT, VERIFY  # noqa: E402

EMOJI = "\U0001F600"
ROWS = ["a", "", "ab", EMOJI + "x", "x" + EMOJI, None, EMOJI, "abc", EMOJI + EMOJI]
# Texts of two different emoji (U+1F600 D83D DE00, U+1F389 D83C DF89, U+1F642 D83D DE42, U+1F643 D83D DE43): their
# halves cut and swapped make other characters, so a lone surrogate must remember its unit
TWO_EMOJI = [EMOJI + "\U0001F389", "\U0001F389" + EMOJI, "\U0001F642\U0001F643", None, "ab"]
CASES = [  # (expression, single value[, rows: ROWS unless given])
    (f"rpad(s, 2, '{EMOJI}')", True), (f"lpad(s, 4, '{EMOJI}')", True), ("substr(s, 0, 1)", True),
    ("left(s, 1)", True), ("prefixes(s, 2)", False), ("suffixes(s, 3)", False), ("reverse(s)", True),
    # halves cut apart and joined again: a high surrogate followed by a low one is the pair again, in Java's
    # String however the two met (concatenation, padding, replacement, a joined array, chr of code points)
    ("concat(left(s, 1), substr(s, 1))", True),
    ("lpad(substr(s, 1), length(s), left(s, 1))", True), ("rpad(left(s, 1), length(s), substr(s, 1))", True),
    ("replace(concat(left(s, 1), '#'), '#', substr(s, 1))", True),
    ("regexpReplace(concat(left(s, 1), '#'), '#', substr(s, 1))", True),
    ("arrayToString(split(concat(concat(left(s, 1), '#'), substr(s, 1)), '#'), '')", True),
    ("concat(chr(codepoint(concat(left(s, 1), 'z'))), chr(codepoint(concat(substr(s, 1), 'z'))))", True),
    # a low before a high is no pair
    ("concat(substr(s, 1), left(s, 1))", True),
    # StringBuilder.reverse: the units reversed, then each low-high pair swapped back, left to right (a cut low
    # then high reversed is the emoji; where the halves pair up otherwise once reversed, they stay cut)
    ("reverse(concat(substr(s, 1), left(s, 1)))", True, [EMOJI, "ab", None, "", "a" + EMOJI, "x" + EMOJI + "y"]),
    ("reverse(concat(substr(s, 1), left(s, 1)))", True, [EMOJI, EMOJI + EMOJI]),
    ("reverse(concat(substr(s, 1), left(s, 1)))", True, ["ab", "\U0001F389" + EMOJI]),
    # two different emoji cut and swapped
    ("concat(concat(substr(s, 2, 3), substr(s, 1, 2)), concat(left(s, 1), substr(s, 3)))", True, TWO_EMOJI),
    # elements of an array are texts of their own: two halves side by side in it are no pair
    ("split(concat(concat(substr(s, 2, 3), '#'), substr(s, 1, 2)), '#')", False, TWO_EMOJI),
    # a match start (Matcher.region) between an emoji's halves: '^' matches there, text goes between them (seed
    # 301-7); a match after it leaves the halves side by side, the pair again
    ("regexpReplace(s, '^', 'abc', 1)", True, [EMOJI + "x", "ab", EMOJI + EMOJI, None]),
    ("regexpReplace(s, '^', 'abc', 1, 0)", True, [EMOJI + "x", "ab", None]),
    ("regexpReplace(s, 'x', 'y', 1)", True, [EMOJI + "x", "ab", EMOJI + EMOJI, None]),
]


def _build(expression: str, single: bool, continue_on_error: bool, rows: list) -> dict:
    field = {"name": "c", "dataType": "STRING", **({} if single else {"singleValueField": False})}
    schema = {"schemaName": "t", "dimensionFieldSpecs": [{"name": "s", "dataType": "STRING"}, field,
                                                         {"name": "k", "dataType": "INT"}]}
    config = {"tableName": "t", "tableType": "OFFLINE", "segmentsConfig": {"replication": "1"},
              "tableIndexConfig": {"loadMode": "MMAP"}, "tenants": {}, "metadata": {},
              "ingestionConfig": {"continueOnError": continue_on_error,
                                  "transformConfigs": [{"columnName": "c", "transformFunction": expression}]}}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "schema.json").write_text(json.dumps(schema))
        (tmp / "config.json").write_text(json.dumps(config))
        (tmp / "rows.jsonl").write_text("".join(json.dumps({"s": s, "k": i}) + "\n" for i, s in enumerate(rows)))
        built = subprocess.run([str(VERIFY / "pinot-segment-build"), "--schema", str(tmp / "schema.json"),
                                "--table-config", str(tmp / "config.json"), "--input", str(tmp / "rows.jsonl"),
                                "--out", str(tmp / "out"), "--segment-name", "t_0", "--creation-time", "0"],
                               capture_output=True, text=True)
        if built.returncode:
            found = re.search(r"IllegalArgumentException: (Unpaired surrogate at index \d+)", built.stderr)
            # (with continueOnError the statistics pass skipped the row, the index pass did not: a value of it
            # missing from a dictionary ends the build there)
            return {"fails": True, "message": found.group(1) if found else "index pass: "
                    + next((line.strip() for line in built.stderr.splitlines() if "Exception" in line), "?")}
        properties = (tmp / "out" / "t_0" / "v3" / "metadata.properties").read_text()
        dump = subprocess.run([str(VERIFY / "pinot-segment-dump"), str(tmp / "out" / "t_0")], capture_output=True,
                              text=True).stdout
        # Pinot's reader's own consistency checks (forward vs inverted index): a row the statistics skipped
        # but the index pass wrote leaves the segment misaligned
        errors = sum('"kind":"error"' in line for line in dump.splitlines())
        outcome = {"fails": False, "reader_errors": errors,
                   "total_docs": int(re.search(r"segment\.total\.docs = (\d+)", properties).group(1))}
        if not continue_on_error:  # what Pinot stored, by input row (a good build keeps every row in order)
            docs = sorted((d for d in map(json.loads, filter(None, dump.splitlines())) if d.get("kind") == "row"),
                          key=lambda d: d["docId"])
            outcome["values"] = [d["values"]["c"] for d in docs]
        return outcome


def _truncation() -> dict:
    """A STRING column's default maxLength (512) cutting an emoji: Pinot's SanitizationTransformer takes
    ``substring(0, 512)``, which leaves half of the pair."""
    schema = {"schemaName": "t", "dimensionFieldSpecs": [{"name": "s", "dataType": "STRING"}]}
    config = {"tableName": "t", "tableType": "OFFLINE", "segmentsConfig": {"replication": "1"},
              "tableIndexConfig": {"loadMode": "MMAP"}, "tenants": {}, "metadata": {}}
    rows = ["x", "a" * 511 + EMOJI + "b"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "schema.json").write_text(json.dumps(schema))
        (tmp / "config.json").write_text(json.dumps(config))
        (tmp / "rows.jsonl").write_text("".join(json.dumps({"s": s}) + "\n" for s in rows))
        built = subprocess.run([str(VERIFY / "pinot-segment-build"), "--schema", str(tmp / "schema.json"),
                                "--table-config", str(tmp / "config.json"), "--input", str(tmp / "rows.jsonl"),
                                "--out", str(tmp / "out"), "--segment-name", "t_0", "--creation-time", "0"],
                               capture_output=True, text=True)
    found = re.search(r"IllegalArgumentException: (Unpaired surrogate at index \d+)", built.stderr)
    return {"rows": rows, "fails": bool(built.returncode), "message": found.group(1) if found else None}


def main() -> Path:
    cases = []
    for expression, single, *given in CASES:
        rows = given[0] if given else ROWS
        cases.append({"expression": expression, "single_value": single, **({"rows": rows} if given else {}),
                      "off": _build(expression, single, False, rows), "on": _build(expression, single, True, rows)})
        print(cases[-1], flush=True)
    out = ROOT / "tests" / "fixtures" / "functions" / "surrogates.json"
    out.write_text(json.dumps({"pinot_commit": COMMIT, "made_by": "tools/pinot_functions/surrogates.py",
                               "rows": ROWS, "cases": cases, "truncation": _truncation()}, ensure_ascii=False,
                              indent=1) + "\n")
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["--truncation"]:  # only that part, into the existing table
        path = ROOT / "tests" / "fixtures" / "functions" / "surrogates.json"
        table = json.loads(path.read_text())
        table["truncation"] = _truncation()
        path.write_text(json.dumps(table, ensure_ascii=False, indent=1) + "\n")
        print(path)
    else:
        print(main())
