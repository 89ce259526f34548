package io.sluice.dns.zone;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.Problems;
import io.sluice.core.config.RecordConfig;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.SoaConfig;
import io.sluice.core.config.ZoneConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Master;
import org.xbill.DNS.NSRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * Compiles the zones of a {@link SluiceConfig} into a {@link ZoneIndex}, checking everything that
 * needs the DNS wire model: record data, master files, CNAMEs beside other data, data hidden below
 * delegations, missing glue and services that collide with static names. It runs on start and on
 * every reload, off the query path, and reports every problem with its config path.
 */
public final class ZoneCompiler {
  private static final Pattern TOKENIZER_MESSAGE = Pattern.compile("^[^:]*:(\\d+): (.*)$");

  /** The source of a record read from the master file; its text is made on demand. */
  private static final String FROM_FILE = new String("master file");

  /** Syntax errors reported per master file before the rest of it is left unread. */
  private static final int MAX_FILE_PROBLEMS = 100;

  /**
   * Owners handled by one call of a loop over every owner of a zone (placing nodes, structure
   * checks). One loop over a million owners is compiled while it runs and that code is thrown away
   * at its exit, so every reload compiled it again; a method called per slice is compiled whole,
   * with its exit seen, and kept (as PlainMasterFile's reader reads in slices).
   */
  private static final int SLICE_OWNERS = 512;

  private ZoneCompiler() {}

  /** Compiles every zone, or throws with every problem found. */
  public static ZoneIndex compile(SluiceConfig config, String file) throws ConfigException {
    return compile(config, file, null);
  }

  /**
   * As {@link #compile(SluiceConfig, String)} on a reload: a zone whose master file has the same
   * content (and origin and default TTL) as when {@code previous} (the zones served now; null on
   * start) read it takes its records from there instead of parsing the file again.
   */
  public static ZoneIndex compile(SluiceConfig config, String file, ZoneIndex previous)
      throws ConfigException {
    Problems problems = new Problems(file);
    List<Zone> zones = new ArrayList<>();
    Set<Name> origins = new HashSet<>();
    for (int i = 0; i < config.zones().size(); i++) {
      String path = Problems.index("zones", i);
      ZoneConfig zc = config.zones().get(i);
      Zone z = new Builder(config, zc, path, problems, previous).build();
      if (z != null && !origins.add(z.origin())) {
        problems.add(Problems.child(path, "origin"), "zone " + zc.origin() + " is declared twice");
      }
      zones.add(z);
    }
    problems.throwIfAny();
    return new ZoneIndex(zones);
  }

  /** The state of compiling one zone. */
  private static final class Builder {
    private final SluiceConfig config;
    private final ZoneConfig zc;
    private final String path;
    private final Problems problems;

    /**
     * The data by owner: the {@link Record} itself for a name with one record from the master file
     * (most names of a large zone, which then cost no {@link Owned}), else its {@link Owned}.
     */
    private OwnerTable data = new OwnerTable(16);

    private final Map<Name, String> services = new LinkedHashMap<>();
    private final Map<Name, String> servicePaths = new HashMap<>();
    private final ZoneIndex previous;
    private Name origin;
    private SOARecord fileSoa;

    /** What was read from the master file, when it was read without a problem; else null. */
    private MasterFile masterFile;

    /**
     * The records the served zone read from the previous content of its master file, and the walk
     * over them (see {@link #sameRecord}).
     */
    private OldRecords oldRecords = OldRecords.none();

    /** The master file and its config path, for the source of records read from it. */
    private Path file;

    private String fileWhere;

    /**
     * Names of ancestors recently found or put in the node table, by their hash: most owners have a
     * parent that an owner just before them had, and finding it here costs neither the table's hash
     * of a new name nor a look-up in a table of a million nodes spread over the heap.
     */
    private final Name[] presentParents = new Name[256];

    Builder(
        SluiceConfig config, ZoneConfig zc, String path, Problems problems, ZoneIndex previous) {
      this.config = config;
      this.previous = previous;
      this.zc = zc;
      this.path = path;
      this.problems = problems;
    }

