// The turn of an sd-bus connection's thread, the same for every shim over sd-bus (CNotifyBus, CUnifiedPushBus):
// process what arrived, then sleep until the bus has more, its next timeout is due, or another thread queued work
// and wrote to the wake eventfd. One connection is used from one thread; the wake fd is written from any.
#ifndef PUSHAGENT_SESSION_BUS_LOOP_H
#define PUSHAGENT_SESSION_BUS_LOOP_H

#include <stdint.h>

// sd-bus's own type (systemd/sd-bus.h), declared here so that Swift need not import sd-bus's variadic API.
typedef struct sd_bus sd_bus;

// Processes what has arrived (the shim's callbacks run from here: signals, calls, replies, timeouts), then waits up to
// timeout_usec for more or for `wake_fd` to become readable (it is then drained). Returns a negative errno when the
// connection is lost.
int session_bus_run_once(sd_bus *bus, int wake_fd, uint64_t timeout_usec);

// The eventfd a caller writes to (session_bus_wake) so session_bus_run_once returns and takes up queued work.
int session_bus_wake_fd_new(void);
void session_bus_wake(int wake_fd);
void session_bus_wake_fd_free(int wake_fd);

#endif
