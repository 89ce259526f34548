package io.sluice.core.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads YAML into a {@link SluiceConfig} and validates it fully. Every error names the file, the
 * path inside it and what is wrong; unknown keys are errors, so a typo never silently becomes a
 * default.
 */
public final class ConfigLoader {
  /**
   * The largest configuration file read, in characters. The YAML parser's own default (3 Mi)
   * refused a configuration of about 40,000 services; a node reads its whole file into memory
   * anyway, and the parser's limits on aliases and nesting, which guard against hostile documents,
   * stay.
   */
  static final int MAX_CONFIG_CHARS = 64 << 20;

  private static final ObjectMapper YAML = configure(new ObjectMapper(yamlFactory()));

  /** Reads the tree with repeated keys allowed; they are found and reported separately. */
  private static final ObjectMapper LENIENT_YAML =
      configure(new ObjectMapper(yamlFactory()))
          .configure(JsonParser.Feature.STRICT_DUPLICATE_DETECTION, false);

  /** Shape and type problems reported before binding gives up (each one re-binds the tree). */
  private static final int MAX_SHAPE_PROBLEMS = 100;

  private ConfigLoader() {}

  private static YAMLFactory yamlFactory() {
    LoaderOptions options = new LoaderOptions();
    options.setCodePointLimit(MAX_CONFIG_CHARS);
    // Made by the builder, the factory reads an empty value ("traffic:") as "" unless this is on;
    // the configuration means null (the defaults) there, as new YAMLFactory() read it.
    return YAMLFactory.builder()
        .loaderOptions(options)
        .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
        .build();
  }

  /** A JSON mapper with the same strictness and duration format as the config reader. */
  public static ObjectMapper jsonMapper() {
    return configure(JsonMapper.builder().build());
  }

