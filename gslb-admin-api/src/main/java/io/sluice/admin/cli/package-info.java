/**
 * {@code sluice ctl}, the on-call CLI: picocli commands over the admin REST API, plus {@code
 * verify}, which asks the DNS server through a {@link io.sluice.admin.cli.DnsVerifier}. Entry point
 * {@link io.sluice.admin.cli.CtlMain}; operator documentation in {@code docs/cli.md}.
 */
package io.sluice.admin.cli;
