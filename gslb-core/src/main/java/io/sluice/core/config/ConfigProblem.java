package io.sluice.core.config;

/**
 * One thing wrong with a configuration: where it is (file and path inside it) and what is wrong.
 */
public record ConfigProblem(String file, String path, String message) {

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    if (file != null && !file.isEmpty()) {
      sb.append(file).append(": ");
    }
    if (path != null && !path.isEmpty()) {
      sb.append(path).append(": ");
    }
    return sb.append(message).toString();
  }
}