    Zone build() {
      try {
        origin = Name.fromString(zc.origin());
      } catch (TextParseException e) {
        problems.add(Problems.child(path, "origin"), e.getMessage());
        return null;
      }
      if (zc.file() != null) {
        loadFile();
      }
      addConfigSoaAndNs();
      addInlineRecords();
      addServices();
      SOARecord soa = soa();
      if (soa == null) {
        return null;
      }
      add(soa, Problems.child(path, "soa"));
      if (get(origin, Type.NS) == null) {
        problems.add(Problems.child(path, "ns"), "the zone has no NS records at its apex");
      }
      CutSet cuts = checkStructure();
      return new Zone(origin, soa, nodes(), cuts, masterFile);
    }

    private void loadFile() {
      Path file = config.resolve(zc.file());
      String where = Problems.child(path, "file");
      this.file = file;
      this.fileWhere = where;
      if (!Files.isReadable(file)) {
        problems.add(where, "cannot read master file " + file);
        return;
      }
      try {
        // Sized for the file at once (a record line is rarely under 20 bytes): growing a map of
        // a million names step by step rehashed it twenty times.
        long estimate = Math.min(Files.size(file) / 20, 1 << 24);
        if (data.size() == 0 && estimate > 16) {
          data = new OwnerTable((int) estimate);
        }
      } catch (IOException e) {
        // The read below reports it.
      }
      byte[] text;
      try {
        text = MasterFile.read(file);
      } catch (IOException e) {
        problems.add(where, file + " cannot be read: " + e.getMessage());
        return;
      }
      Zone served = previousZone();
      MasterFile before = served == null ? null : served.masterFile();
      // The digest of exactly the bytes parsed (about 20 ms for 25 MB): it decides whether a reload
      // parses at all.
      byte[] digest = MasterFile.digest(text);
      if (before != null && before.readFrom(file, digest, origin, zc.ttl())) {
        // The same content: the records the served zone holds, shared, and no parse.
        for (Record r : before.records()) {
          if (r.getType() != Type.SOA) {
            add(r, FROM_FILE);
          }
        }
        fileSoa = before.soa();
        masterFile = before;
        return;
      }
      oldRecords = OldRecords.of(before);
      int failedAt;
      int problemsBefore = problems.list().size();
      List<Record> read = new ArrayList<>();
      // The fast reader reads the whole file before the records are added: it takes the served
      // zone's records as it goes (an unchanged line is not even parsed), so that a million parsed
      // copies do not live until the end.
      PlainMasterFile.Lines plain =
          PlainMasterFile.read(
              text,
              origin,
              zc.ttl(),
              oldRecords,
              served == null ? r -> r : r -> sameRecord(served, r));
      long[] lineKeys = null;
      if (plain != null) {
        Iterator<Record> it = plain.records().iterator();
        failedAt =
            readRecords(() -> it.hasNext() ? it.next() : null, file, where, 0, 0, read, null);
        // Every record read is in read when there was no problem, so the keys are its keys.
        lineKeys = plain.keys();
      } else {
        // The general parser reads the file again: so does the walk over the old records.
        oldRecords = OldRecords.of(before);
        try (Master master = new Master(new ByteArrayInputStream(text), origin, zc.ttl())) {
          // Strict: an $INCLUDE is an error at its line, never silently skipped.
          master.disableIncludes(true);
          failedAt = readRecords(master::nextRecord, file, where, 0, 0, read, served);
        }
      }
      if (failedAt == 0 && problems.list().size() == problemsBefore) {
        masterFile =
            MasterFile.of(
                file, digest, origin, zc.ttl(), read.toArray(new Record[0]), lineKeys, fileSoa);
      }
      if (failedAt > 0) {
        readOnAfterErrors(file, where, failedAt);
      }
    }

    /** Where {@link #readRecords} takes records from: null at the end. */
    private interface RecordSource {
      Record next() throws IOException;
    }

