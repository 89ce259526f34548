package io.sluice.dns.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.unix.UnixChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.core.config.DnsConfig;
import io.sluice.core.config.UdpLoop;
import io.sluice.core.spi.DnsSocketStats;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.response.Responder;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DNS listeners: UDP and TCP on every configured address and one port. On Linux it uses the
 * native epoll transport with one SO_REUSEPORT datagram socket per thread, so the kernel spreads
 * queries over the threads; each socket is read in batches (recvmmsg) by its {@link NativeUdpLoop}
 * when the library loads ({@code dns.udpLoop: native}), else by an event loop. Elsewhere it falls
 * back to NIO with one datagram socket per address. With port 0 the first socket picks a free port
 * and every other socket binds the same one.
 */
public final class DnsServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DnsServer.class);

  /**
   * Largest datagram read in a batch, by either UDP loop; bigger queries are not DNS a resolver
   * would send.
   */
  static final int MAX_DATAGRAM = 4096;

  private static final int DATAGRAMS_PER_READ = 16;

  /**
   * Replies a UDP socket holds while the kernel refuses them (its send buffer full): past the high
   * mark new replies are dropped, so an overloaded node's memory stays bounded.
   */
  private static final WriteBufferWaterMark UDP_SEND_QUEUE =
      new WriteBufferWaterMark(64 * 1024, 256 * 1024);

  /** Tries for a port free for UDP and TCP alike when the configured port is 0 (tests). */
  private static final int EPHEMERAL_BIND_ATTEMPTS = 10;

  private final EventLoopGroup group;
  private final EventLoopGroup acceptGroup;
  // Grows when handed-over sockets start being read (startReading).
  private final List<Channel> channels;
  private final InheritedSockets.Held held;
  private final int port;
  private final boolean epoll;
  private final AtomicInteger tcpConnections;
  private final TcpConnectionTable tcpTable;
  private final UdpQueues udpQueues;
  private final Responder responder;
  private final DnsConfig dns;

  /** Threads of the native UDP loops; null when Netty reads the UDP sockets. */
  private final ThreadFactory udpThreads;

  private DnsServer(
      EventLoopGroup group,
      EventLoopGroup acceptGroup,
      List<Channel> channels,
      int port,
      boolean epoll,
      AtomicInteger tcpConnections,
      TcpConnectionTable tcpTable,
      UdpQueues udpQueues,
      Responder responder,
      DnsConfig dns,
      ThreadFactory udpThreads,
      InheritedSockets.Held held) {
    this.group = group;
    this.acceptGroup = acceptGroup;
    this.channels = channels;
    this.port = port;
    this.epoll = epoll;
    this.tcpConnections = tcpConnections;
    this.tcpTable = tcpTable;
    this.udpQueues = udpQueues;
    this.responder = responder;
    this.dns = dns;
    this.udpThreads = udpThreads;
    this.held = held;
  }

  /**
   * Binds every listener of {@code dns} and starts answering through {@code responder}; the TCP
   * connection table reports to {@code metrics}.
   */
  public static DnsServer start(DnsConfig dns, Responder responder, GslbMetrics metrics)
      throws InterruptedException {
    return start(dns, responder, null, metrics);
  }

  /**
   * As {@link #start(DnsConfig, Responder, GslbMetrics)}, answering zone transfers over TCP from
   * the zones published in {@code store} (null: transfers are refused as any other query).
   */
  public static DnsServer start(
      DnsConfig dns, Responder responder, SnapshotStore store, GslbMetrics metrics)
      throws InterruptedException {
    return start(dns, responder, store, metrics, InheritedSockets.NONE);
  }

  /**
   * As {@link #start(DnsConfig, Responder, SnapshotStore, GslbMetrics)}, reading the sockets in
   * {@code inherited} that match the configured addresses instead of binding new ones (a
   * zero-downtime restart); they start being read at once.
   */
  public static DnsServer start(
      DnsConfig dns,
      Responder responder,
      SnapshotStore store,
      GslbMetrics metrics,
      InheritedSockets inherited)
      throws InterruptedException {
    boolean epoll = Epoll.isAvailable();
    int threads = dns.threads() == 0 ? Runtime.getRuntime().availableProcessors() : dns.threads();
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("sluice-dns", true), io);
    // Every TCP listener accepts on this one thread, which owns the connection table: admitting
    // and evicting connections needs no lock, and the query loops never wait for it.
    EventLoopGroup acceptGroup =
        new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("sluice-dns-accept", true), io);
    List<Channel> channels = new ArrayList<>();
    InheritedSockets.Held held = new InheritedSockets.Held();
    AtomicInteger tcpConnections = new AtomicInteger();
    TcpConnectionTable table =
        new TcpConnectionTable(
            dns.maxTcpConnections(), dns.maxTcpConnectionsPerSource(), tcpConnections, metrics);
    ThreadFactory udpThreads = udpThreads(dns, epoll);
    try {
      UdpQueues queues = new UdpQueues();
      TcpChannelInitializer tcp =
          new TcpChannelInitializer(
              new TcpQueryHandler(
                  responder, store == null ? null : new TcpTransfers(store, metrics)),
              dns.tcpIdleTimeout().toNanos(),
              dns.tcpMessageTimeout().toNanos(),
              metrics);
      int port =
          bindAll(
              dns,
              group,
              acceptGroup,
              epoll,
              threads,
              table,
              () -> UdpQueryHandler.of(responder, queues, udpThreads),
              tcp,
              channels,
              inherited,
              held);
      queues.bound(channels.stream().filter(c -> !(c instanceof ServerChannel)).toList());
      metrics.dnsSockets(queues);
      return new DnsServer(
          group,
          acceptGroup,
          new CopyOnWriteArrayList<>(channels),
          port,
          epoll,
          tcpConnections,
          table,
          queues,
          responder,
          dns,
          udpThreads,
          held);
    } catch (Exception e) {
      // Includes a bind's BindException, which Netty rethrows unchecked.
      held.close();
      closeAll(group, acceptGroup, channels);
      throw e;
    }
  }

  /**
   * Binds UDP and TCP on every address, all on one port, and returns that port. With port 0 the
   * first UDP socket picks a free port, which TCP may still find taken by another process's socket
   * on the same number: then everything bound so far is closed and a new port is tried.
   */
  private static int bindAll(
      DnsConfig dns,
      EventLoopGroup group,
      EventLoopGroup acceptGroup,
      boolean epoll,
      int threads,
      TcpConnectionTable table,
      Supplier<UdpQueryHandler> udpHandlers,
      TcpChannelInitializer tcp,
      List<Channel> channels,
      InheritedSockets inherited,
      InheritedSockets.Held held)
      throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      int port = dns.port();
      try {
        for (String listen : dns.listen()) {
          InetAddress address = literal(listen);
          // Handed-over sockets keep their queued datagrams and their place in the kernel's
          // SO_REUSEPORT group, so none is lost and no flow is re-hashed; read them all.
          List<InheritedSockets.Socket> udpHanded =
              inherited.claim(InheritedSockets.Kind.DNS_UDP, address, port);
          int sockets = !udpHanded.isEmpty() ? udpHanded.size() : epoll ? threads : 1;
          for (int i = 0; i < sockets; i++) {
            // A handler per socket: it keeps the socket's reply buffer.
            UdpQueryHandler udp = udpHandlers.get();
            if (!udpHanded.isEmpty()) {
              InheritedSockets.Socket s = udpHanded.get(i);
              held.add(
                  s.fd(),
                  udpBootstrap(group, epoll, dns, udp, s.fd(), s.address().getAddress())::register);
              port = s.address().getPort();
              log.info("handed over: udp {}, read once this process answers", s.address());
              continue;
            }
            Channel ch =
                udpBootstrap(group, epoll, dns, udp, null, address)
                    .bind(address, port)
                    .sync()
                    .channel();
            port = ((InetSocketAddress) ch.localAddress()).getPort();
            channels.add(ch);
            log.info(
                "listening on udp {} ({})",
                ch.localAddress(),
                udp.readsNatively() ? "native batch loop" : epoll ? "epoll" : "nio");
          }
          List<InheritedSockets.Socket> tcpHanded =
              inherited.claim(InheritedSockets.Kind.DNS_TCP, address, port);
          ServerBootstrap server =
              tcpBootstrap(
                  acceptGroup, group, epoll, table, tcp, tcpHanded.isEmpty() ? null : tcpHanded);
          if (!tcpHanded.isEmpty()) {
            held.add(tcpHanded.get(0).fd(), server::register);
            log.info(
                "handed over: tcp {}, read once this process answers", tcpHanded.get(0).address());
            continue;
          }
          Channel ch = server.bind(address, port).sync().channel();
          channels.add(ch);
          log.info("listening on tcp {} ({})", ch.localAddress(), epoll ? "epoll" : "nio");
        }
        return port;
      } catch (Exception e) {
        // Netty rethrows a failed bind's BindException unchecked, so catch it as Exception.
        if (e instanceof InterruptedException
            || dns.port() != 0
            || attempt >= EPHEMERAL_BIND_ATTEMPTS) {
          throw e;
        }
        log.debug(
            "port {} is taken for one of the listeners, trying another: {}", port, e.toString());
        for (Channel c : channels) {
          c.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        channels.clear();
      }
    }
  }

  /**
   * Linux's IP_MTU_DISCOVER and IPV6_MTU_DISCOVER, and their IP_PMTUDISC_PROBE and IP_PMTUDISC_OMIT
   * values.
   */
  static final IntegerUnixChannelOption IP_MTU_DISCOVER =
      new IntegerUnixChannelOption("IP_MTU_DISCOVER", 0, 10);

  static final IntegerUnixChannelOption IPV6_MTU_DISCOVER =
      new IntegerUnixChannelOption("IPV6_MTU_DISCOVER", 41, 23);

  static final int PMTUDISC_PROBE = 3;

  static final int PMTUDISC_OMIT = 5;

  /**
   * A UDP bootstrap; with {@code fd} it registers that bound socket (bound to {@code address})
   * instead of creating one, else it creates a socket of the family of {@code address}, the address
   * it will be bound to.
   */
  private static Bootstrap udpBootstrap(
      EventLoopGroup group,
      boolean epoll,
      DnsConfig dns,
      UdpQueryHandler handler,
      Integer fd,
      InetAddress address) {
    Bootstrap b =
        new Bootstrap()
            .group(group)
            .handler(handler)
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, UDP_SEND_QUEUE);
    if (dns.socketBufferBytes() > 0) {
      b.option(ChannelOption.SO_RCVBUF, dns.socketBufferBytes())
          .option(ChannelOption.SO_SNDBUF, dns.socketBufferBytes());
    }
    if (fd != null) {
      b.channelFactory(() -> new EpollDatagramChannel(fd));
    } else if (epoll && address instanceof Inet4Address) {
      // An IPv4 socket for an IPv4 address: Netty's default dual-stack IPv6 socket sends every
      // reply through the kernel's IPv6 path to a mapped address, which cost about 0.1 us of
      // system time per reply (static queries, pinned, dnsperf: 5.16-5.19 -> 5.02-5.04 us CPU).
      b.channelFactory(() -> new EpollDatagramChannel(SocketProtocolFamily.INET));
    } else if (epoll) {
      b.channel(EpollDatagramChannel.class);
    } else {
      b.channel(NioDatagramChannel.class);
    }
    if (epoll) {
      // No path MTU discovery for replies: a forged ICMP "fragmentation needed" cannot make the
      // node fragment its answers (a way to splice forged fragments into them), and the kernel
      // skips the per-reply path MTU look-up. A socket the native loop reads also sets the
      // don't-fragment bit (PROBE, RFC 9715 3.1), which spares the kernel an IPv4 fragment ID per
      // reply: that loop resends a reply the interface refuses with the bit without it. Netty
      // cannot, so its sockets send without the bit (OMIT, as gdnsd does). Answers fit the
      // minimum IPv6 MTU by default (dns.udpPayloadSize 1232). A handed-over socket is set anew.
      int mode = handler.readsNatively() ? PMTUDISC_PROBE : PMTUDISC_OMIT;
      b.option(IP_MTU_DISCOVER, mode);
      if (!(address instanceof Inet4Address)) {
        b.option(IPV6_MTU_DISCOVER, mode);
      }
      b.option(EpollChannelOption.SO_REUSEPORT, true)
          .option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, MAX_DATAGRAM)
          .option(
              ChannelOption.RECVBUF_ALLOCATOR,
              new FixedRecvByteBufAllocator(MAX_DATAGRAM * DATAGRAMS_PER_READ)
                  .maxMessagesPerRead(DATAGRAMS_PER_READ * 4));
    } else {
      b.option(
          ChannelOption.RECVBUF_ALLOCATOR,
          new FixedRecvByteBufAllocator(65536).maxMessagesPerRead(DATAGRAMS_PER_READ));
    }
    return b;
  }

  private static ServerBootstrap tcpBootstrap(
      EventLoopGroup acceptGroup,
      EventLoopGroup group,
      boolean epoll,
      TcpConnectionTable table,
      TcpChannelInitializer init,
      List<InheritedSockets.Socket> handed) {
    ServerBootstrap b = new ServerBootstrap().group(acceptGroup, group);
    if (handed != null) {
      // One listening socket per address and port: a second one would be the same queue.
      int fd = handed.get(0).fd();
      b.channelFactory(() -> new EpollServerSocketChannel(fd));
    } else {
      b.channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class);
    }
    return b.option(ChannelOption.SO_BACKLOG, 1024)
        .option(ChannelOption.SO_REUSEADDR, true)
        .handler(table)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(init);
  }

  private static InetAddress literal(String address) {
    try {
      // Config validation guarantees a literal, so this never resolves a host name.
      return InetAddress.getByName(address);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP address: " + address, e);
    }
  }

  /** The port every listener is bound to. */
  public int port() {
    return port;
  }

  /**
   * The threads of the native UDP loops when {@code dns.udpLoop} asks for them and the library
   * loads; null otherwise (Netty's event loops read UDP), with the reason logged.
   */
  private static ThreadFactory udpThreads(DnsConfig dns, boolean epoll) {
    if (dns.udpLoop() != UdpLoop.NATIVE) {
      return null;
    }
    if (!epoll || !NativeUdp.available()) {
      log.info(
          "native UDP loop unavailable ({}); Netty reads UDP",
          epoll ? NativeUdp.unavailableReason() : "no epoll transport");
      return null;
    }
    return new DefaultThreadFactory("sluice-dns-udp", true);
  }

  /** Whether the native UDP loops read the UDP listeners (dns.udpLoop: native, and it loads). */
  public boolean nativeUdpLoop() {
    return udpThreads != null;
  }

  /** Whether the native epoll transport is in use. */
  public boolean nativeTransport() {
    return epoll;
  }

  /** The addresses bound, one per socket. */
  public List<InetSocketAddress> boundAddresses() {
    return channels.stream().map(c -> (InetSocketAddress) c.localAddress()).toList();
  }

  /** The UDP listeners' queues and overload drops. */
  public DnsSocketStats udpQueues() {
    return udpQueues;
  }

  /** TCP connections open now. */
  public int openTcpConnections() {
    return tcpConnections.get();
  }

  /** TCP connections closed since start to make room for new ones. */
  public long evictedTcpConnections() {
    return tcpTable.evicted();
  }

  /**
   * The listening sockets (UDP and TCP), to hand over to the node that takes over from this one;
   * empty without the native transport, which cannot hand sockets over.
   */
  public List<InheritedSockets.Socket> listeningSockets() {
    if (!epoll) {
      return List.of();
    }
    return channels.stream()
        .map(
            c ->
                InheritedSockets.Socket.of(
                    c instanceof ServerChannel
                        ? InheritedSockets.Kind.DNS_TCP
                        : InheritedSockets.Kind.DNS_UDP,
                    c))
        .toList();
  }

  /**
   * The {@link #listeningSockets}, readied for the node taking over from this one: a UDP socket
   * whose native loop waits inside the kernel is made non-blocking again first, since the other
   * process may read it through Netty, and the flag belongs to the file both share. This node's
   * loops answer on, waiting in poll, until {@link #stopListening}.
   */
  public List<InheritedSockets.Socket> handOverSockets() {
    for (Channel c : channels) {
      UdpQueryHandler udp = c.pipeline().get(UdpQueryHandler.class);
      if (udp != null) {
        udp.share();
      }
    }
    return listeningSockets();
  }

  /**
   * Stops reading the listening sockets (the node that took them over reads them now): closes this
   * process's descriptors only, so the sockets and their queues live on in the other process.
   * Connections already accepted are served on until they close.
   */
  public void stopListening() {
    for (Channel c : channels) {
      c.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
  }

  /**
   * Pauses the TCP connections that sit between two queries (no part of a query read, no answer or
   * zone transfer unsent) and returns them: what the client sends next waits in the kernel for the
   * process they are handed to. The others are left to finish here.
   */
  public List<Channel> pauseIdleConnections() throws InterruptedException {
    if (!epoll) {
      return List.of();
    }
    List<Channel> paused = new ArrayList<>();
    try {
      for (Channel ch : acceptGroup.next().submit(tcpTable::channels).get()) {
        if (ch.eventLoop().submit(() -> pauseIfIdle(ch)).get()) {
          paused.add(ch);
        }
      }
    } catch (ExecutionException | RejectedExecutionException e) {
      log.debug("pausing connections stopped: {}", e.toString());
    }
    return paused;
  }

  private static boolean pauseIfIdle(Channel ch) {
    TcpFramer framer = ch.pipeline().get(TcpFramer.class);
    ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
    if (!ch.isActive()
        || framer == null
        || !framer.betweenMessages()
        || TcpTransfers.inProgress(ch)
        || (out != null && !out.isEmpty())) {
      return false;
    }
    ch.config().setAutoRead(false);
    return true;
  }

  /** The descriptors of {@code connections}, to send to the process taking over. */
  public static List<Integer> descriptors(List<Channel> connections) {
    return connections.stream().map(c -> ((UnixChannel) c).fd().intValue()).toList();
  }

  /**
   * Ends paused connections here: when {@code handedOver}, closes this process's descriptors only
   * (no FIN: the other process serves the connection on); otherwise reads them again.
   */
  public static void endPaused(List<Channel> connections, boolean handedOver) {
    for (Channel ch : connections) {
      if (handedOver) {
        ch.close();
      } else {
        ch.config().setAutoRead(true);
      }
    }
  }

  /**
   * Serves TCP connections handed over by the node this one takes over from, as if accepted here
   * (the connection table admits them, the same pipeline frames and answers); queries the client
   * sent meanwhile wait in the kernel and are read now.
   */
  public void adoptConnections(List<Integer> fds) {
    Channel server =
        channels.stream().filter(ServerChannel.class::isInstance).findFirst().orElse(null);
    for (int fd : fds) {
      EpollSocketChannel child = new EpollSocketChannel(fd);
      if (server == null) {
        child.unsafe().closeForcibly();
        continue;
      }
      server.eventLoop().execute(() -> server.pipeline().fireChannelRead(child));
    }
  }

  /** Starts reading the handed-over sockets held until this process answers (a takeover). */
  public void startReading() throws InterruptedException {
    held.register(channels);
    udpQueues.bound(channels.stream().filter(c -> !(c instanceof ServerChannel)).toList());
  }

  /**
   * Binds a private UDP socket on the loopback address, answered like the listeners, for a self
   * check that must reach this process and not another one reading the same sockets; the caller
   * closes it.
   */
  public Channel bindSelfCheck() throws InterruptedException {
    return udpBootstrap(
            group,
            epoll,
            dns,
            UdpQueryHandler.of(responder, new UdpQueues(), udpThreads),
            null,
            InetAddress.getLoopbackAddress())
        .bind(InetAddress.getLoopbackAddress(), 0)
        .sync()
        .channel();
  }

  /** Closes every listener and stops the event loops, waiting a few seconds at most. */
  @Override
  public void close() {
    held.close();
    closeAll(group, acceptGroup, channels);
  }

  private static void closeAll(
      EventLoopGroup group, EventLoopGroup acceptGroup, List<Channel> channels) {
    for (Channel c : channels) {
      c.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
    acceptGroup
        .shutdownGracefully(0, 2, TimeUnit.SECONDS)
        .awaitUninterruptibly(5, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
