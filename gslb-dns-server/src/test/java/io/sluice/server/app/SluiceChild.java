package io.sluice.server.app;

import io.sluice.core.testing.ChildJvm;
import java.util.List;

/** The command line of a Sluice node in a child JVM, for tests that need a real process. */
public final class SluiceChild {
  /** The product's own logging configuration, which logs at INFO like a real node. */
  public static final List<String> LOGGING = List.of("-Dlogback.configurationFile=logback.xml");

  private SluiceChild() {}

  /** {@link Main} with {@code args} in a child JVM with a heap of {@code heapMb} megabytes. */
  public static List<String> command(int heapMb, String... args) {
    return ChildJvm.command(heapMb, LOGGING, Main.class, args);
  }
}
