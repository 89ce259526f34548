package io.sluice.admin.cli;

/** ANSI styles for terminal output, and the colour of each verdict and state. */
final class Style {
  static final String RESET = "\u001b[0m";
  static final String BOLD = "\u001b[1m";
  static final String RED = "\u001b[31m";
  static final String GREEN = "\u001b[32m";
  static final String YELLOW = "\u001b[33m";

  private Style() {}

  /** A table cell coloured by health verdict. */
  static Table.Cell verdict(String v) {
    return new Table.Cell(
        v,
        switch (v) {
          case "up" -> GREEN;
          case "suspect" -> YELLOW;
          case "down" -> RED;
          default -> null;
        });
  }

  /** A red cell when {@code alarm} holds. */
  static Table.Cell flag(String text, boolean alarm) {
    return new Table.Cell(text, alarm ? RED : null);
  }
}
