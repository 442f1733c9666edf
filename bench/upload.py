"""Upload throughput: 50 segments pushed to the test controller, sequential vs parallel.

The test controller runs in its own process (so it does not share the client's GIL); it untars and
validates every segment as Pinot does. ``--upload-latency-ms`` adds a fixed server-side cost per upload
standing in for Pinot's ZooKeeper writes and deep-store copy (a real controller spends tens to hundreds
of milliseconds there); runs are reported with and without it. Ratios are against the sequential run
of the same configuration.

    .venv/bin/python bench/upload.py [--segments 50] [--mb 1.0] [--parallel 1,4,8] [--latency-ms 0,50]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from pinot_sink.controller import ControllerClient, RetryPolicy, push_segments  # noqa: E402
from segment_factory import make_segment  # noqa: E402


def start_controller(latency_ms: float) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "fake_controller.py"), "--upload-latency-ms", str(latency_ms)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO / "tests",
    )
    url = process.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        process.kill()
        raise RuntimeError(f"test controller did not start: {url!r}")
    return process, url


def run(url: str, paths: list[Path], parallel: int, mode: str, deep_store: str | None) -> float:
    with ControllerClient(url, retry=RetryPolicy(max_attempts=1), pool_size=max(parallel, 4)) as client:
        existing = client.list_segments("events", exclude_replaced=False)
        client.delete_segments("events", existing)
        started = time.perf_counter()
        results = push_segments(client, "events", paths, parallel=parallel, push_mode=mode, deep_store_uri=deep_store)
        elapsed = time.perf_counter() - started
        assert len(results) == len(paths) and len(client.list_segments("events")) == len(paths)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--segments", type=int, default=50)
    parser.add_argument("--mb", type=float, default=1.0, help="size of each segment tarball in MB")
    parser.add_argument("--parallel", default="1,4,8")
    parser.add_argument("--latency-ms", default="0,50")
    parser.add_argument("--modes", default="tar,metadata")
    args = parser.parse_args()
    levels = [int(x) for x in args.parallel.split(",")]
    with tempfile.TemporaryDirectory() as work:
        paths = [make_segment(Path(work) / "segments", f"events_{i}", payload_bytes=int(args.mb * 1e6))
                 for i in range(args.segments)]
        total_mb = sum(p.stat().st_size for p in paths) / 1e6
        print(f"{len(paths)} segments, {total_mb:.1f} MB in total")
        print("| mode | server latency | parallel | seconds | segments/s | MB/s | vs sequential |")
        print("|---|---|---|---|---|---|---|")
        for latency in [float(x) for x in args.latency_ms.split(",")]:
            process, url = start_controller(latency)
            try:
                for mode in args.modes.split(","):
                    deep_store = (Path(work) / "deep").as_uri() if mode == "metadata" else None
                    run(url, paths[:2], 1, mode, deep_store)  # warm up connections and imports
                    baseline = None
                    for parallel in levels:
                        elapsed = min(run(url, paths, parallel, mode, deep_store) for _ in range(2))
                        baseline = baseline or elapsed
                        print(f"| {mode} | {latency:.0f} ms | {parallel} | {elapsed:.2f} | {len(paths) / elapsed:.1f} "
                              f"| {total_mb / elapsed:.1f} | {baseline / elapsed:.2f}x |", flush=True)
            finally:
                process.stdin.close()
                process.wait(timeout=10)


if __name__ == "__main__":
    main()
