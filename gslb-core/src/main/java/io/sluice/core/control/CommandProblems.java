package io.sluice.core.control;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects every problem of one command, so a caller learns all of them from one rejection instead
 * of fixing one field per attempt.
 */
public final class CommandProblems {
  private final List<Problem> list = new ArrayList<>();

  /** Records that {@code field} (or the request, when null) is wrong. */
  public CommandProblems add(String field, String message) {
    list.add(new Problem(field, message));
    return this;
  }

  /** Records every problem of {@code other}. */
  public CommandProblems addAll(List<Problem> other) {
    list.addAll(other);
    return this;
  }

  /** Whether {@code field} or a part of it (such as {@code weights.eu-west-1}) has a problem. */
  public boolean mentions(String field) {
    return list.stream()
        .anyMatch(
            p ->
                p.field() != null
                    && (p.field().equals(field)
                        || p.field().startsWith(field + ".")
                        || p.field().startsWith(field + "[")));
  }

  public boolean isEmpty() {
    return list.isEmpty();
  }

  public List<Problem> list() {
    return List.copyOf(list);
  }

  /** Rejects the command with every problem found, or returns when there is none. */
  public void throwIfAny() throws CommandRejectedException {
    if (!list.isEmpty()) {
      throw CommandRejectedException.invalid(list);
    }
  }
}
