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

  /** Installs the handler; returns false where the platform offers no SIGHUP. */
  static boolean install(ConfigReloader reloader) {
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
      signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, hup, handler);
      return true;
    } catch (ReflectiveOperationException | IllegalArgumentException e) {
      log.warn("SIGHUP reload is not available here ({}); use the admin API to reload", e);
      return false;
    }
  }

  /** Runs on the JVM's signal thread, never on an event loop. */
  private static void reload(ConfigReloader reloader) {
    try {
      reloader.reload(SIGNAL);
    } catch (ConfigException e) {
      // The reloader has already logged every problem.
    } catch (RuntimeException e) {
      log.error("reload on SIGHUP failed", e);
    }
  }
}
