"""Deflate levels for the tarball's pieces: ISA-L levels 1-3 and zlib level 1 on the uncompressed tar stream of
two bench segments (the orders of examples/local_backfill.py and bench/segment_build.py's events), per piece
kind as ``tarball._method`` picks it. CPU-seconds (best of --repeat) and compressed MiB; the load average.

    python bench/tar_levels.py [--rows 1000000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def tar_stream_of(build) -> bytes:
    """The uncompressed tar stream of the segment ``build()`` makes."""
    from pinot_sink.segment import builder, tarball

    captured = {}
    original = builder.write_tarball

    def capture(path, root, directories, files, mtime, threads=1):
        captured["stream"] = b"".join(bytes(memoryview(b).cast("B"))
                                      for b in tarball.tar_stream(root, directories, files, mtime))
        return original(path, root, directories, files, mtime, threads)

    builder.write_tarball = capture
    try:
        build()
    finally:
        builder.write_tarball = original
    return captured["stream"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from isal import isal_zlib

    import segment_build
    from partition_build import make_orders
    from pinot_sink.job import prepare_job
    from pinot_sink.segment import builder, tarball
    from type_mapping.convert import to_pinot_columns
    from type_mapping.pinot_schema import PinotSchema
    from type_mapping.stored import PinotColumns

    spec = importlib.util.spec_from_file_location("local_backfill", HERE.parent / "examples" / "local_backfill.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    out = tempfile.mkdtemp(prefix="bench-tar-levels-")
    orders = make_orders(args.rows)
    job = prepare_job({"table-name": example.TABLE, "schema": json.dumps(example.SCHEMA),
                       "table-config": json.dumps(example.TABLE_CONFIG), "output-uri": out},
                      orders.schema, overwrite=False, streaming=False)
    options = builder.BuildOptions(threads=1)
    streams = {
        "orders": tar_stream_of(lambda: builder.build_segment(
            to_pinot_columns(orders, job.segment_schema(), plan=job.plan, options=job.options.conversion),
            job.segment_schema(), job.table_config, out, "orders_0", 0, options)),
        "events": tar_stream_of(lambda: builder.build_segment(
            PinotColumns(segment_build.make_table(args.rows), {}), PinotSchema.from_json(segment_build.SCHEMA),
            segment_build.TABLE_CONFIG, out, "events_0", 0, options)),
    }

    def deflate(library, level, mem_level):
        def run(piece: bytes) -> int:
            compressor = library.compressobj(level, library.DEFLATED, -15, mem_level)
            return len(compressor.compress(piece)) + len(compressor.flush())
        return run

    codecs = {"isal 1": deflate(isal_zlib, 1, 8), "isal 2": deflate(isal_zlib, 2, 8),
              "isal 3": deflate(isal_zlib, 3, 8), "zlib 1": deflate(zlib, 1, 9)}
    print(f"load average {os.getloadavg()[0]:.1f}; best of {args.repeat} CPU-s; MiB compressed")
    for name, stream in streams.items():
        pieces = [stream[i: i + tarball.GZIP_CHUNK] for i in range(0, len(stream), tarball.GZIP_CHUNK)]
        kinds = [tarball._method([memoryview(p)]) for p in pieces]
        print(f"{name}: {len(stream) / 1024**2:.1f} MiB of tar, pieces {dict(Counter(kinds))}")
        for kind in ("isal", "zlib"):
            chosen = [p for p, k in zip(pieces, kinds) if k == kind]
            if not chosen:
                continue
            for codec, run in codecs.items():
                times, size = [], 0
                for _ in range(args.repeat):
                    started = time.process_time()
                    size = sum(run(p) for p in chosen)
                    times.append(time.process_time() - started)
                print(f"  pieces sent to {kind}: {codec}: {min(times):.3f} CPU-s, {size / 1024**2:.2f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
