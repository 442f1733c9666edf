// java.time.Duration.parse(text).toMillis() for each line of stdin (a JSON string per line), printed as
// {"text": ..., "millis": N} or {"text": ..., "error": "<exception class>"}: the table
// tests/fixtures/java/java_duration.jsonl that ago() (pinot_sink/ingestion/functions/datetime.py) is checked
// against. Run with JDK 17: java tools/pinot_functions/JavaDuration.java < texts.jsonl
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

public class JavaDuration {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    StringBuilder out = new StringBuilder();
    while ((line = in.readLine()) != null) {
      String text = unquote(line);
      out.append("{\"text\": ").append(line).append(", ");
      try {
        long millis = Duration.parse(text).toMillis();
        out.append("\"millis\": ").append(millis);
      } catch (RuntimeException e) {
        out.append("\"error\": \"").append(e.getClass().getSimpleName()).append("\"");
      }
      out.append("}\n");
    }
    System.out.print(out);
  }

  // the texts are plain ASCII JSON strings: quotes around, no escapes but \" and \\
  private static String unquote(String json) {
    return json.substring(1, json.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
  }
}
