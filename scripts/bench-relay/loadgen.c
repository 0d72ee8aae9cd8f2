/*
 * The load generator of `make bench-relay`: the same client for pushrelay and for nchan, so that their figures
 * differ only by the server. HTTP/1.1 keep-alive over plain blocking sockets (the delivery mode learns which have
 * an answer to read from epoll, in one thread); no library. Every message's data is {"n": its number, "t": when it
 * was sent (CLOCK_MONOTONIC, ns)}.
 *
 *   loadgen latency relay HOST PORT COUNT SENDER_KEY TOKEN DEVICE_ID DEVICE_SECRET
 *   loadgen latency nchan HOST PORT COUNT CHANNEL
 *       COUNT messages, one at a time, each published while a long-poll waits for it; prints each delivery
 *       latency (publish sent -> long-poll answer read) in microseconds, one per line.
 *   loadgen hold relay HOST PORT SENDER_KEY DEVICES_FILE   (lines "TOKEN DEVICE_ID SECRET", as register_devices prints)
 *   loadgen hold nchan HOST PORT COUNT
 *       opens one waiting long-poll per device or channel, prints "ready N", then obeys lines on stdin:
 *       "probe K FILE" sends K messages one at a time, each to a device whose poll waits among all the others (the
 *       last K opened), writes each latency (as above) to FILE and prints "probed K"; the device then polls again.
 *       "drop K" closes the first K polls' connections and prints "dropped K". Exits at end of input.
 *   loadgen delivery relay HOST PORT SENDERS WARMUP SECONDS LATENCY_FILE SENDER_KEY DEVICES_FILE
 *   loadgen delivery nchan HOST PORT SENDERS WARMUP SECONDS LATENCY_FILE CHANNEL_PREFIX DEVICES
 *       SENDERS connections send as fast as their answers come back, round robin over the devices, while every
 *       device long-polls, acknowledging what it received with its next poll. Prints "measuring" after WARMUP
 *       seconds and "measured" SECONDS later, then stops sending and waits (at most DRAIN_SECONDS) for every
 *       accepted message to arrive, then prints one line of "name=value": accepted_per_s (2xx answers to sends),
 *       delivered_per_s (distinct messages first received), delivered (their count), all within the measured
 *       SECONDS; lost (accepted but never received, over the whole run), refused (429 answers: a full queue),
 *       duplicates (messages received again), cursor_ahead (relay polls answered 409). Writes the send -> receipt
 *       latency in microseconds of each message first received within the SECONDS to LATENCY_FILE, one per line.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define DRAIN_SECONDS 10
/* Enough for a relay poll's answer at its default limit of 100 messages. */
#define RESPONSE_MAX (256 * 1024)
#define MESSAGES_MAX (1L << 26)

static void die(const char *what) {
    perror(what);
    exit(1);
}

static void fail(const char *what, int status, const char *body) {
    fprintf(stderr, "%s answered %d: %.300s\n", what, status, body);
    exit(1);
}

static long long now_nanoseconds(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return time.tv_sec * 1000000000LL + time.tv_nsec;
}

static int connect_to(const char *host, int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) die("socket");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, host, &address.sin_addr);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) die("connect");
    return fd;
}

static void send_all(int fd, const char *data, size_t length) {
    while (length > 0) {
        ssize_t sent = send(fd, data, length, MSG_NOSIGNAL);
        if (sent <= 0) die("send");
        data += sent;
        length -= sent;
    }
}

/* A keep-alive connection used by one request at a time, and what it has received but not yet parsed. Held
 * long-polls that never answer allocate no buffer. */
struct connection {
    int fd;
    char *buffer;
    size_t length;
};

/* One HTTP response: status, the two headers nchan's long-poll protocol needs, and the body. */
struct response {
    int status;
    char last_modified[64], etag[64];
    char body[RESPONSE_MAX];
};

static int fill(struct connection *connection) {
    if (!connection->buffer && !(connection->buffer = malloc(RESPONSE_MAX))) die("malloc");
    if (connection->length == RESPONSE_MAX) {
        fprintf(stderr, "a response larger than %d bytes\n", RESPONSE_MAX);
        exit(1);
    }
    ssize_t got = recv(connection->fd, connection->buffer + connection->length, RESPONSE_MAX - connection->length, 0);
    if (got <= 0) return -1;
    connection->length += got;
    return 0;
}

