package io.sluice.core.config;

import java.util.List;
import java.util.Locale;

/**
 * What a service answers when red-line rules leave no pool: a fixed fallback address list,
 * SERVFAIL, or an empty NOERROR answer.
 */
public record LastResortConfig(String action, List<String> addresses) {

  public LastResortConfig {
    action = action == null ? "servfail" : action.toLowerCase(Locale.ROOT);
    addresses = Lists.copy(addresses);
  }

  public static LastResortConfig defaults() {
    return new LastResortConfig(null, null);
  }

  void validate(String path, Problems p) {
    switch (action) {
      case "servfail", "empty" -> {}
      case "address" -> {
        if (addresses.isEmpty()) {
          p.add(Problems.child(path, "addresses"), "at least one address is required");
        }
      }
      default ->
          p.add(
              Problems.child(path, "action"),
              "must be one of servfail, empty, address; was '" + action + "'");
    }
    for (int i = 0; i < addresses.size(); i++) {
      if (!Addresses.isLiteral(addresses.get(i))) {
        p.add(
            Problems.index(Problems.child(path, "addresses"), i),
            "must be an IP address, was '" + addresses.get(i) + "'");
      }
    }
  }
}
