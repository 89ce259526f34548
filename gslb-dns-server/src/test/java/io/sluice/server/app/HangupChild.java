package io.sluice.server.app;

import io.sluice.core.control.CommandResult;

/** A child JVM for {@link HangupReloadTest}: installs the handler and reports each reload. */
public final class HangupChild {
  private HangupChild() {}

  public static void main(String[] args) throws Exception {
    HangupReload.Status status =
        HangupReload.install(
            actor -> {
              System.out.println("reloaded by " + actor.name());
              System.out.flush();
              return new CommandResult(1, false, "reloaded");
            });
    System.out.println("status " + status);
    System.out.flush();
    Thread.sleep(30_000);
  }
}
