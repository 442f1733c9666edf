"""Ports of Java libraries, bit for bit: the lowest floor of the house.

Pinot runs on Java 17, and a value it writes is what a Java library computed: ``Double.toString``, HotSpot's
``Math`` stubs, ``StrictMath``'s fdlibm, ``java.util.regex``, ``java.net.URI``, Jayway's JsonPath, JTS's
relate. Each module here ports one such library class or algorithm and is named after it; none knows of Pinot,
a segment or a Spark job, and none imports anything of ``pinot_sink`` or ``type_mapping`` (tests/test_import_graph.py):
Pinot's own rules, which call these, live above (``type_mapping``, ``pinot_sink.ingestion``).
"""
