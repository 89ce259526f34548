package io.sluice.dns.dnssec.keys;

import io.sluice.core.config.DnssecAlgorithm;
import io.sluice.core.config.TokenFile;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.xbill.DNS.DNSKEYRecord;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Master;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

/**
 * BIND's key-file format: {@code K<zone>.+<alg>+<tag>.key} holds the DNSKEY record (and, as
 * comments, its timing), {@code K<zone>.+<alg>+<tag>.private} the private key ({@code
 * Private-key-format: v1.3}) and the timing metadata BIND and Sluice act on. Files written by
 * {@code dnssec-keygen} and {@code ldns-keygen} read as they are; files Sluice writes read in BIND.
 */
public final class KeyFiles {
  /** The file-name pattern of a key's public file. */
  static final Pattern KEY_FILE = Pattern.compile("K(.+)\\+(\\d{3})\\+(\\d{5})\\.key");

  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");
  private static final DateTimeFormatter READABLE =
      DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.ROOT);

  /** The timing fields in the order BIND writes them, with the accessor of each. */
  private static final Map<String, Function<KeyTiming, Optional<Instant>>> TIMES = timeFields();

  private KeyFiles() {}

  private static Map<String, Function<KeyTiming, Optional<Instant>>> timeFields() {
    Map<String, Function<KeyTiming, Optional<Instant>>> m = new LinkedHashMap<>();
    m.put("Created", KeyTiming::created);
    m.put("Publish", KeyTiming::publish);
    m.put("Activate", KeyTiming::activate);
    m.put("Inactive", KeyTiming::inactive);
    m.put("Delete", KeyTiming::delete);
    m.put("SyncPublish", KeyTiming::syncPublish);
    m.put("SyncDelete", KeyTiming::syncDelete);
    return m;
  }

  /** {@code K<zone>.+<alg>+<tag>}, the name both files of a key start with. */
  public static String baseName(Name zone, int algorithm, int tag) {
    return String.format(
        Locale.ROOT, "K%s+%03d+%05d", zone.toString().toLowerCase(Locale.ROOT), algorithm, tag);
  }

  /** {@link #baseName(Name, int, int)} of {@code key}. */
  public static String baseName(SigningKey key) {
    return baseName(key.dnskey().getName(), key.algorithm(), key.tag());
  }

  /** Reads the key whose public file is {@code keyFile}, and its {@code .private} beside it. */
  public static SigningKey read(Path keyFile) throws KeyFileException {
    String name = keyFile.getFileName().toString();
    Path privateFile = keyFile.resolveSibling(name.substring(0, name.length() - 4) + ".private");
    String keyText;
    String privateText;
    try {
      keyText = Files.readString(keyFile, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new KeyFileException(keyFile.toString(), null, "cannot read: " + e.getMessage());
    }
    try {
      privateText = Files.readString(privateFile, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new KeyFileException(
          privateFile.toString(), null, "cannot read the private key file: " + e);
    }
    return parse(keyText, keyFile.toString(), privateText, privateFile.toString());
  }

  /**
   * The key held by the texts of its two files, named {@code keyName} and {@code privateName} in
   * errors (and checked against the BIND file-name convention when they follow it).
   */
  public static SigningKey parse(
      String keyText, String keyName, String privateText, String privateName)
      throws KeyFileException {
    DNSKEYRecord dnskey = dnskey(keyText, keyName);
    DnssecAlgorithm algorithm = DnssecAlgorithm.ofNumber(dnskey.getAlgorithm());
    if (algorithm == null) {
      throw new KeyFileException(
          keyName,
          "DNSKEY algorithm",
          "algorithm "
              + dnskey.getAlgorithm()
              + " ("
              + DNSSEC.Algorithm.string(dnskey.getAlgorithm())
              + ") is not supported; Sluice signs with 13 (ECDSAP256SHA256) and 15 (ED25519)");
    }
    checkFileName(dnskey, keyName);
    Map<String, String> fields = privateFields(privateText, privateName);
    String format = fields.get("Private-key-format");
    if (format == null || !format.startsWith("v1.")) {
      throw new KeyFileException(
          privateName,
          "Private-key-format",
          format == null ? "is missing" : "must be v1.2 or v1.3, was '" + format + "'");
    }
    String alg = fields.get("Algorithm");
    if (alg == null || !alg.split("\\s+")[0].equals(Integer.toString(algorithm.number()))) {
      throw new KeyFileException(
          privateName,
          "Algorithm",
          "must be "
              + algorithm.number()
              + " like the DNSKEY in "
              + keyName
              + ", was "
              + (alg == null ? "missing" : "'" + alg + "'"));
    }
    String encoded = fields.get("PrivateKey");
    if (encoded == null) {
      throw new KeyFileException(privateName, "PrivateKey", "is missing");
    }
    PrivateKey privateKey;
    try {
      PublicKey publicKey = dnskey.getPublicKey();
      byte[] bytes = Base64.getDecoder().decode(encoded.replaceAll("\\s", ""));
      privateKey = KeyCrypto.privateKey(algorithm, bytes, publicKey);
      if (!KeyCrypto.matches(algorithm, privateKey, publicKey)) {
        throw new KeyFileException(
            privateName, "PrivateKey", "is not the private half of the DNSKEY in " + keyName);
      }
    } catch (IllegalArgumentException e) {
      throw new KeyFileException(privateName, "PrivateKey", e.getMessage());
    } catch (DNSSEC.DNSSECException | GeneralSecurityException e) {
      throw new KeyFileException(keyName, "DNSKEY", "unusable public key: " + e.getMessage());
    }
    KeyTiming timing = timing(fields, privateName, keyText, keyName);
    return new SigningKey(dnskey, privateKey, timing);
  }

  /** Writes both files of {@code key} into {@code dir}: the {@code .private} with mode 600. */
  public static void write(Path dir, SigningKey key) throws IOException {
    Files.createDirectories(dir);
    String base = baseName(key);
    // The private file first: a reader that finds the public file finds its private half too.
    TokenFile.writePrivate(dir.resolve(base + ".private"), privateText(key));
    Path keyFile = dir.resolve(base + ".key");
    Path tmp = Files.createTempFile(dir, base, ".tmp");
    try {
      Files.writeString(tmp, keyText(key), StandardCharsets.US_ASCII);
      Files.move(tmp, keyFile, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** The text of the {@code .key} file of {@code key}, as {@code dnssec-keygen} writes it. */
  public static String keyText(SigningKey key) {
    StringBuilder b = new StringBuilder();
    b.append("; This is a ")
        .append(key.secureEntryPoint() ? "key-signing key" : "zone-signing key")
        .append(", keyid ")
        .append(key.tag())
        .append(", for ")
        .append(key.dnskey().getName())
        .append('\n');
    TIMES.forEach(
        (field, get) ->
            get.apply(key.timing())
                .ifPresent(
                    t -> {
                      LocalDateTime utc = LocalDateTime.ofInstant(t, ZoneOffset.UTC);
                      b.append("; ")
                          .append(field)
                          .append(": ")
                          .append(STAMP.format(utc))
                          .append(" (")
                          .append(READABLE.format(utc))
                          .append(")\n");
                    }));
    DNSKEYRecord k = key.dnskey();
    b.append(k.getName()).append(" IN DNSKEY ").append(k.rdataToString()).append('\n');
    return b.toString();
  }

  /** The text of the {@code .private} file of {@code key}, Private-key-format v1.3. */
  public static String privateText(SigningKey key) {
    StringBuilder b = new StringBuilder();
    b.append("Private-key-format: v1.3\n")
        .append("Algorithm: ")
        .append(key.algorithm())
        .append(" (")
        .append(DnssecAlgorithm.ofNumber(key.algorithm()))
        .append(")\n")
        .append("PrivateKey: ")
        .append(Base64.getEncoder().encodeToString(KeyCrypto.privateBytes(key.privateKey())))
        .append('\n');
    TIMES.forEach(
        (field, get) ->
            get.apply(key.timing())
                .ifPresent(
                    t ->
                        b.append(field)
                            .append(": ")
                            .append(STAMP.format(LocalDateTime.ofInstant(t, ZoneOffset.UTC)))
                            .append('\n')));
    return b.toString();
  }

  private static DNSKEYRecord dnskey(String text, String file) throws KeyFileException {
    DNSKEYRecord found = null;
    try (Master m =
        new Master(
            new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII)), Name.root, 3600)) {
      Record r;
      while ((r = m.nextRecord()) != null) {
        if (!(r instanceof DNSKEYRecord k)) {
          throw new KeyFileException(
              file,
              "record",
              "must hold one DNSKEY record, found a " + r.getClass().getSimpleName());
        }
        if (found != null) {
          throw new KeyFileException(file, "record", "must hold one DNSKEY record, found more");
        }
        found = k;
      }
    } catch (IOException e) {
      throw new KeyFileException(file, "DNSKEY", "not a DNSKEY record: " + e.getMessage());
    }
    if (found == null) {
      throw new KeyFileException(file, "DNSKEY", "no DNSKEY record in the file");
    }
    if (found.getProtocol() != DNSKEYRecord.Protocol.DNSSEC) {
      throw new KeyFileException(file, "DNSKEY protocol", "must be 3, was " + found.getProtocol());
    }
    if ((found.getFlags() & DNSKEYRecord.Flags.ZONE_KEY) == 0) {
      throw new KeyFileException(
          file, "DNSKEY flags", "must have the zone-key bit (256 or 257), was " + found.getFlags());
    }
    if ((found.getFlags() & DNSKEYRecord.Flags.REVOKE) != 0) {
      throw new KeyFileException(
          file, "DNSKEY flags", "a revoked key (flag 128) cannot sign, was " + found.getFlags());
    }
    return found;
  }

  // A file named as BIND names it must hold the key its name says: a copied or renamed file whose
  // tag does not match is a mistake the operator must hear about.
  private static void checkFileName(DNSKEYRecord k, String file) throws KeyFileException {
    String name = Path.of(file).getFileName().toString();
    Matcher m = KEY_FILE.matcher(name);
    if (!m.matches()) {
      return;
    }
    String expected = baseName(k.getName(), k.getAlgorithm(), k.getFootprint()) + ".key";
    if (!name.equalsIgnoreCase(expected)) {
      throw new KeyFileException(
          file,
          "file name",
          "holds the DNSKEY of "
              + k.getName()
              + " with algorithm "
              + k.getAlgorithm()
              + " and tag "
              + k.getFootprint()
              + ", so it must be named "
              + expected);
    }
  }

  private static Map<String, String> privateFields(String text, String file)
      throws KeyFileException {
    Map<String, String> fields = new LinkedHashMap<>();
    int line = 0;
    for (String l : text.split("\n")) {
      line++;
      String s = l.strip();
      if (s.isEmpty() || s.startsWith(";")) {
        continue;
      }
      int colon = s.indexOf(':');
      if (colon <= 0) {
        throw new KeyFileException(file, "line " + line, "must be 'Field: value', was '" + s + "'");
      }
      fields.put(s.substring(0, colon).strip(), s.substring(colon + 1).strip());
    }
    return fields;
  }

  // BIND writes the timing into the .key file's comments too; the .private file's values win.
  private static Map<String, String> comments(String text) {
    Map<String, String> fields = new LinkedHashMap<>();
    for (String l : text.split("\n")) {
      String s = l.strip();
      if (s.startsWith(";")) {
        String c = s.substring(1).strip();
        int colon = c.indexOf(':');
        if (colon > 0 && TIMES.containsKey(c.substring(0, colon))) {
          fields.put(c.substring(0, colon), c.substring(colon + 1).strip().split("\\s+")[0]);
        }
      }
    }
    return fields;
  }

  private static KeyTiming timing(
      Map<String, String> privateFields, String privateName, String keyText, String keyName)
      throws KeyFileException {
    Map<String, String> keyComments = comments(keyText);
    Map<String, Optional<Instant>> t = new LinkedHashMap<>();
    for (String field : TIMES.keySet()) {
      String v = privateFields.get(field);
      String file = privateName;
      if (v == null) {
        v = keyComments.get(field);
        file = keyName;
      }
      t.put(field, v == null ? Optional.empty() : Optional.of(stamp(v, file, field)));
    }
    return new KeyTiming(
        t.get("Created"),
        t.get("Publish"),
        t.get("Activate"),
        t.get("Inactive"),
        t.get("Delete"),
        t.get("SyncPublish"),
        t.get("SyncDelete"));
  }

  private static Instant stamp(String v, String file, String field) throws KeyFileException {
    try {
      return LocalDateTime.parse(v, STAMP).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      throw new KeyFileException(
          file, field, "must be a UTC time as YYYYMMDDHHMMSS, was '" + v + "'");
    }
  }
}
