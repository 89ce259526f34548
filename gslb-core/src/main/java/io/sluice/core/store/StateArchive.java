package io.sluice.core.store;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * A backup of a node's state directory: a zip archive of its files (traffic journal and snapshot,
 * store marker, audit log, switch records, configuration history, verdicts, zone serials and,
 * unless left out, the secrets) with a manifest ({@value #MANIFEST}) naming the archive format, the
 * state directory's format, and each file's SHA-256, size and mode. A running node's copy is taken
 * while no change can be written ({@link Quiesce}), so the journal, audit log and switch records in
 * it agree; a stopped node's directory is archived under its lock. A restore checks everything
 * before it touches the target, which it refuses while a node holds it.
 */
public final class StateArchive {
  /** The archive format this release writes, and the only one it restores. */
  public static final int FORMAT = 1;

  /** The manifest's entry name, first in the archive. */
  public static final String MANIFEST = "sluice-backup.properties";

  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  /** A staging copy's name prefix inside the state directory (never archived itself). */
  private static final String STAGING = ".backup-";

  private StateArchive() {}

  /** A step that may fail with an I/O error. */
  @FunctionalInterface
  public interface IoStep {
    /** Runs the step. */
    void run() throws IOException;
  }

  /** Runs a step while no change to the node's state can be written. */
  @FunctionalInterface
  public interface Quiesce {
    /** Runs {@code step} holding the locks of every writer of the state directory. */
    void run(IoStep step) throws IOException;
  }

  /**
   * What to archive: with or without the secrets. {@code secretFiles} are paths relative to the
   * state directory that hold secrets besides those recognised by name ({@link #isSecret}).
   */
  public record Options(boolean secrets, Set<String> secretFiles) {
    /** Everything, secrets included. */
    public static final Options ALL = new Options(true, Set.of());
  }

  /** One archived file. */
  public record Entry(String sha256, long size, String mode, boolean secret) {}

  /**
   * An archive's manifest: its format, the state directory's format, what made it and when, whether
   * the node was running, and every file by relative path.
   */
  public record Manifest(
      int format,
      int stateFormat,
      String release,
      String created,
      boolean online,
      boolean secrets,
      Map<String, Entry> files) {

    /** The files holding secrets. */
    public List<String> secretFiles() {
      return files.entrySet().stream()
          .filter(e -> e.getValue().secret())
          .map(Map.Entry::getKey)
          .toList();
    }

    /** The sum of the files' sizes. */
    public long bytes() {
      return files.values().stream().mapToLong(Entry::size).sum();
    }

    private byte[] text() {
      StringBuilder b = new StringBuilder();
      b.append("# A Sluice state backup (docs/backup.md): restore with 'sluice restore'.\n");
      b.append("format=").append(format).append('\n');
      b.append("stateFormat=").append(stateFormat).append('\n');
      b.append("release=").append(release).append('\n');
      b.append("created=").append(created).append('\n');
      b.append("online=").append(online).append('\n');
      b.append("secrets=").append(secrets ? "included" : "left-out").append('\n');
      Properties files = new Properties();
      this.files.forEach(
          (path, e) ->
              files.setProperty(
                  "file." + path,
                  e.sha256() + " " + e.size() + " " + e.mode() + (e.secret() ? " secret" : "")));
      StringBuilder lines = new StringBuilder();
      try {
        java.io.StringWriter w = new java.io.StringWriter();
        files.store(w, null);
        // Properties.store writes a date comment first, and in no stable order: sort the lines.
        w.toString()
            .lines()
            .filter(l -> !l.startsWith("#"))
            .sorted()
            .forEach(l -> lines.append(l).append('\n'));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      return b.append(lines).toString().getBytes(StandardCharsets.UTF_8);
    }
  }

  // ------------------------------------------------------------------------------------- backup

  /**
   * Writes a backup of a running node's {@code stateDir} to {@code out}: the files are copied into
   * a staging directory inside it while {@code quiesce} holds every writer, then archived from
   * there (so the writers wait only for the copy).
   */
  public static Manifest write(Path stateDir, Quiesce quiesce, Options options, OutputStream out)
      throws IOException {
    int stateFormat = StateFormat.check(stateDir);
    // Named after this process, so that a node starting beside it (a takeover) leaves it alone.
    Path staging =
        stateDir.resolve(STAGING + ProcessHandle.current().pid() + "-" + System.nanoTime());
    try {
      Files.createDirectory(staging);
      quiesce.run(
          () -> {
            for (Path rel : files(stateDir)) {
              Path target = staging.resolve(rel);
              Files.createDirectories(target.getParent());
              Files.copy(stateDir.resolve(rel), target, StandardCopyOption.COPY_ATTRIBUTES);
            }
          });
      return zip(staging, stateFormat, true, options, out);
    } finally {
      deleteTree(staging);
    }
  }

  /**
   * Writes a backup of a stopped node's {@code stateDir} to {@code out}, holding the traffic
   * store's lock for the whole time; fails with {@link InUseException} when a node holds it.
   */
  public static Manifest writeOffline(Path stateDir, Options options, OutputStream out)
      throws IOException {
    int stateFormat = StateFormat.check(stateDir);
    if (!Files.isDirectory(stateDir)) {
      throw new IOException("no state directory at " + stateDir);
    }
    try (FileChannel lock = lockIfPresent(stateDir)) {
      return zip(stateDir, stateFormat, false, options, out);
    }
  }

  /** The same as {@link #write} into memory. */
  public static byte[] bytes(Path stateDir, Quiesce quiesce, Options options) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    write(stateDir, quiesce, options, out);
    return out.toByteArray();
  }

  /**
   * Removes the staging copies a backup left in {@code stateDir} when its process stopped in the
   * middle: those of processes that are gone (a node started beside a running one, as a takeover
   * does, leaves the running one's backup alone). Call at start.
   */
  public static void removeStaging(Path stateDir) throws IOException {
    if (!Files.isDirectory(stateDir)) {
      return;
    }
    try (Stream<Path> s = Files.list(stateDir)) {
      for (Path p : s.filter(StateArchive::leftOver).toList()) {
        deleteTree(p);
      }
    }
  }

  private static boolean leftOver(Path p) {
    String name = p.getFileName().toString();
    if (!name.startsWith(STAGING)) {
      return false;
    }
    String pid = name.substring(STAGING.length()).split("-", 2)[0];
    return !pid.matches("[0-9]{1,18}")
        || ProcessHandle.of(Long.parseLong(pid)).map(h -> !h.isAlive()).orElse(true);
  }

  /** Whether a file of the state directory holds a secret by its name alone. */
  public static boolean isSecret(String relative) {
    String name = relative.substring(relative.lastIndexOf('/') + 1);
    return name.equals("admin.token")
        || name.endsWith(".secret")
        || name.endsWith(".key")
        || name.endsWith(".token");
  }

  private static Manifest zip(
      Path root, int stateFormat, boolean online, Options options, OutputStream out)
      throws IOException {
    Map<String, Entry> entries = new TreeMap<>();
    List<Path> files = new ArrayList<>();
    for (Path rel : files(root)) {
      String name = name(rel);
      boolean secret = isSecret(name) || options.secretFiles().contains(name);
      if (secret && !options.secrets()) {
        continue;
      }
      Path f = root.resolve(rel);
      entries.put(name, new Entry(sha256(f), Files.size(f), mode(f), secret));
      files.add(rel);
    }
    Manifest m =
        new Manifest(
            FORMAT,
            stateFormat,
            StateFormat.release(),
            Instant.now().toString(),
            online,
            options.secrets(),
            entries);
    ZipOutputStream zip = new ZipOutputStream(out);
    zip.putNextEntry(new ZipEntry(MANIFEST));
    zip.write(m.text());
    zip.closeEntry();
    for (Path rel : files) {
      zip.putNextEntry(new ZipEntry(name(rel)));
      Files.copy(root.resolve(rel), zip);
      zip.closeEntry();
    }
    zip.finish();
    zip.flush();
    return m;
  }

  /**
   * Every regular file of the state directory a restore needs, relative to it: not the lock, the
   * running node's address record, temporary files, uploads in progress or staging copies.
   */
  private static List<Path> files(Path root) throws IOException {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> all = Files.walk(root)) {
      all.filter(Files::isRegularFile)
          .map(root::relativize)
          .filter(rel -> !skipped(name(rel)))
          .sorted(Comparator.comparing(StateArchive::name))
          .forEach(out::add);
    }
    return out;
  }

  private static boolean skipped(String name) {
    return name.equals("traffic/lock")
        || name.equals("node.properties")
        || name.endsWith(".tmp")
        || name.startsWith(STAGING)
        || name.startsWith("config/blobs/uploads/");
  }

  private static String name(Path rel) {
    return rel.toString().replace(rel.getFileSystem().getSeparator(), "/");
  }

  // ------------------------------------------------------------------------------------ restore

  /** Reads and checks an archive's manifest and every file's checksum, without extracting. */
  public static Manifest verify(Path archive) throws IOException {
    try (ZipFile zip = open(archive)) {
      Manifest m = manifest(zip, archive);
      for (var e : m.files().entrySet()) {
        ZipEntry z = zip.getEntry(e.getKey());
        try (InputStream in = zip.getInputStream(z)) {
          check(archive, e.getKey(), e.getValue(), digest(in, OutputStream.nullOutputStream()));
        }
      }
      return m;
    }
  }

  /** What a restore did. */
  public record Restored(Manifest manifest, Path movedAside, List<String> notes) {}

  /**
   * Restores {@code archive} into {@code stateDir}, which must be missing or empty unless {@code
   * replace}, when its content is first moved aside to a sibling {@code <dir>.replaced-<time>}.
   * Everything is checked (format, checksums, that no node holds the directory) before anything is
   * changed; the files are extracted into a sibling directory that is renamed into place, so a
   * failed restore leaves the old directory as it was. Restored files get the owner and group of
   * the directory they replace, when the process may set them (run as root).
   */
  public static Restored restore(Path archive, Path stateDir, boolean replace) throws IOException {
    stateDir = stateDir.toAbsolutePath().normalize();
    Path parent = stateDir.getParent();
    if (parent == null) {
      throw new IOException("cannot restore into " + stateDir);
    }
    List<String> notes = new ArrayList<>();
    String stamp = STAMP.format(Instant.now());
    try (ZipFile zip = open(archive);
        FileChannel lock = Files.isDirectory(stateDir) ? lockIfPresent(stateDir) : null) {
      Manifest m = manifest(zip, archive);
      boolean present = Files.isDirectory(stateDir);
      boolean empty = !present || isEmpty(stateDir);
      if (!empty && !replace) {
        throw new IOException(
            "the state directory "
                + stateDir
                + " is not empty: restore into a new directory, or pass --replace to move its"
                + " content aside to "
                + stateDir.getFileName()
                + ".replaced-<time> first");
      }
      Path staged = parent.resolve(stateDir.getFileName() + ".restoring-" + stamp);
      Files.createDirectories(parent);
      try {
        extract(zip, archive, m, staged);
        if (present) {
          copyOwner(stateDir, staged, notes);
        }
      } catch (IOException | RuntimeException e) {
        deleteTree(staged);
        throw e;
      }
      Path aside = null;
      if (present && !empty) {
        aside = parent.resolve(stateDir.getFileName() + ".replaced-" + stamp);
        Files.move(stateDir, aside, StandardCopyOption.ATOMIC_MOVE);
        notes.add("the former content of " + stateDir + " is in " + aside);
      } else if (present) {
        Files.delete(stateDir);
      }
      Files.move(staged, stateDir, StandardCopyOption.ATOMIC_MOVE);
      Directories.fsync(parent);
      return new Restored(m, aside, notes);
    }
  }

  private static ZipFile open(Path archive) throws IOException {
    try {
      return new ZipFile(archive.toFile());
    } catch (java.util.zip.ZipException e) {
      throw new IOException(archive + " is not a Sluice backup (not a zip archive)", e);
    }
  }

  private static Manifest manifest(ZipFile zip, Path archive) throws IOException {
    ZipEntry entry = zip.getEntry(MANIFEST);
    if (entry == null) {
      throw new IOException(archive + " is not a Sluice backup (it has no " + MANIFEST + ")");
    }
    Properties p = new Properties();
    try (InputStream in = zip.getInputStream(entry)) {
      p.load(new StringReader(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
    }
    int format = number(p, "format", archive);
    String release = p.getProperty("release", "an unknown release");
    if (format != FORMAT) {
      throw new StateFormat.StateFormatException(
          archive
              + " is a backup of format "
              + format
              + " (made by "
              + release
              + "); this release ("
              + StateFormat.release()
              + ") restores backup format "
              + FORMAT
              + " only: restore it with the release that made it");
    }
    int stateFormat = number(p, "stateFormat", archive);
    if (stateFormat > StateFormat.CURRENT) {
      throw new StateFormat.StateFormatException(
          archive
              + " holds a state directory of format "
              + stateFormat
              + " (made by "
              + release
              + "); this release ("
              + StateFormat.release()
              + ") reads formats up to "
              + StateFormat.CURRENT
              + ": restore it with that release (see docs/state.md#format-versions)");
    }
    Map<String, Entry> files = new LinkedHashMap<>();
    for (String key : new TreeMap<>(p).keySet().stream().map(Object::toString).toList()) {
      if (!key.startsWith("file.")) {
        continue;
      }
      String name = key.substring("file.".length());
      String[] f = p.getProperty(key).split(" ");
      if (!safe(name) || f.length < 3 || !f[1].matches("[0-9]{1,19}")) {
        throw new IOException(archive + " is damaged: bad manifest line for '" + name + "'");
      }
      files.put(
          name, new Entry(f[0], Long.parseLong(f[1]), f[2], f.length > 3 && f[3].equals("secret")));
    }
    for (var z : java.util.Collections.list(zip.entries())) {
      if (!z.getName().equals(MANIFEST) && !files.containsKey(z.getName())) {
        throw new IOException(archive + " is damaged: " + z.getName() + " is not in its manifest");
      }
    }
    for (String name : files.keySet()) {
      if (zip.getEntry(name) == null) {
        throw new IOException(archive + " is incomplete: " + name + " is missing");
      }
    }
    return new Manifest(
        format,
        stateFormat,
        release,
        p.getProperty("created", ""),
        Boolean.parseBoolean(p.getProperty("online")),
        "included".equals(p.getProperty("secrets")),
        files);
  }

  private static int number(Properties p, String key, Path archive) throws IOException {
    try {
      return Integer.parseInt(p.getProperty(key, "").strip());
    } catch (NumberFormatException e) {
      throw new IOException(archive + " is damaged: its manifest has no " + key + "=");
    }
  }

  /** A relative path that stays inside the directory it is extracted into. */
  private static boolean safe(String name) {
    if (name.isEmpty() || name.startsWith("/") || name.contains("\\")) {
      return false;
    }
    for (String part : name.split("/", -1)) {
      if (part.isEmpty() || part.equals(".") || part.equals("..")) {
        return false;
      }
    }
    return true;
  }

  private static void extract(ZipFile zip, Path archive, Manifest m, Path into) throws IOException {
    Files.createDirectory(into);
    setMode(into, "rwxr-x---");
    for (var e : m.files().entrySet()) {
      Path target = into.resolve(e.getKey());
      Files.createDirectories(target.getParent());
      String sha;
      try (InputStream in = zip.getInputStream(zip.getEntry(e.getKey()));
          OutputStream out =
              Files.newOutputStream(
                  target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        sha = digest(in, out);
      }
      check(archive, e.getKey(), e.getValue(), sha);
      setMode(target, e.getValue().mode());
      try (FileChannel ch = FileChannel.open(target, StandardOpenOption.WRITE)) {
        ch.force(true);
      }
    }
    try (Stream<Path> dirs = Files.walk(into)) {
      for (Path d : dirs.filter(Files::isDirectory).toList()) {
        Directories.fsync(d);
      }
    }
  }

  private static void check(Path archive, String name, Entry e, String sha) throws IOException {
    if (!sha.equals(e.sha256())) {
      throw new IOException(
          archive + " is damaged: " + name + " does not match its checksum in the manifest");
    }
  }

  private static String digest(InputStream in, OutputStream copy) throws IOException {
    MessageDigest md = sha256();
    byte[] buf = new byte[1 << 16];
    for (int n; (n = in.read(buf)) > 0; ) {
      md.update(buf, 0, n);
      copy.write(buf, 0, n);
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static String sha256(Path f) throws IOException {
    try (InputStream in = Files.newInputStream(f)) {
      return digest(in, OutputStream.nullOutputStream());
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String mode(Path f) throws IOException {
    PosixFileAttributeView v = Files.getFileAttributeView(f, PosixFileAttributeView.class);
    return v == null
        ? "rw-------"
        : PosixFilePermissions.toString(v.readAttributes().permissions());
  }

  private static void setMode(Path f, String mode) throws IOException {
    PosixFileAttributeView v = Files.getFileAttributeView(f, PosixFileAttributeView.class);
    if (v != null && mode.matches("[rwx-]{9}")) {
      v.setPermissions(PosixFilePermissions.fromString(mode));
    }
  }

  /** Gives every restored path the owner and group of the directory it replaces, when allowed. */
  private static void copyOwner(Path from, Path tree, List<String> notes) throws IOException {
    PosixFileAttributeView v = Files.getFileAttributeView(from, PosixFileAttributeView.class);
    if (v == null) {
      return;
    }
    PosixFileAttributes a = v.readAttributes();
    UserPrincipal owner = a.owner();
    GroupPrincipal group = a.group();
    try (Stream<Path> all = Files.walk(tree)) {
      for (Path p : all.toList()) {
        PosixFileAttributeView pv = Files.getFileAttributeView(p, PosixFileAttributeView.class);
        PosixFileAttributes pa = pv.readAttributes();
        if (!pa.owner().equals(owner) || !pa.group().equals(group)) {
          try {
            pv.setOwner(owner);
            pv.setGroup(group);
          } catch (FileSystemException e) {
            notes.add(
                "the restored files stay owned by "
                    + pa.owner().getName()
                    + ": cannot give them to "
                    + owner.getName()
                    + " ("
                    + e.getMessage()
                    + "); run the restore as root or as that user");
            return;
          }
        }
      }
    }
  }

  // ------------------------------------------------------------------------------------ helpers

  /** The directory is held by a running node. */
  public static final class InUseException extends IOException {
    private static final long serialVersionUID = 1L;

    InUseException(String message) {
      super(message);
    }
  }

  /** Takes the traffic store's lock when the directory has a store; null when it has none. */
  private static FileChannel lockIfPresent(Path stateDir) throws IOException {
    Path traffic = stateDir.resolve("traffic");
    if (!Files.isDirectory(traffic)) {
      return null;
    }
    try {
      return FileDurableLog.lock(traffic, "in use");
    } catch (IOException e) {
      if (!"in use".equals(e.getMessage())) {
        throw e;
      }
      throw new InUseException(
          "the state directory "
              + stateDir
              + " is in use by a running node: stop it first (a backup of a running node goes"
              + " through its admin API)");
    }
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.findAny().isEmpty();
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