static void header_value(const char *headers, const char *name, char *out, size_t size) {
    out[0] = 0;
    const char *at = strcasestr(headers, name);
    if (!at) return;
    at += strlen(name);
    while (*at == ' ') at++;
    size_t length = strcspn(at, "\r\n");
    if (length >= size) length = size - 1;
    memcpy(out, at, length);
    out[length] = 0;
}

/* Takes one whole response off the front of what the connection received; 0 while it has not all arrived. Both
 * servers give every answer a Content-Length. */
static int take_response(struct connection *connection, struct response *response) {
    char *end = connection->buffer ? memmem(connection->buffer, connection->length, "\r\n\r\n", 4) : NULL;
    if (!end) return 0;
    size_t head_length = end - connection->buffer + 4;
    char head[8192];
    size_t copied = head_length < sizeof head ? head_length : sizeof head - 1;
    memcpy(head, connection->buffer, copied);
    head[copied] = 0;
    char length_text[32];
    header_value(head, "\r\nContent-Length:", length_text, sizeof length_text);
    if (!length_text[0]) {
        fprintf(stderr, "an answer without Content-Length: %.300s\n", head);
        exit(1);
    }
    size_t body_length = strtoul(length_text, NULL, 10);
    if (connection->length < head_length + body_length) return 0;
    response->status = atoi(head + 9);
    header_value(head, "\r\nLast-Modified:", response->last_modified, sizeof response->last_modified);
    header_value(head, "\r\nEtag:", response->etag, sizeof response->etag);
    memcpy(response->body, connection->buffer + head_length, body_length);
    response->body[body_length] = 0;
    size_t used = head_length + body_length;
    memmove(connection->buffer, connection->buffer + used, connection->length - used);
    connection->length -= used;
    return 1;
}

static void read_response(struct connection *connection, struct response *response) {
    while (!take_response(connection, response))
        if (fill(connection) < 0) die("recv");
}

struct target {
    const char *kind, *host;
    int port;
    const char *key; /* the relay's sender key */
};

/* A relay device, or an nchan channel standing for one, and where its next long-poll resumes. */
struct device {
    const char *token, *id, *secret;
    char channel[64];
    long cursor;                      /* relay: the highest seq received; the next poll acknowledges it */
    long cursor_ahead;                /* relay: 409 answers, after which the device starts again from 0 */
    char last_modified[64], etag[64]; /* nchan: the last message's, sent back as If-Modified-Since/If-None-Match */
};

static int is_relay(const struct target *target) { return strcmp(target->kind, "relay") == 0; }

/* Relay polls wait the longest the relay allows, 60 s, as nchan's subscriber timeout here. */
static int poll_request(const struct target *target, const struct device *device, char *out, size_t size) {
    if (is_relay(target))
        return snprintf(out, size,
                        "GET /v1/devices/%s/messages?after=%ld&wait=60 HTTP/1.1\r\nHost: bench\r\n"
                        "Authorization: Bearer %s\r\n\r\n",
                        device->id, device->cursor, device->secret);
    char validators[256] = "";
    if (device->last_modified[0])
        snprintf(validators, sizeof validators, "If-Modified-Since: %s\r\nIf-None-Match: %s\r\n",
                 device->last_modified, device->etag);
    return snprintf(out, size, "GET /sub?id=%s HTTP/1.1\r\nHost: bench\r\n%s\r\n", device->channel, validators);
}

static void send_poll(const struct target *target, const struct device *device, int fd) {
    char request[1024];
    send_all(fd, request, poll_request(target, device, request, sizeof request));
}

/* Sends message `number` to the device, stamped with the time it leaves. */
static void send_message(const struct target *target, const struct device *device, int fd, long number) {
    char data[96], request[2048];
    int length;
    snprintf(data, sizeof data, "{\"n\":\"%ld\",\"t\":\"%lld\"}", number, now_nanoseconds());
    if (is_relay(target)) {
        char body[1024];
        int body_length = snprintf(body, sizeof body, "{\"message\":{\"token\":\"%s\",\"data\":%s}}", device->token, data);
        length = snprintf(request, sizeof request,
                          "POST /v1/projects/bench/messages:send HTTP/1.1\r\nHost: bench\r\n"
                          "Authorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
                          target->key, body_length, body);
    } else {
        length = snprintf(request, sizeof request,
                          "POST /pub?id=%s HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                          "Content-Length: %zu\r\n\r\n%s",
                          device->channel, strlen(data), data);
    }
    send_all(fd, request, length);
}

