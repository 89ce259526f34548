import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A tight query loop that counts wrong answers while configurations of bench/gen-large-config.sh
 * are reloaded (docs/benchmark.md). JDK only: {@code java bench/ReloadWatch.java PORT STOPFILE
 * [LOOPS]} queries www, alias and added in large.test. on 127.0.0.1:PORT, LOOPS threads per name
 * (default 2), back to back, until STOPFILE exists; then prints what it saw and exits 1 when any
 * answer was wrong. Wrong is what no single generation could answer: NXDOMAIN for www or alias, a
 * generation going backwards, an alias CNAME of one generation with a service address of another,
 * or added answering NXDOMAIN after it had answered.
 */
public final class ReloadWatch {
  private static final AtomicLong queries = new AtomicLong();
  private static final AtomicLong wrong = new AtomicLong();
  private static final AtomicLong timeouts = new AtomicLong();
  private static final List<String> examples = new ArrayList<>();

  /** One resource record of an answer section: type, TTL and, for A, the last octet. */
  private record Rr(int type, long ttl, int lastOctet) {}

  /** A parsed response: rcode and answer records. */
  private record Reply(int rcode, List<Rr> answer) {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: java ReloadWatch.java PORT STOPFILE [LOOPS]");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    Path stop = Path.of(args[1]);
    int loops = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    List<Thread> threads = new ArrayList<>();
    for (String name : List.of("www", "alias", "added")) {
      for (int i = 0; i < loops; i++) {
        Thread t = new Thread(() -> loop(name + ".large.test.", port, stop), name + "-" + i);
        t.start();
        threads.add(t);
      }
    }
    for (Thread t : threads) {
      t.join();
    }
    System.out.printf(
        "queries %d, wrong answers %d, timeouts %d%n", queries.get(), wrong.get(), timeouts.get());
    synchronized (examples) {
      examples.forEach(e -> System.out.println("  wrong: " + e));
    }
    System.exit(wrong.get() == 0 ? 0 : 1);
  }

  private static void loop(String name, int port, Path stop) {
    int last = -1; // the newest generation this loop has seen
    boolean answered = false; // for added: answered once already
    byte[] query = query(name);
    byte[] buf = new byte[4096];
    try (DatagramSocket s = new DatagramSocket()) {
      s.setSoTimeout(2000);
      InetAddress server = InetAddress.getLoopbackAddress();
      long n = 0;
      while ((n++ & 63) != 0 || !Files.exists(stop)) {
        s.send(new DatagramPacket(query, query.length, server, port));
        DatagramPacket p = new DatagramPacket(buf, buf.length);
        try {
          s.receive(p);
        } catch (SocketTimeoutException e) {
          timeouts.incrementAndGet();
          continue;
        }
        queries.incrementAndGet();
        Reply r = parse(ByteBuffer.wrap(buf, 0, p.getLength()));
        String problem = null;
        if (name.startsWith("added.")) {
          if (r.rcode == 0 && r.answer.size() == 1) {
            answered = true;
          } else if (r.rcode != 3) {
            problem = "rcode " + r.rcode + " with " + r.answer.size() + " answers";
          } else if (answered) {
            problem = "NXDOMAIN after it had answered";
          }
        } else {
          int gen;
          if (r.rcode != 0 || r.answer.isEmpty()) {
            problem = "rcode " + r.rcode + " with " + r.answer.size() + " answers";
            gen = last;
          } else if (name.startsWith("www.")) {
            gen = r.answer.get(0).lastOctet - 10;
          } else if (r.answer.size() != 2 || r.answer.get(0).type != 5) {
            problem = "not CNAME + A: " + r.answer;
            gen = last;
          } else {
            gen = r.answer.get(1).lastOctet - 10;
            long zoneGen = r.answer.get(0).ttl - 300;
            if (zoneGen != gen) {
              problem = "CNAME of generation " + zoneGen + " with the address of generation " + gen;
            }
          }
          if (problem == null && gen < last) {
            problem = "generation went back from " + last + " to " + gen;
          }
          last = Math.max(last, gen);
        }
        if (problem != null) {
          wrong.incrementAndGet();
          synchronized (examples) {
            if (examples.size() < 10) {
              examples.add(name + " " + problem);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] query(String name) {
    ByteBuffer b = ByteBuffer.allocate(512);
    b.putShort((short) 0x5e1c).putShort((short) 0).putShort((short) 1);
    b.putShort((short) 0).putShort((short) 0).putShort((short) 0);
    for (String label : name.split("\\.")) {
      b.put((byte) label.length()).put(label.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
    b.put((byte) 0).putShort((short) 1).putShort((short) 1);
    byte[] out = new byte[b.position()];
    b.flip().get(out);
    return out;
  }

  private static Reply parse(ByteBuffer b) {
    b.getShort();
    int rcode = b.getShort() & 0xf;
    int qd = b.getShort() & 0xffff;
    int an = b.getShort() & 0xffff;
    b.getShort();
    b.getShort();
    for (int i = 0; i < qd; i++) {
      skipName(b);
      b.getInt();
    }
    List<Rr> answer = new ArrayList<>();
    for (int i = 0; i < an; i++) {
      skipName(b);
      int type = b.getShort() & 0xffff;
      b.getShort();
      long ttl = b.getInt() & 0xffffffffL;
      int len = b.getShort() & 0xffff;
      int last = type == 1 && len == 4 ? b.get(b.position() + 3) & 0xff : -1;
      b.position(b.position() + len);
      answer.add(new Rr(type, ttl, last));
    }
    return new Reply(rcode, answer);
  }

  private static void skipName(ByteBuffer b) {
    while (true) {
      int len = b.get() & 0xff;
      if (len == 0) {
        return;
      }
      if ((len & 0xc0) == 0xc0) {
        b.get();
        return;
      }
      b.position(b.position() + len);
    }
  }
}
