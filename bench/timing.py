"""What the per-value benches share: the best of several runs of one action, wall and CPU seconds beside each
other (the machine is shared: CPU-s say what the action cost, wall what a user waits)."""
from __future__ import annotations

import time


def best(action, repeat: int) -> tuple[float, float]:
    """(wall, CPU) seconds of the fastest of ``repeat`` runs of ``action``."""
    runs = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    return min(runs)
