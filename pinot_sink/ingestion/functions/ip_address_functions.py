"""IP address functions (Pinot's IpAddressFunctions over the inet.ipaddr library, 5.6.2), checked against Pinot's
own build with the real library (tests/fixtures/functions/ip.jsonl).

An address is read as ``IPAddressString(text).toAddress()`` reads it with its default options, which are
lenient: the text is trimmed; the empty text is the loopback 127.0.0.1; an IPv4 address may have 1 to 4
segments (inet_aton: ``1.2.3`` is 1.2.0.3, ``127.1`` 127.0.0.1, ``4294967295`` 255.255.255.255), each decimal,
octal with a leading 0 (``010`` is 8) or hex with ``0x``; an IPv6 group may have leading zeros beyond four
digits (``00001::1``), its IPv4 tail inet_aton segments (not hex), ``::`` may stand for one zero group, 32 hex
digits alone are an IPv6 address, a zone (``%eth0``) is kept; ``/n`` is a prefix length (leading zeros
allowed), and an address whose host bits are zero with a prefix is the whole block. Results print as
``toCanonicalString`` does (IPv6 lowercase, the longest run of two or more zero groups, the leftmost of equal
runs, as ``::``; an IPv4-mapped address in hex).

Forms this package does not reproduce fail the row with a reason rather than guess: wildcards and ranges
(``1.2.*.*``, ``1.2.3.0-255``, ``_``: they make a multi-valued address) and a prefix length beyond an int. A
mask after the slash that is a network mask is its prefix length (``/255.255.255.0`` is ``/24``), any other
masks the address. Containment ignores zones. ``isPrivateIp``'s link-local IPv6 addresses are the library's:
fe80::/10 and the link-local multicast ones (ffx2::).
"""
from __future__ import annotations

import re

import pyarrow as pa

from ..values import Context, Value, to_int, to_long, to_string
from .string_functions_bytes import to_bytes
from .registry import scalar_function
from .rowwise import JavaThrows, per_row

_JAVA_TRIM = "".join(chr(i) for i in range(0x21))
_IPV4_MAX_SEGMENT = {1: 2**32 - 1, 2: 2**24 - 1, 3: 2**16 - 1, 4: 255}  # the last segment of n takes the rest


class _Address:
    __slots__ = ("version", "value", "prefix", "zone")

    def __init__(self, version: int, value: int, prefix: int | None = None, zone: str | None = None) -> None:
        self.version, self.value, self.prefix, self.zone = version, value, prefix, zone

    @property
    def bits(self) -> int:
        return 32 if self.version == 4 else 128

    def mask(self, prefix: int) -> int:
        return ((1 << self.bits) - 1) ^ ((1 << (self.bits - prefix)) - 1)


class _Invalid(Exception):
    pass


def _not_reproduced(text: str, form: str) -> JavaThrows:
    return JavaThrows(f"the IP address {text!r} is {form}, which Pinot's IPAddress library reads but this package "
                      f"does not reproduce")


def _ipv4_segment(segment: str, allow_hex: bool = True) -> int:
    if segment[:2] in ("0x", "0X") and allow_hex:
        if not re.fullmatch(r"[0-9a-fA-F]+", segment[2:]):
            raise _Invalid
        return int(segment[2:], 16)
    if not segment.isascii() or not segment.isdigit():
        raise _Invalid
    if len(segment) > 1 and segment[0] == "0":
        if not re.fullmatch(r"[0-7]+", segment):
            raise _Invalid
        return int(segment, 8)
    return int(segment)


def _ipv4(text: str, allow_hex: bool = True) -> int:
    segments = text.split(".")
    if not 1 <= len(segments) <= 4 or any(not s for s in segments):
        raise _Invalid
    values = [_ipv4_segment(s, allow_hex) for s in segments]
    if any(v > 255 for v in values[:-1]) or values[-1] > _IPV4_MAX_SEGMENT[len(values)]:
        raise _Invalid
    value = 0
    for v in values[:-1]:
        value = (value << 8) | v
    return (value << (8 * (5 - len(values)))) | values[-1]


def _ipv6_groups(part: str) -> list[int]:
    if not part:
        return []
    groups = []
    for group in part.split(":"):
        if not group or not re.fullmatch(r"[0-9a-fA-F]+", group) or int(group, 16) > 0xFFFF:
            raise _Invalid
        groups.append(int(group, 16))
    return groups


def _ipv6(text: str) -> int:
    tail: list[int] = []
    if "." in text:  # an IPv4 tail (inet_aton segments, not hex) is the last two groups
        head, _, last = text.rpartition(":")
        four = _ipv4(last, allow_hex=False)
        tail = [four >> 16, four & 0xFFFF]
        text = head + ":" if head.endswith(":") else head  # "::1.2.3.4" keeps its "::"
    if text.count("::") > 1 or ":::" in text:
        raise _Invalid
    if "::" in text:
        left, right = text.split("::")
        groups_left, groups_right = _ipv6_groups(left), _ipv6_groups(right)
        count = len(groups_left) + len(groups_right) + len(tail)
        if count > 7:
            raise _Invalid
        groups = groups_left + [0] * (8 - count) + groups_right + tail
    else:
        groups = _ipv6_groups(text) + tail
        if len(groups) != 8:
            raise _Invalid
    value = 0
    for g in groups:
        value = (value << 16) | g
    return value


