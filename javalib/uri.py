"""``java.net.URI``'s parser (RFC 2396 with Java's deviations) and its 7-argument constructor, for the URL
functions (UrlFunctions parse with ``new URI(url)`` / ``URI.create``).

What Java does and Python's ``urllib`` does not: an authority that is not a valid server (``my_host``,
``1.2.3``, a bad port) is kept as a registry name with ``getHost() == null``; a space, a control character
or a bad ``%`` escape anywhere fails the parse; visible characters above U+0080 are allowed where escapes are;
``getPath`` / ``getQuery`` / ``getFragment`` decode ``%XX`` runs as UTF-8 (malformed bytes become U+FFFD).
The constructor quotes each component and re-parses the result requiring a server authority.
"""
from __future__ import annotations

import ipaddress
import unicodedata
from dataclasses import dataclass

from .exceptions import JavaException


class URISyntaxError(JavaException):
    """``java.net.URISyntaxException``."""


_ALPHA = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGIT = set("0123456789")
_ALPHANUM = _ALPHA | _DIGIT
_HEX = _DIGIT | set("abcdefABCDEF")
_MARK = set("-_.!~*'()")
_UNRESERVED = _ALPHANUM | _MARK
_RESERVED = set(";/?:@&=+$,[]")
# (allowed ASCII characters, escapes and visible non-ASCII allowed too)
URIC = (_RESERVED | _UNRESERVED, True)
PCHAR = (_UNRESERVED | set(":@&=+$,"), True)
PATH = (PCHAR[0] | set(";/"), True)
USERINFO = (_UNRESERVED | set(";:&=+$,"), True)
REG_NAME = (_UNRESERVED | set("$,;:@&=+"), True)
SERVER = (USERINFO[0] | _ALPHANUM | set("-.:@[]"), True)
SERVER_PERCENT = (SERVER[0] | {"%"}, True)
SCHEME = (_ALPHANUM | set("+-."), False)
SCOPE_ID = (_ALPHANUM | set("_."), False)


def _other(c: str) -> bool:
    """Java's ``c > 128 && !Character.isSpaceChar(c) && !Character.isISOControl(c)`` (on UTF-16 units)."""
    if ord(c) <= 128:
        return False
    category = unicodedata.category(c)
    return category not in ("Zs", "Zl", "Zp", "Cc")


