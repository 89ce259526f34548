package io.sluice.dns.zone;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.xbill.DNS.Address;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.TTL;
import org.xbill.DNS.Type;

/**
 * A fast reader for master files made of plain one-line records, which is what large generated
 * zones are: it splits each line itself and decides owner, TTL, class and type with the very
 * functions dnsjava's {@code Master} uses, so the records are the ones {@code Master} would read,
 * and it builds A and AAAA records from their address without a tokenizer. Anything else it
 * recognises (other types, {@code $TTL}, {@code $ORIGIN}) goes through dnsjava's record parser line
 * by line. A file with anything it does not handle — parentheses, backslashes, {@code $INCLUDE} or
 * {@code $GENERATE}, bytes outside printable ASCII, or any error — makes it return null, and the
 * caller reads the file with {@code Master}, which also reports the errors with their lines.
 */
final class PlainMasterFile {
  private PlainMasterFile() {}

  /**
   * The records of the master file {@code text} under {@code origin} with the default TTL {@code
   * ttl}, in file order, exactly as {@code new Master(in, origin, ttl)} reads them; null when the
   * file needs {@code Master}.
   */
  static List<Record> read(byte[] text, Name origin, long ttl) {
    return read(text, origin, ttl, UnaryOperator.identity());
  }

  /**
   * As {@link #read(byte[], Name, long)}, each record replaced by what {@code keep} gives for it as
   * soon as it is read: on a reload, the served zone's own record when it is the same, so that the
   * parsed copies die young instead of all living until the whole file is read.
   */
  static List<Record> read(byte[] text, Name origin, long ttl, UnaryOperator<Record> keep) {
    if (ttl < 0 || !origin.isAbsolute()) {
      return null;
    }
    try {
      return new Reader(text, origin, ttl, keep).read();
    } catch (IOException | RuntimeException e) {
      // A syntax or data error: Master reads the file again and reports it with its line.
      return null;
    }
  }

