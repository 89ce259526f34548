package io.sluice.admin.auth;

import io.sluice.core.config.AdminConfig.TokenConfig;
import io.sluice.core.control.Actor;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Checks bearer tokens against the configured SHA-256 hashes. The presented token is hashed and
 * compared with every configured hash in constant time, so neither the match position nor a common
 * prefix shows in the timing.
 *
 * <p>The tokens come from a source read on every check (the running configuration), so a reload
 * that publishes a new configuration revokes and adds tokens with the same reference swap; the
 * decoded table is rebuilt only when the source hands out another list.
 */
public final class TokenAuthenticator {
  private final Supplier<List<TokenConfig>> source;
  private volatile Table table;

  private record Entry(byte[] hash, Actor actor, Instant expiresAt) {}

  /** What a presented token is: accepted (with its actor), expired, or not a configured token. */
  public sealed interface Check permits Accepted, Expired, Unknown {}

  /** A configured, unexpired token and who it is. */
  public record Accepted(Actor actor) implements Check {}

  /** A configured token past its {@code expires} time. */
  public record Expired(String name, Instant at) implements Check {}

  /** No configured token (or no bearer token at all). */
  public record Unknown() implements Check {}

  /** The decoded entries of one token list, kept with the list they were decoded from. */
  private record Table(List<TokenConfig> tokens, List<Entry> entries) {
    static Table of(List<TokenConfig> tokens) {
      return new Table(
          tokens,
          tokens.stream()
              .map(
                  t ->
                      new Entry(
                          HexFormat.of().parseHex(t.sha256()),
                          new Actor(t.name(), t.role(), t.scope()),
                          t.expiresAt()))
              .toList());
    }
  }

  /** An authenticator for a fixed list of tokens. */
  public TokenAuthenticator(List<TokenConfig> tokens) {
    this(() -> tokens);
  }

  private TokenAuthenticator(Supplier<List<TokenConfig>> source) {
    this.source = source;
    this.table = Table.of(source.get());
  }

  /** An authenticator that follows the tokens {@code source} returns at each check. */
  public static TokenAuthenticator following(Supplier<List<TokenConfig>> source) {
    return new TokenAuthenticator(source);
  }

  private List<Entry> entries() {
    List<TokenConfig> tokens = source.get();
    Table t = table;
    if (t.tokens != tokens) {
      // A benign race: two threads may decode the same new list; either result is correct.
      t = Table.of(tokens);
      table = t;
    }
    return t.entries;
  }

  /**
   * The actor of an {@code Authorization} header value ({@code Bearer <token>}), or empty when the
   * header is missing, malformed, names no configured token or an expired one (by the system
   * clock).
   */
  public Optional<Actor> authenticate(String authorization) {
    return check(authorization, System.currentTimeMillis()) instanceof Accepted a
        ? Optional.of(a.actor())
        : Optional.empty();
  }

  /**
   * What the token of an {@code Authorization} header value ({@code Bearer <token>}) is at {@code
   * nowMillis}: accepted, expired, or unknown (also when the header is missing or malformed).
   */
  public Check check(String authorization, long nowMillis) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return new Unknown();
    }
    String token = authorization.substring(7).trim();
    if (token.isEmpty()) {
      return new Unknown();
    }
    byte[] presented = sha256(token);
    Entry found = null;
    for (Entry e : entries()) {
      if (MessageDigest.isEqual(e.hash, presented) && found == null) {
        found = e;
      }
    }
    if (found == null) {
      return new Unknown();
    }
    if (found.expiresAt != null && nowMillis >= found.expiresAt.toEpochMilli()) {
      return new Expired(found.actor.name(), found.expiresAt);
    }
    return new Accepted(found.actor);
  }

  /** The lower-case hex SHA-256 of a token, as it is written in the configuration. */
  public static String hash(String token) {
    return HexFormat.of().formatHex(sha256(token));
  }

  private static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
