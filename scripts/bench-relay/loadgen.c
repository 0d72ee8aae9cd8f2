/*
 * The load generator of `make bench-relay`: the same client for pushrelay and for nchan, so that their figures
 * differ only by the server. Plain blocking sockets and HTTP/1.1 keep-alive; no library.
 *
 *   loadgen latency relay HOST PORT COUNT SENDER_KEY TOKEN DEVICE_ID DEVICE_SECRET
 *   loadgen latency nchan HOST PORT COUNT CHANNEL
 *       COUNT messages, one at a time, each published while a long-poll waits for it; prints each delivery
 *       latency (publish sent -> long-poll answer read) in microseconds, one per line.
 *   loadgen hold relay HOST PORT CREDENTIALS_FILE      (lines "DEVICE_ID SECRET")
 *   loadgen hold nchan HOST PORT COUNT
 *       opens one waiting long-poll per device or channel, prints "ready N", then on each stdin line
 *       "drop K" closes K of them (printing "dropped K"); exits at end of input.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what) {
    perror(what);
    exit(1);
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

/* One HTTP response: status, the two headers nchan's long-poll protocol needs, and the body. */
struct response {
    int status;
    char last_modified[64], etag[64];
    char body[65536];
};

static char pending[65536];
static size_t pending_length;

static int fill(int fd) {
    ssize_t got = recv(fd, pending + pending_length, sizeof pending - pending_length, 0);
    if (got <= 0) return -1;
    pending_length += got;
    return 0;
}