  /** Why the fast reader gives a file back to {@code Master}. */
  private static final class NotPlain extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotPlain() {
      super(null, null, false, false);
    }
  }

  private static final class Reader {
    private final byte[] b;
    private final UnaryOperator<Record> keep;
    private Name origin;
    private long defaultTtl;
    private Record last;

    /** The line being read: [at, end) of {@link #b}, and the token last found there. */
    private int at;

    private int end;
    private int tokenStart;
    private int tokenEnd;

    Reader(byte[] b, Name origin, long ttl, UnaryOperator<Record> keep) {
      this.keep = keep;
      this.b = b;
      this.origin = origin;
      this.defaultTtl = ttl;
    }

    List<Record> read() throws IOException {
      // A record line of a large file is rarely under 20 bytes.
      List<Record> out = new ArrayList<>(Math.max(16, b.length / 24));
      int next = 0;
      while (next < b.length) {
        int nl = next;
        while (nl < b.length && b[nl] != '\n') {
          nl++;
        }
        at = next;
        end = nl > next && b[nl - 1] == '\r' ? nl - 1 : nl;
        next = nl + 1;
        Record r = line();
        if (r != null) {
          out.add(keep.apply(r));
          last = r;
        }
      }
      return out;
    }

    /** The record of the current line, or null for a blank line, a comment or a directive. */
    private Record line() throws IOException {
      for (int i = at; i < end; i++) {
        int c = b[i] & 0xff;
        // What only Master's tokenizer handles: multi-line records, escapes, other bytes.
        if (c == '('
            || c == ')'
            || c == '\\'
            || c == '\r'
            || c >= 0x7f
            || (c < 0x20 && c != '\t')) {
          throw new NotPlain();
        }
      }
      Name name;
      if (at < end && isSpace(b[at])) {
        if (!token()) {
          return null;
        }
        if (last == null) {
          throw new NotPlain();
        }
        // The token found is the first after the inherited owner: read it again below.
        at = tokenStart;
        name = last.getName();
      } else {
        if (!token()) {
          return null;
        }
        String owner = text();
        if (owner.charAt(0) == '$') {
          directive(owner);
          return null;
        }
        name = Name.fromString(owner, origin);
        if (last != null && name.equals(last.getName())) {
          name = last.getName();
        }
      }
      // Class, TTL and type in any of the orders Master accepts, decided as Master decides them.
      String s = next();
      int dclass = dclass(s);
      boolean seenClass = dclass >= 0;
      if (seenClass) {
        s = next();
      }
      long ttl;
      // TTL.parseTTL rejects a token that does not start with a digit; asking it anyway would
      // throw (and fill in a stack trace) for the type of every line without a TTL.
      if (isDigit(s.charAt(0))) {
        try {
          ttl = TTL.parseTTL(s);
          s = next();
        } catch (NumberFormatException e) {
          ttl = defaultTtl;
        }
      } else {
        ttl = defaultTtl;
      }
      if (!seenClass) {
        dclass = dclass(s);
        if (dclass >= 0) {
          s = next();
        } else {
          dclass = DClass.IN;
        }
      }
      int type = type(s);
      if (type < 0) {
        throw new NotPlain();
      }
      if (type == Type.A || type == Type.AAAA) {
        return address(name, type, dclass, ttl);
      }
      String rdata = new String(b, at, end - at, StandardCharsets.ISO_8859_1);
      return Record.fromString(name, type, dclass, ttl, rdata, origin);
    }

    private Record address(Name name, int type, int dclass, long ttl) {
      String text = next();
      if (token()) {
        // Anything after the address is an error that Master reports.
        throw new NotPlain();
      }
      byte[] address = Address.toByteArray(text, type == Type.A ? Address.IPv4 : Address.IPv6);
      if (address == null) {
        throw new NotPlain();
      }
      return Record.newRecord(name, type, dclass, ttl, address);
    }

    /** {@code $TTL} and {@code $ORIGIN}, read as Master reads them; any other is not plain. */
    private void directive(String word) throws IOException {
      if (word.equalsIgnoreCase("$TTL")) {
        defaultTtl = TTL.parseTTL(next());
      } else if (word.equalsIgnoreCase("$ORIGIN")) {
        origin = Name.fromString(next(), Name.root);
      } else {
        throw new NotPlain();
      }
      if (token()) {
        throw new NotPlain();
      }
    }

    /**
     * Finds the next token of the line from {@link #at}; false at the line's end or its comment. A
     * quote inside a header token is not plain: only rdata may hold quoted strings.
     */
    private boolean token() {
      int i = at;
      while (i < end && isSpace(b[i])) {
        i++;
      }
      if (i >= end || b[i] == ';') {
        at = end;
        return false;
      }
      int start = i;
      while (i < end && !isSpace(b[i]) && b[i] != ';') {
        i++;
      }
      tokenStart = start;
      tokenEnd = i;
      at = i;
      return true;
    }

    private String next() {
      if (!token()) {
        throw new NotPlain();
      }
      return text();
    }

    private String text() {
      for (int i = tokenStart; i < tokenEnd; i++) {
        if (b[i] == '"') {
          throw new NotPlain();
        }
      }
      return new String(b, tokenStart, tokenEnd - tokenStart, StandardCharsets.ISO_8859_1);
    }

    /** DClass.value, without its upper-case copy for the class every line names. */
    private static int dclass(String s) {
      return s.equalsIgnoreCase("IN") ? DClass.IN : DClass.value(s);
    }

    /** Type.value, without its upper-case copy for the types large zones are made of. */
    private static int type(String s) {
      if (s.equalsIgnoreCase("A")) {
        return Type.A;
      }
      return s.equalsIgnoreCase("AAAA") ? Type.AAAA : Type.value(s);
    }

    private static boolean isDigit(char c) {
      return c >= '0' && c <= '9';
    }

    private static boolean isSpace(byte c) {
      return c == ' ' || c == '\t';
    }
  }
}
