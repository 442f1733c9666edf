"""A loopback HTTP server over a folder, addressed by absolute path: what a URI push's controller downloads
from when ``push.segment-uri-prefix`` is ``http://127.0.0.1:<port>`` (the URI is prefix + the file's path)."""
from __future__ import annotations

import http.server
import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from controller_contract import serve


def file_server(root: Path):
    root = Path(root).resolve()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def translate_path(self, path: str) -> str:
            wanted = Path(unquote(urlsplit(path).path)).resolve()
            return str(wanted) if root in wanted.parents else os.devnull + ".absent"  # only files under root

        def log_message(self, format, *args) -> None:
            pass

    return serve(Handler)