/* Moves the device past a poll's answer: 1 if it was one to read messages from, 0 if the poll only ran out or the
 * relay refused its cursor. A relay that answers 409 cursor_ahead has not acknowledged anything; the device polls
 * again from 0 and receives what it has not acknowledged yet, as pushagentd does (docs/relay.md). */
static int advance(const struct target *target, struct device *device, const struct response *answer) {
    if (answer->status == 200) {
        if (is_relay(target)) {
            const char *next = strstr(answer->body, "\"next\":");
            if (next) device->cursor = strtol(next + 7, NULL, 10);
        } else {
            strcpy(device->last_modified, answer->last_modified);
            strcpy(device->etag, answer->etag);
        }
        return 1;
    }
    if (!is_relay(target) && answer->status == 408) return 0;
    if (is_relay(target) && answer->status == 409) {
        device->cursor = 0;
        device->cursor_ahead++;
        return 0;
    }
    fail("a long-poll", answer->status, answer->body);
    return 0;
}

/* The next message in a poll's answer (a relay's list, or nchan's one message) from `*at` on; 0 when none is left. */
static int next_message(const char **at, long *number, long long *sent) {
    const char *n = strstr(*at, "\"n\":\"");
    if (!n) return 0;
    const char *t = strstr(n, "\"t\":\"");
    if (!t) return 0;
    *number = strtol(n + 5, NULL, 10);
    *sent = strtoll(t + 5, NULL, 10);
    *at = t + 5;
    return 1;
}

/* Sends message `number` to the device, whose poll is waiting on `poll`, and reads that poll's answers (polling
 * again after each without the message) until the message arrives. */
static void publish_and_await(const struct target *target, struct device *device, struct connection *publisher,
                              struct connection *poll, long number) {
    static struct response answer, published;
    long long start = now_nanoseconds();
    send_message(target, device, publisher->fd, number);
    read_response(publisher, &published);
    if (published.status / 100 != 2) fail("a publish", published.status, published.body);
    for (;;) {
        read_response(poll, &answer);
        const char *at = answer.body;
        long received;
        long long sent;
        if (advance(target, device, &answer))
            while (next_message(&at, &received, &sent))
                if (received == number) return;
        if (now_nanoseconds() - start > 10000000000LL) fail("a long-poll, 10 s after a send,", answer.status, answer.body);
        send_poll(target, device, poll->fd);
    }
}

static void latency(const struct target *target, struct device *device, int count) {
    struct connection subscriber = {.fd = connect_to(target->host, target->port)},
                      publisher = {.fd = connect_to(target->host, target->port)};
    for (int number = 1; number <= count; number++) {
        send_poll(target, device, subscriber.fd);
        usleep(2000); /* the long-poll is waiting when the message is published */
        long long start = now_nanoseconds();
        publish_and_await(target, device, &publisher, &subscriber, number);
        printf("%.0f\n", (now_nanoseconds() - start) / 1e3);
    }
}

/* The relay's devices from a file of "TOKEN DEVICE_ID SECRET" lines, or COUNT nchan channels named PREFIX<i>. */
static struct device *load_devices(const struct target *target, const char *source, const char *prefix, int *count) {
    int capacity = 1024;
    struct device *devices = calloc(capacity, sizeof *devices);
    *count = 0;
    if (is_relay(target)) {
        FILE *file = fopen(source, "r");
        if (!file) die(source);
        char token[256], id[256], secret[256];
        while (fscanf(file, "%255s %255s %255s", token, id, secret) == 3) {
            if (*count == capacity) devices = realloc(devices, (capacity *= 2) * sizeof *devices);
            devices[*count] = (struct device){.token = strdup(token), .id = strdup(id), .secret = strdup(secret)};
            ++*count;
        }
        fclose(file);
    } else {
        *count = atoi(source);
        devices = realloc(devices, *count * sizeof *devices);
        for (int i = 0; i < *count; i++) {
            devices[i] = (struct device){0};
            snprintf(devices[i].channel, sizeof devices[i].channel, "%s%d", prefix, i);
        }
    }
    return devices;
}

