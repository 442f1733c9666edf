"""URL functions (UrlFunctions) over ``java.net.URI`` (``java_uri``), once per distinct value.

Each function catches every exception as Pinot's does: an unparsable URL gives null (``urlProtocol``...),
-1 (``urlPort``), ``""`` (``extractURLParameter``), an empty array (stored as null) or the URL unchanged
(``cut...``). ``encodeUrl``-style functions are in ``binary``.
"""
from __future__ import annotations

import pyarrow as pa

from ..values import Context, Value, to_string
from javalib import uri as java_uri
from .array_functions import to_array
from .string_functions_bytes import java_url_decode
from .registry import scalar_function
from .rowwise import JavaThrows, per_row

_SIGNIFICANT_TLDS = ("com", "net", "org", "co")


def java_split(text: str, sep: str, limit: int = 0) -> list[str]:
    """``String.split`` with a literal separator: limit 0 drops trailing empty strings."""
    if text == "":
        return [""]
    parts = text.split(sep, limit - 1) if limit > 0 else text.split(sep)
    if limit == 0:
        while parts and parts[-1] == "":
            parts.pop()
    return parts


def _uri(url: str):
    try:
        return java_uri.parse(url)
    except java_uri.URISyntaxError:
        return None


def _host(url: str):
    uri = _uri(url)
    return None if uri is None else uri.host


def url_protocol(url):
    uri = _uri(url)
    return None if uri is None else uri.scheme


def url_domain_without_www(url):
    domain = _host(url)
    return domain[4:] if domain is not None and domain.startswith("www.") else domain


def url_top_level_domain(url):
    domain = _host(url)
    if domain is None:
        return None
    parts = java_split(domain, ".")
    return parts[-1] if parts else None  # Java: index -1 throws, caught: null


def _labels(url):
    domain = _host(url)
    return domain, (None if domain is None else java_split(domain, "."))


def url_first_significant_subdomain(url):
    domain, parts = _labels(url)
    if domain is None or not parts:
        return None
    if len(parts) <= 2:
        return parts[0]
    return parts[-2] if parts[-1] in _SIGNIFICANT_TLDS else parts[-3]


def cut_to_first_significant_subdomain(url, www=False):
    domain, parts = _labels(url)
    if domain is None:
        return None
    if len(parts) <= 2:
        return domain
    if parts[-1] in _SIGNIFICANT_TLDS:
        sub = parts[-2] + "." + parts[-1]
        return "www." + sub if www and parts[0] == "www" and len(parts) == 3 else sub
    sub = parts[-3] + "." + parts[-2] + "." + parts[-1]
    return "www." + sub if www and parts[0] == "www" and len(parts) == 4 else sub


def url_port(url):
    uri = _uri(url)
    return -1 if uri is None else uri.port


def _server_uri(url):
    uri = _uri(url)
    return None if uri is None or uri.scheme is None or uri.host is None else uri


def url_path(url):
    uri = _server_uri(url)
    return None if uri is None else uri.path


def url_path_with_query(url):
    uri = _server_uri(url)
    return None if uri is None else uri.raw_path


def url_query_string(url):
    uri = _uri(url)
    return None if uri is None else uri.raw_query


def url_fragment(url):
    uri = _uri(url)
    return None if uri is None else uri.fragment


def url_query_string_and_fragment(url):
    uri = _uri(url)
    if uri is None or (uri.query is None and uri.fragment is None):
        return None
    text = uri.query or ""
    if uri.fragment is not None:
        text = text + "#" + uri.fragment if text else uri.fragment
    return text


def extract_url_parameter(url, name):
    uri = _uri(url)
    if uri is None or uri.query is None:
        return ""
    for param in java_split(uri.query, "&"):
        key_value = java_split(param, "=", 2)
        if key_value[0] == name:
            return key_value[1] if len(key_value) > 1 else ""
    return ""


def extract_url_parameters(url):
    uri = _uri(url)
    if uri is None or uri.query is None:
        return []
    return java_split(uri.query, "&")


def extract_url_parameter_names(url):
    return [java_split(p, "=", 2)[0] for p in extract_url_parameters(url)]


def url_hierarchy(url):
    uri = _server_uri(url)
    if uri is None:
        return []
    base = uri.scheme + "://" + uri.host
    path = uri.path
    if not path:
        return [base]
    parts = java_split(path, "/")
    if not parts:
        return []  # Java writes index 0 of an empty array: caught, empty
    out = [base]
    for part in parts[1:]:
        out.append(out[-1] + "/" + part)
    return out


