// The zone names Joda prints for a date pattern's 'z' (short) and 'zzzz' (long), as Pinot's toDateTime does:
// DateTimeZone.getShortName / getName ask Joda's DefaultNameProvider, which reads the JVM's English
// DateFormatSymbols.getZoneStrings() by the zone's Joda id ("Etc/" taken off), one pair of names for
// standard time and one for daylight time, whatever the tz database's abbreviation ("LMT", "+0530") of the
// instant; a zone the JVM names not prints its offset. This prints, for every id of Joda's tz database,
// its Joda id and the four names (null: none), as the data file type_mapping/joda_zone_names.json; and for
// the zones in NEGATIVE (below) Joda's standard offsets from 1600 to 2400, where standard time is not what
// zoneinfo's saving says: tzdata's negative savings (Dublin's winter, Morocco's Ramadan, Namibia), which
// Joda's compiler turns into a lower standard offset, and wartime double summer times. (Found by comparing
// Joda's isStandardOffset at every transition of every zone with zoneinfo's dst(): the other zones agree
// but for tz database versions, where the offsets differ too.)
// Run with the JDK 17 and the Joda jar of pinot-verify (Pinot 210c2951e720: joda-time 2.14.1):
//   java -cp ~/pinot-verify/lib/joda-time-2.14.1.jar tools/pinot_functions/JodaZoneNames.java > type_mapping/joda_zone_names.json
// With --sample: Joda's own 'z' / 'zzzz' texts of every zone at a few instants (LMT, 1938, 1970, winter and
// summer 2024, 2036), JSON lines, the table tests/fixtures/java/joda_zone_names.jsonl the Python is checked by.
import java.util.Locale;
import java.util.TreeSet;
import org.joda.time.DateTimeZone;
import org.joda.time.tz.DefaultNameProvider;

public class JodaZoneNames {
  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("--sample")) {
      sample();
      return;
    }
    DefaultNameProvider names = (DefaultNameProvider) DateTimeZone.getNameProvider();
    Locale locale = Locale.getDefault();
    StringBuilder out = new StringBuilder();
    out.append("{\"generated\": ").append(quote("tools/pinot_functions/JodaZoneNames.java, joda-time "
        + DateTimeZone.class.getPackage().getImplementationVersion() + ", Java " + System.getProperty("java.version")
        + ", locale " + locale + "; do not edit")).append(",\n");
    out.append(" \"names\": {\n");
    boolean first = true;
    for (String id : new TreeSet<>(DateTimeZone.getAvailableIDs())) {
      String joda = DateTimeZone.forID(id).getID();
      out.append(first ? "" : ",\n").append("  ").append(quote(id)).append(": [").append(quote(joda));
      first = false;
      for (boolean standard : new boolean[] {true, false}) {
        out.append(", ").append(quote(names.getShortName(locale, joda, "-", standard)));
        out.append(", ").append(quote(names.getName(locale, joda, "-", standard)));
      }
      out.append("]");
    }
    out.append("},\n \"standard\": {\n");
    first = true;
    for (String id : NEGATIVE) {
      DateTimeZone zone = DateTimeZone.forID(id);
      out.append(first ? "" : ",\n").append("  ").append(quote(id)).append(": [");
      first = false;
      long t = -11676096000000L;  // 1600-01-01
      Integer last = null;
      while (t < 13569465600000L) {  // 2400-01-01
        int standard = zone.getStandardOffset(t);
        if (last == null || standard != last) {
          out.append(last == null ? "" : ", ").append("[").append(t).append(", ").append(standard).append("]");
          last = standard;
        }
        long next = zone.nextTransition(t);
        if (next <= t) {
          break;
        }
        t = next;
      }
      out.append("]");
    }
    out.append("}}\n");
    System.out.print(out);
  }

  private static final String[] NEGATIVE = {"Africa/Casablanca", "Africa/El_Aaiun", "Africa/Windhoek",
      "Asia/Hong_Kong", "Eire", "Europe/Bratislava", "Europe/Dublin", "Europe/Kiev", "Europe/Kyiv", "Europe/Minsk",
      "Europe/Prague", "Europe/Riga", "Europe/Simferopol", "Europe/Tallinn", "Europe/Uzhgorod", "Europe/Vilnius",
      "Europe/Zaporozhye", "Hongkong"};

  private static final long[] INSTANTS = {-8947865968113L, -1000000000000L, 0L, 1704067200000L, 1720000000000L,
      2098000000000L};

  private static void sample() {
    StringBuilder out = new StringBuilder();
    out.append("{\"instants\": ").append(java.util.Arrays.toString(INSTANTS)).append("}\n");
    java.util.List<String> ids = new java.util.ArrayList<>(new TreeSet<>(DateTimeZone.getAvailableIDs()));
    ids.addAll(java.util.List.of("+05:45", "-23:59", "UTC+01:00", "+00:00", "Z"));
    for (String id : ids) {
      DateTimeZone zone = DateTimeZone.forID(id);
      out.append("{\"id\": ").append(quote(id)).append(", \"z\": [");
      for (int i = 0; i < INSTANTS.length; i++) {
        out.append(i > 0 ? ", " : "").append(quote(zone.getShortName(INSTANTS[i], Locale.getDefault())));
      }
      out.append("], \"zzzz\": [");
      for (int i = 0; i < INSTANTS.length; i++) {
        out.append(i > 0 ? ", " : "").append(quote(zone.getName(INSTANTS[i], Locale.getDefault())));
      }
      out.append("]}\n");
    }
    System.out.print(out);
  }

  private static String quote(String text) {
    return text == null ? "null" : "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
