package io.sluice.dns.dnssec.keys;

/** A key file that cannot be used, naming the file and the field that is wrong. */
public final class KeyFileException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String file;
  private final String field;

  public KeyFileException(String file, String field, String message) {
    super(file + (field == null ? "" : ": " + field) + ": " + message);
    this.file = file;
    this.field = field;
  }

  /** The file, as named to the operator. */
  public String file() {
    return file;
  }

  /** The field or line that is wrong, or null when the whole file is. */
  public String field() {
    return field;
  }
}