    /**
     * Reads records from {@code source} until its end or its first syntax error, which is reported
     * with its line in the file ({@code skipped} lines of replayed directives come first, then the
     * file from line {@code from + 1}); returns that line, or 0 at the end.
     */
    private int readRecords(
        RecordSource source,
        Path file,
        String where,
        int skipped,
        int from,
        List<Record> read,
        Zone served) {
      try {
        Record r;
        while ((r = source.next()) != null) {
          if (!r.getName().subdomain(origin)) {
            String src = fileSource(file, r.getName(), r.getType());
            problems.add(where, src + ": " + r.getName() + " is outside the zone " + origin);
          } else if (r.getDClass() != DClass.IN) {
            problems.add(
                where, fileSource(file, r.getName(), r.getType()) + ": only class IN is served");
          } else if (r.getType() == Type.SOA) {
            if (!r.getName().equals(origin)) {
              problems.add(
                  where, fileSource(file, r.getName(), r.getType()) + ": SOA must be at the apex");
            } else {
              fileSoa = (SOARecord) r;
              read.add(r);
            }
          } else {
            // The source text of a file record is only made when a problem names it.
            Record kept = served == null ? r : sameRecord(served, r);
            add(kept, FROM_FILE);
            read.add(kept);
          }
        }
        return 0;
      } catch (IOException e) {
        Matcher m = TOKENIZER_MESSAGE.matcher(e.getMessage() == null ? "" : e.getMessage());
        if (!m.matches()) {
          problems.add(where, file + " " + describeTokenizerError(e.getMessage()));
          return 0;
        }
        int line = Integer.parseInt(m.group(1)) - skipped + from;
        problems.add(where, file + " " + describeTokenizerError("f:" + line + ": " + m.group(2)));
        return line;
      }
    }

    /**
     * After a syntax error, reads on from the next line that starts a new owner name, replaying the
     * $ORIGIN and $TTL directives above it, so that every broken line of the file is reported in
     * one run. Only failing files take this path; they are read into memory for it.
     */
    private void readOnAfterErrors(Path file, String where, int failedAt) {
      List<String> lines;
      try {
        lines = Files.readAllLines(file);
      } catch (IOException e) {
        return;
      }
      int line = failedAt;
      for (int reported = 1; reported < MAX_FILE_PROBLEMS && line > 0; reported++) {
        int from = line;
        while (from < lines.size() && !startsAnOwner(lines.get(from))) {
          from++;
        }
        if (from >= lines.size()) {
          return;
        }
        StringBuilder text = new StringBuilder();
        int skipped = 0;
        for (int i = 0; i < from; i++) {
          String directive = lines.get(i).stripLeading().toUpperCase(Locale.ROOT);
          if (directive.startsWith("$ORIGIN") || directive.startsWith("$TTL")) {
            text.append(lines.get(i)).append('\n');
            skipped++;
          }
        }
        for (int i = from; i < lines.size(); i++) {
          text.append(lines.get(i)).append('\n');
        }
        try (Master master =
            new Master(
                new ByteArrayInputStream(text.toString().getBytes(StandardCharsets.UTF_8)),
                origin,
                zc.ttl())) {
          master.disableIncludes(true);
          line =
              readRecords(master::nextRecord, file, where, skipped, from, new ArrayList<>(), null);
        }
      }
    }

    /** The served zone of this origin, or null. */
    private Zone previousZone() {
      Zone z = previous == null ? null : previous.find(origin);
      return z == null || !z.origin().equals(origin) ? null : z;
    }

    /**
     * The served zone's own record that is exactly {@code r} (owner spelled the same, type, class,
     * TTL and data), else {@code r}: a changed master file is parsed again, but the records it
     * still has are not held twice while the old zone serves, and the parsed copies die young.
     *
     * <p>A changed file mostly keeps the old file's lines in their order, so the record is first
     * compared with the old file's records where a walk over them stands (and the one after it,
     * past a removed line): two records in cache instead of a look-up by name in the served zone,
     * whose nodes are scattered over the heap. Only then is it looked up by owner; when that finds
     * it further on in the old file (a block of lines removed), the walk moves there.
     */
    private Record sameRecord(Zone served, Record r) {
      Record same = oldRecords.same(r);
      if (same != null) {
        return same;
      }
      ZoneNode node = served.node(r.getName());
      List<Record> set = node == null ? null : node.get(r.getType());
      if (set == null) {
        return r;
      }
      for (Record old : set) {
        if (OldRecords.exactlySame(old, r)) {
          oldRecords.resync(old);
          return old;
        }
      }
      return r;
    }

    /** A line that names its owner (or is a directive), so reading can start again there. */
    private static boolean startsAnOwner(String line) {
      return !line.isEmpty()
          && !Character.isWhitespace(line.charAt(0))
          && line.charAt(0) != ';'
          && line.charAt(0) != ')';
    }

    private void addConfigSoaAndNs() {
      for (int i = 0; i < zc.ns().size(); i++) {
        String p = Problems.index(Problems.child(path, "ns"), i);
        try {
          add(new NSRecord(origin, DClass.IN, zc.ttl(), Name.fromString(zc.ns().get(i))), p);
        } catch (TextParseException | IllegalArgumentException e) {
          problems.add(p, e.getMessage());
        }
      }
    }

