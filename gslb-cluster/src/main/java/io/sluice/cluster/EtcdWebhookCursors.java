package io.sluice.cluster;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.sluice.core.notify.SharedCursors;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The webhook delivery cursors of a cluster on etcd: key {@code webhooks/cursors/<webhook>/<lane>}
 * (lane: the service name, {@code -} for node-wide events) holds the shared-state revision up to
 * which that webhook received that lane's events. Only the leader sends, so only it writes them; a
 * new leader reads them and resumes after them.
 */
public final class EtcdWebhookCursors implements SharedCursors {
  static final String PREFIX = "webhooks/cursors/";
  private static final String NODE_WIDE = "-";

  private final Client client;
  private final Duration timeout;

  private EtcdWebhookCursors(Client client, Duration timeout) {
    this.client = client;
    this.timeout = timeout;
  }

  /** The cursors of the cluster {@code client} is namespaced to, {@code timeout} per call. */
  public static EtcdWebhookCursors create(Client client, Duration timeout) {
    return new EtcdWebhookCursors(client, timeout);
  }

  @Override
  public Map<String, Map<String, Long>> read() {
    ByteSequence prefix = EtcdClients.bytes(PREFIX);
    Map<String, Map<String, Long>> out = new HashMap<>();
    for (KeyValue kv :
        await(client.getKVClient().get(prefix, GetOption.builder().isPrefix(true).build()))
            .getKvs()) {
      String rest = kv.getKey().toString(StandardCharsets.UTF_8).substring(PREFIX.length());
      int slash = rest.indexOf('/');
      if (slash <= 0) {
        continue;
      }
      String lane = rest.substring(slash + 1);
      try {
        out.computeIfAbsent(rest.substring(0, slash), k -> new HashMap<>())
            .put(
                NODE_WIDE.equals(lane) ? "" : lane,
                Long.parseLong(kv.getValue().toString(StandardCharsets.UTF_8).trim()));
      } catch (NumberFormatException e) {
        // A foreign value: that cursor starts over (events are sent again under their ids).
      }
    }
    return out;
  }

  @Override
  public void delivered(String sink, String lane, long revision) {
    await(
        client
            .getKVClient()
            .put(
                EtcdClients.bytes(PREFIX + sink + "/" + (lane.isEmpty() ? NODE_WIDE : lane)),
                EtcdClients.bytes(Long.toString(revision))));
  }

  private <T> T await(java.util.concurrent.CompletableFuture<T> f) {
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      f.cancel(true);
      throw new IllegalStateException("etcd: " + e, e);
    }
  }
}