/* One message at a time to each of the last `count` held devices; their polls have waited since `hold` opened them. */
static void probe(const struct target *target, struct device *devices, struct connection *polls, int opened,
                  int count, const char *file, struct connection *publisher, long *number) {
    FILE *out = fopen(file, "w");
    if (!out) die(file);
    for (int i = 0; i < count && i < opened; i++) {
        struct device *device = &devices[opened - 1 - i];
        struct connection *poll = &polls[opened - 1 - i];
        long long start = now_nanoseconds();
        publish_and_await(target, device, publisher, poll, ++*number);
        fprintf(out, "%.0f\n", (now_nanoseconds() - start) / 1e3);
        send_poll(target, device, poll->fd); /* waiting again, as all the others */
        usleep(2000);                        /* one message at a time, as the latency mode */
    }
    fclose(out);
}

static void hold(const struct target *target, struct device *devices, int count) {
    struct rlimit limit;
    getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    struct connection *polls = calloc(count, sizeof *polls);
    for (int i = 0; i < count; i++) {
        polls[i].fd = connect_to(target->host, target->port);
        send_poll(target, &devices[i], polls[i].fd);
    }
    struct connection publisher = {.fd = connect_to(target->host, target->port)};
    printf("ready %d\n", count);
    fflush(stdout);
    char line[1024], file[1000];
    int closed = 0, amount;
    long number = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "probe %d %999s", &amount, file) == 2) {
            probe(target, devices, polls, count, amount, file, &publisher, &number);
            printf("probed %d\n", amount);
        } else if (sscanf(line, "drop %d", &amount) == 1) {
            for (int i = 0; i < amount && closed < count; i++) close(polls[closed++].fd);
            printf("dropped %d\n", amount);
        }
        fflush(stdout);
    }
}

/* The delivery run's tallies. "Window" counts only what happened between "measuring" and "measured". */
struct tally {
    long accepted, accepted_window, delivered, delivered_window, refused, duplicates;
    unsigned char *seen;            /* one bit per message number */
    double *latencies;              /* microseconds, of messages first received within the window */
    long latency_count, latency_capacity;
};

static void received(struct tally *tally, long number, long long sent, long long now, int in_window) {
    if (number <= 0 || number >= MESSAGES_MAX) {
        fprintf(stderr, "a message numbered %ld\n", number);
        exit(1);
    }
    if (tally->seen[number / 8] & (1 << number % 8)) {
        tally->duplicates++;
        return;
    }
    tally->seen[number / 8] |= 1 << number % 8;
    tally->delivered++;
    if (!in_window) return;
    tally->delivered_window++;
    if (tally->latency_count == tally->latency_capacity)
        tally->latencies = realloc(tally->latencies, (tally->latency_capacity = 2 * tally->latency_capacity + 1024) *
                                                         sizeof *tally->latencies);
    tally->latencies[tally->latency_count++] = (now - sent) / 1e3;
}

/* A delivery run's connection: a sender's (device NULL) or a device's long-poll. */
struct peer {
    struct connection connection;
    struct device *device;
};

