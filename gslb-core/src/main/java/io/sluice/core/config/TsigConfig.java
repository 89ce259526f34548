package io.sluice.core.config;

import java.util.Locale;

/**
 * A TSIG key (RFC 8945) that zone transfers must be signed with: its name, its HMAC algorithm and
 * the file holding its base64 secret (relative to the state directory; created with a random secret
 * on first start when missing, readable by its owner only).
 */
public record TsigConfig(String name, TsigAlgorithm algorithm, String secretFile) {

  public TsigConfig {
    name = name == null ? null : DomainNames.canonical(name);
    algorithm = algorithm == null ? TsigAlgorithm.HMAC_SHA256 : algorithm;
    if (secretFile == null && name != null) {
      secretFile = "tsig-" + name.replaceAll("\\.$", "").toLowerCase(Locale.ROOT) + ".key";
    }
  }

  void validate(String path, Problems p) {
    if (p.required(Problems.child(path, "name"), name)) {
      String why = DomainNames.problem(name);
      if (why != null) {
        p.add(Problems.child(path, "name"), why);
      }
    }
    if (secretFile != null && secretFile.isBlank()) {
      p.add(Problems.child(path, "secretFile"), "must not be empty (leave it out for the default)");
    }
  }
}
