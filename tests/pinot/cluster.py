"""A running Pinot cluster seen through its REST APIs: tables made and dropped, broker queries, waits."""
from __future__ import annotations

import json
import time
from typing import Any

import requests

DAY_MS = 86_400_000
BASE_MS = 1_700_006_400_000  # 2023-11-15T00:00Z: a day boundary


class Cluster:
    def __init__(self, controller: str, broker: str) -> None:
        self.url = controller.rstrip("/")
        self.broker = broker.rstrip("/")
        self.http = requests.Session()

    def unreachable(self) -> str | None:
        for role, url in (("controller", self.url), ("broker", self.broker)):
            try:
                status = self.http.get(f"{url}/health", timeout=5).status_code
            except requests.RequestException as exc:
                return f"the {role} at {url} does not answer ({type(exc).__name__})"
            if status != 200:
                return f"the {role} at {url} answers GET /health with HTTP {status}"
        return None

    # --- tables ------------------------------------------------------------------------------------------

    def drop(self, table: str) -> None:
        """Drop the table and its schema, waiting until Pinot would let it be made again."""
        if self.http.delete(f"{self.url}/tables/{table}", params={"type": "offline"}, timeout=60).status_code == 200:
            self.wait(lambda: self.http.get(f"{self.url}/tables/{table}/externalview", timeout=30).status_code == 404,
                      120, f"table {table} dropped")
        self.http.delete(f"{self.url}/schemas/{table}", timeout=60)

    def create(self, schema: dict, config: dict) -> None:
        table = schema["schemaName"]
        self.drop(table)
        self.must("POST", "/schemas", json=schema)
        self.must("POST", "/tables", json=config)

    def must(self, method: str, path: str, **kwargs) -> Any:
        response = self.http.request(method, self.url + path, timeout=120, **kwargs)
        assert response.status_code == 200, f"{method} {path}: HTTP {response.status_code}: {response.text[:1000]}"
        return response.json() if response.content else None

    def live_segments(self, table: str) -> list[str]:
        body = self.must("GET", f"/segments/{table}", params={"type": "OFFLINE", "excludeReplacedSegments": "true"})
        return sorted(name for element in body for name in element.get("OFFLINE", []))

    def lineage(self, table: str) -> dict[str, dict]:
        body = self.must("GET", f"/segments/{table}/lineage", params={"type": "OFFLINE"})
        return (body or {}).get("lineageEntries") or {}

    def lineage_states(self, table: str) -> list[str]:
        return sorted(entry["state"] for entry in self.lineage(table).values())

    # --- queries -----------------------------------------------------------------------------------------

    def query(self, sql: str) -> dict:
        response = self.http.post(f"{self.broker}/query/sql", json={"sql": sql}, timeout=60)
        assert response.status_code == 200, f"{sql}: HTTP {response.status_code}: {response.text[:500]}"
        body = response.json()
        assert not body.get("exceptions"), f"{sql}: {body['exceptions']}"
        return body

    def rows(self, sql: str) -> list[list]:
        return self.query(sql)["resultTable"]["rows"]

    def wait_rows(self, sql: str, want: list[list], timeout: float = 120) -> list[list]:
        """The broker's rows once they equal ``want`` (segments come ONLINE, and routing follows lineage, a
        moment after the controller accepted them); else the assertion shows the last answer."""
        deadline = time.monotonic() + timeout
        got = None
        while time.monotonic() < deadline:
            try:
                got = normalise(self.rows(sql))
            except AssertionError as exc:  # a table whose segments are still loading may answer with errors
                got = str(exc)
            if got == normalise(want):
                return got
            time.sleep(1)
        assert got == normalise(want), f"{sql}: the broker answers {got}, Spark says {want}"
        return got

    @staticmethod
    def wait(predicate, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            assert time.monotonic() < deadline, f"{what}: not after {timeout:.0f} s"
            time.sleep(1)


def normalise(rows: list[list]) -> list[list]:
    """Numbers compared as floats rounded to 6 places (the broker answers SUM as a double)."""
    return [[round(float(v), 6) if isinstance(v, (int, float)) and not isinstance(v, bool) else v for v in row]
            for row in rows]


def per_day(spark_df, time_column: str = "ts", value: str = "value") -> list[list]:
    """The DataFrame's own answer to ``by_day_sql``: rows, sum of ``value`` per UTC day, in day order."""
    from pyspark.sql import functions as F

    day = (F.floor(F.col(time_column) / DAY_MS) * DAY_MS).cast("long")
    out = (spark_df.groupBy(day.alias("day")).agg(F.count("*").alias("n"), F.sum(value).alias("s"))
           .orderBy("day").collect())
    return [[int(r["day"]), int(r["n"]), float(r["s"])] for r in out]


def by_day_sql(table: str, time_column: str = "ts", value: str = "value") -> str:
    return (f"SELECT DATETRUNC('DAY', {time_column}), COUNT(*), SUM({value}) FROM {table} "
            f"GROUP BY DATETRUNC('DAY', {time_column}) ORDER BY DATETRUNC('DAY', {time_column}) LIMIT 10000")


def pretty(value: Any) -> str:
    return json.dumps(value)[:2000]
