package io.sluice.core.config;

import java.util.List;
import java.util.stream.Collectors;

/** Thrown when a configuration is invalid; carries every problem found, each with its location. */
public final class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;
  private final transient List<ConfigProblem> problems;

  public ConfigException(List<ConfigProblem> problems) {
    super(problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("\n")));
    this.problems = List.copyOf(problems);
  }

  public ConfigException(String file, String path, String message) {
    this(List.of(new ConfigProblem(file, path, message)));
  }

  /** Every problem found, in the order they were found. */
  public List<ConfigProblem> problems() {
    return problems;
  }
}
