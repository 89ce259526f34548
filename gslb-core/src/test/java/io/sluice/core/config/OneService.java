package io.sluice.core.config;

import java.nio.file.Path;

/** A configuration of one service {@code app.example.com.} over one pool, for settings tests. */
final class OneService {
  private OneService() {}

  /** The file read with {@code key: value} added to the service, e.g. ("traffic", "{}"). */
  static SluiceConfig parse(String key, String value) throws ConfigException {
    String yaml =
        """
        pools:
          p: { endpoints: [ { address: 192.0.2.1 } ] }
        zones:
          - origin: example.com.
            soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
            ns: [ns1.example.com.]
            services:
              - name: app
                pools: [p]
                %s: %s
        """
            .formatted(key, value);
    return ConfigLoader.parse(yaml, "t.yaml", Path.of("."));
  }
}
