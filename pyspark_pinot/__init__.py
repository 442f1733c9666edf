"""``format("pinot")`` on Spark 4 with no import: Spark's own discovery of Python data sources.

On a session's first data source lookup, Spark 4 runs ``pyspark.sql.worker.lookup_data_sources`` in a Python
worker: it imports every top-level module whose name starts with ``pyspark_`` and registers its
``DefaultSource`` (a ``DataSource`` subclass) under ``DefaultSource.name()``. This package exists only to be
found there; the data source itself is ``pinot_sink.datasource``.

It must never fail to import: one failing ``pyspark_*`` module breaks that lookup for every Python data
source of the session. So on a pyspark without the Data Source API (3.x) it simply has no ``DefaultSource``.
"""
from __future__ import annotations

try:
    from pinot_sink.datasource import _ARROW_WRITER_MISSING, PinotDataSource
except Exception as _error:  # noqa: BLE001 (see the docstring: never break Spark's lookup)
    import logging

    logging.getLogger("pinot_sink").debug("pyspark_pinot: no data source: %s", _error)
else:
    if _ARROW_WRITER_MISSING is None:
        DefaultSource = PinotDataSource
