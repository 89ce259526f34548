/** dnstap output: protobuf messages in Frame Streams, written off the query path. */
package io.sluice.dns.tap;