class _Parser:
    def __init__(self, text: str) -> None:
        self.s = text
        self.scheme = self.authority = self.user_info = self.host = self.path = self.query = None
        self.fragment = self.ssp = None
        self.port = -1

    def at(self, p: int, n: int, c: str) -> bool:
        return p < n and self.s[p] == c

    def scan_stop(self, p: int, n: int, err: str, stop: str) -> int:
        while p < n:
            c = self.s[p]
            if c in err:
                return -1
            if c in stop:
                break
            p += 1
        return p

    def scan_escape(self, p: int, n: int, c: str) -> int:
        if c == "%":
            if p + 3 <= n and self.s[p + 1] in _HEX and self.s[p + 2] in _HEX:
                return p + 3
            raise URISyntaxError(f"Malformed escape pair at index {p}")
        if _other(c):
            return p + 1
        return p

    def scan(self, p: int, n: int, cls) -> int:
        allowed, escapes = cls
        while p < n:
            c = self.s[p]
            if c in allowed:
                p += 1
                continue
            if escapes:
                q = self.scan_escape(p, n, c)
                if q > p:
                    p = q
                    continue
            break
        return p

    def check(self, p: int, n: int, cls, what: str) -> None:
        q = self.scan(p, n, cls)
        if q < n:
            raise URISyntaxError(f"Illegal character in {what} at index {q}")

    def parse(self, require_server: bool) -> "_Parser":
        self.require_server = require_server
        s, n = self.s, len(self.s)
        p = self.scan_stop(0, n, "/?#", ":")
        if p >= 0 and self.at(p, n, ":"):
            if p == 0:
                raise URISyntaxError("Expected scheme name at index 0")
            if s[0] not in _ALPHA:
                raise URISyntaxError("Illegal character in scheme name at index 0")
            self.check(1, p, SCHEME, "scheme name")
            self.scheme = s[:p]
            p += 1
            if self.at(p, n, "/"):
                p = self.hierarchical(p, n)
            else:
                q = self.scan_stop(p, n, "", "#")
                if q <= p:
                    raise URISyntaxError(f"Expected scheme-specific part at index {p}")
                self.check(p, q, URIC, "opaque part")
                self.ssp = s[p:q]
                p = q
        else:
            p = self.hierarchical(0, n)
        q = p
        if self.at(p, n, "#"):
            self.check(p + 1, n, URIC, "fragment")
            self.fragment = s[p + 1:]
            q = n
        if q < n:
            raise URISyntaxError(f"Expected end of URI at index {q}")
        return self

    def hierarchical(self, p: int, n: int) -> int:
        s = self.s
        if self.at(p, n, "/") and self.at(p + 1, n, "/"):
            p += 2
            q = self.scan_stop(p, n, "", "/?#")
            if q > p:
                p = self.parse_authority(p, q)
            elif q >= n:
                raise URISyntaxError(f"Expected authority at index {p}")
        q = self.scan_stop(p, n, "", "?#")
        self.check(p, q, PATH, "path")
        self.path = s[p:q]
        p = q
        if self.at(p, n, "?"):
            p += 1
            q = self.scan_stop(p, n, "", "#")
            self.check(p, q, URIC, "query")
            self.query = s[p:q]
            p = q
        return p

    def parse_authority(self, p: int, n: int) -> int:
        if self.scan_stop(p, n, "", "]") > p:
            server_chars = self.scan(p, n, SERVER_PERCENT) == n
        else:
            server_chars = self.scan(p, n, SERVER) == n
        reg_chars = self.scan(p, n, REG_NAME) == n
        if reg_chars and not server_chars:
            self.authority = self.s[p:n]
            return n
        q = p
        error = None
        if server_chars:
            try:
                q = self.parse_server(p, n)
                if q < n:
                    raise URISyntaxError(f"Expected end of authority at index {q}")
                self.authority = self.s[p:n]
            except URISyntaxError as exc:
                self.user_info = self.host = None
                self.port = -1
                if self.require_server:
                    raise
                error, q = exc, p
        if q < n:
            if reg_chars:
                self.authority = self.s[p:n]
            elif error is not None:
                raise error
            else:
                raise URISyntaxError(f"Illegal character in authority at index {q}")
        return n

    def parse_server(self, p: int, n: int) -> int:
        s = self.s
        q = self.scan_stop(p, n, "/?#", "@")
        if q >= p and self.at(q, n, "@"):
            self.check(p, q, USERINFO, "user info")
            self.user_info = s[p:q]
            p = q + 1
        if self.at(p, n, "["):
            p += 1
            q = self.scan_stop(p, n, "/?#", "]")
            if q > p and self.at(q, n, "]"):
                r = self.scan_stop(p, q, "", "%")
                address = s[p:r] if r > p else s[p:q]
                try:
                    ipaddress.IPv6Address(address)
                except ValueError:
                    raise URISyntaxError(f"Malformed IPv6 address at index {p}") from None
                if r > p and r < q:
                    if r + 1 == q:
                        raise URISyntaxError("scope id expected")
                    self.check(r + 1, q, SCOPE_ID, "scope id")
                self.host = s[p - 1:q + 1]
                p = q + 1
            else:
                raise URISyntaxError(f"Expected closing bracket for IPv6 address at index {q}")
        else:
            q = self.parse_ipv4(p, n)
            if q <= p:
                q = self.parse_hostname(p, n)
            p = q
        if self.at(p, n, ":"):
            p += 1
            q = self.scan(p, n, (_DIGIT, False))
            if q > p:
                port = int(s[p:q])
                if port > 2**31 - 1:
                    raise URISyntaxError(f"Malformed port number at index {p}")
                self.port = port
                p = q
        if p < n:
            raise URISyntaxError(f"Expected port number at index {p}")
        return p

    def scan_byte(self, p: int, n: int) -> int:
        q = self.scan(p, n, (_DIGIT, False))
        if q <= p:
            return q
        if int(self.s[p:q]) > 255:
            return p
        return q

    def scan_char(self, p: int, n: int, c: str) -> int:
        return p + 1 if p < n and self.s[p] == c else p

    def parse_ipv4(self, start: int, n: int) -> int:
        m = self.scan(start, n, (_DIGIT | {"."}, False))
        if m <= start:
            return -1
        p = start
        ok = False
        for i in range(4):
            q = self.scan_byte(p, m)
            if q <= p:
                break
            p = q
            if i == 3:
                ok = q >= m
                break
            q = self.scan_char(p, m, ".")
            if q <= p:
                break
            p = q
        if not ok:
            return -1  # Java: "Malformed IPv4 address", caught by parseIPv4Address
        if start < p < n and self.s[p] != ":":
            return -1
        if p > start:
            self.host = self.s[start:p]
        return p

    def parse_hostname(self, start: int, n: int) -> int:
        s = self.s
        p, last = start, -1
        alnum = (_ALPHANUM, False)
        alnum_dash = (_ALPHANUM | {"-"}, False)
        while True:
            q = self.scan(p, n, alnum)
            if q <= p:
                break
            last = p
            p = q
            q = self.scan(p, n, alnum_dash)
            if q > p:
                if s[q - 1] == "-":
                    raise URISyntaxError(f"Illegal character in hostname at index {q - 1}")
                p = q
            q = self.scan_char(p, n, ".")
            if q <= p:
                break
            p = q
            if p >= n:
                break
        if p < n and not self.at(p, n, ":"):
            raise URISyntaxError(f"Illegal character in hostname at index {p}")
        if last < 0:
            raise URISyntaxError(f"Expected hostname at index {start}")
        if last > start and s[last] not in _ALPHA:
            raise URISyntaxError(f"Illegal character in hostname at index {last}")
        self.host = s[start:p]
        return p


