package io.sluice.dns.response;

/** How a query arrived; TCP answers may be up to 65535 bytes. */
public enum Transport {
  UDP,
  TCP
}
