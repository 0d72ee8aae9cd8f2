// A thin shim over sd-bus for pushagent's UnifiedPush distributor (the D-Bus spec DBUS_0.3.0): it owns the
// distributor's name, parses the apps' Register/Unregister calls (Distributor1 and Distributor2), answers them when
// Swift says so, and calls the apps' Connector1/Connector2 methods without waiting on the bus thread. Typed, because
// sd-bus builds and reads messages through variadic functions Swift cannot call. One bus object is used from one
// thread; the messages handed to Swift are sd_bus_message pointers, replied to and released on that thread too.
#ifndef PUSHAGENT_UNIFIEDPUSH_BUS_H
#define PUSHAGENT_UNIFIEDPUSH_BUS_H

#include <stddef.h>
#include <stdint.h>

typedef struct up_bus up_bus;
typedef struct sd_bus sd_bus;

// What an app asked the distributor.
enum { UP_BUS_REGISTER = 1, UP_BUS_UNREGISTER = 2 };
// What the distributor tells an app.
enum { UP_BUS_CONNECTOR_MESSAGE = 1, UP_BUS_CONNECTOR_NEW_ENDPOINT = 2, UP_BUS_CONNECTOR_UNREGISTERED = 3 };

// One Register or Unregister call, its arguments read (NULL: absent; v1 always has a description, maybe empty).
// The strings live as long as `message`, which is borrowed: up_bus_message_ref keeps it for a later reply.
typedef struct up_bus_call {
    int method;
    int version;
    const char *service;
    const char *token;
    const char *description;
    const char *vapid;
    const char *sender;
    void *message;
} up_bus_call;

// Called from session_bus_run_once for each well-formed call. Returns 0 when Swift took the call (it replies later),
// or a negative value with a reason written to `error`: the caller then gets org.freedesktop.DBus.Error.InvalidArgs.
typedef int (*up_bus_call_fn)(void *context, const up_bus_call *call, char *error, size_t error_size);
// Called from session_bus_run_once when a connector call started by up_bus_call_connector ends: an error (its D-Bus
// name and text, also the bus's own for a timeout or a lost connection) or NULL for a method return;
// `acknowledged_id` is the "id" a Connector2 Message reply carried (NULL when it had none).
typedef void (*up_bus_reply_fn)(void *context, uint64_t request, const char *error_name, const char *error_message,
                                const char *acknowledged_id);

// Connects to `address` (NULL: the user's session bus, $DBUS_SESSION_BUS_ADDRESS else $XDG_RUNTIME_DIR/bus), serves
// /org/unifiedpush/Distributor and takes `name`. -EEXIST when another connection owns the name (`error` says which).
int up_bus_open(up_bus **out, const char *address, const char *name, up_bus_call_fn on_call, up_bus_reply_fn on_reply,
                void *context, char *error, size_t error_size);
void up_bus_close(up_bus *bus);

// The connection, for CSessionBusLoop's session_bus_run_once on the bus's thread: calls, connector replies and their
// timeouts reach on_call and on_reply from there.
sd_bus *up_bus_connection(up_bus *bus);

void *up_bus_message_ref(void *message);
void up_bus_message_unref(void *message);
// The answers to a kept call. failure_reason NULL: REGISTRATION_SUCCEEDED. A caller that asked for no reply gets none.
int up_bus_reply_register(void *message, int version, const char *failure_reason);
int up_bus_reply_unregister(void *message, int version);
int up_bus_reply_error(void *message, const char *name, const char *text);

// Calls the app's Connector<version> method at `service` (D-Bus-activating it when it is not running) and returns
// at once; the outcome comes to on_reply with `request`. `body`/`id` are for Message, `endpoint` for NewEndpoint.
int up_bus_call_connector(up_bus *bus, uint64_t request, const char *service, int version, int method,
                          const char *token, const uint8_t *body, size_t body_size, const char *id,
                          const char *endpoint, uint64_t timeout_usec, char *error, size_t error_size);

// The bus daemon's NameHasOwner and whether ListActivatableNames holds `name` (synchronous: it answers at once).
int up_bus_name_has_owner(up_bus *bus, const char *name, int *has_owner, char *error, size_t error_size);
int up_bus_is_activatable(up_bus *bus, const char *name, int *activatable, char *error, size_t error_size);

#endif