    private SOARecord soa() {
      SoaConfig s = zc.soa();
      if (s == null) {
        if (fileSoa == null) {
          problems.add(
              Problems.child(path, "soa"),
              "is required: neither the config nor the master file declares an SOA");
        }
        return fileSoa;
      }
      try {
        return new SOARecord(
            origin,
            DClass.IN,
            s.ttl() != null ? s.ttl() : zc.ttl(),
            Name.fromString(s.mname()),
            Name.fromString(s.rname()),
            s.serial(),
            s.refresh(),
            s.retry(),
            s.expire(),
            s.minimum());
      } catch (TextParseException | IllegalArgumentException e) {
        problems.add(Problems.child(path, "soa"), e.getMessage());
        return null;
      }
    }

    private void addInlineRecords() {
      for (int i = 0; i < zc.records().size(); i++) {
        RecordConfig rc = zc.records().get(i);
        String rp = Problems.index(Problems.child(path, "records"), i);
        Name owner;
        try {
          owner = Name.fromString(rc.name(), origin);
        } catch (TextParseException e) {
          problems.add(Problems.child(rp, "name"), e.getMessage());
          continue;
        }
        int type = Type.value(rc.type());
        long ttl = rc.ttl() != null ? rc.ttl() : zc.ttl();
        for (int j = 0; j < rc.data().size(); j++) {
          String dp = Problems.index(Problems.child(rp, "data"), j);
          String text = rc.data().get(j);
          try {
            add(Record.fromString(owner, type, DClass.IN, ttl, text, origin), rp);
          } catch (IOException | IllegalArgumentException e) {
            problems.add(dp, describeDataError(rc.type(), text, e.getMessage()));
          }
        }
      }
    }

    private void addServices() {
      for (int i = 0; i < zc.services().size(); i++) {
        ServiceConfig s = zc.services().get(i);
        String sp = Problems.child(Problems.index(Problems.child(path, "services"), i), "name");
        try {
          Name n = Name.fromString(s.fqdn(zc.origin()));
          services.put(n, s.fqdn(zc.origin()));
          servicePaths.put(n, sp);
        } catch (TextParseException e) {
          problems.add(sp, e.getMessage());
        }
      }
    }

    /**
     * Adds {@code r}; {@code source} names where it was given in problems ({@link #FROM_FILE} for
     * the master file, whose text is made only when a problem needs it).
     */
    private void add(Record r, String source) {
      // RRSIGs always go into an RRset (as Owned.addRecord keeps them), so they take the long way.
      boolean lone = source == FROM_FILE && r.getType() != Type.RRSIG;
      Object there = lone ? data.putIfAbsent(r.getName(), r) : data.get(r.getName());
      if (there == null && lone) {
        return;
      }
      Owned owned;
      if (there instanceof Owned o) {
        owned = o;
      } else {
        owned = there == null ? new Owned() : owned(there);
        data.put(r.getName(), owned);
      }
      int type = r.getType();
      int i = owned.indexOf(type);
      if (i < 0) {
        i = owned.add(type, source);
      } else if (type == Type.CNAME) {
        problems.add(
            sourceText(source, r.getName(), type), "more than one CNAME at " + r.getName());
        return;
      }
      // RFC 2181 §5.2: one TTL per RRset; dnsjava lowers the set to the smallest TTL given.
      owned.addRecord(i, r);
    }

    private RRset get(Name name, int type) {
      Object value = data.get(name);
      if (value instanceof Record lone) {
        return lone.getType() == type ? new RRset(lone) : null;
      }
      Owned o = (Owned) value;
      if (o == null) {
        return null;
      }
      int i = o.indexOf(type);
      return i < 0 ? null : o.rrset(i);
    }

    private String fileSource(Path file, Name name, int type) {
      return file + " (" + name + " " + Type.string(type) + ")";
    }

    private String sourceText(String source, Name name, int type) {
      return source == FROM_FILE ? fileWhere + ": " + fileSource(file, name, type) : source;
    }

