package io.sluice.core.traffic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.core.config.ExternalGateConfig;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Reads an instant query from a Prometheus-compatible HTTP API ({@code GET
 * <url>/api/v1/query?query=...}) with the JDK HTTP client; the first sample's value is the result.
 */
public final class PrometheusMetric implements ExternalMetric {
  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private final HttpClient client;

  public PrometheusMetric() {
    this.client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
  }

  @Override
  public double read(ExternalGateConfig gate) throws IOException, InterruptedException {
    return query(gate.url(), gate.query(), gate.timeout());
  }

  /** The first sample of instant query {@code query} at {@code url} (also pool load pulls). */
  public double query(String url, String query, Duration timeout)
      throws IOException, InterruptedException {
    String base = url.endsWith("/") ? url : url + "/";
    URI uri =
        URI.create(base + "api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
    HttpRequest req = HttpRequest.newBuilder(uri).timeout(timeout).GET().build();
    HttpResponse<String> resp = client.send(req, HttpResponse.BodyHandlers.ofString());
    if (resp.statusCode() != 200) {
      throw new IOException("HTTP " + resp.statusCode() + " from " + uri);
    }
    JsonNode root = JSON.readTree(resp.body());
    if (!"success".equals(root.path("status").asText())) {
      throw new IOException("query failed: " + root.path("error").asText("no status"));
    }
    JsonNode data = root.path("data");
    JsonNode value;
    if ("scalar".equals(data.path("resultType").asText())) {
      value = data.path("result").path(1);
    } else {
      JsonNode first = data.path("result").path(0);
      if (first.isMissingNode()) {
        throw new IOException("the query returned no sample");
      }
      value = first.path("value").path(1);
    }
    if (!value.isTextual()) {
      throw new IOException("the sample has no value");
    }
    try {
      return Double.parseDouble(value.asText());
    } catch (NumberFormatException e) {
      throw new IOException("the sample value is not a number: " + value.asText(), e);
    }
  }
}
