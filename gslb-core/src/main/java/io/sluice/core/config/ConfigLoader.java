package io.sluice.core.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
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
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Reads YAML into a {@link SluiceConfig} and validates it fully. Every error names the file, the
 * path inside it and what is wrong; unknown keys are errors, so a typo never silently becomes a
 * default.
 */
public final class ConfigLoader {
  private static final ObjectMapper YAML = configure(new ObjectMapper(new YAMLFactory()));

  private ConfigLoader() {}

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

  /** Loads and validates {@code file}; relative paths inside it resolve against its directory. */
  public static SluiceConfig load(Path file) throws ConfigException {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException(file.toString(), "", "file not found");
    } catch (IOException e) {
      throw new ConfigException(file.toString(), "", "cannot read: " + e.getMessage());
    }
    Path dir = file.toAbsolutePath().getParent();
    return parse(text, file.toString(), dir == null ? Path.of(".") : dir);
  }

  /** Parses and validates YAML text; {@code name} is used in error messages. */
  public static SluiceConfig parse(String yaml, String name, Path baseDir) throws ConfigException {
    if (yaml.isBlank()) {
      throw new ConfigException(name, "", "the file is empty");
    }
    SluiceConfig raw;
    try {
      raw = YAML.readValue(yaml, SluiceConfig.class);
    } catch (JsonProcessingException e) {
      String duplicate = DuplicateKeys.pathOf(e);
      if (duplicate != null) {
        throw new ConfigException(
            name,
            duplicate,
            "duplicate key '" + DuplicateKeys.keyOf(duplicate) + "': each key may appear once");
      }
      throw new ConfigException(name, pathOf(e), messageOf(e));
    }
    if (raw == null) {
      throw new ConfigException(name, "", "the file is empty");
    }
    SluiceConfig config = raw.withBaseDir(baseDir);
    Problems problems = new Problems(name);
    config.validate(problems);
    problems.throwIfAny();
    return config;
  }

  private static String pathOf(JsonProcessingException e) {
    if (!(e instanceof JsonMappingException jm)) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    List<JsonMappingException.Reference> refs = jm.getPath();
    if (e instanceof UnrecognizedPropertyException && !refs.isEmpty()) {
      // The unknown key is named in the message; the path is where it stands.
      refs = refs.subList(0, refs.size() - 1);
    }
    for (JsonMappingException.Reference r : refs) {
      if (r.getFieldName() != null) {
        if (sb.length() > 0) {
          sb.append('.');
        }
        sb.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        sb.append('[').append(r.getIndex()).append(']');
      }
    }
    return sb.toString();
  }

  private static String messageOf(JsonProcessingException e) {
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
    if (e instanceof ValueInstantiationException v && v.getCause() != null) {
      return v.getCause().getMessage();
    }
    if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
      return "expected " + describe(m.getTargetType()) + ": " + firstLine(m.getOriginalMessage());
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
    if (type == Double.class) {
      return "a number";
    }
    return "a " + type.getSimpleName().replace("Config", "") + " section";
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "invalid value";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
