"""pinot_sink: write Spark DataFrames into Apache Pinot OFFLINE tables.

Data flow, one module each: DataFrame -> Arrow batches (Spark) -> ``type_mapping`` (stored values)
-> ``pinot_sink.buffer`` (per-partition buffer) -> ``pinot_sink.segment`` (segment builder, tarball)
-> ``pinot_sink.controller`` (uploader) -> ``pinot_sink.datasource`` (driver commit).
"""
__version__ = "0.1.0"
