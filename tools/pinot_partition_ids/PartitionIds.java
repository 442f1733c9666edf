package pinotsink.verify;

import java.io.BufferedReader;
import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pinot.segment.spi.partition.PartitionFunction;
import org.apache.pinot.segment.spi.partition.PartitionFunctionFactory;

/**
 * Asks Pinot's own partition functions for the partition id of every key of a file.
 *
 * Usage: PartitionIds TYPE KEYS SPECS OUTDIR
 *   TYPE   INT | LONG | FLOAT | DOUBLE | BIG_DECIMAL | STRING | BYTES
 *   KEYS   one key a line: INT/LONG/BIG_DECIMAL as decimal text, FLOAT/DOUBLE as the hex of their IEEE bits,
 *          STRING/BYTES as the hex of their (UTF-8) bytes
 *   SPECS  one function a line: name|numPartitions|k=v;k=v (the functionConfig)
 *   OUTDIR writes <line number>.ids: one byte per key, the partition id (255 when getPartition throws)
 * Each key becomes the string Pinot's stats collectors hand to getPartition (Integer/Long/Float/Double.toString,
 * BigDecimal.toPlainString, the string itself, lower-case hex of the bytes).
 */
public class PartitionIds {
  public static void main(String[] args) throws Exception {
    String type = args[0];
    List<String> keys = new ArrayList<>();
    try (BufferedReader reader = Files.newBufferedReader(Paths.get(args[1]), StandardCharsets.US_ASCII)) {
      String line;
      while ((line = reader.readLine()) != null) {
        keys.add(stringForm(type, line));
      }
    }
    List<String> specs = Files.readAllLines(Paths.get(args[2]), StandardCharsets.UTF_8);
    for (int s = 0; s < specs.size(); s++) {
      String[] parts = specs.get(s).split("\\|", -1);
      Map<String, String> config = new HashMap<>();
      if (parts.length > 2 && !parts[2].isEmpty()) {
        for (String pair : parts[2].split(";")) {
          int eq = pair.indexOf('=');
          config.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
      }
      PartitionFunction function =
          PartitionFunctionFactory.getPartitionFunction(parts[0], Integer.parseInt(parts[1]), config);
      try (OutputStream out = new BufferedOutputStream(new FileOutputStream(Paths.get(args[3], s + ".ids").toFile()))) {
        for (String key : keys) {
          int id;
          try {
            id = function.getPartition(key);
          } catch (RuntimeException e) {
            id = 255;
          }
          out.write(id);
        }
      }
      System.err.println(specs.get(s) + " -> " + function.getName() + " " + function.getPartitionIdNormalizer());
    }
  }

  private static String stringForm(String type, String line) {
    switch (type) {
      case "INT":
        return Integer.toString(Integer.parseInt(line));
      case "LONG":
        return Long.toString(Long.parseLong(line));
      case "FLOAT":
        return Float.toString(Float.intBitsToFloat(Integer.parseUnsignedInt(line, 16)));
      case "DOUBLE":
        return Double.toString(Double.longBitsToDouble(Long.parseUnsignedLong(line, 16)));
      case "BIG_DECIMAL":
        return new BigDecimal(line).toPlainString();
      case "STRING":
        return new String(hex(line), StandardCharsets.UTF_8);
      case "BYTES":
        return org.apache.pinot.spi.utils.BytesUtils.toHexString(hex(line));
      default:
        throw new IllegalArgumentException("unknown type " + type);
    }
  }

  private static byte[] hex(String text) {
    byte[] out = new byte[text.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(text.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }
}
