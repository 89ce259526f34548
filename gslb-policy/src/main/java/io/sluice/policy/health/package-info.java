/**
 * The {@code healthy} red-line step: down or drained pools are never returned while a usable pool
 * exists.
 *
 * <p>Syntax: {@code healthy} (always the first step). Example: {@code chain: [healthy, geo]}.
 */
package io.sluice.policy.health;
