package io.sluice.admin.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import picocli.CommandLine.Command;

/**
 * Finds the top-level commands of a package without a list to keep: every top-level class of the
 * package whose name ends in {@code Command} and that carries a picocli {@code @Command} with a
 * one-word name is a command. A new command is one new class; help lists it, and the help test
 * checks its example.
 *
 * <p>A run names one command, and loading every command class costs start-up ({@code sluice ctl} is
 * typed when things go wrong), so {@link #byName} first tries the class the name spells ({@code
 * rotate-cookie-secret}: {@code RotateCookieSecretCommand}) and reads the package only when that
 * class does not exist or has another name.
 */
public final class CommandIndex {
  private final Class<?> anchor;

  /** The commands of {@code anchor}'s package, read from where {@code anchor} was loaded. */
  public CommandIndex(Class<?> anchor) {
    this.anchor = anchor;
  }

  /** The command class named {@code name}, or null when there is none. */
  public Class<?> byName(String name) {
    // String.concat, not +: the first string concatenation of a new shape spins method handles,
    // a few milliseconds of a command's start-up.
    Class<?> c = load(anchor.getPackageName().concat(".").concat(className(name)));
    if (c != null && name.equals(commandName(c))) {
      return c;
    }
    return all().get(name);
  }

  /** Every command by name, in name order. */
  public Map<String, Class<?>> all() {
    Map<String, Class<?>> out = new TreeMap<>();
    for (String simple : classNames()) {
      Class<?> c = load(anchor.getPackageName() + "." + simple);
      String name = c == null ? null : commandName(c);
      if (name != null && c != anchor) {
        out.put(name, c);
      }
    }
    return out;
  }

  /** {@code rotate-cookie-secret} → {@code RotateCookieSecretCommand}. */
  static String className(String name) {
    StringBuilder sb = new StringBuilder();
    for (String part : name.split("-")) {
      if (!part.isEmpty()) {
        sb.append(part.substring(0, 1).toUpperCase(Locale.ROOT)).append(part.substring(1));
      }
    }
    return sb.append("Command").toString();
  }

  /** The one-word {@code @Command} name of a concrete command class, or null. */
  private static String commandName(Class<?> c) {
    Command a = c.getAnnotation(Command.class);
    if (a == null
        || Modifier.isAbstract(c.getModifiers())
        || a.name().isEmpty()
        || a.name().contains(" ")
        || a.name().equals("<main class>")) {
      return null;
    }
    return a.name();
  }

  private Class<?> load(String name) {
    try {
      return Class.forName(name, false, anchor.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }

  /** The simple names of the package's top-level classes ending in {@code Command}. */
  private List<String> classNames() {
    String dir = anchor.getPackageName().replace('.', '/');
    List<String> out = new ArrayList<>();
    try {
      Path from = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (Files.isDirectory(from)) {
        try (Stream<Path> files = Files.list(from.resolve(dir))) {
          files.map(f -> f.getFileName().toString()).forEach(f -> add(f, out));
        }
      } else {
        try (JarFile jar = new JarFile(from.toFile())) {
          for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
            String entry = e.nextElement().getName();
            if (entry.startsWith(dir + "/") && entry.indexOf('/', dir.length() + 1) < 0) {
              add(entry.substring(dir.length() + 1), out);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the commands of " + dir, e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot list the commands of " + dir, e);
    }
    return out;
  }

  private static void add(String file, List<String> out) {
    if (file.endsWith("Command.class") && file.indexOf('$') < 0) {
      out.add(file.substring(0, file.length() - ".class".length()));
    }
  }
}
