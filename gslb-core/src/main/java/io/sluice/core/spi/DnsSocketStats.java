package io.sluice.core.spi;

/**
 * What the DNS listeners' UDP sockets hold and have lost, read when metrics are scraped (never on
 * the query path). Both queues are bounded: the kernel's by the socket receive buffer, the server's
 * by the channel's write-buffer high-water mark, past which replies are dropped.
 */
public interface DnsSocketStats {
  /** Bytes of queries waiting in the kernel receive queues, or -1 when the OS does not tell. */
  long receiveQueueBytes();

  /** Queries the kernel dropped since start because a receive queue was full (-1: unknown). */
  long receiveBufferDrops();

  /** Bytes of replies written but not yet handed to the kernel. */
  long sendQueueBytes();

  /** Replies dropped because the server's send queue was full. */
  long sendQueueDrops();
}
