import java.io.BufferedReader;
import java.io.InputStreamReader;

import org.locationtech.jts.geom.Geometry;
import org.locationtech.jts.io.WKTReader;
import org.locationtech.jts.operation.relate.RelateOp;

/**
 * JTS's old RelateOp on pairs of WKT (one pair a line on stdin, tab-separated): the DE-9IM matrix, or "!" and the
 * exception's class and message. For tools/pinot_functions/relate_sweep.py (compile and run against
 * jts-core-1.20.0.jar).
 */
public class RelateMatrixReference {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    WKTReader reader = new WKTReader();
    String line;
    while ((line = in.readLine()) != null) {
      String[] pair = line.split("\t");
      String out;
      try {
        out = RelateOp.relate(reader.read(pair[0]), reader.read(pair[1])).toString();
      } catch (Throwable t) {
        out = "!" + t.getClass().getSimpleName() + ": " + t.getMessage();
      }
      System.out.println(out.replace("\n", " "));
    }
  }
}
