"""A window overwrite whose live segments straddle the window is refused on the driver, when the job is
prepared, before any task builds anything (no Spark: tasks by hand, as in test_backfill_commit)."""
from __future__ import annotations

import pytest

from pinot_sink.commit import commit_job
from pinot_sink.options import OptionError
from pinot_sink.task import write_partition
from tests.datasource.test_backfill_commit import day_batches, job


def test_straddling_live_segments_are_found_before_any_task(tmp_path):
    first = job(out=tmp_path)  # one segment over days 0-4
    commit_job(first, [write_partition(first, day_batches(range(5), 24), partition_id=0)])
    with pytest.raises(OptionError, match=r"^table events: nothing was written: 1 segment\(s\) straddle the edge of "
                                          r"window 2024-02-16.*overwrite.straddling=include"):
        job(out=tmp_path, overwrite=True, **{"overwrite.time-range": "2024-02-16/2024-02-17"})
    # included, or a window that covers the segment: prepared as before
    job(out=tmp_path, overwrite=True, **{"overwrite.time-range": "2024-02-16/2024-02-17",
                                         "overwrite.straddling": "include"})
    job(out=tmp_path, overwrite=True, **{"overwrite.time-range": "2024-02-15/2024-02-20"})
