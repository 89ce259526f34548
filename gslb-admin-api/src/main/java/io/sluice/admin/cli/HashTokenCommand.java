package io.sluice.admin.cli;

import io.sluice.admin.auth.TokenAuthenticator;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** Prints the SHA-256 of a token for {@code admin.tokens[].sha256}, or makes a new token. */
@Command(
    name = "hash-token",
    mixinStandardHelpOptions = true,
    description = {
      "Read a token from standard input and print its SHA-256 for the config file.",
      "With --generate, make a new random token and print it with its hash."
    },
    footer = {
      "",
      "Example:",
      "  sluice ctl hash-token --generate",
      "  printf %%s \"$TOKEN\" | sluice ctl hash-token"
    })
final class HashTokenCommand implements Callable<Integer> {
  @ParentCommand SluiceCtl ctl;

  @Option(names = "--generate", description = "Generate a random 32-byte token.")
  boolean generate;

  @Override
  public Integer call() throws IOException {
    if (generate) {
      byte[] raw = new byte[32];
      new SecureRandom().nextBytes(raw);
      String token = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
      ctl.io.out().println("token:  " + token);
      ctl.io.out().println("sha256: " + TokenAuthenticator.hash(token));
      return CtlMain.OK;
    }
    String line = ctl.io.in().readLine();
    if (line == null || line.isBlank()) {
      throw new CtlException(CtlMain.USAGE, "no token on standard input");
    }
    ctl.io.out().println(TokenAuthenticator.hash(line.trim()));
    return CtlMain.OK;
  }
}
