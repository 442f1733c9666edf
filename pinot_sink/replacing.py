"""How a write's segments take the place of what it replaces: the one home of the rule "a fixed name is a
refresh in place".

A write with fresh, run-tagged names (every naming but ``segment-name.type=fixed``) replaces by lineage: with
a controller, one lineage entry swaps the replaced segments for the new ones atomically and can be reverted;
embedded, its files are its own. A fixed name is the user's one name: Pinot refreshes the segment of that name
in place (atomic for that segment only), and the file or segment it overwrote may be an earlier write's, so
nothing of it can be taken back. (What a run replaces, its own write's earlier runs, the table, a window or a
compaction's sources, is ``WriteRun.replaces``; whether it may replace anything at all is
``WriteRun.may_replace``, per run, as a streaming query's every micro-batch is a rerun.)

The strategy is chosen once, when a ``WriteJob`` is made (``replacing_for``), and the commit asks it at each
decision point (``pinot_sink.commit``): which names an abort or a failed push may remove, and whether the
controller publishes through a lineage entry.
"""
from __future__ import annotations

from typing import Iterable


class Replacing:
    """One way of replacing; ``REPLACE_BY_LINEAGE`` or ``REFRESH_IN_PLACE``."""

    name = ""
    # With a controller: one lineage entry (checked first against ZooKeeper's record limit; revertible, so a
    # run withdraws when a rival committed at the same time), else Pinot's refresh, then a delete.
    lineage = True
    names_are_own = True  # every name is fresh to this run: removing it takes out nothing but this run's rows

    def removable(self, names: Iterable[str]) -> set[str]:
        """Of this run's segment names, the ones an abort (or a failed push's clean-up) may remove or record as
        not committed: all of them, or none when a name may be an earlier write's segment this one refreshed."""
        return set(names) if self.names_are_own else set()

    def __repr__(self) -> str:
        return f"<replacing {self.name}>"


class ReplaceByLineage(Replacing):
    """Fresh run-tagged names: a lineage entry with a controller, the run's own files embedded."""

    name = "by lineage"


class RefreshInPlace(Replacing):
    """A fixed name (``segment-name.type=fixed``): Pinot's refresh of that one segment, atomic for it alone, then
    the delete of what else it replaces; no entry to check, revert or withdraw, nothing to take back."""

    name = "refresh in place"
    lineage = False
    names_are_own = False


REPLACE_BY_LINEAGE = ReplaceByLineage()
REFRESH_IN_PLACE = RefreshInPlace()


def replacing_for(naming_kind: str | None) -> Replacing:
    """The rule: a fixed name is a refresh in place; every other naming replaces by lineage."""
    return REFRESH_IN_PLACE if naming_kind == "fixed" else REPLACE_BY_LINEAGE
