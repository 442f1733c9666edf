"""Instructions of the tar.gz alone (``tarball.write_tarball``'s stream and gzip, to a null sink) on two bench
segments, counted by callgrind: the orders of bench/partition_build.py (``--orders`` rows) and
bench/segment_build.py's events (``--events`` rows). The segments are built once by this checkout and their
tar members captured (the segment files are byte-identical from any checkout); each checkout then writes the
same members, its index payloads held in a spill file and read back as a Spark task does (``--in-memory``:
as given). Prints instructions and tarball bytes per checkout and segment, and the ratio to this checkout.

    python bench/tar_instructions.py [--orders 200000] [--events 1000000] [--repo DIR ...] [--in-memory]
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def capture(kind: str, rows: int, path: str) -> None:
    """Build the segment with this checkout and pickle the members write_tarball was given (payloads as bytes)."""
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE))
    import logging

    logging.disable(logging.INFO)
    from pinot_sink.segment import builder, tarball
    from pinot_sink.segment.spill import FileSpan

    captured = {}
    original = builder.write_tarball

    def keep(out, root, directories, files, mtime, threads=1):
        def joined(part):
            return b"".join(part.pieces()) if isinstance(part, FileSpan) else bytes(memoryview(part).cast("B"))
        captured["members"] = (root, directories, {name: [joined(p) for p in tarball._parts(content)]
                                                   for name, content in files.items()}, mtime)
        return original(out, root, directories, files, mtime, threads)

    builder.write_tarball = keep
    out = tempfile.mkdtemp(prefix="bench-tar-instr-")
    try:
        _build(kind, rows, out, builder)
    finally:
        shutil.rmtree(out, ignore_errors=True)  # the segment built (the events' is ~40 MB): only its members are kept
    with open(path, "wb") as f:
        pickle.dump(captured["members"], f)


def _build(kind: str, rows: int, out: str, builder) -> None:
    options = builder.BuildOptions(threads=1)
    if kind == "orders":
        from partition_build import checkout_example, make_orders
        from pinot_sink.job import prepare_job
        from type_mapping.convert import to_pinot_columns

        example = checkout_example(str(HERE.parent))
        table = make_orders(rows)
        job = prepare_job({"table-name": example.TABLE, "schema": json.dumps(example.SCHEMA),
                           "table-config": json.dumps(example.TABLE_CONFIG), "output-uri": out,
                           "creation-time": "0"}, table.schema, overwrite=False, streaming=False)
        columns = to_pinot_columns(table, job.segment_schema(), plan=job.plan, options=job.options.conversion)
        builder.build_segment(columns, job.segment_schema(), job.table_config, out, "orders_0", 0, options)
    else:
        import segment_build
        from type_mapping.pinot_schema import PinotSchema
        from type_mapping.stored import PinotColumns

        schema = PinotSchema.from_json(segment_build.SCHEMA)
        builder.build_segment(PinotColumns(segment_build.make_table(rows), {}),
                              schema, builder.TableConfig.from_json(segment_build.TABLE_CONFIG, schema), out,
                              "events_0", 0, options)


def run_one(members: str, helper: str, in_memory: bool) -> None:
    """Inside valgrind, with the checkout on sys.path: write the members twice, the second counted."""
    from pinot_sink.segment import builder

    with open(members, "rb") as f:
        root, directories, files, mtime = pickle.load(f)
    spill = None
    if not in_memory:
        from pinot_sink.segment.spill import Spill

        spill = Spill(Path(tempfile.gettempdir()))
        # a build given a spill holds every index payload of columns.psf there (not the 8-byte markers between)
        files = {name: [spill.hold(p) if name.endswith("columns.psf") and len(p) > 8 else p for p in parts]
                 for name, parts in files.items()}
    markers = ctypes.CDLL(helper)
    sizes = []

    def write() -> None:
        with tempfile.TemporaryDirectory(prefix="bench-tar-instr-") as out:
            sizes.append(builder.write_tarball(Path(out) / "seg.tar.gz", root, directories, files, mtime, 1))

    write()
    markers.task_start()
    write()
    markers.task_stop()
    print("SIZE", sizes[-1])


def count(repo: str, members: str, helper: str, in_memory: bool, workdir: str) -> tuple[int, int]:
    out = os.path.join(workdir, f"cg.{abs(hash((repo, members)))}")
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p", "--instr-atstart=no",
               sys.executable, __file__, "--one", members, "--helper", helper] + (["--in-memory"] if in_memory else [])
    done = subprocess.run(command, check=True, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": repo, "PYTHONHASHSEED": "0"})
    size = int(next(line for line in done.stdout.splitlines() if line.startswith("SIZE ")).split()[1])
    dumps = [p for p in os.listdir(workdir) if re.fullmatch(re.escape(os.path.basename(out)) + r"\.\d+\.\d+", p)]
    path = os.path.join(workdir, max(dumps, key=lambda p: int(p.rsplit(".", 1)[1])))
    with open(path) as f:
        instructions = int(next(line for line in f if line.startswith(("summary:", "totals:"))).split()[1])
    return instructions, size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=200_000, help="orders rows (0: skip)")
    parser.add_argument("--events", type=int, default=1_000_000, help="events rows (0: skip)")
    parser.add_argument("--repo", action="append", default=[], help="another checkout to compare (repeatable)")
    parser.add_argument("--in-memory", action="store_true", help="payloads as the build gives them, not spilled")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--helper", help=argparse.SUPPRESS)
    parser.add_argument("--capture", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.capture:
        capture(args.capture[0], int(args.capture[1]), args.capture[2])
        return 0
    if args.one:
        run_one(args.one, args.helper, args.in_memory)
        return 0
    sys.path.insert(0, str(HERE))
    from task_instructions import compile_helper

    repos = [str(HERE.parent)] + [str(Path(r).resolve()) for r in args.repo]
    with tempfile.TemporaryDirectory(prefix="bench-tar-instr-") as workdir:
        helper = compile_helper(workdir)
        if helper is None:
            parser.error("needs a C compiler (cc) and valgrind's headers (valgrind/callgrind.h)")
        print(f"tar.gz alone (write_tarball to a temporary file), instructions by callgrind; payloads "
              f"{'as built' if args.in_memory else 'spilled, as in a task'}")
        for kind, rows in (("orders", args.orders), ("events", args.events)):
            if not rows:
                continue
            members = os.path.join(workdir, f"{kind}.pickle")
            subprocess.run([sys.executable, __file__, "--capture", kind, str(rows), members], check=True,
                           env={**os.environ, "PYTHONPATH": str(HERE.parent)})
            results = {repo: count(repo, members, helper, args.in_memory, workdir) for repo in repos}
            base = results[repos[0]][0]
            for repo, (instructions, size) in results.items():
                print(f"  {kind} {rows:,} rows, {repo}: {instructions / 1e6:.1f} M instructions "
                      f"({instructions / base:.3f}x this checkout), tarball {size:,} B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
