"""The real-Pinot tier (``make test-pinot``): a real controller, server and broker (``../shared/pinot-cluster``),
started by ``tests/pinot/run.sh``. Every test here carries the ``pinot`` marker, which ``make test`` and
``make test-slow`` leave out; without a cluster the first test fails in one line saying so."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from .cluster import Cluster


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.pinot)


@pytest.fixture(scope="session")
def pinot() -> Cluster:
    controller = os.environ.get("PINOT_TEST_CONTROLLER") or \
        f"http://127.0.0.1:{os.environ.get('PINOT_CONTROLLER_PORT', '19000')}"
    broker = os.environ.get("PINOT_TEST_BROKER") or f"http://127.0.0.1:{os.environ.get('PINOT_BROKER_PORT', '18099')}"
    cluster = Cluster(controller, broker)
    problem = cluster.unreachable()
    if problem:
        pytest.fail(f"no Pinot cluster: {problem} (`make test-pinot` starts one from ../shared/pinot-cluster/dist or "
                    "PINOT_CLUSTER_HOME)", pytrace=False)
    return cluster
