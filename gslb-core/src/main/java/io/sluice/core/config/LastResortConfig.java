package io.sluice.core.config;

import static com.fasterxml.jackson.annotation.JsonFormat.Feature.ACCEPT_CASE_INSENSITIVE_PROPERTIES;

import com.fasterxml.jackson.annotation.JsonFormat;
import java.util.List;

/**
 * What a service answers when red-line rules leave no pool: a fixed fallback address list,
 * SERVFAIL, or an empty NOERROR answer.
 */
public record LastResortConfig(
    // Read in any case, as the first release read it.
    @JsonFormat(with = ACCEPT_CASE_INSENSITIVE_PROPERTIES) LastResortAction action,
    List<String> addresses) {

  public LastResortConfig {
    action = action == null ? LastResortAction.SERVFAIL : action;
    addresses = Lists.copy(addresses);
  }

  public static LastResortConfig defaults() {
    return new LastResortConfig(null, null);
  }

  void validate(String path, Problems p) {
    if (action == LastResortAction.ADDRESS && addresses.isEmpty()) {
      p.add(Problems.child(path, "addresses"), "at least one address is required");
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
