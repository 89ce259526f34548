package io.sluice.dns.it;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AllEndpointsPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.server.app.SluiceNode;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SimpleResolver;

/** A real Sluice node on 127.0.0.1 and an ephemeral port, started from a YAML string. */
final class TestServer implements AutoCloseable {
  static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

  final SluiceNode node;

  TestServer(SluiceNode node) {
    this.node = node;
  }

  static TestServer start(String yaml) throws Exception {
    return start(yaml, Path.of("."), GslbMetrics.NOOP);
  }

  static TestServer start(String yaml, Path baseDir, GslbMetrics metrics) throws Exception {
    return start(yaml, baseDir, metrics, Ticker.SYSTEM);
  }

  /** A server whose responder reads time (rate limits, cookie timestamps) from {@code ticker}. */
  static TestServer start(String yaml, Path baseDir, GslbMetrics metrics, Ticker ticker)
      throws Exception {
    SluiceConfig config = ConfigLoader.parse(yaml, "test.yaml", baseDir);
    return new TestServer(
        SluiceNode.start(config, "test.yaml", AllEndpointsPlanner::new, metrics, ticker));
  }

  /** Applies {@code yaml} as a reload does: built whole, then swapped in. */
  void reload(String yaml, Path baseDir) throws Exception {
    node.apply(ConfigLoader.parse(yaml, "test.yaml", baseDir), "test.yaml");
  }

  int port() {
    return node.port();
  }

  /** A resolver on this server; dnsjava's default query carries EDNS(0). */
  SimpleResolver resolver(boolean tcp) {
    SimpleResolver r = new SimpleResolver(new java.net.InetSocketAddress(LOOPBACK, port()));
    r.setTCP(tcp);
    r.setTimeout(Duration.ofSeconds(3));
    return r;
  }

  Message query(String name, int type, boolean tcp) throws IOException {
    Message q = Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
    return resolver(tcp).send(q);
  }

  /** Sends raw bytes over UDP; returns the reply, or null when none came within the timeout. */
  byte[] udp(byte[] packet, int timeoutMillis) throws IOException {
    try (DatagramSocket s = new DatagramSocket()) {
      s.setSoTimeout(timeoutMillis);
      s.send(new DatagramPacket(packet, packet.length, LOOPBACK, port()));
      byte[] buf = new byte[65535];
      DatagramPacket reply = new DatagramPacket(buf, buf.length);
      try {
        s.receive(reply);
      } catch (SocketTimeoutException e) {
        return null;
      }
      return java.util.Arrays.copyOf(buf, reply.getLength());
    }
  }

  byte[] udp(byte[] packet) throws IOException {
    return udp(packet, 2000);
  }

  /** Opens a TCP connection to this server. */
  Socket tcp() throws IOException {
    Socket s = new Socket(LOOPBACK, port());
    s.setSoTimeout(3000);
    return s;
  }

  static void writeFrame(Socket s, byte[] message) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(b);
    d.writeShort(message.length);
    d.write(message);
    s.getOutputStream().write(b.toByteArray());
    s.getOutputStream().flush();
  }

  static byte[] readFrame(Socket s) throws IOException {
    DataInputStream in = new DataInputStream(s.getInputStream());
    int len = in.readUnsignedShort();
    byte[] out = new byte[len];
    in.readFully(out);
    return out;
  }

  /** The records of one section of {@code m} (OPT aside) as "name TTL TYPE rdata" lines. */
  static java.util.List<String> section(Message m, int section) {
    java.util.List<String> out = new java.util.ArrayList<>();
    for (Record r : m.getSection(section)) {
      if (r.getType() != org.xbill.DNS.Type.OPT) {
        out.add(
            r.getName()
                + " "
                + r.getTTL()
                + " "
                + org.xbill.DNS.Type.string(r.getType())
                + " "
                + r.rdataToString());
      }
    }
    return out;
  }

  @Override
  public void close() {
    node.close();
  }
}