@dataclass
class URI:
    scheme: str | None
    user_info_raw: str | None
    host: str | None
    port: int
    raw_path: str | None
    raw_query: str | None
    raw_fragment: str | None

    @property
    def path(self) -> str | None:
        return decode(self.raw_path)

    @property
    def query(self) -> str | None:
        return decode(self.raw_query)

    @property
    def fragment(self) -> str | None:
        return decode(self.raw_fragment)

    @property
    def user_info(self) -> str | None:
        return decode(self.user_info_raw)


def parse(text: str, require_server: bool = False) -> URI:
    """``new URI(text)``; raises URISyntaxError where Java throws."""
    p = _Parser(text).parse(require_server)
    return URI(p.scheme, p.user_info, p.host, p.port, p.path, p.query, p.fragment)


def decode(text: str | None) -> str | None:
    if text is None or "%" not in text:
        return text
    out = []
    i, n = 0, len(text)
    while i < n:
        if text[i] != "%":
            out.append(text[i])
            i += 1
            continue
        raw = bytearray()
        while i < n and text[i] == "%":
            raw.append(int(text[i + 1:i + 3], 16))
            i += 3
        out.append(raw.decode("utf-8", errors="replace"))
    return "".join(out)


def _quote(text: str, cls) -> str:
    allowed = cls[0]
    out = []
    for c in text:
        if ord(c) < 0x80:
            out.append(c if c in allowed else "%%%02X" % ord(c))
        elif unicodedata.category(c) in ("Zs", "Zl", "Zp", "Cc"):
            out.append("".join("%%%02X" % b for b in c.encode("utf-8")))
        else:
            out.append(c)
    return "".join(out)


def build(scheme, user_info, host, port, path, query, fragment) -> str:
    """``new URI(scheme, userInfo, host, port, path, query, fragment).toString()``; raises where Java throws."""
    parts = []
    if scheme is not None:
        parts.append(scheme + ":")
    if host is not None:
        parts.append("//")
        if user_info is not None:
            parts.append(_quote(user_info, USERINFO) + "@")
        brackets = ":" in host and not host.startswith("[") and not host.endswith("]")
        parts.append(f"[{host}]" if brackets else host)
        if port != -1:
            parts.append(f":{port}")
    if path is not None:
        parts.append(_quote(path, PATH))
    if query is not None:
        parts.append("?" + _quote(query, URIC))
    if fragment is not None:
        parts.append("#" + _quote(fragment, URIC))
    text = "".join(parts)
    if scheme is not None and path and not path.startswith("/"):
        raise URISyntaxError("Relative path in absolute URI")
    _Parser(text).parse(True)
    return text
