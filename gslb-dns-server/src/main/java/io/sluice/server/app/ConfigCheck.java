package io.sluice.server.app;

import io.sluice.admin.rest.AdminServer;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.ConfigProblem;
import io.sluice.core.config.Problems;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TokenFile;
import io.sluice.core.store.StateFormat;
import io.sluice.dns.https.HttpsSettings;
import io.sluice.dns.response.CookieSecrets;
import io.sluice.dns.transfer.TsigKey;
import io.sluice.dns.zone.ZoneCompiler;
import io.sluice.policy.PolicyPlanner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one check of a configuration file used by {@code sluice check}, the start and every reload,
 * so they agree: shape and types, values, the files the node needs (state directory, admin TLS),
 * then master files and the policy chain, all problems reported in one run.
 */
final class ConfigCheck {
  private static final Logger log = LoggerFactory.getLogger(ConfigCheck.class);

  private ConfigCheck() {}

  /**
   * Loads and validates {@code file} with {@code overrides} applied, and checks the admin TLS
   * files; with {@code compile}, also compiles the zones and the policy chain (start and reload
   * leave that to the node, which does it once and reports the same problems). When anything is
   * wrong, the later phases still run on what could be read, and every problem is thrown at once.
   */
  static SluiceConfig load(Path file, CliOverrides overrides, boolean compile)
      throws ConfigException {
    return check(ConfigLoader.read(file, overrides::apply), file.toString(), List.of(), compile);
  }

  /**
   * The same check of a configuration already read (from a file or the configuration history),
   * named {@code name} in problems; {@code known} are problems the caller found first (a referenced
   * file that was not uploaded), reported before the others.
   */
  static SluiceConfig check(
      ConfigLoader.Parsed parsed, String name, List<ConfigProblem> known, boolean compile)
      throws ConfigException {
    Problems problems = new Problems(name);
    SluiceConfig config = parsed.config();
    if (config != null) {
      checkStateDir(config, problems);
      // The start refuses unusable cookie secret files; check says so too, creating none.
      CookieSecrets.check(config, problems);
      TsigKey.check(config, problems);
      AdminServer.checkTls(config, problems);
      HttpsSettings.check(config, problems);
    }
    List<ConfigProblem> all = merge(merge(known, parsed.problems()), problems.list());
    if (config != null && (compile || !all.isEmpty())) {
      all = merge(all, laterPhaseProblems(config, name, !all.isEmpty()));
    }
    if (!all.isEmpty()) {
      throw new ConfigException(all);
    }
    return config;
  }

  /**
   * The state directory must be a directory (or not exist yet: the start creates it), and the local
   * admin token in it, when the node would use one, must be one the start accepts.
   */
  private static void checkStateDir(SluiceConfig config, Problems problems) {
    Path dir = config.stateDirectory();
    if (!config.stateDir().isBlank() && Files.exists(dir) && !Files.isDirectory(dir)) {
      problems.add(
          "stateDir",
          "'" + config.stateDir() + "' (resolved to " + dir + ") exists and is not a directory");
      return;
    }
    // The start refuses a state directory a newer release wrote: so does check.
    try {
      StateFormat.check(dir);
    } catch (IOException e) {
      problems.add("stateDir", e.getMessage());
      return;
    }
    // The start reads the local token (admin.tokens empty) and refuses a file other users can
    // read or an empty one; check says so too, instead of passing a file the start then refuses.
    Path token = dir.resolve(AdminBootstrapToken.FILE);
    if (config.admin().enabled() && config.admin().tokens().isEmpty() && Files.exists(token)) {
      try {
        TokenFile.read(token);
      } catch (IOException e) {
        problems.add(
            "stateDir", "the local admin token (admin.tokens is empty): " + e.getMessage());
      }
    }
  }

  /**
   * The problems of compiling the zones (master files included) and the policy chain. With {@code
   * afterProblems}, earlier phases already failed: a compiler tripping over what they reported adds
   * nothing, since the earlier problem is the one to fix.
   */
  static List<ConfigProblem> laterPhaseProblems(
      SluiceConfig config, String name, boolean afterProblems) {
    List<ConfigProblem> found = new ArrayList<>();
    try {
      ZoneCompiler.compile(config, name);
    } catch (ConfigException e) {
      found.addAll(e.problems());
    } catch (RuntimeException e) {
      if (!afterProblems) {
        throw e;
      }
    }
    try {
      for (String warning : PolicyPlanner.check(config, name)) {
        if (!afterProblems) {
          log.warn("{}", warning);
        }
      }
    } catch (ConfigException e) {
      found.addAll(e.problems());
    } catch (RuntimeException e) {
      if (!afterProblems) {
        throw e;
      }
    }
    return found;
  }

  /** {@code first} then those of {@code more} at a path none of {@code first} names. */
  static List<ConfigProblem> merge(List<ConfigProblem> first, List<ConfigProblem> more) {
    List<ConfigProblem> out = new ArrayList<>(first);
    for (ConfigProblem p : more) {
      if (first.stream().noneMatch(q -> q.path().equals(p.path()))) {
        out.add(p);
      }
    }
    return out;
  }
}
