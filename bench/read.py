"""Read throughput: ``pinot_sink.read`` of one segment against ``pyarrow.parquet.read_table`` of the same rows.

The table is bench/segment_build.py's (default 1 000 000 rows, 10 columns: two ids, low- and high-cardinality
strings, doubles, a small int, a millisecond timestamp), built once into a segment (v3, time column, inverted
indexes on ``country`` and ``event_type``, Pinot's defaults otherwise), kept as the builder's ``.tar.gz``, as the
same tar bytes in ``.tar.lz4`` and ``.tar.zst`` (``tar_codecs``' levels, as ``build.tar-codec`` writes them) and
untarred, and written once as Parquet (``pq.write_table``'s defaults: Snappy, dictionary pages). Then ``--repeat``
runs each (the cases taking turns) in each of ``--rounds`` worker processes per checkout (the baseline in the same
process), their minimum and median wall and CPU seconds printed (a shared machine's load moves both):

* ``parquet``: ``pq.read_table(path)`` (Arrow's C++ reader, multi-threaded);
* ``segment tar.gz`` / ``tar.lz4`` / ``tar.zst``: ``pinot_sink.read(tarball)``: decompress, untar, decode, to Arrow;
* ``segment folder``: ``pinot_sink.read(folder)``: the untarred segment;
* ``table tar.gz`` / ``table folder`` against ``parquet files``: the same rows cut into ``--segments`` segments
  (``.tar.gz``, and untarred) in one table folder, ``pinot_sink.read(folder)``, against as many Parquet files in a
  folder, ``pq.read_table(folder)`` (a table is many segments: ``read`` reads them concurrently);
* ``inflate gzip`` / ``lz4`` / ``zstd``: the tarball's decompression alone, streamed into a reused buffer (ISA-L's
  igzip; Arrow's LZ4 and zstd): the floor under a tarball's read whatever the decoding costs.

Wall and CPU seconds (``time.process_time``: every thread of the process) beside each other; the figure of merit
is rows/s as a ratio to Parquet's, measured in the same process. The read tables are checked equal to the input.
``--repo DIR`` runs the same cases with another checkout's ``pinot_sink`` too, the two workers alternating (before
/ after from one run). ``--memory``: peak RSS above the process's baseline, one fresh process per case, of
``read`` and ``read_batches`` (default batches) of the tar.gz and the folder, ``read`` of the table (its segments
read side by side), and of Parquet's ``read_table``.

    .venv/bin/python bench/read.py [--rows 1000000] [--repeat 3] [--repo DIR] [--memory] [--threads N]
                                   [--segments 4]
"""
from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from pinot_sink.segment.read.tar_source import extract_all

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CASES = ["parquet", "segment tar.gz", "segment tar.lz4", "segment tar.zst", "segment folder"]
TABLE_CASES = ["parquet files", "table tar.gz", "table folder"]
FLOORS = ["inflate gzip", "inflate lz4", "inflate zstd"]


