// java.util.regex's own answers (Java 17, the JVM Pinot runs), for pinot_sink's translation of Java patterns
// to Python (pinot_sink/ingestion/functions/regexp.py). Two modes:
//   java JavaRegex tables   prints the members of every character property name Java accepts, as the lines
//                           "<kind> <flags> <name> <ranges>" (kind: prop, uprop, script, block; flags 0, 2
//                           for CASE_INSENSITIVE, 66 for CASE_INSENSITIVE | UNICODE_CASE; ranges "41-5a,61-7a"
//                           in hex); tools/java_regex/unicode_tables.py writes them into javalib/regex/char_predicates.json.
//   java JavaRegex find     reads "<flags> <pattern hex> <text hex>" lines (UTF-16 units, 4 hex digits
//                           each) and prints, per line, Matcher.find's matches as "start-end" in UTF-16
//                           units separated by spaces, or "!" and the exception's class name.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class JavaRegex {
  public static void main(String[] args) throws Exception {
    System.out.print(args[0].equals("tables") ? tables() : find(JavaOracle.lines(System.in)));
  }

  // JavaOracle's entry (one JVM answering every test's questions): the mode, then the request lines.
  public static String serve(String mode, List<String> lines) throws Exception {
    return mode.equals("tables") ? tables() : find(lines);
  }

  static String unhex(String hex) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i + 4 <= hex.length(); i += 4) {
      s.append((char) Integer.parseInt(hex.substring(i, i + 4), 16));
    }
    return s.toString();
  }

  static String find(List<String> lines) {
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      String[] p = line.split(" ", -1);
      try {
        Matcher m = Pattern.compile(unhex(p[1]), Integer.parseInt(p[0])).matcher(unhex(p[2]));
        StringBuilder one = new StringBuilder();
        while (m.find()) {
          one.append(one.length() == 0 ? "" : " ").append(m.start()).append('-').append(m.end());
        }
        out.append(one);
      } catch (Exception e) {
        out.append('!').append(e.getClass().getSimpleName());
      }
      out.append('\n');
    }
    return out.toString();
  }

  // Every code point once, the low surrogates before the high ones so that no two units form a pair.
  static final StringBuilder ALL = new StringBuilder();
  static final List<Integer> CODE_POINT_AT = new ArrayList<>();

  static void add(int cp) {
    int at = ALL.length();
    ALL.appendCodePoint(cp);
    while (CODE_POINT_AT.size() < ALL.length()) {
      CODE_POINT_AT.add(at == CODE_POINT_AT.size() ? cp : -1);
    }
  }

  static String ranges(List<Integer> members) {
    StringBuilder s = new StringBuilder();
    int i = 0;
    while (i < members.size()) {
      int first = members.get(i);
      int last = first;
      while (i + 1 < members.size() && members.get(i + 1) == last + 1) {
        last = members.get(++i);
      }
      i++;
      s.append(s.length() == 0 ? "" : ",").append(Integer.toHexString(first));
      if (last != first) {
        s.append('-').append(Integer.toHexString(last));
      }
    }
    return s.toString();
  }

  static String members(String name, int flags) {
    Matcher m;
    try {
      m = Pattern.compile("\\p{" + name + "}", flags).matcher(ALL);
    } catch (Exception e) {
      return null;
    }
    List<Integer> found = new ArrayList<>();
    while (m.find()) {
      found.add(CODE_POINT_AT.get(m.start()));
    }
    java.util.Collections.sort(found);
    return ranges(found);
  }

  static String tables() throws Exception {
    ALL.setLength(0);
    CODE_POINT_AT.clear();
    for (int cp = 0; cp < 0xD800; cp++) add(cp);
    for (int cp = 0xDC00; cp < 0xE000; cp++) add(cp);
    for (int cp = 0xD800; cp < 0xDC00; cp++) add(cp);
    for (int cp = 0xE000; cp <= 0x10FFFF; cp++) add(cp);
    StringBuilder out = new StringBuilder();
    int[] flagSets = {0, Pattern.CASE_INSENSITIVE, Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE};
    // \p{name}: Pattern's own property names, matched exactly (general categories, POSIX, java*)
    String[] props = ("Cn Lu Ll Lt Lm Lo Mn Me Mc Nd Nl No Zs Zl Zp Cc Cf Co Cs Pd Ps Pe Pc Po Sm Sc Sk So Pi Pf "
        + "L M N Z C P S LC LD L1 all ASCII Alnum Alpha Blank Cntrl Digit Graph Lower Print Punct Space Upper "
        + "XDigit javaLowerCase javaUpperCase javaAlphabetic javaIdeographic javaTitleCase javaDigit javaDefined "
        + "javaLetter javaLetterOrDigit javaJavaIdentifierStart javaJavaIdentifierPart javaUnicodeIdentifierStart "
        + "javaUnicodeIdentifierPart javaIdentifierIgnorable javaSpaceChar javaWhitespace javaISOControl "
        + "javaMirrored").split(" ");
    // \p{IsNAME}: Unicode binary properties and the Unicode POSIX classes, names in upper case
    String[] uprops = ("ALPHABETIC ASSIGNED CONTROL HEXDIGIT HEX_DIGIT IDEOGRAPHIC JOINCONTROL JOIN_CONTROL LETTER "
        + "LOWERCASE NONCHARACTERCODEPOINT NONCHARACTER_CODE_POINT TITLECASE PUNCTUATION UPPERCASE WHITESPACE "
        + "WHITE_SPACE WORD ALNUM ALPHA BLANK CNTRL DIGIT GRAPH LOWER PRINT PUNCT SPACE UPPER XDIGIT EMOJI "
        + "EMOJI_PRESENTATION EMOJI_MODIFIER EMOJI_MODIFIER_BASE EMOJI_COMPONENT EXTENDED_PICTOGRAPHIC").split(" ");
    for (int flags : flagSets) {
      for (String name : props) {
        String r = members(name, flags);
        if (r != null) out.append("prop ").append(flags).append(' ').append(name).append(' ').append(r).append('\n');
      }
      for (String name : uprops) {
        // \p{IsX} falls back to the property and the script of that name: take only the binary properties'
        boolean isProp = members(name, flags) != null;
        boolean isScript = false;
        try {
          Character.UnicodeScript.forName(name);
          isScript = true;
        } catch (IllegalArgumentException e) {
          // not a script
        }
        String r = isProp || isScript ? null : members("Is" + name, flags);
        if (r != null) out.append("uprop ").append(flags).append(' ').append(name).append(' ').append(r).append('\n');
      }
    }
    // Scripts and blocks: Character.UnicodeScript.of / UnicodeBlock.of, whatever the flags; every name
    // forName accepts (it upper-cases): the constants' names, the four-letter aliases, the blocks' spellings.
    java.util.Map<Character.UnicodeScript, List<Integer>> scripts = new java.util.TreeMap<>();
    java.util.Map<String, List<Integer>> blocks = new java.util.TreeMap<>();
    for (int cp = 0; cp <= 0x10FFFF; cp++) {
      scripts.computeIfAbsent(Character.UnicodeScript.of(cp), k -> new ArrayList<>()).add(cp);
      Character.UnicodeBlock b = Character.UnicodeBlock.of(cp);
      if (b != null) blocks.computeIfAbsent(b.toString(), k -> new ArrayList<>()).add(cp);
    }
    java.util.Map<Character.UnicodeScript, String> scriptRanges = new java.util.HashMap<>();
    for (java.util.Map.Entry<Character.UnicodeScript, List<Integer>> e : scripts.entrySet()) {
      scriptRanges.put(e.getKey(), ranges(e.getValue()));
      out.append("script 0 ").append(e.getKey().name()).append(' ').append(ranges(e.getValue())).append('\n');
    }
    char[] name = new char[4];
    for (int i = 0; i < 26 * 26 * 26 * 26; i++) {
      for (int k = 0, v = i; k < 4; k++, v /= 26) name[3 - k] = (char) ('A' + v % 26);
      String alias = new String(name);
      try {
        Character.UnicodeScript s = Character.UnicodeScript.forName(alias);
        if (!s.name().equals(alias)) out.append("script 0 ").append(alias).append(' ').append(scriptRanges.get(s)).append('\n');
      } catch (IllegalArgumentException e) {
        // not an alias
      }
    }
    for (Field f : Character.UnicodeBlock.class.getFields()) {
      if (!Modifier.isStatic(f.getModifiers()) || f.getType() != Character.UnicodeBlock.class) continue;
      Character.UnicodeBlock b = (Character.UnicodeBlock) f.get(null);
      List<Integer> members = blocks.get(b.toString());
      String r = members == null ? "" : ranges(members);
      String[] words = f.getName().split("_");
      java.util.Set<String> spellings = new java.util.TreeSet<>();
      int seps = words.length - 1;
      String[] joins = {"_", " ", "", "-"};
      int combos = seps <= 6 ? (int) Math.pow(4, seps) : 4;
      for (int c = 0; c < combos; c++) {
        StringBuilder s = new StringBuilder(words[0]);
        for (int w = 1, v = c; w < words.length; w++, v /= 4) {
          s.append(seps <= 6 ? joins[v % 4] : joins[c]).append(words[w]);
        }
        spellings.add(s.toString());
      }
      for (String s : spellings) {
        try {
          if (Character.UnicodeBlock.forName(s) == b) {
            out.append("block 0 ").append(s.replace(' ', '~')).append(' ').append(r).append('\n');
          }
        } catch (IllegalArgumentException e) {
          // not a spelling forName knows
        }
      }
    }
    return out.toString();
  }
}
