package io.sluice.admin.rest;

/**
 * Makes client-controlled text safe to log: control characters (CR, LF, ESC, DEL, C1 and the line
 * and paragraph separators) are written as {@code \xNN} or {@code \\uNNNN}, and a backslash as two,
 * so a request cannot forge log lines or terminal escapes.
 */
public final class LogText {
  private LogText() {}

  /** {@code s} with every control character escaped; "null" for null. */
  public static String escape(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder out = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean control =
          c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029' || c == '\\';
      if (!control) {
        if (out != null) {
          out.append(c);
        }
        continue;
      }
      if (out == null) {
        out = new StringBuilder(s.length() + 16).append(s, 0, i);
      }
      if (c == '\\') {
        out.append("\\\\");
      } else if (c <= 0xff) {
        out.append(String.format("\\x%02x", (int) c));
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    return out == null ? s : out.toString();
  }
}
