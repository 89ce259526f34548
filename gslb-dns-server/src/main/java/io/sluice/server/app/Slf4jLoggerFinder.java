package io.sluice.server.app;

import java.text.MessageFormat;
import java.util.ResourceBundle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes {@link System.Logger} (what {@code gslb-core} logs through, since it depends on no logging
 * library) to SLF4J, so the store's warnings, such as a torn journal tail cut at start, reach the
 * node's log in its format and level filter instead of java.util.logging's two-line stderr format.
 * Registered as the {@code java.lang.System$LoggerFinder} service of the server jar.
 */
public final class Slf4jLoggerFinder extends System.LoggerFinder {
  private static volatile boolean standardError;

  /** Creates the finder; called by the JDK's service loader. */
  public Slf4jLoggerFinder() {}

  /**
   * For {@code sluice ctl}: loggers print warnings and errors to standard error and never start
   * SLF4J. The JDK's HTTP client asks its logger on every request, and starting logback for it
   * would add a tenth of a second to every rollback.
   */
  static void useStandardError() {
    standardError = true;
  }

  @Override
  public System.Logger getLogger(String name, Module module) {
    return standardError ? new StandardError(name) : new Bridge(LoggerFactory.getLogger(name));
  }

  /** Warnings and errors as one line on standard error, named after the logger. */
  private record StandardError(String name) implements System.Logger {
    @Override
    public String getName() {
      return name;
    }

    @Override
    public boolean isLoggable(Level level) {
      return level != Level.OFF && level.getSeverity() >= Level.WARNING.getSeverity();
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
      if (isLoggable(level)) {
        System.err.println(
            name + ": " + localized(bundle, msg) + (thrown == null ? "" : ": " + thrown));
      }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
      if (isLoggable(level)) {
        System.err.println(name + ": " + formatted(bundle, format, params));
      }
    }
  }

  /** One SLF4J logger seen as a {@link System.Logger}; parameters follow {@link MessageFormat}. */
  private record Bridge(Logger slf4j) implements System.Logger {
    @Override
    public String getName() {
      return slf4j.getName();
    }

    @Override
    public boolean isLoggable(Level level) {
      return switch (level) {
        case ALL, TRACE -> slf4j.isTraceEnabled();
        case DEBUG -> slf4j.isDebugEnabled();
        case INFO -> slf4j.isInfoEnabled();
        case WARNING -> slf4j.isWarnEnabled();
        case ERROR -> slf4j.isErrorEnabled();
        case OFF -> false;
      };
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
      if (isLoggable(level)) {
        emit(level, localized(bundle, msg), thrown);
      }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
      if (isLoggable(level)) {
        emit(level, formatted(bundle, format, params), null);
      }
    }

    private void emit(Level level, String text, Throwable thrown) {
      org.slf4j.event.Level to =
          switch (level) {
            case ALL, TRACE -> org.slf4j.event.Level.TRACE;
            case DEBUG -> org.slf4j.event.Level.DEBUG;
            case INFO -> org.slf4j.event.Level.INFO;
            case WARNING -> org.slf4j.event.Level.WARN;
            case ERROR, OFF -> org.slf4j.event.Level.ERROR;
          };
      slf4j.atLevel(to).setCause(thrown).log(text);
    }
  }

  private static String formatted(ResourceBundle bundle, String format, Object... params) {
    String text = localized(bundle, format);
    return params == null || params.length == 0 ? text : MessageFormat.format(text, plain(params));
  }

  /**
   * Whole numbers as text, so they read as in every other log line ("1290 bytes") rather than in
   * MessageFormat's grouped style ("1,290"), which a grep for a byte offset or version would miss.
   */
  private static Object[] plain(Object[] params) {
    Object[] out = params.clone();
    for (int i = 0; i < out.length; i++) {
      if (out[i] instanceof Long || out[i] instanceof Integer || out[i] instanceof Short) {
        out[i] = out[i].toString();
      }
    }
    return out;
  }

  private static String localized(ResourceBundle bundle, String key) {
    if (bundle == null || key == null || !bundle.containsKey(key)) {
      return key;
    }
    return bundle.getString(key);
  }
}
