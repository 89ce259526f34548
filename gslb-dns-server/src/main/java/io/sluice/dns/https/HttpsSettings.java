package io.sluice.dns.https;

import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.HttpsConfig;
import io.sluice.core.config.Problems;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.state.ConfigCompiler;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * What the HTTPS listener reads for one configuration: the TLS context new connections get (its
 * certificate read, or generated, when the configuration is built, so a reload or {@code SIGHUP}
 * picks up a renewed certificate and a broken one rejects the reload), and the HTTPDNS settings.
 * Built off the query path by {@link #compiler()} and published in the snapshot.
 */
public final class HttpsSettings {
  private static final String PATH = "dns.https";

  final SslContext ssl;
  final boolean httpdns;
  final int requestsPerSecond;
  final int ipv4Mask;
  final int ipv6Prefix;
  private final List<byte[]> trustedHashes;

  private HttpsSettings(SslContext ssl, HttpsConfig.HttpDnsConfig h) {
    this.ssl = ssl;
    this.httpdns = h.enabled();
    this.requestsPerSecond = h.requestsPerSecond();
    this.ipv4Mask = -1 << (32 - h.ipv4PrefixLength());
    this.ipv6Prefix = h.ipv6PrefixLength();
    this.trustedHashes =
        h.trustedTokens().stream().map(t -> HexFormat.of().parseHex(t.sha256())).toList();
  }

  /** The HTTPS module's share of building a configuration: TLS material and HTTPDNS settings. */
  public static ConfigCompiler compiler() {
    return (config, source, running, out) -> {
      HttpsSettings s = build(config, source);
      if (s != null) {
        out.put(HttpsSettings.class, s);
      }
    };
  }

  /**
   * The settings of {@code config}, or null when {@code dns.https} is off. Without {@code
   * certFile}/{@code keyFile} the certificate is generated into the state directory if missing.
   */
  public static HttpsSettings build(SluiceConfig config, String source) throws ConfigException {
    HttpsConfig https = config.dns().https();
    if (!https.enabled()) {
      return null;
    }
    File cert;
    File key;
    if (https.generatedCertificate()) {
      try {
        Path[] files =
            GeneratedCertificate.ensure(config.stateDirectory(), https.listen(), Instant.now());
        cert = files[0].toFile();
        key = files[1].toFile();
      } catch (IOException | GeneralSecurityException e) {
        throw new ConfigException(
            source,
            PATH,
            "cannot create the self-signed certificate in "
                + config.stateDirectory()
                + ": "
                + e.getMessage());
      }
    } else {
      cert = config.resolve(https.certFile()).toFile();
      key = config.resolve(https.keyFile()).toFile();
    }
    Problems problems = new Problems(source);
    SslContext ssl = sslContext(https, cert, key, problems);
    problems.throwIfAny();
    return new HttpsSettings(ssl, https.httpdns());
  }

  /**
   * Adds to {@code problems} what the start would refuse in {@code config}'s certificate files,
   * generating none: for {@code sluice check}.
   */
  public static void check(SluiceConfig config, Problems problems) {
    HttpsConfig https = config.dns().https();
    if (!https.enabled() || https.generatedCertificate()) {
      return;
    }
    if (https.certFile() == null || https.keyFile() == null) {
      return; // reported by the configuration's own validation
    }
    sslContext(
        https,
        config.resolve(https.certFile()).toFile(),
        config.resolve(https.keyFile()).toFile(),
        problems);
  }

  private static SslContext sslContext(HttpsConfig https, File cert, File key, Problems problems) {
    boolean readable = readable(problems, PATH + ".certFile", cert);
    readable &= readable(problems, PATH + ".keyFile", key);
    if (!readable) {
      return null;
    }
    List<String> protocols =
        https.http2()
            ? List.of(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1)
            : List.of(ApplicationProtocolNames.HTTP_1_1);
    try {
      return SslContextBuilder.forServer(cert, key)
          .sslProvider(SslProvider.JDK)
          // HTTP/2 forbids the weaker suites (RFC 7540 §9.2.2); they are left out for HTTP/1.1
          // too.
          .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
          .applicationProtocolConfig(
              new ApplicationProtocolConfig(
                  ApplicationProtocolConfig.Protocol.ALPN,
                  ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                  ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                  protocols))
          .build();
    } catch (SSLException | IllegalArgumentException e) {
      problems.add(
          PATH, "cannot use certFile " + cert + " with keyFile " + key + ": " + e.getMessage());
      return null;
    }
  }

  private static boolean readable(Problems problems, String path, File file) {
    if (file.canRead() && file.isFile()) {
      return true;
    }
    problems.add(path, "cannot read " + file);
    return false;
  }

  /**
   * Whether {@code authorization} ({@code Bearer <token>}) names a trusted token. Every configured
   * hash is compared in constant time, so the timing tells nothing about a guess.
   */
  boolean trusted(String authorization) {
    if (authorization == null
        || trustedHashes.isEmpty()
        || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    byte[] presented = sha256(authorization.substring(7).trim());
    boolean found = false;
    for (byte[] h : trustedHashes) {
      found |= MessageDigest.isEqual(h, presented);
    }
    return found;
  }

  private static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
