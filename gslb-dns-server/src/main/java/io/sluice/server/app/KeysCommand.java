package io.sluice.server.app;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.DnssecAlgorithm;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.dnssec.KeyRole;
import io.sluice.dns.dnssec.keys.KeyDirectory;
import io.sluice.dns.dnssec.keys.KeyFiles;
import io.sluice.dns.dnssec.keys.KeyGenerator;
import io.sluice.dns.dnssec.keys.KeyTiming;
import io.sluice.dns.dnssec.keys.SigningKey;
import io.sluice.dns.dnssec.keys.ZoneKeyView;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code sluice keys}: offline DNSSEC key management in BIND's key-file format. */
@Command(
    name = "keys",
    mixinStandardHelpOptions = true,
    description = "DNSSEC keys as BIND key files (see docs/dnssec.md).",
    subcommands = {KeysCommand.Generate.class},
    footer = {"", "Example:", "  sluice keys generate example.com --config config/sluice.yaml"})
final class KeysCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    System.err.println("usage: sluice keys generate ZONE [--algorithm ALG] [--ksk|--zsk|--csk]");
    return 2;
  }

  /** The role options: one of them, a CSK when none is given. */
  static final class Roles {
    @Option(names = "--ksk", description = "A key-signing key (SEP flag, flags 257).")
    boolean ksk;

    @Option(names = "--zsk", description = "A zone-signing key (flags 256).")
    boolean zsk;

    @Option(
        names = "--csk",
        description = "A combined signing key (flags 257) that signs everything (the default).")
    boolean csk;

    KeyRole role() {
      return ksk ? KeyRole.KSK : zsk ? KeyRole.ZSK : KeyRole.CSK;
    }
  }

  /** {@code sluice keys generate}: a new key, published and active from now. */
  @Command(
      name = "generate",
      mixinStandardHelpOptions = true,
      description = {
        "Write a new key of ZONE as K<zone>.+<alg>+<tag>.key and .private (mode 600), published"
            + " and active from now, and print its file name and DS record. The running node"
            + " loads it on its next reload. To replace a key in use, roll it over with"
            + " 'sluice ctl keys' instead.",
      },
      footer = {
        "",
        "Example:",
        "  sluice keys generate example.com --ksk --algorithm ED25519 --directory keys/example.com"
      })
  static final class Generate implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ZONE", description = "The zone, e.g. example.com.")
    String zone;

    @Option(
        names = "--algorithm",
        paramLabel = "ALG",
        description =
            "ECDSAP256SHA256 (13) or ED25519 (15); default: the zone's dnssec.algorithm with"
                + " --config, else ECDSAP256SHA256.")
    DnssecAlgorithm algorithm;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Roles roles = new Roles();

    @Option(
        names = "--directory",
        paramLabel = "DIR",
        description =
            "Where to write the files; default: the zone's key directory with --config, else the"
                + " current directory.")
    Path directory;

    @Option(
        names = "--config",
        paramLabel = "FILE",
        description = "A configuration whose zone's dnssec section gives directory and algorithm.")
    Path config;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Name name;
      try {
        name = Name.fromString(zone, Name.root);
      } catch (TextParseException e) {
        err.println("ZONE: not a domain name: " + zone);
        return 2;
      }
      Path dir = directory == null ? Path.of(".") : directory;
      DnssecAlgorithm alg = algorithm == null ? DnssecAlgorithm.ECDSAP256SHA256 : algorithm;
      Duration ttl = Duration.ofHours(1);
      if (config != null) {
        try {
          SluiceConfig c = ConfigLoader.load(config);
          KeyDirectory.ZoneSetup setup = KeyDirectory.ZoneSetup.of(c).get(name);
          if (setup == null) {
            err.println(
                config
                    + ": zone "
                    + name
                    + " is not signed (no dnssec section, or enabled: false)");
            return 2;
          }
          dir = directory == null ? setup.directory() : directory;
          alg = algorithm == null ? setup.algorithm() : algorithm;
          ttl = setup.dnskeyTtl();
        } catch (ConfigException e) {
          err.println("cannot read " + config + ": " + e.getMessage());
          return 2;
        }
      }
      SigningKey key =
          KeyGenerator.generate(name, alg, roles.role(), ttl, KeyTiming.startingAt(Instant.now()));
      try {
        KeyFiles.write(dir, key);
      } catch (IOException e) {
        err.println("cannot write the key into " + dir + ": " + e.getMessage());
        return 1;
      }
      out.println(dir.resolve(KeyFiles.baseName(key)));
      if (key.secureEntryPoint()) {
        out.println(ZoneKeyView.ds(key.dnskey()));
      }
      out.flush();
      return 0;
    }
  }
}
