package io.sluice.dns.zone;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import org.xbill.DNS.Address;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNAMERecord;
import org.xbill.DNS.MXRecord;
import org.xbill.DNS.NSRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.PTRRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.TTL;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.Type;

/**
 * A fast reader for master files made of plain one-line records, which is what large generated
 * zones are: it splits each line itself and decides owner, TTL, class and type as dnsjava's {@code
 * Master} does (the tokens large zones are made of, such as IN, A, a TTL in seconds and an IPv4
 * address, read in place; any other with the very functions {@code Master} uses), so the records
 * are the ones {@code Master} would read. It builds the records of the common types (A, AAAA,
 * CNAME, NS, PTR, DNAME, MX, SRV, TXT) without a tokenizer when their data is in its plainest form,
 * with the checks and constructors dnsjava's parser ends in: each call of that parser makes a
 * tokenizer with an 8 KiB buffer, several gigabytes of garbage for a zone of a million such
 * records. Any other line it recognises (other types or forms, {@code $TTL}, {@code $ORIGIN}) goes
 * through dnsjava's record parser line by line. A file with anything it does not handle —
 * parentheses, backslashes, {@code $INCLUDE} or {@code $GENERATE}, bytes outside printable ASCII,
 * or any error — makes it return null, and the caller reads the file with {@code Master}, which
 * also reports the errors with their lines.
 *
 * <p>Each record comes with its line's key: a 64-bit hash of the line's bytes and of what reading
 * it depends on besides (the origin as spelled and the default TTL in effect). A reload gives the
 * reader the records and keys of the file's previous content ({@link OldRecords}); a line whose key
 * is that of the old line where the walk over them stands gives the old record itself, without
 * being parsed, when its owner would be read as the old one was (see {@link OldRecords}). Two
 * different lines share a key by chance once in 2^64 comparisons.
 */
final class PlainMasterFile {
  private PlainMasterFile() {}

  /**
   * The records of the master file {@code text} under {@code origin} with the default TTL {@code
   * ttl}, in file order, exactly as {@code new Master(in, origin, ttl)} reads them; null when the
   * file needs {@code Master}.
   */
  static List<Record> read(byte[] text, Name origin, long ttl) {
    Lines lines = read(text, origin, ttl, OldRecords.none(), UnaryOperator.identity());
    return lines == null ? null : lines.records();
  }

  /** The records of a file in file order, and the key of each one's line. */
  record Lines(List<Record> records, long[] keys) {}

