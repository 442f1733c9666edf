// Prints Pinot's FunctionRegistry as JSON lines: one line per (canonical name, argument count) that
// FunctionRegistry.lookupFunctionInfo(name, count) resolves, with the Java method it picks. Run against
// Pinot's own classes (pinot-verify's classpath), so the list is the registry's scan, not a reading of it:
//   javac -cp "$HOME/pinot-verify/classes:$HOME/pinot-verify/lib/*" -d /tmp/dfr DumpFunctionRegistry.java
//   java -cp "/tmp/dfr:$HOME/pinot-verify/classes:$HOME/pinot-verify/lib/*" DumpFunctionRegistry
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.TreeMap;
import org.apache.pinot.common.function.FunctionInfo;
import org.apache.pinot.common.function.FunctionRegistry;
import org.apache.pinot.common.function.PinotScalarFunction;
import org.apache.pinot.spi.annotations.ScalarFunction;

public class DumpFunctionRegistry {
  private static String q(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  public static void main(String[] args) throws Exception {
    Map<String, PinotScalarFunction> functions = new TreeMap<>(FunctionRegistry.getFunctions());
    for (Map.Entry<String, PinotScalarFunction> e : functions.entrySet()) {
      String name = e.getKey();
      PinotScalarFunction f = e.getValue();
      Map<Integer, FunctionInfo> infos = new TreeMap<>();
      boolean byCount = f instanceof FunctionRegistry.ArgumentCountBasedScalarFunction;
      if (byCount) {
        Field field = FunctionRegistry.ArgumentCountBasedScalarFunction.class.getDeclaredField("_functionInfoMap");
        field.setAccessible(true);
        @SuppressWarnings("unchecked")
        Map<Integer, FunctionInfo> m = (Map<Integer, FunctionInfo>) field.get(f);
        infos.putAll(m);
      } else {
        for (int n = 0; n <= 6; n++) {
          FunctionInfo info = f.getFunctionInfo(n);
          if (info != null) {
            infos.put(n, info);
          }
        }
      }
      if (infos.isEmpty()) {
        System.out.println("{\"name\": " + q(name) + ", \"class\": " + q(f.getClass().getName())
            + ", \"arity\": null}");
      }
      for (Map.Entry<Integer, FunctionInfo> i : infos.entrySet()) {
        Method m = i.getValue().getMethod();
        ScalarFunction ann = m.getAnnotation(ScalarFunction.class);
        if (ann == null) {
          ann = f.getClass().getAnnotation(ScalarFunction.class);
        }
        StringBuilder names = new StringBuilder();
        if (ann != null) {
          for (String n : ann.names()) {
            names.append(names.length() == 0 ? "" : ", ").append(q(n));
          }
        }
        StringBuilder params = new StringBuilder();
        for (Class<?> p : m.getParameterTypes()) {
          params.append(params.length() == 0 ? "" : ", ").append(q(p.getSimpleName()));
        }
        System.out.println("{\"name\": " + q(name) + ", \"arity\": " + i.getKey()
            + ", \"class\": " + q(byCount ? m.getDeclaringClass().getName() : f.getClass().getName())
            + ", \"method\": " + q(m.getName()) + ", \"declared_names\": [" + names + "]"
            + ", \"params\": [" + params + "], \"returns\": " + q(m.getReturnType().getSimpleName())
            + ", \"nullable\": " + i.getValue().hasNullableParameters()
            + ", \"deterministic\": " + i.getValue().isDeterministic()
            + ", \"polymorphic\": " + !byCount + "}");
      }
    }
  }
}