    /**
     * The structure checks of each owner {@code from} to {@code to} (exclusive) of {@link #data}:
     * collects delegation points and DNAME owners, reports a CNAME beside other data. Called per
     * {@link ZoneCompiler#SLICE_OWNERS} owners.
     */
    private void checkOwners(int from, int to, List<Name> cutNames, List<Name> dnameOwners) {
      for (int at = from; at < to; at++) {
        Name name = data.name(at);
        Object types = data.value(at);
        if (has(types, Type.NS) && !name.equals(origin)) {
          cutNames.add(name);
          if (name.isWild()) {
            problems.add(source(name, Type.NS), "a wildcard cannot be a delegation: " + name);
          }
        }
        if (has(types, Type.CNAME)) {
          if (name.equals(origin)) {
            problems.add(source(name, Type.CNAME), "a CNAME cannot be at the zone apex");
          } else if (typeCount(types) > 1) {
            List<String> others = new ArrayList<>();
            for (int k = 0; k < typeCount(types); k++) {
              if (type(types, k) != Type.CNAME) {
                others.add(Type.string(type(types, k)));
              }
            }
            problems.add(
                source(name, Type.CNAME),
                "a CNAME cannot stand beside other data at "
                    + name
                    + " (also "
                    + String.join(", ", others)
                    + ")");
          }
        }
        if (has(types, Type.DNAME)) {
          dnameOwners.add(name);
          if (name.isWild()) {
            problems.add(source(name, Type.DNAME), "a wildcard cannot own a DNAME: " + name);
          }
        }
      }
    }

    /** Checks CNAME exclusivity, delegations, glue and services; returns the delegation points. */
    private CutSet checkStructure() {
      List<Name> cutNames = new ArrayList<>();
      List<Name> dnameOwners = new ArrayList<>();
      for (int from = 0; from < data.size(); from += SLICE_OWNERS) {
        checkOwners(from, from + Math.min(SLICE_OWNERS, data.size() - from), cutNames, dnameOwners);
      }
      // Owner names are unique in the table, so each list holds a name once.
      CutSet cuts = CutSet.of(cutNames);
      CutSet dnames = CutSet.of(dnameOwners);
      for (int at = 0; at < (dnames.isEmpty() ? 0 : data.size()); at++) {
        Name name = data.name(at);
        Name dname = dnames.highestAbove(name, origin.labels(), false);
        if (dname != null) {
          int type = type(data.value(at), 0);
          problems.add(
              source(name, type),
              name
                  + " is below the DNAME at "
                  + dname
                  + " and would never be served (RFC 6672 §2.3)");
        }
      }
      for (int at = 0; at < (cuts.isEmpty() ? 0 : data.size()); at++) {
        Name name = data.name(at);
        Name cut = cuts.highestAbove(name, origin.labels(), false);
        if (cut == null) {
          continue;
        }
        Object types = data.value(at);
        for (int k = 0; k < typeCount(types); k++) {
          int type = type(types, k);
          if (type != Type.A && type != Type.AAAA) {
            problems.add(
                source(name, type),
                name
                    + " "
                    + Type.string(type)
                    + " is below the delegation at "
                    + cut
                    + " and would never be served (only A/AAAA glue may be)");
          }
        }
      }
      for (Name cut : cutNames) {
        for (Record r : get(cut, Type.NS).rrs(false)) {
          Name target = ((NSRecord) r).getTarget();
          if (target.subdomain(cut)
              && get(target, Type.A) == null
              && get(target, Type.AAAA) == null) {
            problems.add(
                source(cut, Type.NS),
                "the delegation "
                    + cut
                    + " needs glue: no A or AAAA record for its name server "
                    + target);
          }
        }
      }
      for (Map.Entry<Name, String> s : services.entrySet()) {
        Name name = s.getKey();
        String sp = servicePaths.get(name);
        for (int type : new int[] {Type.A, Type.AAAA, Type.CNAME}) {
          if (get(name, type) != null) {
            problems.add(
                sp,
                "service "
                    + name
                    + " collides with the static "
                    + Type.string(type)
                    + " records at "
                    + source(name, type));
          }
        }
        Name cut = cuts.highestAbove(name, origin.labels(), true);
        if (cut != null) {
          problems.add(sp, "service " + name + " is at or below the delegation at " + cut);
        }
        Name dname = dnames.highestAbove(name, origin.labels(), false);
        if (dname != null) {
          problems.add(sp, "service " + name + " is below the DNAME at " + dname);
        }
      }
      return cuts;
    }

