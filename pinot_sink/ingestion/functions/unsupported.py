"""Pinot scalar functions this package refuses, each with the reason (canonical name -> reason).

With the registry this is the whole of Pinot's list (tests/fixtures/functions/pinot_scalar_functions.json,
dumped from Pinot's own FunctionRegistry): every canonical name there is either registered or here
(tests/ingestion/test_function_list.py). A transform or filter naming one of these fails when the config is
read, with the reason.
"""
from __future__ import annotations

from .registry import REGISTRY

_NON_DETERMINISTIC = ("non-deterministic (the clock, a random source or a fresh UUID): a Spark task retried or a "
                      "segment rebuilt would store another value, so the commit would not be exactly once; compute "
                      "the value in Spark before writing")
_QUERY_ONLY = "query-time context (broker, request, stage ids); it has no value at ingestion"
_IP = ("IP address functions (the inet.ipaddr library): no Java reference here to check an implementation against "
       "(pinot-verify runs them on a stand-in); not implemented")
_FORY = "Apache Fory's JSON path extractor: not in Pinot's default build here (pinot-verify lacks it); not implemented"
_NOT_YET = "not implemented yet"
_GEO = ("a geospatial function beyond points (JTS shapes, GeoJSON, WKB, H3 cells): not implemented yet; points are "
        "(stPoint, ST_GeomFromText of a POINT, toSphericalGeography, toGeometry)")

UNSUPPORTED: dict[str, str] = {
    **{name: _NON_DETERMINISTIC for name in ("now", "ago", "agomv", "sleep", "rand/0", "uuidv4", "uuidv7")},
    **{name: _QUERY_ONLY for name in ("brokerid", "cid", "endtime", "queryengine", "reqid", "stageid",
                                      "starttime", "workerid")},
    **{name: _IP for name in ("bytestoipv6", "ipfamily", "iphostmask", "ipmasklen", "ipnetmask", "ipprefix",
                              "ipsubnetmax", "ipsubnetmin", "ipv4cidrtorange", "ipv4toipv6", "ipv4tolong",
                              "ipv6tobytes", "isipv4string", "isipv6string", "isprivateip", "issubnetof",
                              "longtoipv4")},
    **{name: _FORY for name in ("jsonpathdoublefory", "jsonpathlongfory", "jsonpathstringfory")},
    **{name: _GEO for name in ("griddisk", "griddistance", "geotoh3", "stasbinary", "stasgeojson", "stastext",
                               "stcontains", "stdistance", "stequals", "stgeogfromgeojson", "stgeogfromwkb",
                               "stgeometrytype", "stgeomfromgeojson", "stgeomfromwkb", "stwithin")
       if name not in REGISTRY},
}


def reason(canonical_name: str, num_args: int | None = None) -> str | None:
    """Why ``name`` (with ``num_args`` arguments, when one overload only is refused: ``rand/0``) is refused."""
    if num_args is not None and f"{canonical_name}/{num_args}" in UNSUPPORTED:
        return UNSUPPORTED[f"{canonical_name}/{num_args}"]
    return UNSUPPORTED.get(canonical_name)
