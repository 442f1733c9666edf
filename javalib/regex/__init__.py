"""Java regular expressions (java.util.regex) as Pinot's JVM runs them."""