def url_path_hierarchy(url):
    uri = _uri(url)
    if uri is None or not uri.path:
        return []
    parts = java_split(uri.path, "/")
    return ["".join("/" + p for p in parts[1:i + 1]) for i in range(1, len(parts))]


def url_netloc(url):
    uri = _uri(url)
    if uri is None:
        return None
    text = (uri.user_info + "@") if uri.user_info else ""
    text += uri.host or ""
    return text + ("" if uri.port == -1 else f":{uri.port}")


def _rebuild(url, host_fn=lambda h: h, query=False, fragment=False):
    """``new URI(scheme, userInfo, host, port, path, query, fragment).toString()`` of the parsed parts."""
    uri = _uri(url)
    if uri is None:
        return url
    try:
        return java_uri.build(uri.scheme, uri.user_info, host_fn(uri.host), uri.port, uri.path,
                              uri.query if query else None, uri.fragment if fragment else None)
    except java_uri.URISyntaxError:
        return url


def cut_www(url):
    return _rebuild(url, host_fn=lambda h: h[4:] if h is not None and h.startswith("www.") else h, query=True,
                    fragment=True)


def cut_url_parameter(url, name):
    uri = _uri(url)
    if uri is None or not uri.query:
        return url
    try:
        # Pinot's StringBuilder: '&' goes before a kept parameter only once the text is not empty, so empty
        # parameters before the first non-empty one vanish, and a query left empty is no query at all
        query = ""
        for param in java_split(uri.query, "&"):
            pair = java_split(param, "=", 2)
            if java_url_decode(pair[0]) != name:
                query += ("&" if query else "") + pair[0] + ("=" + pair[1] if len(pair) > 1 else "")
        return java_uri.build(uri.scheme, uri.user_info, uri.host, uri.port, uri.path, query or None, uri.fragment)
    except (JavaThrows, java_uri.URISyntaxError):
        return url


_STRING_FUNCTIONS = {
    "urlProtocol": url_protocol,
    "urlDomain": _host,
    "urlDomainWithoutWWW": url_domain_without_www,
    "urlTopLevelDomain": url_top_level_domain,
    "urlFirstSignificantSubdomain": url_first_significant_subdomain,
    "cutToFirstSignificantSubdomain": cut_to_first_significant_subdomain,
    "cutToFirstSignificantSubdomainWithWWW": lambda url: cut_to_first_significant_subdomain(url, www=True),
    "urlPath": url_path,
    "urlPathWithQuery": url_path_with_query,
    "urlQueryString": url_query_string,
    "urlFragment": url_fragment,
    "urlQueryStringAndFragment": url_query_string_and_fragment,
    "urlNetloc": url_netloc,
    "cutWWW": cut_www,
    "cutQueryString": lambda url: _rebuild(url, fragment=True),
    "cutFragment": lambda url: _rebuild(url, query=True),
    "cutQueryStringAndFragment": lambda url: _rebuild(url),
}
_ARRAY_FUNCTIONS = {
    "extractURLParameters": extract_url_parameters,
    "extractURLParameterNames": extract_url_parameter_names,
    "urlHierarchy": url_hierarchy,
    "urlPathHierarchy": url_path_hierarchy,
}


def _register() -> None:
    for name, fn in _STRING_FUNCTIONS.items():
        scalar_function(name, arity=1)(
            lambda ctx, args, fn=fn: per_row(ctx, fn, pa.string(), to_string(args[0], ctx)))
    for name, fn in _ARRAY_FUNCTIONS.items():
        scalar_function(name, arity=1)(
            lambda ctx, args, fn=fn: per_row(ctx, fn, pa.list_(pa.string()), to_string(args[0], ctx)))


_register()


@scalar_function("urlPort", arity=1)
def _url_port(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, url_port, pa.int32(), to_string(args[0], ctx))


@scalar_function("extractURLParameter", arity=2)
def _extract_url_parameter(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, extract_url_parameter, pa.string(), to_string(args[0], ctx), to_string(args[1], ctx))


@scalar_function("cutURLParameter", arity=2)
def _cut_url_parameter(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, cut_url_parameter, pa.string(), to_string(args[0], ctx), to_string(args[1], ctx))


def cut_url_parameters(url, names):
    """``cutURLParameters``: ``cutURLParameter`` once per name, in order (a null name removes nothing)."""
    for name in names:
        url = cut_url_parameter(url, name)
    return url


@scalar_function("cutURLParameters", arity=2)
def _cut_url_parameters(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, cut_url_parameters, pa.string(), to_string(args[0], ctx), to_array(args[1], "String", ctx))
