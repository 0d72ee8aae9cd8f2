#include "session_bus_loop.h"

#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

int session_bus_run_once(sd_bus *bus, int wake_fd, uint64_t timeout_usec) {
    int r;
    while ((r = sd_bus_process(bus, NULL)) > 0) {}
    if (r < 0) return r;
    struct pollfd fds[2] = {
        {.fd = sd_bus_get_fd(bus), .events = (short)sd_bus_get_events(bus)},
        {.fd = wake_fd, .events = POLLIN},
    };
    // sd_bus_get_timeout gives an absolute CLOCK_MONOTONIC deadline (a pending call's: a
    // Notify, a connector call); poll wants a wait.
    uint64_t deadline = UINT64_MAX;
    if (sd_bus_get_timeout(bus, &deadline) >= 0 && deadline != UINT64_MAX) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t now = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
        uint64_t relative = deadline > now ? deadline - now : 0;
        if (relative < timeout_usec) timeout_usec = relative;
    }
    int wait_ms = (int)((timeout_usec + 999) / 1000);
    if (poll(fds, wake_fd >= 0 ? 2 : 1, wait_ms) < 0 && errno != EINTR) return -errno;
    if (wake_fd >= 0 && (fds[1].revents & POLLIN)) {
        uint64_t drained;
        (void)!read(wake_fd, &drained, sizeof drained);
    }
    return 0;
}

int session_bus_wake_fd_new(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

void session_bus_wake(int wake_fd) {
    uint64_t one = 1;
    (void)!write(wake_fd, &one, sizeof one);
}

void session_bus_wake_fd_free(int wake_fd) { close(wake_fd); }
