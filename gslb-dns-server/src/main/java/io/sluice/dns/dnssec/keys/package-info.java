/** DNSSEC key material: BIND-format key files, their timing, and the keys each zone signs with. */
package io.sluice.dns.dnssec.keys;
