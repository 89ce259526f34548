package io.sluice.core.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One parsed step of a service's policy chain, written {@code name} or {@code name(arg, ...)}, for
 * example {@code residency(eu-only)} or {@code weighted(mix)}. Only the syntax and the arguments
 * that need no other module are checked here; the policy module checks the rest when it compiles.
 */
public record ChainStep(String name, List<String> args) {

  /** Steps that filter by rule and are never overridden by later steps. */
  public static final Set<String> RED_LINES = Set.of("healthy", "residency");

  /** Steps that pick among the remaining pools by client hash or weight; at most one per chain. */
  public static final Set<String> BALANCERS = Set.of("weighted", "hash");

  /** Every known step, in the order they are documented. */
  public static final List<String> KNOWN =
      List.of(
          "healthy",
          "residency",
          "geo",
          "priority",
          "latency",
          "capacity",
          "weighted",
          "hash",
          "limit");

  public ChainStep {
    args = List.copyOf(args);
  }

  /** Parses one step; throws IllegalArgumentException saying what is wrong. */
  public static ChainStep parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("a step must not be empty");
    }
    String s = text.strip();
    int open = s.indexOf('(');
    String name = (open < 0 ? s : s.substring(0, open)).strip().toLowerCase(Locale.ROOT);
    List<String> args = new ArrayList<>();
    if (open >= 0) {
      if (!s.endsWith(")") || s.indexOf(')') != s.length() - 1 || s.indexOf('(', open + 1) >= 0) {
        throw new IllegalArgumentException("malformed step '" + s + "': expected name(arg, ...)");
      }
      String inner = s.substring(open + 1, s.length() - 1);
      for (String a : inner.split(",", -1)) {
        if (a.isBlank()) {
          throw new IllegalArgumentException("step '" + s + "' has an empty argument");
        }
        args.add(a.strip());
      }
    }
    if (!KNOWN.contains(name)) {
      throw new IllegalArgumentException(
          "unknown step '" + name + "' (known steps: " + String.join(", ", KNOWN) + ")");
    }
    ChainStep step = new ChainStep(name, args);
    step.checkArgs();
    return step;
  }

  private void checkArgs() {
    switch (name) {
      case "healthy", "geo", "priority", "latency" -> arity(0, 0);
      case "residency" -> arity(1, 1);
      case "weighted" -> {
        arity(0, 1);
        if (!args.isEmpty() && !List.of("one", "mix").contains(args.get(0))) {
          throw new IllegalArgumentException(
              "weighted answer style must be 'one' or 'mix', was '" + args.get(0) + "'");
        }
      }
      case "capacity" -> number(1, 100, "watermark percent");
      case "hash" -> number(0, 1000, "capacity tolerance percent");
      case "limit" -> number(1, 64, "record limit");
      default -> throw new IllegalStateException(name);
    }
  }

  private void arity(int min, int max) {
    if (args.size() < min || args.size() > max) {
      String want = min == max ? (min == 0 ? "no arguments" : min + " argument") : min + ".." + max;
      throw new IllegalArgumentException(
          "step '" + name + "' takes " + want + ", was given " + args.size());
    }
  }

  private void number(int min, int max, String what) {
    arity(0, 1);
    if (args.isEmpty()) {
      return;
    }
    int v;
    try {
      v = Integer.parseInt(args.get(0));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "step '" + name + "' takes a whole number (" + what + "), was '" + args.get(0) + "'");
    }
    if (v < min || v > max) {
      throw new IllegalArgumentException(
          "step '" + name + "' " + what + " must be " + min + ".." + max + ", was " + v);
    }
  }

  /** The single numeric argument, or {@code fallback} when absent. */
  public int intArg(int fallback) {
    return args.isEmpty() ? fallback : Integer.parseInt(args.get(0));
  }

  /** The single argument, or {@code fallback} when absent. */
  public String arg(String fallback) {
    return args.isEmpty() ? fallback : args.get(0);
  }

  @Override
  public String toString() {
    return args.isEmpty() ? name : name + "(" + String.join(", ", args) + ")";
  }
}
