package io.sluice.core.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects validation problems against paths such as {@code zones[0].records[3].ttl}, so that one
 * validation pass reports everything wrong instead of stopping at the first problem.
 */
public final class Problems {
  private final String file;
  private final List<ConfigProblem> list = new ArrayList<>();

  public Problems(String file) {
    this.file = file;
  }

  /** Records a problem at {@code path}. */
  public void add(String path, String message) {
    list.add(new ConfigProblem(file, path, message));
  }

  /** Records a problem when {@code value} lies outside {@code min..max}. */
  public void range(String path, long value, long min, long max) {
    if (value < min || value > max) {
      add(path, "must be " + min + ".." + max + ", was " + value);
    }
  }

  /** Records a problem when {@code value} is null. */
  public boolean required(String path, Object value) {
    if (value == null) {
      add(path, "is required");
      return false;
    }
    return true;
  }

  public boolean isEmpty() {
    return list.isEmpty();
  }

  public List<ConfigProblem> list() {
    return List.copyOf(list);
  }

  /** Throws a {@link ConfigException} holding every problem, if there is any. */
  public void throwIfAny() throws ConfigException {
    if (!list.isEmpty()) {
      throw new ConfigException(list);
    }
  }

  /** Joins a path and a child key: {@code child("zones[0]", "ttl")} is {@code zones[0].ttl}. */
  public static String child(String path, String key) {
    return path == null || path.isEmpty() ? key : path + "." + key;
  }

  /** Appends a list index to a path: {@code index("zones", 0)} is {@code zones[0]}. */
  public static String index(String path, int i) {
    return path + "[" + i + "]";
  }
}
