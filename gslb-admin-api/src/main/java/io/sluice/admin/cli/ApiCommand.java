package io.sluice.admin.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** What every subcommand shares: the root's settings, the API client, output and prompts. */
abstract class ApiCommand implements Callable<Integer> {
  /** In a holder: only {@code --json} output needs it, and a mapper takes a while to set up. */
  private static final class Pretty {
    static final ObjectMapper MAPPER =
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  }

  @Spec CommandSpec spec;

  SluiceCtl ctl() {
    return (SluiceCtl) spec.root().userObject();
  }

  PrintStream out() {
    return ctl().io.out();
  }

  ApiClient api() {
    return ctl().client();
  }

  /** Human times relative to the CLI's clock. */
  HumanTime time() {
    return new HumanTime(ctl().io.clock());
  }

  boolean json() {
    return ctl().json;
  }

  void printJson(JsonNode node) {
    try {
      out().println(Pretty.MAPPER.writeValueAsString(node));
    } catch (JsonProcessingException e) {
      throw new CtlException(CtlMain.FAILED, "cannot print JSON: " + e.getMessage());
    }
  }

  /**
   * Asks before a destructive action unless {@code yes}; a refusal or no answer (stdin closed) ends
   * the command with exit code 3.
   */
  void confirm(boolean yes, String what) {
    if (yes) {
      return;
    }
    ctl().io.err().print(what + "\nType 'yes' to continue (or pass --yes): ");
    ctl().io.err().flush();
    String answer;
    try {
      answer = ctl().io.in().readLine();
    } catch (IOException e) {
      answer = null;
    }
    if (answer == null
        || !(answer.trim().equalsIgnoreCase("yes") || answer.trim().equalsIgnoreCase("y"))) {
      throw new CtlException(CtlMain.REFUSED, "not confirmed; nothing changed");
    }
  }

  /** A change body with the common fields. */
  static Map<String, Object> body(String reason, String requestId) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("reason", reason == null ? "via sluice ctl" : reason);
    if (requestId != null) {
      m.put("requestId", requestId);
    }
    return m;
  }

  /** Prints the outcome of a change: the new snapshot version and the server's summary. */
  int printResult(JsonNode r) {
    if (json()) {
      printJson(r);
    } else {
      out()
          .println(
              r.path("message").asText("done")
                  + " (snapshot version "
                  + r.path("snapshotVersion").asLong()
                  + (r.path("changed").asBoolean(true) ? "" : ", nothing changed")
                  + ")");
    }
    return CtlMain.OK;
  }

  /** Prints the outcome of a configuration push or rollback: the version it recorded. */
  int printVersion(JsonNode r) {
    if (json()) {
      printJson(r);
    } else {
      out().println(r.path("message").asText("done"));
    }
    return CtlMain.OK;
  }

  static String svcPath(String service) {
    return "/api/v1/services/" + ApiClient.encode(service);
  }
}
