package io.sluice.policy.topology;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;

/** The MaxMind test databases vendored in this module's test resources ({@code geoip/}). */
final class GeoIpTestData {
  private GeoIpTestData() {}

  /** The directory holding the test databases, from the test classpath. */
  static Path dir() {
    URL url = GeoIpTestData.class.getResource("/geoip/LICENSE-MIT");
    if (url == null) {
      throw new IllegalStateException("geoip test resources missing from the classpath");
    }
    try {
      return Path.of(url.toURI()).getParent();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
