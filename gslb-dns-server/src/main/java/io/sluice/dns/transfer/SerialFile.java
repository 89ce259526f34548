package io.sluice.dns.transfer;

import io.sluice.core.config.ConfigException;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.xbill.DNS.Name;

/**
 * The last published serial and content fingerprint of every transferred zone, in {@code
 * zone-serials.properties} in the state directory, so that the serial rule carries over a restart:
 * a zone changed while the server was down still gets a newer serial than its secondaries hold.
 */
final class SerialFile {
  static final String FILE = "zone-serials.properties";

  /** One zone's record. */
  record Entry(long serial, ZoneDigest digest) {}

  private final Map<String, String> read;
  private final Map<String, String> lines;

  private SerialFile(Map<String, String> read) {
    this.read = read;
    this.lines = new TreeMap<>(read);
  }

  /** The file in {@code stateDir}; empty when missing or unreadable (serials then restart). */
  static SerialFile read(Path stateDir) {
    Path file = stateDir.resolve(FILE);
    Map<String, String> m = new TreeMap<>();
    if (Files.exists(file)) {
      try {
        Properties p = new Properties();
        p.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
        p.stringPropertyNames().forEach(k -> m.put(k, p.getProperty(k)));
      } catch (IOException | IllegalArgumentException e) {
        // The configured serials then apply: the worst case is a secondary waiting for a bump.
        return new SerialFile(Map.of());
      }
    }
    return new SerialFile(m);
  }

  /** The entry of {@code origin}, or null. */
  Entry get(Name origin) {
    String v = lines.get(origin.toString());
    if (v == null) {
      return null;
    }
    String[] parts = v.trim().split("\\s+");
    if (parts.length != 2 || !parts[0].matches("\\d{1,10}")) {
      return null;
    }
    ZoneDigest d = ZoneDigest.parse(parts[1]);
    return d == null ? null : new Entry(Long.parseLong(parts[0]) & 0xffffffffL, d);
  }

  void put(Name origin, long serial, ZoneDigest digest) {
    lines.put(origin.toString(), serial + " " + digest.text());
  }

  /** Writes the file (replacing it in one rename) when an entry changed. */
  void writeIfChanged(Path stateDir, String source) throws ConfigException {
    if (lines.equals(read)) {
      return;
    }
    Path file = stateDir.resolve(FILE);
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Properties p = new Properties();
      p.putAll(lines);
      StringWriter w = new StringWriter();
      p.store(w, "zone serials of the transfer rule (docs/dns.md#zone-transfers)");
      Path tmp = Files.createTempFile(file.toAbsolutePath().getParent(), FILE, ".tmp");
      try {
        Files.writeString(tmp, w.toString(), StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      throw new ConfigException(
          source, "stateDir", "cannot record zone serials in " + file + ": " + e.getMessage());
    }
  }
}