    private String source(Name name, int type) {
      Owned o = owned(data.get(name));
      int i = o == null ? -1 : o.indexOf(type);
      return i < 0 ? path : sourceText(o.source(i), name, type);
    }

    /**
     * Every node, with the empty non-terminals between each name and the apex. It consumes {@link
     * #data}, whose hashes are the node table's: its index goes before the table is made, and the
     * rest (a few references per name) when the table is filled.
     */
    private NodeTable nodes() {
      OwnerTable owners = data;
      data = null;
      owners.dropIndex();
      NodeTable.Builder nodes = new NodeTable.Builder(owners.size() + services.size() + 1);
      // Most names have the same few types: one array per combination, shared.
      Map<List<Integer>, int[]> typeLists = new HashMap<>();
      Map<Integer, int[]> singleTypes = new HashMap<>();
      // In slices (see SLICE_OWNERS).
      for (int from = 0; from < owners.size(); from += SLICE_OWNERS) {
        placeOwners(
            nodes,
            owners,
            from,
            from + Math.min(SLICE_OWNERS, owners.size() - from),
            typeLists,
            singleTypes);
      }
      services.forEach(
          (name, service) -> place(nodes, ZoneNode.empty(name, service), NodeTable.hash(name)));
      // The apex, when nothing above made it; it has no ancestor in the zone.
      nodes.putIfAbsent(ZoneNode.empty(origin, null));
      return nodes.build();
    }

    /**
     * Places the owners {@code from} to {@code to} (exclusive) of {@code owners}: see {@link
     * #nodes}. Called per {@link ZoneCompiler#SLICE_OWNERS} owners.
     */
    private void placeOwners(
        NodeTable.Builder nodes,
        OwnerTable owners,
        int from,
        int to,
        Map<List<Integer>, int[]> typeLists,
        Map<Integer, int[]> singleTypes) {
      for (int at = from; at < to; at++) {
        Name name = owners.name(at);
        Object value = owners.value(at);
        String service = services.isEmpty() ? null : services.get(name);
        if (value instanceof Record lone) {
          int[] types = singleTypes.computeIfAbsent(lone.getType(), t -> new int[] {t});
          place(nodes, new ZoneNode(name, types, lone, service), owners.hash(at));
          continue;
        }
        Owned owned = (Owned) value;
        Record[][] sets = new Record[owned.count][];
        int[] types;
        if (owned.count == 1) {
          // Most names of a large zone: no list key to build and hash.
          sets[0] = owned.records(0);
          types = singleTypes.computeIfAbsent(owned.type(0), t -> new int[] {t});
        } else {
          List<Integer> key = new ArrayList<>(owned.count);
          for (int i = 0; i < owned.count; i++) {
            sets[i] = owned.records(i);
            key.add(owned.type(i));
          }
          types =
              typeLists.computeIfAbsent(key, k -> k.stream().mapToInt(Integer::intValue).toArray());
        }
        place(nodes, new ZoneNode(name, types, sets, service), owners.hash(at));
      }
    }

    /**
     * Adds an owner's node (data, or a service alone) with the empty non-terminals above it. Only
     * such an empty non-terminal can be there before it, made by the walk above an owner below:
     * owners of data are unique and a service only adds itself where no data is, so the node takes
     * the placeholder's slot, whose ancestors are already in.
     */
    private void place(NodeTable.Builder nodes, ZoneNode node, int hash) {
      ZoneNode there = nodes.putIfAbsent(node, hash);
      if (there != null) {
        if (there.isEmpty() && there.service() == null) {
          nodes.replace(node, hash);
        }
        return;
      }
      Name n = node.name();
      for (int strip = 1; strip < n.labels() - origin.labels(); strip++) {
        // An ancestor already present had its own ancestors added when it was placed.
        Name parent = new Name(n, strip);
        int slot = parent.hashCode() & (presentParents.length - 1);
        if (parent.equals(presentParents[slot])) {
          break;
        }
        boolean present = nodes.putIfAbsent(ZoneNode.empty(parent, null)) != null;
        presentParents[slot] = parent;
        if (present) {
          break;
        }
      }
    }
  }

  /** Whether a {@link Builder#data} value has records of {@code type}. */
  private static boolean has(Object value, int type) {
    return value instanceof Record lone ? lone.getType() == type : ((Owned) value).has(type);
  }

  /** How many types a {@link Builder#data} value has. */
  private static int typeCount(Object value) {
    return value instanceof Record ? 1 : ((Owned) value).count;
  }

