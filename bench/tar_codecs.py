"""The tarball's codec (build.tar-codec) on the task path: bench/task_cpu.py's write_partition (1M orders rows
of examples/local_backfill.py in 10k-row batches, one builder thread) with gzip, lz4 and zstd, alternated over
rounds in one process; best CPU-s (process_time), best user seconds, wall, and the tarball's bytes, each as a
ratio to gzip (the default) in the same run:

    python bench/tar_codecs.py [--rows 1000000] [--repeat 3] [--rounds 2]
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from task_cpu import measure  # noqa: E402

from pinot_sink.segment.tar_codecs import CODECS  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    best: dict[str, dict] = {}
    for _ in range(args.rounds):  # alternate the codecs: load drifts
        for codec in CODECS:
            r = measure(str(HERE.parent), args.rows, args.repeat, args.rows, False, {"build.tar-codec": codec})
            old = best.get(codec)
            best[codec] = r if old is None else {**min(old, r, key=lambda x: x["cpu"]),
                                                 "user_sys": min(old["user_sys"], r["user_sys"]),
                                                 "wall": min(old["wall"], r["wall"])}
    load = os.getloadavg()
    print(f"write_partition per tarball codec, {args.rows:,} orders rows, one builder thread; best of {args.repeat}"
          f" x {args.rounds} rounds; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print("| codec | CPU-s | x gzip | user s | x gzip | wall s | tarball MiB | x gzip |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    base = best["gzip"]
    for codec in CODECS:
        r = best[codec]
        print(f"| {codec} | {r['cpu']:.3f} | {r['cpu'] / base['cpu']:.2f} | {r['user_sys'][0]:.3f} | "
              f"{r['user_sys'][0] / base['user_sys'][0]:.2f} | {r['wall']:.3f} | {r['tar_bytes'] / 2**20:.1f} | "
              f"{r['tar_bytes'] / base['tar_bytes']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
