package io.sluice.core.traffic;

/**
 * An enum constant with a stable name on the wire (JSON of the persisted state, the API, audit
 * events): the Java name may change, the wire name may not.
 */
interface WireName {
  /** The name in JSON and messages. */
  String wire();

  /** The constant of {@code values} named {@code wire}; {@code what} names the type in errors. */
  static <E extends WireName> E parse(E[] values, String wire, String what) {
    for (E e : values) {
      if (e.wire().equals(wire)) {
        return e;
      }
    }
    throw new IllegalArgumentException("unknown " + what + " '" + wire + "'");
  }
}
