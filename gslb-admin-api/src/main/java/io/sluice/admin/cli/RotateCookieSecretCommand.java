package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Rotates the DNS cookie secret of the whole cluster. */
@Command(
    name = "rotate-cookie-secret",
    mixinStandardHelpOptions = true,
    description = {
      "Make a fresh DNS cookie secret current on every node of the cluster (admin role);",
      "cookies of the secret it replaces stay valid as the previous one. Asks unless --yes.",
      "A single node refuses: its secret is a file, rotated with a reload (docs/dns.md)."
    },
    footer = {"", "Example:", "  sluice ctl rotate-cookie-secret --yes"})
final class RotateCookieSecretCommand extends ApiCommand {
  @Option(
      names = {"-y", "--yes"},
      description = "Do not ask for confirmation.")
  boolean yes;

  @Override
  public Integer call() {
    confirm(
        yes,
        "Rotate the cluster's DNS cookie secret; the current one stays valid as the previous.");
    JsonNode r = api().send("POST", "/api/v1/dns/cookies/rotate", body(null, null));
    if (json()) {
      printJson(r);
    } else {
      out()
          .println(
              "cookie secret rotated on the cluster: now "
                  + r.path("fingerprint").asText()
                  + ", the previous one still accepted");
    }
    return CtlMain.OK;
  }
}
