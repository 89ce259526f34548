package io.sluice.core.spi;

import java.util.List;

/** Explains a policy decision step by step, for the admin API, the CLI and the audit log. */
public interface DecisionExplainer {

  /** The decision of {@code service} for {@code client}, with each step's input and output. */
  Explanation explain(String service, AddressFamily family, ClientInfo client);

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
