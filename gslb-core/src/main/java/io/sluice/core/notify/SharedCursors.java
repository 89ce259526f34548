package io.sluice.core.notify;

import java.util.Map;

/**
 * Where a cluster keeps, per webhook and lane, the revision of the last shared-state event
 * delivered, so that a new leader resumes where the old one stopped. A single node needs none: its
 * outbox's own cursors suffice.
 */
public interface SharedCursors {

  /** A single node: no shared cursors. */
  SharedCursors NONE =
      new SharedCursors() {
        @Override
        public Map<String, Map<String, Long>> read() {
          return Map.of();
        }

        @Override
        public void delivered(String sink, String lane, long revision) {}
      };

  /**
   * Every cursor, by webhook name then lane ({@code ""}: node-wide events).
   *
   * @throws RuntimeException when the store cannot be read (the caller retries later)
   */
  Map<String, Map<String, Long>> read();

  /**
   * Records that {@code sink} received the events of {@code lane} up to {@code revision}; never
   * moves a cursor back.
   *
   * @throws RuntimeException when the store cannot be written (the caller retries later)
   */
  void delivered(String sink, String lane, long revision);
}