def parse(text: str) -> _Address | None:
    """``new IPAddressString(text).toAddress()``: an address, or None where the library gives none (a prefix
    alone, ``/24``); raises ``_Invalid`` where it throws, ``JavaThrows`` for a form not reproduced."""
    s = text.strip(_JAVA_TRIM)
    if not s:
        return _Address(4, 0x7F000001)
    address, slash, length = s.partition("/")
    if any(c in address for c in "*_-"):
        raise _not_reproduced(text, "a wildcard or a range")
    if slash and not address:  # a prefix alone: no address up to /32, beyond it the IPv6 network mask
        if re.fullmatch(r"[0-9]+", length) and int(length) <= 128:
            if int(length) <= 32:
                return None
            mask = _Address(6, 0, int(length))
            mask.value = mask.mask(mask.prefix)
            return mask
        raise _Invalid
    zone = None
    if "%" in address:
        address, _, zone = address.partition("%")
        zone = zone or None
        if ":" not in address:
            raise _Invalid
    result = _one_address(address)
    result.zone = zone
    if slash:
        if re.fullmatch(r"[0-9]+", length):
            prefix = int(length)
            if prefix > 2**31 - 1:
                raise _not_reproduced(text, "a prefix length beyond an int")
            if prefix > result.bits:
                raise _Invalid
            result.prefix = prefix
        elif "." in length or ":" in length:  # a mask: a network mask is its prefix length, else it masks
            mask = _one_address(length)
            if mask.version != result.version:
                raise _Invalid
            ones = bin(mask.value).count("1")
            if mask.value == result.mask(ones):
                result.prefix = ones
            else:
                result.value &= mask.value
        else:
            raise _Invalid
    return result


def _one_address(address: str) -> _Address:
    if ":" in address:
        if address.startswith("[") or address.endswith("]"):
            raise _Invalid
        return _Address(6, _ipv6(address))
    if "." not in address and len(address) == 32 and re.fullmatch(r"[0-9a-fA-F]+", address):
        return _Address(6, int(address, 16))
    return _Address(4, _ipv4(address))


def _address(text: str) -> _Address:
    try:
        address = parse(text)
    except _Invalid:
        raise JavaThrows(f"IllegalArgumentException: Invalid IP Address format for {text}") from None
    if address is None:
        raise JavaThrows("NullPointerException (no address in the text)")
    return address


def _prefix(text: str) -> _Address:
    address = _address(text)
    if address.prefix is None:
        raise JavaThrows(f"IllegalArgumentException: IP Address {text} should be prefixed.")
    return address


def _unprefixed(text: str) -> _Address:
    address = _address(text)
    if address.prefix is not None:
        raise JavaThrows(f"IllegalArgumentException: IP Address {text} should not be prefixed.")
    return address


def _lower(address: _Address) -> int:
    return address.value & address.mask(address.prefix)


def _upper(address: _Address) -> int:
    return address.value | (((1 << address.bits) - 1) ^ address.mask(address.prefix))


def canonical(version: int, value: int, zone: str | None = None) -> str:
    """``toCanonicalString()`` of one address."""
    if version == 4:
        return ".".join(str((value >> shift) & 0xFF) for shift in (24, 16, 8, 0))
    groups = [(value >> (16 * (7 - i))) & 0xFFFF for i in range(8)]
    best_start, best_length, i = -1, 1, 0
    while i < 8:
        if groups[i] == 0:
            j = i
            while j < 8 and groups[j] == 0:
                j += 1
            if j - i > best_length:
                best_start, best_length = i, j - i
            i = j
        else:
            i += 1
    if best_start < 0:
        text = ":".join(f"{g:x}" for g in groups)
    else:
        text = (":".join(f"{g:x}" for g in groups[:best_start]) + "::"
                + ":".join(f"{g:x}" for g in groups[best_start + best_length:]))
    return text + (f"%{zone}" if zone else "")


def is_subnet_of(prefix_text: str, address_text: str) -> bool:
    prefix = _prefix(prefix_text)
    address = _unprefixed(address_text)
    return prefix.version == address.version and _lower(prefix) <= address.value <= _upper(prefix)


def ip_prefix(text: str, bits: int) -> str:
    address = _unprefixed(text)
    if not 0 <= bits <= address.bits:
        raise JavaThrows(f"IllegalArgumentException: Invalid prefix length {bits} for IP address {text}. Must be "
                         f"between 0 and {address.bits}")
    return f"{canonical(address.version, address.value & address.mask(bits), address.zone)}/{bits}"


def _is_version(text: str, version: int) -> bool:
    if not text:
        return False
    try:
        address = parse(text)
    except _Invalid:
        return False
    return address is not None and address.version == version and address.prefix is None


