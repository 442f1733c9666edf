"""The web_events case: a table whose transforms use TIMESTAMPADD / TIMESTAMPDIFF, dateAdd, URL, UUID and
jsonExtractKey functions, built by Pinot itself (pinot-verify) and kept as tests/fixtures/functions/web_events/
(schema, table config, rows, Pinot's segment and what Pinot's reader returns).

    python tools/pinot_functions/must_show.py        # needs ~/pinot-verify (not the tests)
"""
from __future__ import annotations

import json
import random
import uuid
from pathlib import Path

from expectations import ROOT, run_pinot

OUT = ROOT / "tests" / "fixtures" / "functions" / "web_events"

SCHEMA = {
    "schemaName": "web_events",
    "dimensionFieldSpecs": [
        {"name": "event_id", "dataType": "LONG"},
        {"name": "domain", "dataType": "STRING"},
        {"name": "path", "dataType": "STRING"},
        {"name": "utm_source", "dataType": "STRING"},
        {"name": "query_names", "dataType": "STRING", "singleValueField": False},
        {"name": "session_uuid", "dataType": "STRING"},
        {"name": "session_version", "dataType": "INT"},
        {"name": "payload_keys", "dataType": "STRING", "singleValueField": False},
        {"name": "item_keys", "dataType": "STRING", "singleValueField": False},
    ],
    "metricFieldSpecs": [
        {"name": "days_to_ship", "dataType": "LONG"},
        {"name": "months_since_signup", "dataType": "LONG"},
    ],
    "dateTimeFieldSpecs": [
        {"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"},
        {"name": "expires_ms", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"},
        {"name": "next_month_ms", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
         "granularity": "1:MILLISECONDS"},
    ],
}
TRANSFORMS = {
    "expires_ms": "timestampAdd(DAY, 30, ts)",
    "next_month_ms": "dateAdd('month', 1, ts)",
    "days_to_ship": "timestampDiff(DAY, ts, shipped_ms)",
    "months_since_signup": "dateDiff('month', signup_ms, ts)",
    "domain": "urlDomainWithoutWWW(url)",
    "path": "urlPath(url)",
    "utm_source": "extractURLParameter(url, 'utm_source')",
    "query_names": "extractURLParameterNames(url)",
    "session_uuid": "toUuid(session)",
    "session_version": "uuidVersion(session)",
    "payload_keys": "jsonExtractKey(payload, '$.*')",
    "item_keys": "jsonExtractKey(payload, '$.items[*].*')",
}
TABLE_CONFIG = {
    "tableName": "web_events", "tableType": "OFFLINE",
    "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
    "tableIndexConfig": {"loadMode": "MMAP", "nullHandlingEnabled": True}, "tenants": {}, "metadata": {},
    "ingestionConfig": {"continueOnError": True,
                        "transformConfigs": [{"columnName": c, "transformFunction": f} for c, f in TRANSFORMS.items()]},
}


def rows() -> list[dict]:
    rng = random.Random(20261125)
    out = []
    for i in range(400):
        ts = 1_700_000_000_000 + rng.randint(0, 90 * 86_400_000)
        host = rng.choice(["www.shop.example.com", "shop.example.com", "m.shop.example.co.uk", "my_host", "1.2.3.4"])
        query = "&".join(rng.sample(["utm_source=" + rng.choice(["mail", "ads", "caf%C3%A9"]), "q=desk", "page=2",
                                     "ref", "utm_medium=cpc"], rng.randint(0, 3)))
        url = f"https://{host}/{rng.choice(['cart', 'items/42', 'search', 'a b'])}" + (f"?{query}" if query else "")
        items = [{"sku": rng.randint(1, 99), rng.choice(["qty", "color"]): 1} for _ in range(rng.randint(0, 2))]
        payload = json.dumps({"type": rng.choice(["view", "buy"]), "items": items} if rng.random() > 0.05 else "x")
        session = str(uuid.UUID(int=rng.getrandbits(128), version=rng.choice([1, 4])))
        row = {"event_id": i, "ts": ts, "shipped_ms": ts + rng.randint(-2, 20) * 86_400_000 + rng.randint(0, 10**7),
               "signup_ms": ts - rng.randint(0, 900) * 86_400_000, "url": url,
               "session": rng.choice([session, session.upper(), "not-a-uuid"]) if rng.random() > 0.02 else None,
               "payload": payload if rng.random() > 0.03 else "{broken"}
        out.append(row)
    return out


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    data = rows()
    docs = run_pinot(SCHEMA, TABLE_CONFIG, data, keep=OUT)
    (OUT / "schema.json").write_text(json.dumps(SCHEMA, indent=2) + "\n")
    (OUT / "table_config.json").write_text(json.dumps(TABLE_CONFIG, indent=2) + "\n")
    (OUT / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in data))
    kept = [{k: d[k] for k in ("docId", "values", "nulls") if k in d} for d in docs]
    (OUT / "dump-rows.jsonl").write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in kept))
    print(OUT, len(docs))
