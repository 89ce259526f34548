package io.sluice.server.app;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.DomainSocketReadMode;
import io.netty.channel.unix.FileDescriptor;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.string.StringDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One end of the handover socket between a running node and the process taking over from it: text
 * lines both ways, and listening-socket descriptors from the running node (SCM_RIGHTS), read here
 * one step at a time by the thread running the handover. Only a process of the same user may
 * connect.
 */
final class HandoverLink implements AutoCloseable {
  /** Longest protocol line. */
  private static final int MAX_LINE = 512;

  // The end of the stream, queued after everything received.
  private static final Object CLOSED = new Object();

  private final Channel channel;
  private final BlockingQueue<Object> inbox;

  private HandoverLink(Channel channel, BlockingQueue<Object> inbox) {
    this.channel = channel;
    this.inbox = inbox;
  }

  /** A one-thread event loop for the handover socket. */
  static EventLoopGroup loop() {
    return new MultiThreadIoEventLoopGroup(
        1, new DefaultThreadFactory("sluice-handover", true), EpollIoHandler.newFactory());
  }

  /** Connects to the running node's handover socket. */
  static HandoverLink connect(EventLoopGroup group, Path socket)
      throws IOException, InterruptedException {
    BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    try {
      Channel ch =
          new Bootstrap()
              .group(group)
              .channel(EpollDomainSocketChannel.class)
              .handler(initializer(inbox))
              .connect(new DomainSocketAddress(socket.toFile()))
              .sync()
              .channel();
      return new HandoverLink(ch, inbox);
    } catch (RuntimeException e) {
      // Netty rethrows a refused or missing socket unchecked.
      throw new IOException("cannot connect to " + socket + ": " + e.getMessage(), e);
    }
  }

  /**
   * Listens on {@code socket} (replacing a stale file left by a process that died) and hands each
   * connection of this user to {@code sessions} on a thread of its own.
   */
  static Channel listen(EventLoopGroup group, Path socket, Consumer<HandoverLink> sessions)
      throws IOException, InterruptedException {
    Files.deleteIfExists(socket);
    return new ServerBootstrap()
        .group(group)
        .channel(EpollServerDomainSocketChannel.class)
        .childHandler(
            new ChannelInitializer<EpollDomainSocketChannel>() {
              @Override
              protected void initChannel(EpollDomainSocketChannel ch) throws Exception {
                // Listening sockets are handed only to the same user (or root).
                int uid = ch.peerCredentials().uid();
                int self = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
                if (uid != self && uid != 0) {
                  ch.close();
                  return;
                }
                BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
                ch.pipeline().addLast(lines(), strings(), collector(inbox));
                HandoverLink link = new HandoverLink(ch, inbox);
                Thread t = new Thread(() -> sessions.accept(link), "sluice-handover-session");
                t.setDaemon(true);
                t.start();
              }
            })
        .bind(new DomainSocketAddress(socket.toFile()))
        .sync()
        .channel();
  }

  private static ChannelInitializer<Channel> initializer(BlockingQueue<Object> inbox) {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        ch.pipeline().addLast(lines(), strings(), collector(inbox));
      }
    };
  }

  private static LineBasedFrameDecoder lines() {
    return new LineBasedFrameDecoder(MAX_LINE);
  }

  private static StringDecoder strings() {
    return new StringDecoder(StandardCharsets.UTF_8);
  }

  /** Queues lines and descriptors (which pass the line decoders untouched) for the reader. */
  private static SimpleChannelInboundHandler<Object> collector(BlockingQueue<Object> inbox) {
    return new SimpleChannelInboundHandler<>(false) {
      @Override
      protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
        inbox.add(msg);
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        inbox.add(CLOSED);
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
      }
    };
  }

  /** Sends one line. */
  void send(String line) throws IOException {
    try {
      channel.writeAndFlush(Unpooled.copiedBuffer(line + "\n", StandardCharsets.UTF_8)).sync();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } catch (RuntimeException e) {
      throw new IOException("the handover socket failed: " + e.getMessage(), e);
    }
  }

  /** Sends descriptors of this process; the peer receives its own copies, these stay open. */
  void sendDescriptors(List<Integer> fds) throws IOException {
    for (int fd : fds) {
      try {
        channel.writeAndFlush(new FileDescriptor(fd)).sync();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      } catch (RuntimeException e) {
        throw new IOException("sending a listening socket failed: " + e.getMessage(), e);
      }
    }
  }

  /** Reads the next line, failing when the peer is gone or says nothing for {@code timeout}. */
  String readLine(Duration timeout) throws IOException {
    Object msg = next(timeout);
    if (msg instanceof String line) {
      return line;
    }
    throw new IOException("expected a line on the handover socket, got a descriptor");
  }

  /**
   * Reads {@code n} descriptors: switches this end to reading descriptors, sends {@code request},
   * then switches back to lines once all arrived.
   */
  List<Integer> requestDescriptors(String request, int n, Duration timeout) throws IOException {
    channel
        .config()
        .setOption(
            EpollChannelOption.DOMAIN_SOCKET_READ_MODE, DomainSocketReadMode.FILE_DESCRIPTORS);
    send(request);
    List<Integer> fds = new ArrayList<>();
    try {
      while (fds.size() < n) {
        Object msg = next(timeout);
        if (!(msg instanceof FileDescriptor fd)) {
          throw new IOException("expected a descriptor on the handover socket, got " + msg);
        }
        fds.add(fd.intValue());
      }
    } catch (IOException e) {
      for (int fd : fds) {
        try {
          new FileDescriptor(fd).close();
        } catch (IOException ignored) {
          // Closing what is never used; nothing else to do.
        }
      }
      throw e;
    }
    channel
        .config()
        .setOption(EpollChannelOption.DOMAIN_SOCKET_READ_MODE, DomainSocketReadMode.BYTES);
    return fds;
  }

  private Object next(Duration timeout) throws IOException {
    Object msg;
    try {
      msg = inbox.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (msg == null) {
      throw new IOException("no reply on the handover socket within " + timeout.toSeconds() + " s");
    }
    if (msg == CLOSED) {
      inbox.add(CLOSED);
      throw new IOException("the other process closed the handover socket");
    }
    return msg;
  }

  @Override
  public void close() {
    channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
  }
}
