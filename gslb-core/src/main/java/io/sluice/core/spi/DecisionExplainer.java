package io.sluice.core.spi;

import io.sluice.core.config.Cidr;
import java.util.List;
import java.util.Map;

/** Explains a policy decision step by step, for the admin API, the CLI and the audit log. */
public interface DecisionExplainer {

  /** The decision of {@code service} for {@code client}, with each step's input and output. */
  Explanation explain(String service, AddressFamily family, ClientInfo client);

  /**
   * The same explanation on {@code snapshot} instead of the current state: a state served earlier,
   * rebuilt from the history ({@code sluice ctl why}). An explainer that only knows the current
   * state refuses.
   */
  default Explanation explain(
      io.sluice.core.state.Snapshot snapshot,
      String service,
      AddressFamily family,
      ClientInfo client) {
    throw new UnsupportedOperationException("this explainer cannot explain an earlier state");
  }

  /**
   * A few networks of each region that only the GeoIP database knows (region name to networks),
   * from the configuration serving now; empty without a database.
   */
  default Map<String, List<Cidr>> geoIpSamples() {
    return Map.of();
  }

  /** A decision and how it was reached. */
  record Explanation(
      String service,
      String client,
      String region,
      String regionSource,
      List<Step> steps,
      Decision decision) {}

  /** One step of the chain: the pools it was given, the pools it kept, and why. */
  record Step(String name, List<String> in, List<String> out, String note) {}
}
