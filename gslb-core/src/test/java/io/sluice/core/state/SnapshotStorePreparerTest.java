package io.sluice.core.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.HealthView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Preparers run with each snapshot before it is published, and never stop it being published. */
class SnapshotStorePreparerTest {
  @Test
  void preparersSeeTheNextSnapshotWhileTheOldOneIsStillServed() throws Exception {
    SluiceConfig config =
        ConfigLoader.parse(
            """
            zones:
              - origin: example.test.
                soa: { mname: ns1.example.test., rname: h.example.test. }
                ns: [ns1.example.test.]
            """,
            "t.yaml",
            Path.of("."));
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config));
    Snapshot first = store.current();
    List<Long> prepared = new ArrayList<>();
    List<Snapshot> servedMeanwhile = new ArrayList<>();
    store.addPreparer(
        next -> {
          prepared.add(next.version());
          servedMeanwhile.add(store.current());
        });
    store.addPreparer(
        next -> {
          throw new IllegalStateException("a broken preparer");
        });
    Snapshot published = store.update(s -> s.withHealth(HealthView.EMPTY));
    assertEquals(List.of(published.version()), prepared);
    assertSame(first, servedMeanwhile.get(0));
    assertSame(published, store.current());
  }
}
