/*
 * The native UDP loop of Sluice's DNS listeners (io.sluice.dns.server.NativeUdp): one batch of
 * datagrams per recvmmsg(2), the answers to them in one sendmmsg(2). The Java side keeps the
 * logic; this file only moves bytes between the socket and one memory block both sides share:
 *
 *   [in: slots * IN_BYTES][out: slots * OUT_BYTES, packed][meta: slots * META_BYTES]
 *
 * Meta of slot k (native byte order): in length @0, out length @4 (0: no answer), out offset @8,
 * address family @12 (4 or 6), source port @16, source address @20 (4 or 16 bytes).
 *
 * A loop waits for datagrams inside recvmmsg(2), as gdnsd does: wait_in_kernel() clears the
 * file's O_NONBLOCK and bounds each wait with SO_RCVTIMEO, so a stop is seen within that bound.
 * Where the file is non-blocking (a socket offered to another process in a hand-over, whose
 * readers expect O_NONBLOCK, which belongs to the open file, not to this descriptor), an empty
 * socket is waited on with poll(2) instead, together with an eventfd that stop() writes. Either
 * way every call but the first read of a batch is non-blocking (MSG_DONTWAIT).
 *
 * Replies carry the don't-fragment bit (IP_PMTUDISC_PROBE, set on the socket by the server's
 * listener set-up; dontFragment() here for a hand-over), as RFC 9715 (3.1)
 * recommends for UDP responders: a reply is delivered whole or not at all, the kernel needs no
 * IPv4 fragment ID for it, and a forged ICMP "fragmentation needed" still changes nothing. A
 * reply larger than the interface's MTU, which only a dns.udpPayloadSize above it allows, is sent
 * once more without the bit and fragmented by the kernel, as every reply was before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* The meta block of a slot; NativeUdp names the same offsets. */
#define META_BYTES 48
#define IN_LENGTH 0
#define OUT_LENGTH 4
#define OUT_OFFSET 8
#define FAMILY 12
#define PORT 16
#define ADDRESS 20

struct batch {
  int slots;
  int in_bytes;
  int out_bytes;
  int wake;
  /* Receive headers the kernel may have written since they were set (see arm()). */
  int used;
  size_t size;
  char *mem;
  char *in;
  char *out;
  char *meta;
  struct mmsghdr *rx;
  struct mmsghdr *tx;
  struct iovec *rx_iov;
  struct iovec *tx_iov;
  struct sockaddr_storage *from;
};

static struct batch *of(jlong handle) { return (struct batch *)(intptr_t)handle; }

/* Frees a batch, whole or partly made (what calloc gave is NULL or owned; wake -1 if absent). */
static void free_batch(struct batch *b) {
  if (b->wake >= 0) {
    close(b->wake);
  }
  free(b->mem);
  free(b->rx);
  free(b->tx);
  free(b->rx_iov);
  free(b->tx_iov);
  free(b->from);
  free(b);
}

JNIEXPORT jlong JNICALL Java_io_sluice_dns_server_NativeUdp_create(
    JNIEnv *env, jclass cls, jint slots, jint in_bytes, jint out_bytes) {
  struct batch *b = calloc(1, sizeof *b);
  if (b == NULL) {
    return 0;
  }
  b->wake = -1;
  b->slots = slots;
  b->in_bytes = in_bytes;
  b->out_bytes = out_bytes;
  b->size = (size_t)slots * ((size_t)in_bytes + (size_t)out_bytes + META_BYTES);
  b->mem = calloc(1, b->size);
  b->rx = calloc(slots, sizeof *b->rx);
  b->tx = calloc(slots, sizeof *b->tx);
  b->rx_iov = calloc(slots, sizeof *b->rx_iov);
  b->tx_iov = calloc(slots, sizeof *b->tx_iov);
  b->from = calloc(slots, sizeof *b->from);
  b->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (b->mem == NULL || b->rx == NULL || b->tx == NULL || b->rx_iov == NULL
      || b->tx_iov == NULL || b->from == NULL || b->wake < 0) {
    free_batch(b);
    return 0;
  }
  b->in = b->mem;
  b->out = b->in + (size_t)slots * in_bytes;
  b->meta = b->out + (size_t)slots * out_bytes;
  for (int k = 0; k < slots; k++) {
    b->rx_iov[k].iov_base = b->in + (size_t)k * in_bytes;
    b->rx_iov[k].iov_len = in_bytes;
    struct msghdr *h = &b->rx[k].msg_hdr;
    h->msg_name = &b->from[k];
    h->msg_namelen = sizeof b->from[k];
    h->msg_iov = &b->rx_iov[k];
    h->msg_iovlen = 1;
  }
  return (jlong)(intptr_t)b;
}

