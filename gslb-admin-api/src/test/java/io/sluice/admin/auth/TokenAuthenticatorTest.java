package io.sluice.admin.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.AdminConfig.TokenConfig;
import io.sluice.core.control.Actor;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Token hashing, bearer parsing and the role table. */
class TokenAuthenticatorTest {
  private final TokenAuthenticator auth =
      new TokenAuthenticator(
          List.of(
              new TokenConfig("vera", "viewer", TokenAuthenticator.hash("v-token")),
              new TokenConfig("ada", "ADMIN", TokenAuthenticator.hash("a-token").toUpperCase())));

  @Test
  void hashIsTheHexSha256ThatSha256sumPrints() {
    // printf %s abc | sha256sum
    assertEquals(
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        TokenAuthenticator.hash("abc"));
  }

  @Test
  void acceptsConfiguredTokensOnlyAsBearerCredentials() {
    assertEquals(Optional.of(new Actor("vera", "viewer")), auth.authenticate("Bearer v-token"));
    assertEquals(Optional.of(new Actor("ada", "admin")), auth.authenticate("bearer a-token"));
    assertFalse(auth.authenticate("Bearer v-token2").isPresent());
    assertFalse(auth.authenticate("Basic v-token").isPresent());
    assertFalse(auth.authenticate("Bearer ").isPresent());
    assertFalse(auth.authenticate(null).isPresent());
    assertFalse(auth.authenticate("v-token").isPresent());
  }

  @Test
  void rolesPermitAsTheTableSays() {
    assertTrue(Role.ADMIN.permits(Role.PROBE));
    assertTrue(Role.OPERATOR.permits(Role.VIEWER));
    assertFalse(Role.OPERATOR.permits(Role.ADMIN));
    assertFalse(Role.OPERATOR.permits(Role.PROBE));
    assertFalse(Role.VIEWER.permits(Role.OPERATOR));
    assertFalse(Role.PROBE.permits(Role.VIEWER));
  }
}
