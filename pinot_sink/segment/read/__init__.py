"""The read side of segments: ``open_segment`` / ``read_segment`` (``reader``), the metadata as Pinot's
reader sees it (``segment_metadata``), and one decoder per index (``decoders``, ``raw_forward``).

Nothing here is needed to build a segment, and nothing in the write side imports it.
"""
