/**
 * DNSSEC online signing: static data signed at load and refreshed in the background, GSLB answer
 * RRsets signed before the snapshot that serves them is published, and compact denial of existence
 * (RFC 9824) signed online within a budget.
 */
package io.sluice.dns.dnssec;