  /**
   * As {@link #read(byte[], Name, long)}, with each record's line key. A line whose key {@code old}
   * has where its walk stands gives that old record; each record parsed is replaced by what {@code
   * keep} gives for it as soon as it is read: on a reload, the served zone's own record when it is
   * the same, so that the parsed copies die young instead of all living until the whole file is
   * read.
   */
  static Lines read(
      byte[] text, Name origin, long ttl, OldRecords old, UnaryOperator<Record> keep) {
    if (ttl < 0 || !origin.isAbsolute()) {
      return null;
    }
    try {
      return new Reader(text, origin, ttl, old, keep).read();
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

  /** The types large zones are made of, told from their mnemonics without a string. */
  private static final int[] PLAIN_TYPES = {
    Type.A, Type.AAAA, Type.CNAME, Type.TXT, Type.MX, Type.NS, Type.SRV, Type.PTR, Type.DNAME
  };

  /** Their mnemonics, looked up once instead of twice for every line. */
  private static final String[] PLAIN_MNEMONICS =
      Arrays.stream(PLAIN_TYPES).mapToObj(Type::string).toArray(String[]::new);

  private static final class Reader {
    /** Bytes of the file read by one call of {@link #lines}: about 400 lines of a large zone. */
    private static final int SLICE_BYTES = 16 * 1024;

    private static final VarHandle LONGS =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final byte[] b;
    private final OldRecords old;
    private final UnaryOperator<Record> keep;
    private Name origin;
    private long defaultTtl;

    /** What reading a line depends on besides its bytes: the origin as spelled, the default TTL. */
    private long context;

    /** The line keys of the records read so far. */
    private long[] keys;

    /** The key of the current line, and whether its record is the old one, once {@link #line}. */
    private long key;

    private boolean unchanged;

    /**
     * The owner of the last record read; at first the empty name, which no owner read under an
     * origin equals, rather than null: the first record line is read before the JIT profiles the
     * loop, so a null test there would be a trap that throws away a reload's compiled reader.
     */
    private Name lastOwner = Name.empty;

    /** The line being read: [at, end) of {@link #b}, and the token last found there. */
    private int at;

    private int end;
    private int tokenStart;
    private int tokenEnd;

    Reader(byte[] b, Name origin, long ttl, OldRecords old, UnaryOperator<Record> keep) {
      this.old = old;
      this.keep = keep;
      this.b = b;
      this.origin = origin;
      this.defaultTtl = ttl;
      this.context = context();
    }

    Lines read() throws IOException {
      // A record line of a large file is rarely under 20 bytes.
      List<Record> out = new ArrayList<>(Math.max(16, b.length / 24));
      keys = new long[Math.max(16, b.length / 24)];
      // The lines before the first record (a header comment, $TTL, $ORIGIN) are read apart from
      // the record loop. A start reads them before the JIT profiles anything, so the compiled
      // loop would have their branches as traps, and a reload, which finds that code compiled,
      // would throw it back to the interpreter at its second line.
      int next = 0;
      while (next < b.length) {
        int nl = lineEnd(next);
        if (!heading()) {
          break;
        }
        next = nl + 1;
      }
      // The rest in slices, each read by one call: the JIT compiles that method whole, with its
      // exit seen, and a reload runs the start's compiled code. One loop over the whole file is
      // compiled while it runs (on-stack replacement), and its first exit, at the file's end,
      // throws that code away, so every reload compiled the reader again.
      while (next < b.length) {
        next = lines(next, next + Math.min(SLICE_BYTES, b.length - next), out);
      }
      return new Lines(out, Arrays.copyOf(keys, out.size()));
    }

    /**
     * Reads the lines that start in [{@code next}, {@code stop}); returns where the next starts.
     */
    private int lines(int next, int stop, List<Record> out) throws IOException {
      while (next < stop) {
        int nl = lineEnd(next);
        next = nl + 1;
        Record r = line();
        if (r != null) {
          if (!unchanged) {
            r = keep.apply(r);
          }
          if (out.size() == keys.length) {
            keys = Arrays.copyOf(keys, keys.length * 2);
          }
          keys[out.size()] = key;
          out.add(r);
          // The kept record's owner is spelled as the parsed one: the old object, which lets the
          // next line, when it inherits it, be found unchanged.
          lastOwner = r.getName();
        }
      }
      return next;
    }

    /** The key of the current line, from {@code start} (its first byte) to its end. */
    private long key(int start) {
      long h = context ^ ((end - start) * 0xC2B2AE3D27D4EB4FL);
      int i = start;
      for (; i + 8 <= end; i += 8) {
        h = mix(h, (long) LONGS.get(b, i));
      }
      long w = 0;
      for (int k = 0; i + k < end; k++) {
        w |= (long) (b[i + k] & 0xff) << (k << 3);
      }
      h = mix(h, w);
      h ^= h >>> 33;
      h *= 0xFF51AFD7ED558CCDL;
      h ^= h >>> 33;
      h *= 0xC4CEB9FE1A85EC53L;
      return h ^ (h >>> 33);
    }

    /** One word into the line key: a bijection of the key for each word, so no word is lost. */
    private static long mix(long h, long word) {
      long x = (h ^ word) * 0x9E3779B97F4A7C15L;
      return x ^ (x >>> 29);
    }

    /** The {@link #context} of the origin and default TTL now in effect. */
    private long context() {
      long h = 0x27D4EB2F165667C5L ^ defaultTtl;
      for (byte c : origin.toWire()) {
        h = mix(h, c & 0xff);
      }
      return h;
    }

    /** Makes the line starting at {@code start} current and returns where it ends (its newline). */
    private int lineEnd(int start) {
      int nl = start;
      while (nl < b.length && b[nl] != '\n') {
        nl++;
      }
      at = start;
      end = nl > start && b[nl - 1] == '\r' ? nl - 1 : nl;
      return nl;
    }

    /**
     * Reads the current line when it has no record (blank, a comment or a directive, read as {@link
     * #line} reads them) and says so; false, having read nothing, for a line with a record.
     */
    private boolean heading() throws IOException {
      int i = at;
      while (i < end && isSpace(b[i])) {
        i++;
      }
      if (i < end && b[i] != ';' && (i > at || b[i] != '$')) {
        return false;
      }
      requirePlain();
      if (i < end && b[i] == '$') {
        token();
        directive(text());
      }
      return true;
    }

    /** Gives the file back to Master when the current line has what only its tokenizer reads. */
    private void requirePlain() {
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
    }

    /** The record of the current line, or null for a blank line, a comment or a directive. */
    private Record line() throws IOException {
      requirePlain();
      int start = at;
      unchanged = false;
      Name name;
      if (at < end && isSpace(b[at])) {
        if (!token()) {
          return null;
        }
        if (lastOwner == Name.empty) {
          throw new NotPlain();
        }
        key = key(start);
        Record same = old.unchanged(key, lastOwner, true);
        if (same != null) {
          unchanged = true;
          return same;
        }
        // The token found is the first after the inherited owner: read it again below.
        at = tokenStart;
        name = lastOwner;
      } else {
        if (!token()) {
          return null;
        }
        if (b[tokenStart] == '$') {
          directive(text());
          return null;
        }
        key = key(start);
        Record same = old.unchanged(key, lastOwner, false);
        if (same != null) {
          unchanged = true;
          return same;
        }
        name = Name.fromString(text(), origin);
        if (name.equals(lastOwner)) {
          name = lastOwner;
        }
      }
      // Class, TTL and type in any of the orders Master accepts, decided as Master decides them.
      // The tokens of a plain line are read in place; only others become strings for dnsjava.
      nextToken();
      int dclass = dclass();
      boolean seenClass = dclass >= 0;
      if (seenClass) {
        nextToken();
      }
      long ttl = defaultTtl;
      // TTL.parseTTL rejects a token that does not start with a digit; asking it anyway would
      // throw (and fill in a stack trace) for the type of every line without a TTL.
      if (isDigit(b[tokenStart])) {
        long given = decimal();
        if (given < 0) {
          try {
            given = TTL.parseTTL(text());
          } catch (NumberFormatException e) {
            given = -1; // not a TTL: the token is read again as class or type
          }
        }
        if (given >= 0) {
          ttl = given;
          nextToken();
        }
      }
      if (!seenClass) {
        dclass = dclass();
        if (dclass >= 0) {
          nextToken();
        } else {
          dclass = DClass.IN;
        }
      }
      int type = type();
      if (type < 0) {
        throw new NotPlain();
      }
      if (type == Type.A || type == Type.AAAA) {
        return address(name, type, dclass, ttl);
      }
      int rdata = at;
      Record r = plainData(name, type, dclass, ttl);
      if (r != null) {
        return r;
      }
      at = rdata;
      return Record.fromString(
          name,
          type,
          dclass,
          ttl,
          new String(b, at, end - at, StandardCharsets.ISO_8859_1),
          origin);
    }

    /**
     * The record when its data is in the plainest form of its type (names and numbers as single
     * tokens, TXT strings quoted whole or unquoted, no comment glued to them), built as dnsjava's
     * parser builds it (its {@code getName} is {@code Name.fromString} under the origin, its {@code
     * getUInt16} a decimal long in range, then the type's constructor); null for any other data,
     * which that parser then reads, and reports when it is wrong.
     */
    private Record plainData(Name name, int type, int dclass, long ttl) throws IOException {
      switch (type) {
        case Type.CNAME, Type.NS, Type.PTR, Type.DNAME -> {
          Name target = nameToken();
          if (target == null || token()) {
            return null;
          }
          return switch (type) {
            case Type.CNAME -> new CNAMERecord(name, dclass, ttl, target);
            case Type.NS -> new NSRecord(name, dclass, ttl, target);
            case Type.PTR -> new PTRRecord(name, dclass, ttl, target);
            default -> new DNAMERecord(name, dclass, ttl, target);
          };
        }
        case Type.MX -> {
          int preference = u16Token();
          Name target = preference < 0 ? null : nameToken();
          if (target == null || token()) {
            return null;
          }
          return new MXRecord(name, dclass, ttl, preference, target);
        }
        case Type.SRV -> {
          int priority = u16Token();
          int weight = priority < 0 ? -1 : u16Token();
          int port = weight < 0 ? -1 : u16Token();
          Name target = port < 0 ? null : nameToken();
          if (target == null || token()) {
            return null;
          }
          return new SRVRecord(name, dclass, ttl, priority, weight, port, target);
        }
        case Type.TXT -> {
          List<String> strings = txtStrings();
          return strings == null ? null : new TXTRecord(name, dclass, ttl, strings);
        }
        default -> {
          return null;
        }
      }
    }

    /** The next token as a name under the origin; null when there is none or it holds a quote. */
    private Name nameToken() throws IOException {
      if (!token() || quoted()) {
        return null;
      }
      return Name.fromString(
          new String(b, tokenStart, tokenEnd - tokenStart, StandardCharsets.ISO_8859_1), origin);
    }

    /** The next token as a decimal 16-bit unsigned integer; -1 for any other token or none. */
    private int u16Token() {
      if (!token()) {
        return -1;
      }
      long v = decimal();
      return v > 0xFFFF ? -1 : (int) v;
    }

    /**
     * The rest of the line as TXT strings, each a token quoted whole (its closing quote followed by
     * a space, a tab or the line's end) or unquoted without a quote; null when anything else is
     * there, when a string is longer than 255 bytes, or when there is none.
     */
    private List<String> txtStrings() {
      List<String> out = new ArrayList<>(2);
      int i = at;
      while (true) {
        while (i < end && isSpace(b[i])) {
          i++;
        }
        if (i >= end || b[i] == ';') {
          break;
        }
        int start;
        int stop;
        if (b[i] == '"') {
          start = i + 1;
          stop = start;
          while (stop < end && b[stop] != '"') {
            stop++;
          }
          if (stop >= end || (stop + 1 < end && !isSpace(b[stop + 1]))) {
            return null;
          }
          i = stop + 1;
        } else {
          start = i;
          stop = i;
          while (stop < end && !isSpace(b[stop]) && b[stop] != ';') {
            if (b[stop] == '"') {
              return null;
            }
            stop++;
          }
          i = stop;
        }
        if (stop - start > 255) {
          return null;
        }
        out.add(new String(b, start, stop - start, StandardCharsets.ISO_8859_1));
      }
      at = end;
      return out.isEmpty() ? null : out;
    }

    private Record address(Name name, int type, int dclass, long ttl) {
      nextToken();
      byte[] address = type == Type.A ? ipv4() : null;
      if (address == null) {
        address = Address.toByteArray(text(), type == Type.A ? Address.IPv4 : Address.IPv6);
      }
      if (token()) {
        // Anything after the address is an error that Master reports.
        throw new NotPlain();
      }
      if (address == null) {
        throw new NotPlain();
      }
      return Record.newRecord(name, type, dclass, ttl, address);
    }

    /**
     * The token as a number when it is only digits, nine at most (so below TTL.parseTTL's clamp,
     * and read as it and the record parser's integers read them); -1 for any other token, which
     * they decide.
     */
    private long decimal() {
      if (tokenEnd - tokenStart > 9) {
        return -1;
      }
      long v = 0;
      for (int i = tokenStart; i < tokenEnd; i++) {
        int d = b[i] - '0';
        if (d < 0 || d > 9) {
          return -1;
        }
        v = v * 10 + d;
      }
      return v;
    }

    /**
     * The token as an IPv4 address when it is four dot-separated decimal octets of at most 255 with
     * no leading zero, which Address.toByteArray reads the same; null for any other token, which it
     * decides.
     */
    private byte[] ipv4() {
      byte[] out = new byte[4];
      int octet = 0;
      int value = 0;
      int digits = 0;
      for (int i = tokenStart; i < tokenEnd; i++) {
        int c = b[i];
        if (c == '.') {
          if (digits == 0 || octet == 3) {
            return null;
          }
          out[octet++] = (byte) value;
          value = 0;
          digits = 0;
        } else if (c >= '0' && c <= '9') {
          if (digits == 3 || (digits > 0 && value == 0)) {
            return null;
          }
          value = value * 10 + (c - '0');
          digits++;
          if (value > 255) {
            return null;
          }
        } else {
          return null;
        }
      }
      if (octet != 3 || digits == 0) {
        return null;
      }
      out[3] = (byte) value;
      return out;
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
      context = context();
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
      nextToken();
      return text();
    }

    /** Finds the next token of the line, which a record must have there. */
    private void nextToken() {
      if (!token()) {
        throw new NotPlain();
      }
    }

    /** Whether the token is {@code word} (upper-case ASCII) in any letter case. */
    private boolean tokenIs(String word) {
      if (tokenEnd - tokenStart != word.length()) {
        return false;
      }
      for (int i = 0; i < word.length(); i++) {
        // Upper-cases ASCII letters only; no other byte meets an upper-case letter this way.
        int c = b[tokenStart + i];
        if (c >= 'a' && c <= 'z') {
          c -= 'a' - 'A';
        }
        if (c != word.charAt(i)) {
          return false;
        }
      }
      return true;
    }

    private String text() {
      if (quoted()) {
        throw new NotPlain();
      }
      return new String(b, tokenStart, tokenEnd - tokenStart, StandardCharsets.ISO_8859_1);
    }

    /** Whether the token holds a quote, which only dnsjava's tokenizer reads. */
    private boolean quoted() {
      for (int i = tokenStart; i < tokenEnd; i++) {
        if (b[i] == '"') {
          return true;
        }
      }
      return false;
    }

    /**
     * The token as a class, as DClass.value reads it, or -1: IN and the types large zones are made
     * of are told without a string.
     */
    private int dclass() {
      if (tokenIs("IN")) {
        return DClass.IN;
      }
      for (String mnemonic : PLAIN_MNEMONICS) {
        if (tokenIs(mnemonic)) {
          return -1; // a type, and no class is spelled so (DClass.value gives -1 for it too)
        }
      }
      return DClass.value(text());
    }

    /** The token as a type, as Type.value reads it, or -1; the common types without a string. */
    private int type() {
      for (int i = 0; i < PLAIN_TYPES.length; i++) {
        if (tokenIs(PLAIN_MNEMONICS[i])) {
          return PLAIN_TYPES[i];
        }
      }
      return Type.value(text());
    }

    private static boolean isDigit(byte c) {
      return c >= '0' && c <= '9';
    }

    private static boolean isSpace(byte c) {
      return c == ' ' || c == '\t';
    }
  }
}
