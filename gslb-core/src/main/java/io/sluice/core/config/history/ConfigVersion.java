package io.sluice.core.config.history;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * One applied configuration: its number (monotonic, never reused), the YAML text, the files it
 * references (the path as the YAML writes it, mapped to the SHA-256 of the content), who applied it
 * with which role, how, why and when; {@code restores} names the version a rollback applied again.
 */
public record ConfigVersion(
    long version,
    String yaml,
    Map<String, String> files,
    String actor,
    String role,
    ConfigSource source,
    String reason,
    long timeMillis,
    Long restores) {

  public ConfigVersion {
    files = files == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(files));
    yaml = yaml == null ? "" : yaml;
  }

  /** A version not yet numbered: the store assigns the number when it appends it. */
  public static ConfigVersion draft(
      String yaml,
      Map<String, String> files,
      String actor,
      String role,
      ConfigSource source,
      String reason,
      long timeMillis,
      Long restores) {
    return new ConfigVersion(0, yaml, files, actor, role, source, reason, timeMillis, restores);
  }

  /** The same version under number {@code n}. */
  public ConfigVersion numbered(long n) {
    return new ConfigVersion(n, yaml, files, actor, role, source, reason, timeMillis, restores);
  }

  /** The SHA-256 of the YAML text (hex). */
  @JsonIgnore
  public String sha256() {
    return sha256(yaml.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The SHA-256 of the YAML and every referenced file's hash: equal digests mean the node would run
   * exactly the same configuration.
   */
  @JsonIgnore
  public String digest() {
    StringBuilder sb = new StringBuilder(sha256());
    files.forEach((path, sha) -> sb.append('\n').append(path).append('\0').append(sha));
    return sha256(sb.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** This version as JSON, as the stores keep it. */
  public byte[] toJson() {
    try {
      return FileConfigStore.JSON.writeValueAsBytes(this);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot encode configuration version " + version, e);
    }
  }

  /** A version from its JSON; {@code where} names its origin in the error. */
  public static ConfigVersion fromJson(byte[] json, String where) throws java.io.IOException {
    try {
      return FileConfigStore.JSON.readValue(json, ConfigVersion.class);
    } catch (java.io.IOException e) {
      throw new java.io.IOException(
          "cannot read configuration version " + where + ": " + e.getMessage(), e);
    }
  }

  /** Hex SHA-256 of {@code bytes}. */
  public static String sha256(byte[] bytes) {
    return HexFormat.of().formatHex(digester().digest(bytes));
  }

  /** A fresh SHA-256 digester. */
  public static MessageDigest digester() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no SHA-256", e);
    }
  }

  /** Whether {@code s} is a hex SHA-256, as blob names are. */
  public static boolean isSha256(String s) {
    return s != null && s.matches("[0-9a-f]{64}");
  }
}
