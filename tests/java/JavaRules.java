// Java's own answers for the rules pinot_sink mirrors (tests/type_mapping/test_java_rules.py runs it).
// Reads requests from stdin, one per line: "<rule> <arg>..." (doubles and floats as raw bits, so that nothing
// is lost in between), and prints one answer per line; a Java exception prints "!" and its class name.
// Rules: dstr <longBits> (Double.toString), fstr <intBits> (Float.toString), log/log2/log10/exp/sqrt/sin/cos/tan <longBits>
// and pow <longBits> <longBits> (as Pinot's ArithmeticFunctions write them, result as long bits),
// zone <id> (Joda DateTimeZone.forID(id).getID(); "\0" stands for the empty id),
// fields <millis> <zone> (Joda DateTime year month day hour minute second millis in that zone),
// fdlibm <function> <longBits> [<longBits>] (Math.asin ... hypot, see fdlibm()),
// floor <unit> <millis> (Joda roundFloor in ISO UTC, second..year), iso <millis> (java.time.Instant.ofEpochMilli(millis).toString(), Pinot's toIso8601).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.joda.time.DateTime;
import org.joda.time.DateTimeZone;

public class JavaRules {
  public static void main(String[] args) throws Exception {
    System.out.print(serve("", JavaOracle.lines(System.in)));
  }

  // JavaOracle's entry (one JVM answering every test's questions); one mode: a request names its rule.
  public static String serve(String mode, List<String> lines) {
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      String[] p = line.split(" ", -1);
      try {
        out.append(answer(p));
      } catch (Exception e) {
        out.append('!').append(e.getClass().getSimpleName());
      }
      out.append('\n');
    }
    return out.toString();
  }

  static double d(String bits) {
    return Double.longBitsToDouble(Long.parseLong(bits));
  }

  static String bits(double v) {
    return Long.toString(Double.doubleToRawLongBits(v));
  }

  static String answer(String[] p) {
    switch (p[0]) {
      case "dstr": return Double.toString(d(p[1]));
      case "fstr": return Float.toString(Float.intBitsToFloat(Integer.parseInt(p[1])));
      case "log": return bits(Math.log(d(p[1])));
      case "log2": return bits(Math.log(d(p[1])) / Math.log(2));
      case "log10": return bits(Math.log10(d(p[1])));
      case "exp": return bits(Math.exp(d(p[1])));
      case "sqrt": return bits(Math.sqrt(d(p[1])));
      case "pow": return bits(Math.pow(d(p[1]), d(p[2])));
      case "sin": return bits(Math.sin(d(p[1])));
      case "cos": return bits(Math.cos(d(p[1])));
      case "tan": return bits(Math.tan(d(p[1])));
      case "zone": return DateTimeZone.forID(p[1].equals("\0") ? "" : p[1]).getID();
      case "fields": {
        DateTime t = new DateTime(Long.parseLong(p[1]), DateTimeZone.forID(p[2]));
        return t.getYear() + " " + t.getMonthOfYear() + " " + t.getDayOfMonth() + " " + t.getHourOfDay() + " "
            + t.getMinuteOfHour() + " " + t.getSecondOfMinute() + " " + t.getMillisOfSecond();
      }
      case "floor": {  // Joda's roundFloor in ISO UTC, as Pinot's dateTrunc field for the unit
        org.joda.time.Chronology c = org.joda.time.chrono.ISOChronology.getInstanceUTC();
        long m = Long.parseLong(p[2]);
        switch (p[1]) {
          case "second": return Long.toString(c.secondOfMinute().roundFloor(m));
          case "minute": return Long.toString(c.minuteOfHour().roundFloor(m));
          case "hour": return Long.toString(c.hourOfDay().roundFloor(m));
          case "day": return Long.toString(c.dayOfMonth().roundFloor(m));
          case "week": return Long.toString(c.weekOfWeekyear().roundFloor(m));
          case "month": return Long.toString(c.monthOfYear().roundFloor(m));
          case "year": return Long.toString(c.year().roundFloor(m));
          default: throw new IllegalArgumentException(p[1]);
        }
      }
      case "iso": return java.time.Instant.ofEpochMilli(Long.parseLong(p[1])).toString();
      case "fdlibm": return bits(fdlibm(p[1], d(p[2]), p.length > 3 ? d(p[3]) : 0.0));
      default: throw new IllegalArgumentException(p[0]);
    }
  }

  // fdlibm <name> <longBits> [<longBits>]: the Math functions JDK 17 delegates to StrictMath (fdlibm), as Pinot's
  // TrigonometricFunctions / ArithmeticFunctions call them; sexp is StrictMath.exp, sigmoid Pinot's formula
  static double fdlibm(String name, double a, double b) {
    switch (name) {
      case "asin": return Math.asin(a);
      case "acos": return Math.acos(a);
      case "atan": return Math.atan(a);
      case "atan2": return Math.atan2(a, b);
      case "sinh": return Math.sinh(a);
      case "cosh": return Math.cosh(a);
      case "tanh": return Math.tanh(a);
      case "expm1": return Math.expm1(a);
      case "log1p": return Math.log1p(a);
      case "hypot": return Math.hypot(a, b);
      case "cbrt": return Math.cbrt(a);
      case "sexp": return StrictMath.exp(a);
      case "sigmoid": return 1.0 / (1.0 + Math.exp(-a));
      default: throw new IllegalArgumentException(name);
    }
  }
}
