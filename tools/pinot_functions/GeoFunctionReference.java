import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;


/**
 * Pinot's geospatial scalar functions (pinot-core's geospatial ScalarFunctions, called by reflection) evaluated on
 * rows, for tools/pinot_functions/geo_reference.py: pinot-verify's builder lacks pinot-core, so this stands in
 * for Pinot's ExpressionTransformer on these functions only.
 *
 * stdin: {"transforms": {column: expression}, "input_types": {column: "string" | "binary" | ...}, "rows": [...]};
 * binary inputs are hex. stdout: one JSON line a row, {"values": {column: value}, "failed": [column, ...]}; a
 * byte[] value as hex, a double as Java's Double.toString text (so NaN and the digits are Java's), a long[]
 * as a list of longs.
 *
 * An expression is a call tree of those functions over input columns and literals, evaluated as
 * InbuiltFunctionEvaluator does: a null argument makes the (non-nullable) function's result null without
 * calling it; a thrown exception fails the row's column (continueOnError: the value becomes null).
 * isNotNull(e) is evaluated too (it fails where e fails), to tell a failure from a null.
 */
public final class GeoFunctionReference {
  private static final Class<?> FUNCTIONS;

  static {
    try {
      FUNCTIONS = Class.forName("org.apache.pinot.core.geospatial.transform.function.ScalarFunctions");
    } catch (ClassNotFoundException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private GeoFunctionReference() {
  }

  /** A parsed expression: a column, a literal or a call. */
  private static final class Node {
    String column;
    Object literal;
    boolean isLiteral;
    String function;
    List<Node> args = new ArrayList<>();
  }

  private static final class Parser {
    private final String _s;
    private int _i;

    Parser(String s) {
      _s = s;
    }

    Node parse() {
      Node node = expr();
      skip();
      if (_i != _s.length()) {
        throw new IllegalArgumentException("trailing text in " + _s);
      }
      return node;
    }

    private void skip() {
      while (_i < _s.length() && Character.isWhitespace(_s.charAt(_i))) {
        _i++;
      }
    }

    private Node expr() {
      skip();
      Node node = new Node();
      char c = _s.charAt(_i);
      if (c == '\'') {
        StringBuilder sb = new StringBuilder();
        _i++;
        while (true) {
          char d = _s.charAt(_i++);
          if (d == '\'') {
            if (_i < _s.length() && _s.charAt(_i) == '\'') {
              sb.append('\'');
              _i++;
              continue;
            }
            break;
          }
          sb.append(d);
        }
        node.isLiteral = true;
        node.literal = sb.toString();
        return node;
      }
      int start = _i;
      while (_i < _s.length() && (Character.isLetterOrDigit(_s.charAt(_i)) || "_.-".indexOf(_s.charAt(_i)) >= 0)) {
        _i++;
      }
      String word = _s.substring(start, _i);
      skip();
      if (_i < _s.length() && _s.charAt(_i) == '(') {
        _i++;
        node.function = word;
        skip();
        if (_s.charAt(_i) == ')') {
          _i++;
          return node;
        }
        while (true) {
          node.args.add(expr());
          skip();
          char d = _s.charAt(_i++);
          if (d == ')') {
            return node;
          }
          if (d != ',') {
            throw new IllegalArgumentException("expected , in " + _s);
          }
        }
      }
      if (Character.isDigit(word.charAt(0)) || word.charAt(0) == '-') {
        node.isLiteral = true;
        node.literal = word.contains(".") || word.contains("e") || word.contains("E") ? (Object) Double.valueOf(word)
            : (Object) Long.valueOf(word);
        return node;
      }
      node.column = word;
      return node;
    }
  }

  private static Object evaluate(Node node, Map<String, Object> row)
      throws Throwable {
    if (node.isLiteral) {
      return node.literal;
    }
    if (node.column != null) {
      return row.get(node.column);
    }
    List<Object> values = new ArrayList<>();
    for (Node arg : node.args) {
      values.add(evaluate(arg, row));
    }
    String name = node.function.replace("_", "").toLowerCase();
    if (name.equals("isnotnull")) {
      return values.get(0) != null ? 1 : 0;
    }
    if (values.contains(null)) {
      return null;
    }
    Method method = find(name, values);
    Object[] args = new Object[values.size()];
    Class<?>[] types = method.getParameterTypes();
    for (int i = 0; i < args.length; i++) {
      args[i] = convert(values.get(i), types[i]);
    }
    try {
      return method.invoke(null, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static Method find(String name, List<Object> values) {
    Method found = null;
    for (Method method : FUNCTIONS.getMethods()) {
      if (method.getName().toLowerCase().equals(name) && method.getParameterCount() == values.size()) {
        Class<?> first = method.getParameterTypes().length > 0 ? method.getParameterTypes()[0] : null;
        // geoToH3 has two 2-/3-argument overloads by arity only; others are unique by (name, arity)
        if (found == null || (first == byte[].class) == (values.get(0) instanceof byte[])) {
          found = method;
        }
      }
    }
    if (found == null) {
      throw new IllegalArgumentException("no function " + name + "/" + values.size());
    }
    return found;
  }

  private static Object convert(Object value, Class<?> type) {
    if (type == byte[].class) {
      return value instanceof String ? HexFormat.of().parseHex((String) value) : value;
    }
    if (type == String.class) {
      return value instanceof byte[] ? HexFormat.of().formatHex((byte[]) value) : value.toString();
    }
    if (type == double.class) {
      return ((Number) value).doubleValue();
    }
    if (type == int.class) {
      return ((Number) value).intValue();
    }
    if (type == long.class) {
      return ((Number) value).longValue();
    }
    return value;
  }

  public static void main(String[] argv)
      throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    JsonNode spec = mapper.readTree(System.in);
    Map<String, Node> transforms = new java.util.LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = spec.get("transforms").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      transforms.put(e.getKey(), new Parser(e.getValue().asText()).parse());
    }
    JsonNode types = spec.get("input_types");
    StringBuilder out = new StringBuilder();
    for (JsonNode rowNode : spec.get("rows")) {
      Map<String, Object> row = new java.util.HashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = rowNode.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode v = e.getValue();
        String type = types.path(e.getKey()).asText("string");
        row.put(e.getKey(), v.isNull() ? null : type.equals("binary") ? HexFormat.of().parseHex(v.asText())
            : v.isIntegralNumber() ? (Object) v.asLong() : v.isNumber() ? (Object) v.asDouble() : v.asText());
      }
      ObjectNode result = mapper.createObjectNode();
      ObjectNode values = result.putObject("values");
      ArrayNode failed = result.putArray("failed");
      ObjectNode errors = result.putObject("errors");
      for (Map.Entry<String, Node> e : transforms.entrySet()) {
        Object value;
        try {
          value = evaluate(e.getValue(), row);
        } catch (Throwable t) {
          failed.add(e.getKey());
          errors.put(e.getKey(), t.getClass().getSimpleName() + ": " + t.getMessage());
          values.putNull(e.getKey());
          continue;
        }
        if (value == null) {
          values.putNull(e.getKey());
        } else if (value instanceof byte[]) {
          values.put(e.getKey(), HexFormat.of().formatHex((byte[]) value));
        } else if (value instanceof Double) {
          values.put(e.getKey(), Double.toString((Double) value));
        } else if (value instanceof Integer) {
          values.put(e.getKey(), (Integer) value);
        } else if (value instanceof Long) {
          values.put(e.getKey(), (Long) value);
        } else if (value instanceof long[]) {
          ArrayNode array = values.putArray(e.getKey());
          for (long l : (long[]) value) {
            array.add(l);
          }
        } else {
          values.put(e.getKey(), value.toString());
        }
      }
      out.append(mapper.writeValueAsString(result)).append('\n');
    }
    System.out.print(out);
  }
}
