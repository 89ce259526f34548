package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DnssecConfigTest {

  private static SluiceConfig parse(String dnssec) throws ConfigException {
    return ConfigLoader.parse(
        "stateDir: /srv/sluice\n"
            + "zones:\n"
            + "  - origin: example.com.\n"
            + "    soa: { mname: ns1.example.com., rname: hostmaster.example.com. }\n"
            + "    ns: [ns1.example.com.]\n"
            + dnssec,
        "test.yaml",
        Path.of("."));
  }

  @Test
  void unsignedWithoutTheSection() throws Exception {
    ZoneConfig z = parse("").zones().get(0);
    assertNull(z.dnssec());
    assertFalse(z.signed());
  }

  @Test
  void writingTheSectionSignsWithSaneDefaults() throws Exception {
    ZoneConfig z = parse("    dnssec: {}\n").zones().get(0);
    assertTrue(z.signed());
    DnssecConfig d = z.dnssec();
    assertEquals(DnssecAlgorithm.ECDSAP256SHA256, d.algorithm());
    assertEquals(13, d.algorithm().number());
    assertTrue(d.generate(), "the default key directory is Sluice's own: keys are generated");
    assertEquals(Duration.ofDays(14), d.signatureValidity());
    assertEquals(Duration.ofDays(7), d.signatureRefresh());
    assertEquals(Duration.ofDays(1), d.signatureJitter());
    assertEquals(Duration.ofHours(1), d.inceptionOffset());
    assertEquals(DenialMode.COMPACT, d.denial());
    assertEquals(
        Path.of("/srv/sluice/keys/example.com"),
        d.keyDirectory(Path.of("/srv/sluice"), z.origin()));
    assertFalse(parse("    dnssec: { enabled: false }\n").zones().get(0).signed());
  }

  @Test
  void everyFieldIsRead() throws Exception {
    DnssecConfig d =
        parse(
                """
                    dnssec:
                      enabled: true
                      keyDirectory: managed/example
                      algorithm: ED25519
                      signatureValidity: 21d
                      signatureRefresh: 5d
                      signatureJitter: 12h
                      inceptionOffset: 30m
                      denial: white-lies
                      dnskeyTtl: 2h
                      propagationDelay: 1m
                      parentDsTtl: 2d
                      maxZoneTtl: 1d
                """)
            .zones()
            .get(0)
            .dnssec();
    assertEquals(DnssecAlgorithm.ED25519, d.algorithm());
    assertEquals(15, d.algorithm().number());
    assertFalse(d.generate(), "an operator's own directory never gets a surprise key");
    assertEquals(Duration.ofDays(21), d.signatureValidity());
    assertEquals(Duration.ofDays(5), d.signatureRefresh());
    assertEquals(Duration.ofHours(12), d.signatureJitter());
    assertEquals(Duration.ofMinutes(30), d.inceptionOffset());
    assertEquals(DenialMode.WHITE_LIES, d.denial());
    assertEquals(Duration.ofHours(2), d.dnskeyTtl());
    assertEquals(Duration.ofMinutes(1), d.propagationDelay());
    assertEquals(Duration.ofDays(2), d.parentDsTtl());
    assertEquals(Duration.ofDays(1), d.maxZoneTtl());
    assertEquals(
        Path.of("/srv/sluice/managed/example"),
        d.keyDirectory(Path.of("/srv/sluice"), "example.com."));
  }

  @Test
  void everyValueProblemIsNamedAtOnce() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                parse(
                    "    dnssec: { keyDirectory: ' ', signatureValidity: 2d,"
                        + " signatureRefresh: 3d, signatureJitter: 4d, inceptionOffset: 500ms,"
                        + " parentDsTtl: 40d }\n"));
    String m = e.getMessage();
    for (String expected :
        List.of(
            "zones[0].dnssec.keyDirectory: must not be empty",
            "zones[0].dnssec.signatureRefresh: must be shorter than signatureValidity (48h)",
            "zones[0].dnssec.signatureJitter: must be shorter than signatureRefresh (72h)",
            "zones[0].dnssec.inceptionOffset: must be whole seconds from 0s to 168h, was 500ms",
            "zones[0].dnssec.parentDsTtl: must be whole seconds from 0s to 720h, was 960h")) {
      assertTrue(m.contains(expected), expected + " not in:\n" + m);
    }
  }

  @Test
  void enumsAndDurationsNameTheFieldAndTheChoices() {
    String m =
        assertThrows(
                ConfigException.class,
                () ->
                    parse(
                        "    dnssec: { algorithm: RSASHA1, denial: nsec3, signatureValidity:"
                            + " soon, generat: true }\n"))
            .getMessage();
    for (String expected :
        List.of(
            "zones[0].dnssec.algorithm: must be one of ECDSAP256SHA256, ED25519, was \"RSASHA1\"",
            "zones[0].dnssec.denial: must be one of compact, white-lies, was \"nsec3\"",
            "zones[0].dnssec.signatureValidity: must be a duration",
            "zones[0].dnssec: unknown key 'generat'")) {
      assertTrue(m.contains(expected), expected + " not in:\n" + m);
    }
  }
}
