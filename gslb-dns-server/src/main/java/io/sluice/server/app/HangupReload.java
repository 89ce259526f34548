package io.sluice.server.app;

import io.sluice.core.config.ConfigException;
import io.sluice.core.control.Actor;
import io.sluice.core.control.ConfigReloader;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads the configuration when the process receives SIGHUP, as daemons conventionally do.
 *
 * <p>{@code sun.misc.Signal} is reached through reflection because javac warns about every direct
 * use of it, with no way to suppress the warning, and the build treats warnings as errors.
 */
final class HangupReload {
  private static final Logger log = LoggerFactory.getLogger(HangupReload.class);
  private static final Actor SIGNAL = new Actor("SIGHUP", "system");

  private HangupReload() {}

  /** Whether a SIGHUP reaches the reload handler. */
  enum Status {
    /** {@code kill -HUP} reloads. */
    ACTIVE,
    /**
     * SIGHUP was ignored when the process started ({@code nohup} does that): the JVM leaves it
     * ignored, so a handler would never run.
     */
    IGNORED,
    /** The platform offers no SIGHUP. */
    UNAVAILABLE
  }

  /**
   * Installs the handler and logs whether SIGHUP reload is active, since an ignored signal gives no
   * sign of its own; {@code sluice ctl reload} works in every case.
   */
  static Status install(ConfigReloader reloader) {
    Status status = tryInstall(reloader);
    switch (status) {
      case ACTIVE ->
          log.info("SIGHUP reload is active (kill -HUP {})", ProcessHandle.current().pid());
      case IGNORED ->
          log.warn(
              "SIGHUP reload is NOT active: SIGHUP was ignored when this process started (under"
                  + " nohup?); reload with 'sluice ctl reload' or POST /api/v1/config/reload, or"
                  + " start without nohup (for example under systemd)");
      case UNAVAILABLE -> {}
    }
    return status;
  }

  private static Status tryInstall(ConfigReloader reloader) {
    try {
      Class<?> signalClass = Class.forName("sun.misc.Signal");
      Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
      Object hup = signalClass.getConstructor(String.class).newInstance("HUP");
      InvocationHandler onSignal =
          (proxy, method, args) -> {
            switch (method.getName()) {
              case "handle" -> reload(reloader);
              case "hashCode" -> {
                return System.identityHashCode(proxy);
              }
              case "equals" -> {
                return proxy == args[0];
              }
              case "toString" -> {
                return "SIGHUP reload";
              }
              default -> {}
            }
            return null;
          };
      Object handler =
          Proxy.newProxyInstance(
              handlerClass.getClassLoader(), new Class<?>[] {handlerClass}, onSignal);
      Object previous =
          signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, hup, handler);
      // The JVM does not take over a signal that was ignored at start: it answers SIG_IGN.
      if (previous == handlerClass.getField("SIG_IGN").get(null)) {
        return Status.IGNORED;
      }
      return Status.ACTIVE;
    } catch (ReflectiveOperationException | IllegalArgumentException e) {
      log.warn(
          "SIGHUP reload is not available here ({}); reload with 'sluice ctl reload' or the"
              + " admin API",
          e.toString());
      return Status.UNAVAILABLE;
    }
  }

  /** Runs on the JVM's signal thread, never on an event loop. */
  private static void reload(ConfigReloader reloader) {
    try {
      reloader.reload(SIGNAL);
    } catch (ConfigException e) {
      // The reloader has already logged every problem.
    } catch (RuntimeException | Error e) {
      // A failure the reload path did not turn into a rejection (a build's own failures, running
      // out of heap included, are rejections): logged here rather than printed by a signal
      // thread that dies with it, so the next SIGHUP still reloads.
      log.error("reload on SIGHUP failed, still serving the previous config", e);
    }
  }
}
