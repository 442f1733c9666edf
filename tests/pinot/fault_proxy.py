"""A loopback HTTP proxy in front of a real Pinot controller that can misbehave on purpose.

Every request is forwarded to the controller unless a fault says otherwise:
``lose_next`` forwards it (the controller does the work) and then resets the client's connection instead of
answering, optionally followed by an outage; ``error_body_next`` answers 200 with an error body
(``{"code": 500, "error": ...}``) without forwarding (nothing done, as a half-failed proxy may answer);
``outage`` resets every request unread for a while. Faults match by method and path prefix and are used up
after ``times`` requests; ``received`` records (method, path, what happened).
"""
from __future__ import annotations

import contextlib
import http.client
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from urllib.parse import urlsplit

from controller_contract import serve
from fake_controller import _Handler as _ControllerHandler

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection",
              "host", "content-length"}


@dataclass
class _Fault:
    kind: str  # lose / error200
    method: str | None
    path: str | None
    times: int
    then_outage_s: float = 0.0
    message: str = "injected: the controller failed"

    def matches(self, method: str, path: str) -> bool:
        return (self.method is None or self.method == method) and (self.path is None or path.startswith(self.path))


class FaultProxy:
    def __init__(self, target: str) -> None:
        parts = urlsplit(target)
        self.target_host, self.target_port = parts.hostname, parts.port or 80
        self.received: list[tuple[str, str, str]] = []
        self._faults: list[_Fault] = []
        self._down_until = 0.0
        self._lock = threading.Lock()

    def start(self) -> "FaultProxy":
        self._running = contextlib.ExitStack()
        self.url = self._running.enter_context(serve(type("Handler", (_Handler,), {"proxy": self})))
        return self

    def stop(self) -> None:
        self._running.close()

    # --- faults ------------------------------------------------------------------------------------------

    def lose_next(self, times: int = 1, *, method: str | None = None, path: str | None = None,
                  then_outage_s: float = 0.0) -> None:
        with self._lock:
            self._faults.append(_Fault("lose", method, path, times, then_outage_s))

    def error_body_next(self, times: int = 1, *, method: str | None = None, path: str | None = None,
                        message: str = "injected: the controller failed") -> None:
        with self._lock:
            self._faults.append(_Fault("error200", method, path, times, message=message))

    def outage(self, seconds: float) -> None:
        with self._lock:
            self._down_until = time.monotonic() + seconds

    def outcomes(self, path: str) -> list[str]:
        return [what for _, p, what in self.received if p.startswith(path)]

    def _take(self, method: str, path: str) -> _Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.times > 0 and fault.matches(method, path):
                    fault.times -= 1
                    return fault
        return None


class _Handler(BaseHTTPRequestHandler):
    proxy: FaultProxy
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:
        pass

    def _dispatch(self) -> None:
        proxy = self.proxy
        path = urlsplit(self.path).path
        with proxy._lock:
            down = time.monotonic() < proxy._down_until
        if down:
            proxy.received.append((self.command, path, "reset (outage)"))
            self._reset()
            return
        body = self._body()
        fault = proxy._take(self.command, path)
        if fault is not None and fault.kind == "error200":
            proxy.received.append((self.command, path, "200 with an error body, not forwarded"))
            self._answer(200, "application/json", json.dumps({"code": 500, "error": fault.message}).encode())
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        headers["Content-Length"] = str(len(body))
        connection = http.client.HTTPConnection(proxy.target_host, proxy.target_port, timeout=300)
        try:
            connection.request(self.command, self.path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            status, kind = response.status, response.getheader("Content-Type") or "application/json"
        finally:
            connection.close()
        if fault is not None and fault.kind == "lose":
            proxy.received.append((self.command, path, f"{status} done, answer lost"))
            if fault.then_outage_s:
                proxy.outage(fault.then_outage_s)
            self._reset()
            return
        proxy.received.append((self.command, path, str(status)))
        self._answer(status, kind, data)

    def _body(self) -> bytes:
        if (self.headers.get("Transfer-Encoding") or "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _answer(self, status: int, kind: str, data: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    _reset = _ControllerHandler._reset  # an RST, not a FIN: what a lost answer looks like to the client

    do_GET = do_POST = do_DELETE = do_PUT = _dispatch
