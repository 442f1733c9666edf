// One JVM for every Java comparison of a test session (tests/java_oracle.py starts it): starting a JVM per
// question cost a second or more each. Reads a request "<class> <mode> <n>" then n lines; calls
// <class>.serve(mode, lines) (JavaRegex, JavaRules: found by name, so a class whose jar is missing is only
// missing when asked) and prints "<m>" then the m answer lines. An exception prints "!<class name>" as the only
// answer line.
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

public class JavaOracle {
  static List<String> lines(InputStream stream) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8));
    List<String> lines = new ArrayList<>();
    for (String line; (line = in.readLine()) != null; ) {
      lines.add(line);
    }
    return lines;
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    for (String header; (header = in.readLine()) != null; ) {
      String[] h = header.split(" ", -1);
      List<String> request = new ArrayList<>();
      for (int i = Integer.parseInt(h[2]); i > 0; i--) {
        request.add(in.readLine());
      }
      String answer;
      try {
        answer = (String) Class.forName(h[0]).getMethod("serve", String.class, List.class)
            .invoke(null, h[1], request);
      } catch (InvocationTargetException e) {
        answer = "!" + e.getCause().getClass().getSimpleName() + "\n";
      } catch (Exception | LinkageError e) {
        answer = "!" + e.getClass().getSimpleName() + "\n";
      }
      int count = 0;
      for (int i = 0; i < answer.length(); i++) {
        if (answer.charAt(i) == '\n') count++;
      }
      out.print(count + "\n" + answer);
      out.flush();
    }
  }
}