def _ipv4_of(text: str) -> _Address:
    address = _address(text)
    if address.version != 4:
        raise JavaThrows(f"IllegalArgumentException: Not an IPv4 address: {text}")
    return address


def long_to_ipv4(value: int) -> str:
    if not 0 <= value <= 0xFFFFFFFF:
        raise JavaThrows(f"IllegalArgumentException: Value out of IPv4 range: {value}")
    return canonical(4, value)


def ipv6_to_bytes(text: str) -> bytes:
    address = _address(text)
    if address.version != 6:
        raise JavaThrows(f"IllegalArgumentException: Not an IPv6 address: {text}")
    return address.value.to_bytes(16, "big")


def bytes_to_ipv6(raw: bytes) -> str:
    if len(raw) != 16:
        raise JavaThrows(f"IllegalArgumentException: IPv6 address requires exactly 16 bytes, got {len(raw)}")
    return canonical(6, int.from_bytes(raw, "big"))


def ipv4_to_ipv6(text: str) -> str:
    address = _ipv4_of(text)
    mapped = canonical(6, 0xFFFF00000000 | address.value)
    return mapped if address.prefix is None else f"{mapped}/{address.prefix + 96}"


def ipv4_cidr_to_range(text: str) -> list[str]:
    prefix = _prefix(text)
    if prefix.version != 4:
        raise JavaThrows(f"IllegalArgumentException: Not an IPv4 CIDR: {text}")
    return [canonical(4, _lower(prefix)), canonical(4, _upper(prefix))]


def _mask(text: str, host: bool) -> str:
    prefix = _prefix(text)
    mask = prefix.mask(prefix.prefix)
    return canonical(prefix.version, (((1 << prefix.bits) - 1) ^ mask) if host else mask)


_PRIVATE = {4: [(0x7F000000, 8), (0xA9FE0000, 16), (0x0A000000, 8), (0xAC100000, 12), (0xC0A80000, 16)],
            6: [(1, 128), (0xFE80 << 112, 10), (0xFC00 << 112, 7)]}  # loopback, link-local, RFC 1918 / ULA


def is_private_ip(text: str) -> bool:
    address = _unprefixed(text)
    shift = address.bits
    if address.version == 6 and address.value >> 120 == 0xFF and (address.value >> 112) & 0xF == 2:
        return True  # multicast with link-local scope
    return any(address.value >> (shift - length) == network >> (shift - length)
               for network, length in _PRIVATE[address.version])


def _strings(fn, out_type: pa.DataType):
    def impl(ctx: Context, args: list[Value]) -> Value:
        return per_row(ctx, fn, out_type, *[to_string(a, ctx) for a in args])

    return impl


scalar_function("isSubnetOf", arity=2)(_strings(is_subnet_of, pa.bool_()))
scalar_function("ipSubnetMin", arity=1)(_strings(lambda t: canonical((p := _prefix(t)).version, _lower(p), p.zone),
                                                 pa.string()))
scalar_function("ipSubnetMax", arity=1)(_strings(lambda t: canonical((p := _prefix(t)).version, _upper(p), p.zone),
                                                 pa.string()))
scalar_function("isIPv4String", arity=1)(_strings(lambda t: _is_version(t, 4), pa.bool_()))
scalar_function("isIPv6String", arity=1)(_strings(lambda t: _is_version(t, 6), pa.bool_()))
scalar_function("ipv4ToLong", arity=1)(_strings(lambda t: _ipv4_of(t).value, pa.int64()))
scalar_function("ipv6ToBytes", arity=1)(_strings(ipv6_to_bytes, pa.binary()))
scalar_function("ipv4ToIpv6", arity=1)(_strings(ipv4_to_ipv6, pa.string()))
scalar_function("ipv4CIDRToRange", arity=1)(_strings(ipv4_cidr_to_range, pa.list_(pa.string())))
scalar_function("ipFamily", "ip_family", arity=1)(_strings(lambda t: _address(t).version, pa.int32()))
scalar_function("ipMaskLen", "ip_mask_len", arity=1)(_strings(lambda t: _prefix(t).prefix, pa.int32()))
scalar_function("ipNetmask", "ip_netmask", arity=1)(_strings(lambda t: _mask(t, False), pa.string()))
scalar_function("ipHostmask", "ip_hostmask", arity=1)(_strings(lambda t: _mask(t, True), pa.string()))
scalar_function("isPrivateIp", "is_private_ip", arity=1)(_strings(is_private_ip, pa.bool_()))


@scalar_function("ipPrefix", arity=2)
def _ip_prefix(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, ip_prefix, pa.string(), to_string(args[0], ctx), to_int(args[1], ctx))


@scalar_function("longToIpv4", arity=1)
def _long_to_ipv4(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, long_to_ipv4, pa.string(), to_long(args[0], ctx))


@scalar_function("bytesToIpv6", arity=1)
def _bytes_to_ipv6(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, bytes_to_ipv6, pa.string(), to_bytes(args[0], ctx))
