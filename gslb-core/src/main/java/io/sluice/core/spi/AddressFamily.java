package io.sluice.core.spi;

/** Which kind of address an answer is for: IPv4 (A) or IPv6 (AAAA). */
public enum AddressFamily {
  V4(4),
  V6(16);

  private final int length;

  AddressFamily(int length) {
    this.length = length;
  }

  /** Address length in bytes. */
  public int length() {
    return length;
  }

  /** The family of an address of {@code bytes.length}. */
  public static AddressFamily of(byte[] address) {
    return address.length == 4 ? V4 : V6;
  }
}
