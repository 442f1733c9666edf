import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import org.apache.helix.zookeeper.datamodel.ZNRecord;
import org.apache.helix.zookeeper.datamodel.serializer.ZNRecordSerializer;

// Reads records in a line format (R id / S k v / L k v1<TAB>v2... / M k inner<TAB>value<TAB>inner<TAB>value / E),
// serialises each with Helix's ZNRecordSerializer, prints: id rawJsonBytes serializedBytes compressed(0/1)
public class RecordSize {
  public static void main(String[] args) throws Exception {
    ZNRecordSerializer ser = new ZNRecordSerializer();
    com.fasterxml.jackson.databind.ObjectMapper plain = new com.fasterxml.jackson.databind.ObjectMapper();
    BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(args[0]), StandardCharsets.UTF_8));
    ZNRecord rec = null;
    String line;
    while ((line = in.readLine()) != null) {
      String[] p = line.split("\t", -1);
      switch (p[0]) {
        case "R": rec = new ZNRecord(p[1]); break;
        case "S": rec.setSimpleField(p[1], p[2]); break;
        case "L": rec.setListField(p[1], new ArrayList<>(Arrays.asList(p).subList(2, p.length))); break;
        case "M": { Map<String, String> m = new TreeMap<>(); for (int i = 2; i + 1 < p.length; i += 2) m.put(p[i], p[i+1]); rec.setMapField(p[1], m); break; }
        case "E": {
          byte[] out = ser.serialize(rec);
          boolean gz = out.length > 1 && (out[0] == (byte) 0x1f) && (out[1] == (byte) 0x8b);
          int raw = gz ? new String(uncompress(out), StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8).length : out.length;
          System.out.println(rec.getId() + "\t" + raw + "\t" + out.length + "\t" + (gz ? 1 : 0));
          if (args.length > 1) Files.write(Paths.get(args[1] + "." + rec.getId()), gz ? uncompress(out) : out);
          break;
        }
      }
    }
  }
  static byte[] uncompress(byte[] b) throws IOException {
    java.util.zip.GZIPInputStream g = new java.util.zip.GZIPInputStream(new ByteArrayInputStream(b));
    return g.readAllBytes();
  }
}
