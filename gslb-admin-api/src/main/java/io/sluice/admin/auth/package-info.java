/**
 * Bearer-token authentication for the admin API: roles, constant-time checks against configured
 * SHA-256 hashes, and the per-source limit on failed attempts. See {@code docs/auth.md}.
 */
package io.sluice.admin.auth;
