"""What each index buffer of the orders segment costs the tar.gz, in instructions (callgrind) and bytes: which parts
to store and at which level to deflate the others (``tarball._incompressible``, ``tarball._LEVEL``).

Two tables for the index buffers of ``columns.psf`` of at least --min-bytes:

* in the stream: the whole gzip (``tarball.write_gzip``, payloads spilled as in a task) with that one part's
  choice flipped (stored if the tarball deflates it, deflated if it stores it), against the tarball as it is;
  instructions and bytes added, and instructions per byte. The parts are not independent: a part stored splits
  the deflate piece around it, and ISA-L's Huffman blocks mix neighbouring parts, so a part alone (below) can
  cost much more or less than in the stream;
* alone: the part deflated by itself by ISA-L's levels 0-3 (python-isal's ``_ParallelCompress``, as the tarball
  calls it) and zlib level 1; and what judging it costs (``tarball._deflated_share`` on its samples).

    python bench/tar_levels.py [--rows 200000] [--min-bytes 16384]

Needs ``cc`` and valgrind's headers, as bench/task_instructions.py. Run with the checkout on PYTHONPATH.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import pickle
import re
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent


class _Sink:
    """A binary file that only counts what is written."""

    def __init__(self) -> None:
        self.size = 0

    def write(self, data) -> None:
        self.size += memoryview(data).nbytes

    def writelines(self, chunks) -> None:
        for chunk in chunks:
            self.write(chunk)


def measure(members_path: str, helper: str, min_bytes: int) -> None:
    """Inside valgrind: one counted call per line printed (``COUNT label value``), in the order of the dumps."""
    sys.path.insert(0, str(HERE.parent))
    from isal import isal_zlib

    from pinot_sink.segment import tarball
    from pinot_sink.segment.spill import Spill

    markers = ctypes.CDLL(helper)

    def counted(label: str, run) -> None:
        run()  # once before: lazy imports and first-call caches
        markers.task_start()
        value = run()
        markers.task_stop()
        print("COUNT", label, value, flush=True)

    with open(members_path, "rb") as f:
        root, directories, files, mtime = pickle.load(f)
    index_map = b"".join(files["v3/index_map"]).decode()
    names = [line.split(".startOffset")[0] for line in index_map.splitlines() if ".startOffset" in line]
    raw = files["v3/columns.psf"]  # an 8-byte marker before each index buffer
    spill = Spill(Path(tempfile.gettempdir()))
    held = {name: [spill.hold(p) if name.endswith("columns.psf") and len(p) > 8 else p for p in parts]
            for name, parts in files.items()}
    items = tarball._members(root, directories, held, mtime)
    offsets, position = {}, 0
    for item in items:
        for k, part in enumerate(held["v3/columns.psf"]):
            if item is part:
                offsets[k] = (position, position + tarball._size(item))
        position += tarball._size(item)

    def gzip_size(stored) -> int:
        sink = _Sink()
        tarball.write_gzip(sink, items, 1, stored)
        return sink.size

    stored = tarball._incompressible(items)
    counted("judge all", lambda: len(tarball._incompressible(items)))
    counted("stream as is", lambda: gzip_size(stored))
    parts = [(names[k // 2], k) for k in range(1, len(raw), 2) if len(raw[k]) >= min_bytes]
    for name, k in parts:
        start, end = offsets[k]
        if any(a <= start and end <= b for a, b in stored):
            flipped = [r for r in stored if not (r[0] <= start and end <= r[1])]
            counted(f"stream {name} deflated", lambda: gzip_size(flipped))
        else:
            flipped = sorted(stored + [(start, end)])
            counted(f"stream {name} stored", lambda: gzip_size(flipped))
    parallel = isal_zlib._ParallelCompress
    for name, k in parts:
        data = raw[k]
        bound = len(data) + (len(data) >> 3) + (1 << 16)
        for level in range(4):
            counted(f"alone {name} isal{level}",
                    lambda: len(parallel(bound, level).compress_and_crc(data, b"")[0]))
        counted(f"alone {name} zlib1", lambda: len(zlib.compress(data, 1, -15)))
        counted(f"alone {name} judge",
                lambda: round(tarball._deflated_share(tarball._sample(data, 0, len(data))), 3))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--min-bytes", type=int, default=16_384)
    parser.add_argument("--measure", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.measure[0], args.measure[1], args.min_bytes)
        return 0
    sys.path.insert(0, str(HERE))
    from task_instructions import compile_helper

    with tempfile.TemporaryDirectory(prefix="bench-tar-levels-") as workdir:
        helper = compile_helper(workdir)
        if helper is None:
            parser.error("needs a C compiler (cc) and valgrind's headers (valgrind/callgrind.h)")
        members = os.path.join(workdir, "orders.pickle")
        subprocess.run([sys.executable, str(HERE / "tar_instructions.py"), "--capture", "orders", str(args.rows),
                        members], check=True, env={**os.environ, "PYTHONPATH": str(HERE.parent)})
        out = os.path.join(workdir, "cg")
        done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p",
                               "--instr-atstart=no", sys.executable, __file__, "--min-bytes", str(args.min_bytes),
                               "--measure", members, helper], check=True, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(HERE.parent), "PYTHONHASHSEED": "0"})
        counts = [line.split(" ", 1)[1].rsplit(" ", 1) for line in done.stdout.splitlines()
                  if line.startswith("COUNT ")]
        dumps = sorted((p for p in os.listdir(workdir) if re.fullmatch(r"cg\.\d+\.\d+", p)),
                       key=lambda p: int(p.rsplit(".", 1)[1]))
        instructions = []
        for dump in dumps:
            with open(os.path.join(workdir, dump)) as f:
                instructions.append(int(next(line for line in f
                                             if line.startswith(("summary:", "totals:"))).split()[1]))
    results = {label: (ins, value) for (label, value), ins in zip(counts, instructions)}
    base_ins, base_size = results.pop("stream as is")
    judge = results.pop("judge all")[0]
    print(f"orders {args.rows:,} rows: the gzip as is {base_ins / 1e6:.2f} M instructions, {int(base_size):,} B; "
          f"judging the parts {judge / 1e6:.2f} M")
    print("\nin the stream, one part's choice flipped: instructions, bytes (% of the gzip), instructions per byte")
    for label, (ins, size) in results.items():
        if label.startswith("stream "):
            added_ins, added = ins - base_ins, int(size) - int(base_size)
            per_byte = f"{-added_ins / added:8.0f}" if added else "       -"
            print(f"  {label[7:]:42} {added_ins / 1e6:+7.2f} M {added:+9,} B ({100 * added / int(base_size):+.2f}%)"
                  f" {per_byte}")
    print("\nalone: M instructions / bytes by ISA-L levels 0-3 and zlib 1; the judgement's instructions and share")
    for name in dict.fromkeys(label.split()[1] for label in results if label.startswith("alone ")):
        cells = [f"{results[f'alone {name} {codec}'][0] / 1e6:6.2f} M {int(results[f'alone {name} {codec}'][1]):>9,}"
                 for codec in ("isal0", "isal1", "isal2", "isal3", "zlib1")]
        ins, share = results[f"alone {name} judge"]
        print(f"  {name:28} " + " | ".join(cells) + f" | judge {ins / 1e6:.2f} M, {share}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