  /** The {@code i}-th type of a {@link Builder#data} value. */
  private static int type(Object value, int i) {
    return value instanceof Record lone ? lone.getType() : ((Owned) value).type(i);
  }

  /** The {@link Owned} of a {@link Builder#data} value, made for a lone record; null for null. */
  private static Owned owned(Object value) {
    if (value instanceof Record lone) {
      Owned o = new Owned();
      o.addRecord(o.add(lone.getType(), FROM_FILE), lone);
      return o;
    }
    return (Owned) value;
  }

  /**
   * The records of one owner name while a zone is compiled, by type, with where each type was first
   * given. A type with one record keeps the record itself (an RRset only from the second on), and
   * the first type lives in fields, so the usual name of a large master file, one A record, costs
   * this object and its record.
   */
  private static final class Owned {
    int count;
    private int type0;
    private Object data0;
    private String source0;
    private int[] types;
    private Object[] data;
    private String[] sources;

    int type(int i) {
      return i == 0 ? type0 : types[i - 1];
    }

    String source(int i) {
      return i == 0 ? source0 : sources[i - 1];
    }

    int indexOf(int type) {
      for (int i = 0; i < count; i++) {
        if (type(i) == type) {
          return i;
        }
      }
      return -1;
    }

    boolean has(int type) {
      return indexOf(type) >= 0;
    }

    int add(int type, String source) {
      if (count == 0) {
        type0 = type;
        source0 = source;
        return count++;
      }
      if (types == null) {
        types = new int[2];
        data = new Object[2];
        sources = new String[2];
      } else if (count - 1 == types.length) {
        types = Arrays.copyOf(types, types.length * 2);
        data = Arrays.copyOf(data, data.length * 2);
        sources = Arrays.copyOf(sources, sources.length * 2);
      }
      types[count - 1] = type;
      sources[count - 1] = source;
      return count++;
    }

    /** Adds {@code r} to the {@code i}-th type, as RRset.addRR would (one TTL, no duplicates). */
    void addRecord(int i, Record r) {
      Object d = i == 0 ? data0 : data[i - 1];
      Object next;
      if (d == null && r.getType() != Type.RRSIG) {
        next = r;
      } else {
        RRset set = d instanceof RRset existing ? existing : new RRset();
        if (d instanceof Record single) {
          set.addRR(single);
        }
        set.addRR(r);
        next = set;
      }
      if (i == 0) {
        data0 = next;
      } else {
        data[i - 1] = next;
      }
    }

    /** The {@code i}-th type's records as an RRset. */
    RRset rrset(int i) {
      Object d = i == 0 ? data0 : data[i - 1];
      return d instanceof RRset set ? set : new RRset((Record) d);
    }

    /** The {@code i}-th type's records in canonical order (RFC 4034 §6.3). */
    Record[] records(int i) {
      Object d = i == 0 ? data0 : data[i - 1];
      return d instanceof RRset set ? sorted(set) : new Record[] {(Record) d};
    }
  }

  /**
   * The RRset with its records in canonical order (RFC 4034 §6.3), the order the reference servers
   * keep: answers come out the same, and so does which additional data fits a truncated response.
   */
  private static Record[] sorted(RRset set) {
    Record[] records = set.rrs(false).toArray(new Record[0]);
    Arrays.sort(records);
    return records;
  }

  static String describeDataError(String type, String text, String message) {
    String detail = stripLocation(message);
    if ("A".equals(type)) {
      return "invalid IPv4 address '" + text + "'";
    }
    if ("AAAA".equals(type)) {
      return "invalid IPv6 address '" + text + "'";
    }
    return "invalid " + type + " data '" + text + "': " + detail;
  }

  private static String stripLocation(String message) {
    if (message == null) {
      return "unparseable";
    }
    Matcher m = TOKENIZER_MESSAGE.matcher(message);
    return m.matches() ? m.group(2) : message;
  }

  private static String describeTokenizerError(String message) {
    if (message == null) {
      return "is unreadable";
    }
    Matcher m = TOKENIZER_MESSAGE.matcher(message);
    if (!m.matches()) {
      return message;
    }
    String what =
        m.group(2).startsWith("$INCLUDE")
            ? "$INCLUDE is not allowed: a zone is one master file (or use one zone entry per file)"
            : m.group(2);
    return "line " + m.group(1) + ": " + what;
  }
}
