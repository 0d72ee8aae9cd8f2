// A thin shim over sd-bus for the desktop notifier: the freedesktop Notifications calls and signals, typed, because
// sd-bus builds messages through variadic functions Swift cannot call. One bus object is used from one thread.
#ifndef PUSHAGENT_NOTIFY_BUS_H
#define PUSHAGENT_NOTIFY_BUS_H

#include <stddef.h>
#include <stdint.h>

typedef struct notify_bus notify_bus;
typedef struct sd_bus sd_bus;

// Kinds passed to the signal callback.
enum { NOTIFY_BUS_ACTION_INVOKED = 1, NOTIFY_BUS_NOTIFICATION_CLOSED = 2, NOTIFY_BUS_SERVER_CHANGED = 3 };

// Called from session_bus_run_once for each signal: `text` is the action for ActionInvoked and the new server's unique
// name (NULL: none is left) for SERVER_CHANGED (NameOwnerChanged of org.freedesktop.Notifications); `reason` is set
// for NotificationClosed. ActionInvoked and NotificationClosed are passed on only from the server owning the name.
typedef void (*notify_bus_signal_fn)(void *context, int kind, uint32_t id, const char *text, uint32_t reason);

// Connects to the user's session bus ($DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus) and subscribes to the
// notification server's signals. Returns a negative errno on failure.
int notify_bus_open(notify_bus **out, notify_bus_signal_fn on_signal, void *context);
void notify_bus_close(notify_bus *bus);

// org.freedesktop.Notifications.Notify. `actions` holds key, label pairs flattened (2 * action_count strings).
// `server_out`: the unique name of the server that answered (its ids are its own), to free() by the caller.
// urgency: 0 low, 1 normal, 2 critical; resident/transient: booleans sent as hints when non-zero.
int notify_bus_notify(notify_bus *bus, const char *app_name, uint32_t replaces_id, const char *icon,
                      const char *summary, const char *body, const char *const *actions, size_t action_count,
                      uint8_t urgency, int resident, int transient, int32_t expire_timeout_ms,
                      uint32_t *id_out, char **server_out, char *error, size_t error_size);
// CloseNotification, sent to `server` (a unique name): the id is that server's, and a server that has gone since
// must not close another's notification of the same id.
int notify_bus_close_notification(notify_bus *bus, const char *server, uint32_t id, char *error, size_t error_size);
// The unique name of the server owning org.freedesktop.Notifications now, or NULL; valid until the next
// session_bus_run_once.
const char *notify_bus_server(notify_bus *bus);
// GetCapabilities: a NULL-terminated array of strings, each and the array freed with free().
int notify_bus_capabilities(notify_bus *bus, char ***out, char *error, size_t error_size);

// The connection, for CSessionBusLoop's session_bus_run_once on the bus's thread: signals are dispatched to
// `on_signal` from there.
sd_bus *notify_bus_connection(notify_bus *bus);

#endif