static void consume(size_t count) {
    memmove(pending, pending + count, pending_length - count);
    pending_length -= count;
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

/* Reads one response from fd (a connection used by one request at a time), Content-Length or chunked. */
static void read_response(int fd, struct response *response) {
    char *end;
    pending_length = 0;
    while (!(end = memmem(pending, pending_length, "\r\n\r\n", 4)))
        if (fill(fd) < 0) die("recv (head)");
    size_t head_length = end - pending + 4;
    char head[8192];
    size_t copied = head_length < sizeof head ? head_length : sizeof head - 1;
    memcpy(head, pending, copied);
    head[copied] = 0;
    response->status = atoi(head + 9);
    header_value(head, "\r\nLast-Modified:", response->last_modified, sizeof response->last_modified);
    header_value(head, "\r\nEtag:", response->etag, sizeof response->etag);
    char length_text[32];
    header_value(head, "\r\nContent-Length:", length_text, sizeof length_text);
    consume(head_length);
    size_t body_length = 0;
    if (length_text[0]) {
        size_t length = strtoul(length_text, NULL, 10);
        while (pending_length < length)
            if (fill(fd) < 0) die("recv (body)");
        body_length = length < sizeof response->body ? length : sizeof response->body - 1;
        memcpy(response->body, pending, body_length);
    } else {
        for (;;) {
            char *line_end;
            while (!(line_end = memmem(pending, pending_length, "\r\n", 2)))
                if (fill(fd) < 0) die("recv (chunk)");
            size_t size = strtoul(pending, NULL, 16);
            size_t needed = (line_end - pending) + 2 + size + 2;
            while (pending_length < needed)
                if (fill(fd) < 0) die("recv (chunk)");
            if (size == 0) break;
            if (body_length + size < sizeof response->body) memcpy(response->body + body_length, line_end + 2, size);
            body_length += size;
            consume(needed);
        }
    }
    response->body[body_length < sizeof response->body ? body_length : sizeof response->body - 1] = 0;
}

static double now_microseconds(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return time.tv_sec * 1e6 + time.tv_nsec / 1e3;
}

struct target {
    const char *kind, *host;
    int port;
    const char *key, *token, *device_id, *secret, *channel;
};

/* Relay polls wait the longest the relay allows, 60 s, as nchan's subscriber timeout here. */
static int poll_request(const struct target *target, char *out, size_t size, long cursor, const struct response *last) {
    if (strcmp(target->kind, "relay") == 0)
        return snprintf(out, size,
                        "GET /v1/devices/%s/messages?after=%ld&wait=60 HTTP/1.1\r\nHost: bench\r\n"
                        "Authorization: Bearer %s\r\n\r\n",
                        target->device_id, cursor, target->secret);
    char validators[256] = "";
    if (last && last->last_modified[0])
        snprintf(validators, sizeof validators, "If-Modified-Since: %s\r\nIf-None-Match: %s\r\n", last->last_modified,
                 last->etag);
    return snprintf(out, size, "GET /sub?id=%s HTTP/1.1\r\nHost: bench\r\n%s\r\n", target->channel, validators);
}

static int publish_request(const struct target *target, char *out, size_t size, int number) {
    char body[512];
    if (strcmp(target->kind, "relay") == 0) {
        int length = snprintf(body, sizeof body, "{\"message\":{\"token\":\"%s\",\"data\":{\"n\":\"%d\"}}}",
                              target->token, number);
        return snprintf(out, size,
                        "POST /v1/projects/bench/messages:send HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer %s\r\n"
                        "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
                        target->key, length, body);
    }
    int length = snprintf(body, sizeof body, "{\"n\":\"%d\"}", number);
    return snprintf(out, size,
                    "POST /pub?id=%s HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                    "Content-Length: %d\r\n\r\n%s",
                    target->channel, length, body);
}

static void latency(const struct target *target, int count) {
    int subscriber = connect_to(target->host, target->port), publisher = connect_to(target->host, target->port);
    static struct response answer, published;
    char request[2048];
    long cursor = 0;
    int has_answer = 0;
    for (int number = 1; number <= count; number++) {
        int length = poll_request(target, request, sizeof request, cursor, has_answer ? &answer : NULL);
        send_all(subscriber, request, length);
        usleep(2000); /* the long-poll is waiting when the message is published */
        length = publish_request(target, request, sizeof request, number);
        double start = now_microseconds();
        send_all(publisher, request, length);
        read_response(publisher, &published);
        if (published.status / 100 != 2) {
            fprintf(stderr, "publish answered %d: %s\n", published.status, published.body);
            exit(1);
        }
        read_response(subscriber, &answer);
        double latency = now_microseconds() - start;
        has_answer = 1;
        if (answer.status != 200 || !strstr(answer.body, "\"n\"")) {
            fprintf(stderr, "long-poll answered %d without the message: %s\n", answer.status, answer.body);
            exit(1);
        }
        const char *next = strstr(answer.body, "\"next\":");
        if (next) cursor = strtol(next + 7, NULL, 10);
        printf("%.0f\n", latency);
    }
}

static void hold(const struct target *target, const char *credentials, int count) {
    struct rlimit limit;
    getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    int capacity = 1024, opened = 0;
    int *sockets = malloc(capacity * sizeof *sockets);
    FILE *file = credentials ? fopen(credentials, "r") : NULL;
    if (credentials && !file) die(credentials);
    char id[128], secret[128], channel[64], request[1024];
    for (;;) {
        struct target one = *target;
        if (file) {
            if (fscanf(file, "%127s %127s", id, secret) != 2) break;
            one.device_id = id;
            one.secret = secret;
        } else {
            if (opened == count) break;
            snprintf(channel, sizeof channel, "hold%d", opened);
            one.channel = channel;
        }
        if (opened == capacity) sockets = realloc(sockets, (capacity *= 2) * sizeof *sockets);
        sockets[opened] = connect_to(target->host, target->port);
        send_all(sockets[opened], request, poll_request(&one, request, sizeof request, 0, NULL));
        opened++;
    }
    printf("ready %d\n", opened);
    fflush(stdout);
    char line[64];
    int closed = 0;
    while (fgets(line, sizeof line, stdin)) {
        int drop = 0;
        if (sscanf(line, "drop %d", &drop) != 1) continue;
        for (int i = 0; i < drop && closed < opened; i++) close(sockets[closed++]);
        printf("dropped %d\n", drop);
        fflush(stdout);
    }
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: see the comment at the top of loadgen.c\n");
        return 2;
    }
    struct target target = {.kind = argv[2], .host = argv[3], .port = atoi(argv[4])};
    int relay = strcmp(target.kind, "relay") == 0;
    if (strcmp(argv[1], "latency") == 0 && relay && argc == 10) {
        target.key = argv[6], target.token = argv[7], target.device_id = argv[8], target.secret = argv[9];
        latency(&target, atoi(argv[5]));
    } else if (strcmp(argv[1], "latency") == 0 && !relay && argc == 7) {
        target.channel = argv[6];
        latency(&target, atoi(argv[5]));
    } else if (strcmp(argv[1], "hold") == 0 && argc == 6) {
        hold(&target, relay ? argv[5] : NULL, relay ? 0 : atoi(argv[5]));
    } else {
        fprintf(stderr, "usage: see the comment at the top of loadgen.c\n");
        return 2;
    }
    return 0;
}