  private static ObjectMapper configure(ObjectMapper m) {
    SimpleModule durations = new SimpleModule("sluice-durations");
    durations.addDeserializer(
        Duration.class,
        new JsonDeserializer<>() {
          @Override
          public Duration deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            try {
              return DurationParser.parse(p.getValueAsString(p.getText()));
            } catch (IllegalArgumentException e) {
              throw InvalidFormatException.from(p, e.getMessage(), p.getText(), Duration.class);
            }
          }
        });
    durations.addSerializer(
        Duration.class,
        new JsonSerializer<>() {
          @Override
          public void serialize(Duration d, JsonGenerator g, SerializerProvider sp)
              throws IOException {
            g.writeString(DurationParser.format(d));
          }
        });
    m.registerModule(durations)
        .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
        .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true)
        .configure(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, true)
        .configure(DeserializationFeature.ACCEPT_FLOAT_AS_INT, false)
        // A key written twice is an error naming it, never "the last one wins".
        .configure(JsonParser.Feature.STRICT_DUPLICATE_DETECTION, true);
    // "port: fifty" must be an error naming the field, not a silent coercion.
    for (LogicalType t :
        new LogicalType[] {LogicalType.Integer, LogicalType.Float, LogicalType.Boolean}) {
      m.coercionConfigFor(t).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
    }
    return m;
  }

  /**
   * What reading a file produced: the configuration as far as it could be read (null when the file
   * could not be read as YAML at all) and every problem found, in the order found.
   */
  public record Parsed(SluiceConfig config, List<ConfigProblem> problems) {
    public Parsed {
      problems = List.copyOf(problems);
    }

    /** The configuration, or a {@link ConfigException} holding every problem. */
    public SluiceConfig orThrow() throws ConfigException {
      if (!problems.isEmpty() || config == null) {
        throw new ConfigException(problems);
      }
      return config;
    }
  }

  /** Loads and validates {@code file}; relative paths inside it resolve against its directory. */
  public static SluiceConfig load(Path file) throws ConfigException {
    return read(file).orThrow();
  }

  /**
   * Reads and validates {@code file}, collecting every problem of its shape, types and values
   * instead of stopping at the first; the configuration is returned as far as it could be read, so
   * later phases (zone files, policies) can report their problems in the same run.
   */
  public static Parsed read(Path file) {
    return read(file, UnaryOperator.identity());
  }

  /**
   * Like {@link #read(Path)}, validating the configuration as {@code adjust} (command-line
   * overrides) changes it, so the values the node would run with are checked once.
   */
  public static Parsed read(Path file, UnaryOperator<SluiceConfig> adjust) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      return failed(file.toString(), "", "file not found");
    } catch (IOException e) {
      return failed(file.toString(), "", "cannot read: " + e.getMessage());
    }
    Path dir = file.toAbsolutePath().getParent();
    return read(text, file.toString(), dir == null ? Path.of(".") : dir, adjust);
  }

  /** Parses and validates YAML text; {@code name} is used in error messages. */
  public static SluiceConfig parse(String yaml, String name, Path baseDir) throws ConfigException {
    return read(yaml, name, baseDir).orThrow();
  }

  /** Like {@link #read(Path)}, for YAML text named {@code name}. */
  public static Parsed read(String yaml, String name, Path baseDir) {
    return read(yaml, name, baseDir, UnaryOperator.identity());
  }

  /**
   * Like {@link #read(Path, UnaryOperator)}, for YAML text named {@code name} whose relative paths
   * resolve against {@code baseDir} (a version from the configuration history).
   */
  /** The last well-formed text read and what it bound to. */
  private record LastRead(String yaml, SluiceConfig raw) {}

  private static volatile LastRead lastRead;

  public static Parsed read(
      String yaml, String name, Path baseDir, UnaryOperator<SluiceConfig> adjust) {
    if (yaml.isBlank()) {
      return failed(name, "", "the file is empty");
    }
    Problems problems = new Problems(name);
    List<String> pruned = new ArrayList<>();
    SluiceConfig raw;
    try {
      raw = strict(yaml);
      if (raw == null) {
        return failed(name, "", "the file is empty");
      }
    } catch (JsonProcessingException strict) {
      raw = readCollectingShapeProblems(yaml, problems, pruned);
      if (problems.isEmpty()) {
        problems.add(pathOf(strict), messageOf(strict, null));
      }
      if (raw == null) {
        return new Parsed(null, problems.list());
      }
    }
    SluiceConfig config = adjust.apply(raw.withBaseDir(baseDir));
    Problems values = new Problems(name);
    config.validate(values);
    List<ConfigProblem> all = new ArrayList<>(problems.list());
    for (ConfigProblem p : values.list()) {
      // A value removed for its wrong type is reported once, not again as missing.
      if (pruned.stream()
          .noneMatch(
              bad ->
                  p.path().equals(bad)
                      || p.path().startsWith(bad + ".")
                      || p.path().startsWith(bad + "["))) {
        all.add(p);
      }
    }
    return new Parsed(config, all);
  }

  /**
   * The configuration {@code yaml} binds to, its relative paths resolved against {@code baseDir},
   * not validated: for finding the files it references before it is checked. Null when it does not
   * bind; {@link #read} then reports why.
   */
  public static SluiceConfig bind(String yaml, Path baseDir) {
    try {
      SluiceConfig raw = strict(yaml);
      return raw == null ? null : raw.withBaseDir(baseDir);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  /**
   * Binds a well-formed file, the common case, in one strict pass; null for an empty one. A start
   * reads the same text more than once (checked, then its referenced files found, then loaded as
   * the node runs it): the bound result is immutable, so the last one is reused.
   */
  private static SluiceConfig strict(String yaml) throws JsonProcessingException {
    LastRead memo = lastRead;
    if (memo != null && memo.yaml().equals(yaml)) {
      return memo.raw();
    }
    SluiceConfig raw = YAML.readValue(yaml, SluiceConfig.class);
    if (raw != null) {
      lastRead = new LastRead(yaml, raw);
    }
    return raw;
  }

  /**
   * The slow path for a file with problems: reports every repeated key, reads the tree past them,
   * then binds it collecting every key or value of the wrong shape. Null when reading cannot go on.
   */
  private static SluiceConfig readCollectingShapeProblems(
      String yaml, Problems problems, List<String> pruned) {
    JsonNode tree;
    try {
      for (String duplicate : DuplicateKeys.find(LENIENT_YAML.getFactory(), yaml)) {
        problems.add(
            duplicate,
            "duplicate key '" + DuplicateKeys.keyOf(duplicate) + "': each key may appear once");
      }
      // Read on past repeated keys (reported above) to find the file's other problems too.
      tree = LENIENT_YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      // Not YAML: nothing below can be trusted.
      problems.add(pathOf(e), messageOf(e, null));
      return null;
    } catch (IOException e) {
      problems.add("", "cannot read: " + e.getMessage());
      return null;
    }
    if (tree == null || tree.isMissingNode() || tree.isNull()) {
      problems.add("", "the file is empty");
      return null;
    }
    return bind(tree, problems, pruned);
  }

  /**
   * Binds the tree, reporting each key or value of the wrong shape and removing it so that binding
   * can go on and find the next one; returns null when a problem cannot be removed.
   */
  private static SluiceConfig bind(JsonNode tree, Problems problems, List<String> pruned) {
    for (int attempt = 0; attempt < MAX_SHAPE_PROBLEMS; attempt++) {
      try {
        if (!tree.isObject()) {
          problems.add("", "expected a mapping of sections (dns:, zones:, ...) at the top");
          return null;
        }
        return YAML.treeToValue(tree, SluiceConfig.class);
      } catch (JsonProcessingException e) {
        String path = pathOf(e);
        JsonNode bad = e instanceof JsonMappingException jm ? at(tree, jm.getPath()) : null;
        problems.add(path, messageOf(e, bad));
        if (!(e instanceof JsonMappingException jm) || !remove(tree, jm.getPath(), e)) {
          return null;
        }
        pruned.add(
            e instanceof UnrecognizedPropertyException u
                ? Problems.child(path, u.getPropertyName())
                : path);
      } catch (IllegalArgumentException e) {
        problems.add("", e.getMessage());
        return null;
      }
    }
    problems.add("", "too many problems; fix these first");
    return null;
  }

  private static JsonNode at(JsonNode tree, List<JsonMappingException.Reference> refs) {
    JsonNode n = tree;
    for (JsonMappingException.Reference r : refs) {
      if (n == null) {
        return null;
      }
      n = r.getFieldName() != null ? n.get(r.getFieldName()) : n.get(r.getIndex());
    }
    return n;
  }

  /**
   * Removes the key or value the error points at: an unknown key, or a value of the wrong type
   * (which then takes its default, or is reported as missing by validation). A list entry that
   * should be a mapping becomes an empty one (removing it would shift the indices of later
   * problems); other list entries stop binding there.
   */
  private static boolean remove(
      JsonNode tree, List<JsonMappingException.Reference> refs, JsonProcessingException e) {
    if (refs.isEmpty()) {
      return false;
    }
    JsonMappingException.Reference last = refs.get(refs.size() - 1);
    JsonNode parent = at(tree, refs.subList(0, refs.size() - 1));
    if (e instanceof ValueInstantiationException) {
      // The constructor refused the whole object: removing one key would not help.
      return false;
    }
    if (last.getFieldName() == null
        && parent instanceof ArrayNode list
        && e instanceof MismatchedInputException m
        && m.getTargetType() != null
        && m.getTargetType().isRecord()
        && last.getIndex() >= 0
        && last.getIndex() < list.size()
        && !list.get(last.getIndex()).isObject()) {
      // A list entry that should be a mapping: an empty one keeps the later indices right; its
      // missing fields are not reported again (the path is pruned).
      list.set(last.getIndex(), list.objectNode());
      return true;
    }
    if (last.getFieldName() == null || !(parent instanceof ObjectNode obj)) {
      return false;
    }
    return obj.remove(last.getFieldName()) != null;
  }

  private static Parsed failed(String name, String path, String message) {
    return new Parsed(null, List.of(new ConfigProblem(name, path, message)));
  }

  private static String pathOf(JsonProcessingException e) {
    if (!(e instanceof JsonMappingException jm)) {
      return "";
    }
    List<JsonMappingException.Reference> refs = jm.getPath();
    if (e instanceof UnrecognizedPropertyException && !refs.isEmpty()) {
      // The unknown key is named in the message; the path is where it stands.
      refs = refs.subList(0, refs.size() - 1);
    }
    return JsonPaths.of(refs);
  }

  private static String messageOf(JsonProcessingException e, JsonNode bad) {
    if (e instanceof UnrecognizedPropertyException u) {
      List<String> known =
          u.getKnownPropertyIds() == null
              ? List.of()
              : u.getKnownPropertyIds().stream().map(String::valueOf).sorted().toList();
      return "unknown key '"
          + u.getPropertyName()
          + "'"
          + (known.isEmpty() ? "" : " (known keys: " + String.join(", ", known) + ")");
    }
    if (e instanceof InvalidFormatException f && f.getTargetType() == Duration.class) {
      return f.getOriginalMessage();
    }
    if (e instanceof InvalidFormatException f
        && f.getTargetType() != null
        && f.getTargetType().isEnum()) {
      List<String> names =
          Arrays.stream(f.getTargetType().getEnumConstants()).map(String::valueOf).toList();
      return "must be one of " + String.join(", ", names) + ", was " + shown(bad);
    }
    if (e instanceof ValueInstantiationException v && v.getCause() != null) {
      return v.getCause().getMessage();
    }
    if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
      return "expected " + describe(m.getTargetType()) + ", was " + shown(bad);
    }
    String where =
        e.getLocation() == null
            ? ""
            : " (line "
                + e.getLocation().getLineNr()
                + ", column "
                + e.getLocation().getColumnNr()
                + ")";
    return firstLine(e.getOriginalMessage()) + where;
  }

  /** The offending value as written, shortened: {@code "abc"}, {@code 5}, a mapping, a list. */
  private static String shown(JsonNode bad) {
    if (bad == null) {
      return "something else";
    }
    if (bad.isObject()) {
      return "a mapping";
    }
    if (bad.isArray()) {
      return "a list";
    }
    String text = bad.toString();
    return text.length() > 60 ? text.substring(0, 57) + "..." : text;
  }

  private static String describe(Class<?> type) {
    if (type == Integer.class || type == Long.class || type == int.class || type == long.class) {
      return "a whole number";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type == String.class) {
      return "a string";
    }
    if (List.class.isAssignableFrom(type)) {
      return "a list";
    }
    if (type == Double.class || type == double.class || type == Float.class) {
      return "a number";
    }
    if (Map.class.isAssignableFrom(type)) {
      return "a mapping";
    }
    // A section or entry: name what it is, in the words of the configuration file.
    return "a mapping ("
        + type.getSimpleName().replace("Config", "").toLowerCase(Locale.ROOT)
        + ")";
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "invalid value";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