JNIEXPORT jobject JNICALL Java_io_sluice_dns_server_NativeUdp_memory(
    JNIEnv *env, jclass cls, jlong handle) {
  struct batch *b = of(handle);
  return (*env)->NewDirectByteBuffer(env, b->mem, (jlong)b->size);
}

/*
 * Readies the receive headers for the next recvmmsg(2). Of a header the kernel reads back only the
 * address length it wrote (the flags and control length it sets without reading them), and only
 * in the slots it filled: those of the last read get the full room again, not every slot of the
 * batch at every call.
 */
static void arm(struct batch *b) {
  /* And the slot after them, the one a read that stopped with an error was given. */
  int upto = b->used < b->slots ? b->used + 1 : b->slots;
  for (int k = 0; k < upto; k++) {
    b->rx[k].msg_hdr.msg_namelen = sizeof b->from[k];
  }
  b->used = 0;
}

/* Waits until the socket is readable or stop() was called; 0 to read on, 1 to stop. */
static int wait_readable(struct batch *b, int fd, int timeout_millis) {
  struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = b->wake, .events = POLLIN}};
  int r = poll(p, 2, timeout_millis);
  if (r > 0 && (p[1].revents & POLLIN)) {
    return 1;
  }
  return 0;
}

/*
 * Reads up to `slots` datagrams; returns how many (0: none before the timeout, or woken), or
 * -errno. Waits only while the socket is empty: in recvmmsg(2) where the file blocks (it returns
 * with the first datagram and whatever came with it, MSG_WAITFORONE), else in poll(2).
 */
JNIEXPORT jint JNICALL Java_io_sluice_dns_server_NativeUdp_receive(
    JNIEnv *env, jclass cls, jlong handle, jint fd, jint timeout_millis) {
  struct batch *b = of(handle);
  for (int attempt = 0; attempt < 2; attempt++) {
    arm(b);
    int flags = attempt == 0 ? MSG_WAITFORONE : MSG_DONTWAIT;
    int n = recvmmsg(fd, b->rx, b->slots, flags, NULL);
    if (n > 0) {
      b->used = n;
      for (int k = 0; k < n; k++) {
        char *m = b->meta + (size_t)k * META_BYTES;
        int32_t len = (int32_t)b->rx[k].msg_len;
        int32_t zero = 0;
        memcpy(m + IN_LENGTH, &len, 4);
        memcpy(m + OUT_LENGTH, &zero, 4);
        memcpy(m + OUT_OFFSET, &zero, 4);
        int32_t family = 0, port = 0;
        struct sockaddr_storage *s = &b->from[k];
        if (s->ss_family == AF_INET) {
          struct sockaddr_in *a = (struct sockaddr_in *)s;
          family = 4;
          port = ntohs(a->sin_port);
          memcpy(m + ADDRESS, &a->sin_addr, 4);
        } else if (s->ss_family == AF_INET6) {
          struct sockaddr_in6 *a = (struct sockaddr_in6 *)s;
          family = 6;
          port = ntohs(a->sin6_port);
          memcpy(m + ADDRESS, &a->sin6_addr, 16);
        }
        memcpy(m + FAMILY, &family, 4);
        memcpy(m + PORT, &port, 4);
      }
      return n;
    }
    if (n == 0) {
      return 0;
    }
    if (errno == EINTR) {
      return 0;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return -errno;
    }
    if (attempt == 0 && wait_readable(b, fd, timeout_millis)) {
      return 0;
    }
  }
  return 0;
}

/*
 * Sets the path MTU mode of replies (IPv4, and IPv6 on an IPv6 socket; IPV6_PMTUDISC_* have the
 * values of IP_PMTUDISC_*); 0, or -errno.
 */
static int set_pmtudisc(int fd, int mode) {
  int domain = 0;
  socklen_t size = sizeof domain;
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &size) < 0) {
    return -errno;
  }
  if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &mode, sizeof mode) < 0) {
    return -errno;
  }
  if (domain == AF_INET6
      && setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &mode, sizeof mode) < 0) {
    return -errno;
  }
  return 0;
}

/*
 * Sends one reply that does not fit the interface's MTU with the don't-fragment bit: without the
 * bit, fragmented by the kernel, the mode restored after it. One that still fails is lost, as a
 * datagram the network drops.
 */
