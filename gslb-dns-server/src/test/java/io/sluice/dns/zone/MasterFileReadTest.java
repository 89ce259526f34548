package io.sluice.dns.zone;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A master file is read whole, in small steps, whatever its size against the step. */
class MasterFileReadTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 65_535, 65_536, 65_537, 300_001})
  void readsEveryByte(int size) throws Exception {
    byte[] content = new byte[size];
    new Random(size).nextBytes(content);
    Path file = dir.resolve("z" + size + ".zone");
    Files.write(file, content);
    assertArrayEquals(content, MasterFile.read(file));
  }
}
