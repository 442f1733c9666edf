"""Which tables a compaction merges: OFFLINE tables without upsert or dedup. One rule, asked by
``pinot-sink compact`` / ``pinot_sink.compact`` and, before a streaming query starts, by its ``compaction.*``
options (a query whose every compaction could only fail, logged and never seen, is refused instead)."""
from __future__ import annotations

from typing import Any, Mapping


def not_compacted(config_json: Mapping[str, Any], table: str) -> str | None:
    """Why a compaction refuses the table of this config, in one line; None when it merges it."""
    if str(config_json.get("tableType") or "OFFLINE").upper() != "OFFLINE" or any(
            config_json.get(key) for key in ("upsertConfig", "dedupConfig")):
        return (f"table {table}: only OFFLINE tables without upsert or dedup are compacted (merging an upsert or "
                f"dedup table's segments would change which row of a key wins)")
    return None
