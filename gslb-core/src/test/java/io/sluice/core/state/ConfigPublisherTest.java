package io.sluice.core.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.HealthView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Start and reload build every artifact once, then publish config and artifacts in one swap. */
class ConfigPublisherTest {
  private static SluiceConfig config(String address) throws ConfigException {
    return ConfigLoader.parse(
        """
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            records:
              - { name: www, type: A, data: %s }
        """
            .formatted(address),
        "test.yaml",
        Path.of("."));
  }

  /** A stand-in for a module's compiled data: the config it was built from. */
  private record Built(SluiceConfig from) {}

  @Test
  void publishesTheConfigAndItsArtifactsTogetherBuildingEachOnce() throws Exception {
    AtomicInteger builds = new AtomicInteger();
    ConfigPublisher publisher =
        new ConfigPublisher(
            List.of(
                (config, source, running, out) -> {
                  builds.incrementAndGet();
                  out.put(Built.class, new Built(config));
                }));
    SluiceConfig first = config("192.0.2.1");
    SnapshotStore store = new SnapshotStore(publisher.initial(first, "test.yaml"));
    assertSame(first, store.current().artifacts().get(Built.class).from());

    SluiceConfig second = config("192.0.2.2");
    Snapshot s = publisher.publish(store, second, "test.yaml");

    assertEquals(2, builds.get());
    assertSame(second, s.config());
    assertSame(second, s.artifacts().get(Built.class).from());
    // Health and traffic changes carry the artifacts along; only a new config replaces them.
    Snapshot later = store.update(x -> x.withHealth(HealthView.of(java.util.Map.of(), 7)));
    assertSame(second, later.artifacts().get(Built.class).from());
  }

  @Test
  void aFailingBuildPublishesNothingAndNamesTheFile() throws Exception {
    List<String> ran = new ArrayList<>();
    ConfigPublisher publisher =
        new ConfigPublisher(
            List.of(
                (config, source, running, out) -> ran.add("zones"),
                (config, source, running, out) -> {
                  throw new IllegalStateException("boom");
                }));
    Snapshot before = Snapshot.initial(config("192.0.2.1"));
    SnapshotStore store = new SnapshotStore(before);

    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> publisher.publish(store, config("192.0.2.2"), "sluice.yaml"));

    assertTrue(e.getMessage().startsWith("sluice.yaml: "), e.getMessage());
    assertTrue(e.getMessage().contains("boom"), e.getMessage());
    assertSame(before, store.current(), "nothing published");
    assertEquals(List.of("zones"), ran);
  }

  @Test
  void aThrowingListenerNeitherFailsTheWriterNorSkipsTheOthers() throws Exception {
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config("192.0.2.1")));
    AtomicInteger after = new AtomicInteger();
    store.addListener(
        s -> {
          throw new IllegalStateException("listener bug");
        });
    store.addListener(s -> after.incrementAndGet());

    Snapshot s = store.update(x -> x.withHealth(HealthView.of(java.util.Map.of(), 3)));

    assertSame(s, store.current());
    assertEquals(1, after.get());
  }
}
