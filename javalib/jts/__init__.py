"""JTS (the Java Topology Suite, 1.20) as Pinot's geospatial functions call it."""