def prepare(rows: int, folder: Path, segments: int = 0) -> dict[str, Path]:
    """The segment in every form and the Parquet file of the same rows, under ``folder``; with ``segments``,
    also the rows cut into that many segment tarballs in ``table/`` and as many Parquet files in ``parquet/``."""
    import gzip

    import pyarrow.parquet as pq

    sys.path.insert(0, str(BENCH))
    from segment_build import SCHEMA, TABLE_CONFIG, make_table

    from pinot_sink.segment.builder import BuildOptions, build_segment
    from pinot_sink.segment.tar_codecs import write_stream
    from type_mapping.pinot_schema import PinotSchema
    from type_mapping.stored import PinotColumns
    from type_mapping.table_config import TableConfig

    table = make_table(rows)
    schema = PinotSchema.from_json(SCHEMA)
    built = build_segment(PinotColumns(table, {}), schema, TableConfig.from_json(TABLE_CONFIG, schema), folder,
                          "bench_events_0", 1_700_000_000_000, BuildOptions(sort_by_sorted_column=False))
    paths = {"segment tar.gz": Path(built.tar_path), "parquet": folder / "bench.parquet"}
    plain = gzip.decompress(paths["segment tar.gz"].read_bytes())
    for codec, suffix in (("lz4", "lz4"), ("zstd", "zst")):
        paths[f"segment tar.{suffix}"] = folder / f"bench_events_0.tar.{suffix}"
        with open(paths[f"segment tar.{suffix}"], "wb") as out:
            write_stream(out, [plain], codec)
    with tarfile.open(fileobj=io.BytesIO(plain)) as tar:
        extract_all(tar, folder / "untarred")
    paths["segment folder"] = folder / "untarred" / "bench_events_0"
    pq.write_table(table, paths["parquet"])
    if segments:
        paths["table tar.gz"], paths["parquet files"] = folder / "table", folder / "parquet"
        paths["parquet files"].mkdir()
        step = -(-rows // segments)
        for i, start in enumerate(range(0, rows, step)):
            part = table.slice(start, step)
            build_segment(PinotColumns(part, {}), schema, TableConfig.from_json(TABLE_CONFIG, schema),
                          paths["table tar.gz"], f"bench_events_{i}", 1_700_000_000_000,
                          BuildOptions(sort_by_sorted_column=False))
            pq.write_table(part, paths["parquet files"] / f"part_{i}.parquet")
        paths["table folder"] = folder / "table_folders"
        for tarball in sorted(paths["table tar.gz"].glob("*.tar.gz")):
            with tarfile.open(tarball) as tar:
                extract_all(tar, paths["table folder"])
    return paths


def worker(paths: dict[str, str], repeat: int, threads: int | None, floors: bool) -> dict[str, list[list[float]]]:
    """Every case in this process (``pinot_sink`` from PYTHONPATH), ``repeat`` runs: {case: [[wall, CPU], ...]}."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    import pinot_sink

    sys.path.insert(0, str(BENCH))
    from timing import best

    if threads:
        pa.set_cpu_count(threads)
    table = pq.read_table(paths["parquet"])
    expected = table.set_column(table.schema.get_field_index("ts"), "ts",
                                table.column("ts").cast(pa.timestamp("ms", tz="UTC")))
    actions = {"parquet": lambda: pq.read_table(paths["parquet"])}
    for case in CASES[1:] + TABLE_CASES[1:]:
        if case not in paths:
            continue
        assert pinot_sink.read(paths[case]).select(expected.column_names).equals(expected), case
        actions[case] = (lambda p: lambda: pinot_sink.read(p))(paths[case])
    if "parquet files" in paths:
        actions["parquet files"] = lambda: pq.read_table(paths["parquet files"])
    if floors:
        actions["inflate gzip"] = lambda: _drain(_gunzip(paths["segment tar.gz"]))
        actions["inflate lz4"] = lambda: _drain(pa.CompressedInputStream(pa.OSFile(paths["segment tar.lz4"]), "lz4"))
        actions["inflate zstd"] = lambda: _drain(pa.CompressedInputStream(pa.OSFile(paths["segment tar.zst"]), "zstd"))
    # The cases take turns, one run each per round, so a change in the machine's load meets them all alike.
    runs = {name: [] for name in actions}
    for _ in range(repeat):
        for name, action in actions.items():
            runs[name].append(best(action, 1))
    return {name: [list(t) for t in times] for name, times in runs.items()}


def _gunzip(path: str):
    try:
        from isal import igzip
    except ImportError:
        import gzip as igzip
    return igzip.open(path, "rb")


def _drain(stream) -> None:
    buffer = bytearray(1 << 20)
    with stream:
        while stream.readinto(buffer):
            pass


def memory(paths: dict[str, str], case: str) -> int:
    """Peak RSS above the RSS before it (bytes) of one case, in this fresh process: sampled every millisecond
    (the peak ``ru_maxrss`` keeps may be the imports')."""
    import threading
    import time

    import pyarrow.parquet as pq

    import pinot_sink

    page = os.sysconf("SC_PAGE_SIZE")

    def rss() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * page

    # Warm up: the libraries' code pages and thread pools, mapped on first use, are no case's own.
    pq.read_table(paths["parquet"], columns=["qty"])
    pinot_sink.read(paths["segment folder"], columns=["qty"])
    before, peak, done = rss(), [0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss())
            time.sleep(0.001)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        _memory_case(paths, case, pq, pinot_sink)
    finally:
        done.set()
        sampler.join()
    return max(peak[0], rss()) - before


def _memory_case(paths: dict[str, str], case: str, pq, pinot_sink) -> None:
    if case == "parquet read_table":
        pq.read_table(paths["parquet"])
    else:
        kind, form = case.split(" ", 1)
        path = paths[form if form.startswith("table") else f"segment {form}"]
        if kind == "read":
            pinot_sink.read(path)
        else:
            for _ in pinot_sink.read_batches(path):
                pass


def _figures(times: list[list[float]]) -> tuple[float, float, float, float]:
    """Wall min, wall median, CPU min, CPU median of a case's runs."""
    import statistics

    walls, cpus = [t[0] for t in times], [t[1] for t in times]
    return min(walls), statistics.median(walls), min(cpus), statistics.median(cpus)


def _run(repo: Path, mode: list[str], paths: dict[str, Path]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(repo)}
    command = [sys.executable, __file__, *mode, "--paths", json.dumps({k: str(v) for k, v in paths.items()})]
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True, cwd=repo)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="pyarrow's CPU pool (default: its own)")
    parser.add_argument("--repo", type=Path, help="another checkout to measure alternately (before / after)")
    parser.add_argument("--memory", action="store_true", help="also peak RSS of read / read_batches / Parquet")
    parser.add_argument("--rounds", type=int, default=2, help="worker runs per checkout, alternating")
    parser.add_argument("--segments", type=int, default=4,
                        help="the table cases' segments (and Parquet files); 0: no table cases")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--floors", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--memory-case", help=argparse.SUPPRESS)
    parser.add_argument("--paths", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(json.loads(args.paths), args.repeat, args.threads, args.floors)))
        return 0
    if args.memory_case:
        print(json.dumps(memory(json.loads(args.paths), args.memory_case)))
        return 0

    checkouts = [("this", REPO)] + ([(str(args.repo), args.repo.resolve())] if args.repo else [])
    with tempfile.TemporaryDirectory(prefix="bench-read-") as temp:
        paths = prepare(args.rows, Path(temp), args.segments)
        sizes = {case: (sum(f.stat().st_size for f in paths[case].rglob("*") if f.is_file())
                        if paths[case].is_dir() else paths[case].stat().st_size) for case in CASES + TABLE_CASES
                 if case in paths}
        results: dict[str, dict[str, list[list[float]]]] = {name: {} for name, _ in checkouts}
        mode = ["--worker", "--repeat", str(args.repeat)] + (["--threads", str(args.threads)] if args.threads else [])
        for round_ in range(args.rounds):  # alternating, so both checkouts see the same load
            for name, repo in checkouts:
                run = _run(repo, mode + (["--floors"] if name == "this" and round_ == 0 else []), paths)
                for case, times in run.items():
                    results[name].setdefault(case, []).extend(times)
        peaks = {}
        if args.memory:
            for case in ["parquet read_table", "read tar.gz", "read_batches tar.gz", "read folder",
                         "read_batches folder"] + (["read table tar.gz", "read table folder"] if args.segments else []):
                for name, repo in checkouts:
                    peaks[f"{case}  ({name[-10:]})"] = _run(repo, ["--memory-case", case], paths)

    import pyarrow as pa

    print(f"{args.rows:,} rows, 10 columns, {args.repeat} x {args.rounds} runs each; pyarrow {pa.__version__}, "
          f"{pa.cpu_count()} CPU threads, load {os.getloadavg()[0]:.1f}; min / median, rows/s by the least wall")
    print(f"{'checkout':<10} {'read':<16} {'MB':>6} {'wall s':>13} {'CPU s':>13} {'rows/s (wall)':>14} "
          f"{'vs parquet':>13} {'CPU vs':>11}")
    for name, _ in checkouts:
        base = _figures(results[name]["parquet"])
        for case in CASES + [f for f in FLOORS + TABLE_CASES if f in results[name]]:
            if case == "parquet files":
                base = _figures(results[name][case])
            figures = _figures(results[name][case])
            wall, cpu = figures[:2], figures[2:]
            size = f"{sizes[case] / 1e6:6.1f}" if case in sizes else " " * 6
            ratio = [b / f for b, f in zip(base[:2], wall)]
            cpu_ratio = [f / b for b, f in zip(base[2:], cpu)]
            print(f"{name[-10:]:<10} {case:<16} {size} {wall[0]:6.3f}/{wall[1]:.3f} {cpu[0]:6.3f}/{cpu[1]:.3f} "
                  f"{args.rows / wall[0]:14,.0f} {ratio[0]:5.2f}x/{ratio[1]:.2f}x "
                  f"{cpu_ratio[0]:4.2f}x/{cpu_ratio[1]:.2f}x")
    for case, peak in peaks.items():
        print(f"peak RSS {case:<36} {peak / 2**20:7.1f} MiB above the process's baseline")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