static void delivery(const struct target *target, struct device *devices, int count, int senders, double warmup,
                     double seconds, const char *latency_file) {
    static struct response response;
    struct tally tally = {.seen = calloc(MESSAGES_MAX / 8, 1)};
    int epoll = epoll_create1(0);
    struct peer *peers = calloc(count + senders, sizeof *peers);
    for (int i = 0; i < count + senders; i++) {
        peers[i].connection.fd = connect_to(target->host, target->port);
        peers[i].device = i < count ? &devices[i] : NULL;
        struct epoll_event event = {.events = EPOLLIN, .data.ptr = &peers[i]};
        if (epoll_ctl(epoll, EPOLL_CTL_ADD, peers[i].connection.fd, &event) < 0) die("epoll_ctl");
    }
    for (int i = 0; i < count; i++) send_poll(target, &devices[i], peers[i].connection.fd);
    long number = 0;
    for (int i = count; i < count + senders; i++) {
        ++number;
        send_message(target, &devices[number % count], peers[i].connection.fd, number);
    }
    long long start = now_nanoseconds(), measuring = start + (long long)(warmup * 1e9),
              measured = measuring + (long long)(seconds * 1e9), deadline = measured + DRAIN_SECONDS * 1000000000LL;
    int sending = senders, phase = 0; /* 0 warming up, 1 measuring, 2 draining */
    for (;;) {
        long long now = now_nanoseconds();
        if (phase == 0 && now >= measuring) {
            phase = 1;
            printf("measuring\n");
            fflush(stdout);
        }
        if (phase == 1 && now >= measured) {
            phase = 2;
            printf("measured\n");
            fflush(stdout);
        }
        if (phase == 2 && ((sending == 0 && tally.delivered >= tally.accepted) || now >= deadline)) break;
        long long until = phase == 0 ? measuring : phase == 1 ? measured : deadline;
        struct epoll_event events[256];
        int ready = epoll_wait(epoll, events, 256, (int)((until - now) / 1000000 + 1));
        if (ready < 0) die("epoll_wait");
        for (int e = 0; e < ready; e++) {
            struct peer *peer = events[e].data.ptr;
            if (fill(&peer->connection) < 0) die("recv (the server closed a connection)");
            while (take_response(&peer->connection, &response)) {
                now = now_nanoseconds();
                int in_window = now >= measuring && now < measured;
                if (peer->device) {
                    if (advance(target, peer->device, &response)) {
                        const char *at = response.body;
                        long received_number;
                        long long sent;
                        while (next_message(&at, &received_number, &sent))
                            received(&tally, received_number, sent, now, in_window);
                    }
                    send_poll(target, peer->device, peer->connection.fd);
                    continue;
                }
                if (response.status / 100 == 2) {
                    tally.accepted++;
                    tally.accepted_window += in_window;
                } else if (response.status == 429) {
                    tally.refused++;
                } else {
                    fail("a send", response.status, response.body);
                }
                if (phase == 2 || now >= measured) {
                    sending--;
                } else {
                    ++number;
                    send_message(target, &devices[number % count], peer->connection.fd, number);
                }
            }
        }
    }
    FILE *out = fopen(latency_file, "w");
    if (!out) die(latency_file);
    for (long i = 0; i < tally.latency_count; i++) fprintf(out, "%.0f\n", tally.latencies[i]);
    fclose(out);
    long cursor_ahead = 0;
    for (int i = 0; i < count; i++) cursor_ahead += devices[i].cursor_ahead;
    printf("accepted_per_s=%.0f delivered_per_s=%.0f delivered=%ld lost=%ld refused=%ld duplicates=%ld "
           "cursor_ahead=%ld\n",
           tally.accepted_window / seconds, tally.delivered_window / seconds, tally.delivered_window,
           tally.accepted - tally.delivered, tally.refused, tally.duplicates, cursor_ahead);
}

static void usage(void) {
    fprintf(stderr, "usage: see the comment at the top of loadgen.c\n");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 6) usage();
    struct target target = {.kind = argv[2], .host = argv[3], .port = atoi(argv[4])};
    int relay = is_relay(&target), count;
    if (strcmp(argv[1], "latency") == 0 && relay && argc == 10) {
        target.key = argv[6];
        struct device device = {.token = argv[7], .id = argv[8], .secret = argv[9]};
        latency(&target, &device, atoi(argv[5]));
    } else if (strcmp(argv[1], "latency") == 0 && !relay && argc == 7) {
        struct device device = {0};
        snprintf(device.channel, sizeof device.channel, "%s", argv[6]);
        latency(&target, &device, atoi(argv[5]));
    } else if (strcmp(argv[1], "hold") == 0 && argc == (relay ? 7 : 6)) {
        if (relay) target.key = argv[5];
        struct device *devices = load_devices(&target, argv[argc - 1], "hold", &count);
        hold(&target, devices, count);
    } else if (strcmp(argv[1], "delivery") == 0 && argc == 11) {
        if (relay) target.key = argv[9];
        struct device *devices = load_devices(&target, argv[10], argv[9], &count);
        if (count == 0) usage();
        delivery(&target, devices, count, atoi(argv[5]), atof(argv[6]), atof(argv[7]), argv[8]);
    } else {
        usage();
    }
    return 0;
}
