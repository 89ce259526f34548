package io.sluice.probe.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.health.ProbeReport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Posts one {@link ProbeReport} as JSON to a node's admin API with a bearer token. Asynchronous;
 * the future tells the HTTP status (or the error), and a failure is never retried: the next round
 * carries fresher results.
 */
final class ReportPoster {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI target;
  private final String token;

  ReportPoster(URI target, String token) {
    this.target = target;
    this.token = token;
  }

  /** Serialises a report the way the admin API reads it. */
  static String toJson(ProbeReport r) {
    try {
      return JSON.writeValueAsString(r);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise a report", e);
    }
  }

  CompletableFuture<HttpResponse<String>> post(ProbeReport r) {
    HttpRequest req =
        HttpRequest.newBuilder(target)
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer " + token)
            .POST(HttpRequest.BodyPublishers.ofString(toJson(r)))
            .build();
    return client.sendAsync(req, HttpResponse.BodyHandlers.ofString());
  }
}
