"""pinot_sink.allocator: a writer puts Arrow on the system allocator once, unless the environment chose a pool.

Run in fresh subprocesses: the pool is the process's, and so is what the environment says."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = """
import pyarrow as pa
from pinot_sink import allocator
allocator.settle()
allocator.settle()  # once per process: a second call changes nothing
data = pa.array(range(100_000))  # allocated from the pool settle chose
del data
print(pa.default_memory_pool().backend_name)
"""


def _pool_after_settle(**env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    environment.update(env, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=environment, check=True, capture_output=True,
                         text=True, timeout=120)
    return out.stdout.strip().splitlines()[-1]


def test_settle_puts_arrow_on_the_system_allocator():
    assert _pool_after_settle() == "system"


def test_a_pool_chosen_in_the_environment_is_left_alone():
    assert _pool_after_settle(ARROW_DEFAULT_MEMORY_POOL="jemalloc") == "jemalloc"


RELEASE = """
import numpy as np
from pinot_sink import allocator

def rss():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * 4096

pieces = [np.ones(8192) for _ in range(1024)]  # 64 KiB each (under glibc's mmap threshold): 64 MiB of heap
keep = np.ones(8192)  # above them: what is freed below stays inside the heap, not at its top
del pieces
before = rss()
allocator.release_free()
print(before - rss())
"""


def test_release_free_hands_free_heap_pages_back():
    """``allocator.release_free`` (glibc's malloc_trim): 64 MiB freed inside the heap stays resident until
    it is called, and is given back by it."""
    if sys.platform != "linux" or not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
        import pytest

        pytest.skip("malloc_trim is glibc's")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", RELEASE], env=environment, check=True, capture_output=True,
                         text=True, timeout=120)
    assert int(out.stdout.strip().splitlines()[-1]) > 32 * 1024 * 1024