static void send_fragmented(int fd, struct msghdr *h) {
  if (set_pmtudisc(fd, IP_PMTUDISC_OMIT) < 0) {
    return;
  }
  (void)sendmsg(fd, h, MSG_DONTWAIT);
  set_pmtudisc(fd, IP_PMTUDISC_PROBE);
}

/*
 * Sends the answers of the first `count` slots (those with an out length) to their senders;
 * returns how many were dropped because the send buffer stayed full (it is waited on once,
 * briefly). A reply the kernel refuses for its address (unreachable, filtered) is skipped, like
 * any lost datagram, and not counted.
 */
JNIEXPORT jint JNICALL Java_io_sluice_dns_server_NativeUdp_send(
    JNIEnv *env, jclass cls, jlong handle, jint fd, jint count) {
  struct batch *b = of(handle);
  int m = 0;
  for (int k = 0; k < count; k++) {
    char *meta = b->meta + (size_t)k * META_BYTES;
    int32_t len, off;
    memcpy(&len, meta + OUT_LENGTH, 4);
    memcpy(&off, meta + OUT_OFFSET, 4);
    if (len <= 0 || off < 0 || (int64_t)off + len > (int64_t)b->slots * b->out_bytes) {
      continue;
    }
    b->tx_iov[m].iov_base = b->out + off;
    b->tx_iov[m].iov_len = len;
    struct msghdr *h = &b->tx[m].msg_hdr;
    memset(h, 0, sizeof *h);
    h->msg_name = &b->from[k];
    h->msg_namelen = b->rx[k].msg_hdr.msg_namelen;
    h->msg_iov = &b->tx_iov[m];
    h->msg_iovlen = 1;
    m++;
  }
  int at = 0, lost = 0, waited = 0;
  while (at < m) {
    int n = sendmmsg(fd, b->tx + at, m - at, MSG_DONTWAIT);
    if (n > 0) {
      at += n;
      continue;
    }
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && errno == EMSGSIZE) {
      send_fragmented(fd, &b->tx[at].msg_hdr);
      at++;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !waited) {
      struct pollfd p = {.fd = fd, .events = POLLOUT};
      poll(&p, 1, 10);
      waited = 1;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EBADF
                  || errno == ENOTSOCK)) {
      return lost + (m - at);
    }
    at++;
  }
  return lost;
}

/* Lets reads of `fd` wait in the kernel, each at most `timeout_millis`; 0, or -errno. */
JNIEXPORT jint JNICALL Java_io_sluice_dns_server_NativeUdp_waitInKernel(
    JNIEnv *env, jclass cls, jint fd, jint timeout_millis) {
  struct timeval tv = {.tv_sec = timeout_millis / 1000, .tv_usec = (timeout_millis % 1000) * 1000};
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0) {
    return -errno;
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
    return -errno;
  }
  return 0;
}

/*
 * Sets the don't-fragment bit on the replies of `fd` (IP_PMTUDISC_PROBE: the interface's MTU
 * bounds a reply, learnt path MTUs are ignored), or with dont_fragment 0 takes it off again
 * (IP_PMTUDISC_OMIT, the listeners' setting for other readers); 0, or -errno.
 */
JNIEXPORT jint JNICALL Java_io_sluice_dns_server_NativeUdp_dontFragment(
    JNIEnv *env, jclass cls, jint fd, jboolean dont_fragment) {
  return set_pmtudisc(fd, dont_fragment ? IP_PMTUDISC_PROBE : IP_PMTUDISC_OMIT);
}

/* Makes the open file of `fd` non-blocking again, as every other reader expects; 0, or -errno. */
JNIEXPORT jint JNICALL Java_io_sluice_dns_server_NativeUdp_nonBlocking(
    JNIEnv *env, jclass cls, jint fd) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    return -errno;
  }
  return 0;
}

JNIEXPORT void JNICALL Java_io_sluice_dns_server_NativeUdp_wake(
    JNIEnv *env, jclass cls, jlong handle) {
  uint64_t one = 1;
  ssize_t r = write(of(handle)->wake, &one, sizeof one);
  (void)r;
}

JNIEXPORT void JNICALL Java_io_sluice_dns_server_NativeUdp_destroy(
    JNIEnv *env, jclass cls, jlong handle) {
  struct batch *b = of(handle);
  if (b != NULL) {
    free_batch(b);
  }
}
