package io.sluice.core.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Reads a bearer token from a file (the node's {@code <stateDir>/admin.token}, or a file given to
 * {@code sluice ctl} or {@code sluice probe-agent}) and refuses one that other users could read or
 * replace, or that holds no token: a secret another account can copy is no secret, and an empty
 * file is always a mistake.
 */
public final class TokenFile {
  private static final Set<PosixFilePermission> OTHERS =
      EnumSet.of(
          PosixFilePermission.GROUP_READ,
          PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.OTHERS_READ,
          PosixFilePermission.OTHERS_WRITE);

  private TokenFile() {}

  /**
   * The token: the first line of {@code file}, stripped. Throws {@link IOException} saying why when
   * the file cannot be read, is readable or writable by its group or by others (on file systems
   * with POSIX permissions), or holds no token.
   */
  public static String read(Path file) throws IOException {
    Set<PosixFilePermission> mode;
    try {
      mode = Files.getPosixFilePermissions(file);
    } catch (UnsupportedOperationException e) {
      mode = Set.of(); // Not a POSIX file system: the directory's permissions protect the file.
    }
    Set<PosixFilePermission> loose = EnumSet.noneOf(PosixFilePermission.class);
    loose.addAll(mode);
    loose.retainAll(OTHERS);
    if (!loose.isEmpty()) {
      throw new IOException(
          "token file "
              + file
              + " is accessible to other users (mode "
              + PosixFilePermissions.toString(mode)
              + "); it must be readable by its owner only: chmod 600 "
              + file);
    }
    String token =
        Files.readString(file, StandardCharsets.UTF_8).strip().lines().findFirst().orElse("");
    if (token.strip().isEmpty()) {
      throw new IOException("token file " + file + " is empty");
    }
    return token.strip();
  }

  /**
   * Writes {@code text} to {@code file}, readable by its owner only (on file systems with POSIX
   * permissions), replacing any earlier file in one rename so that no reader sees half of it.
   */
  public static void writePrivate(Path file, String text) throws IOException {
    Path tmp =
        Files.createTempFile(
            file.toAbsolutePath().getParent(), file.getFileName().toString(), ".tmp");
    try {
      try {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException e) {
        // Not a POSIX file system: the directory's permissions protect the file.
      }
      Files.writeString(tmp, text, StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
